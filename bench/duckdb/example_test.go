package duckdbh_test

import (
	"fmt"
	"log"

	duckdbh "github.com/hados-io/hados/bench/duckdb"
)

// Values come back normalised: decimals as strings at their scale, dates as
// yyyy-mm-dd, integers (HUGEINT sums included) as int64.
func Example() {
	db, err := duckdbh.Open(1)
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	rows, cols, err := db.QueryRows(`SELECT 12.5::decimal(15,2) AS price, date '1998-09-02' AS day, sum(x) AS n
		FROM (VALUES (1::bigint), (2::bigint)) v(x)`)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(cols)
	fmt.Printf("%q %q %d\n", rows[0][0], rows[0][1], rows[0][2])
	// Output:
	// [price day n]
	// "12.50" "1998-09-02" 3
}
