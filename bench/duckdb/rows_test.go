package duckdbh

import (
	"context"
	"errors"
	"math/big"
	"reflect"
	"testing"

	"github.com/duckdb/duckdb-go/v2"
)

// TestQueryRawKeepsDriverValues: QueryRawContext hands back the driver's
// values untouched, with the names and DuckDB type names of the columns.
func TestQueryRawKeepsDriverValues(t *testing.T) {
	db := openDB(t, 1)
	rows, names, types, err := db.QueryRawContext(context.Background(),
		"SELECT 7::BIGINT AS n, 'x' AS s, 1.50::DECIMAL(4,2) AS d, NULL::INTEGER AS z")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"n", "s", "d", "z"}; !reflect.DeepEqual(names, want) {
		t.Errorf("names %v, want %v", names, want)
	}
	if want := []string{"BIGINT", "VARCHAR", "DECIMAL(4,2)", "INTEGER"}; !reflect.DeepEqual(types, want) {
		t.Errorf("types %v, want %v", types, want)
	}
	want := [][]any{{int64(7), "x", duckdb.Decimal{Width: 4, Scale: 2, Value: big.NewInt(150)}, nil}}
	if !reflect.DeepEqual(rows, want) {
		t.Errorf("rows %#v, want %#v", rows, want)
	}
}

func TestQueryRawErrors(t *testing.T) {
	db := openDB(t, 1)
	if _, _, _, err := db.QueryRawContext(context.Background(), "SELECT * FROM no_such_table"); err == nil {
		t.Error("query of a missing table: no error")
	}
	var closed *DB
	if _, _, _, err := closed.QueryRawContext(context.Background(), "SELECT 1"); !errors.Is(err, errClosed) {
		t.Errorf("nil DB: err %v, want %v", err, errClosed)
	}
}
