package types_test

import (
	"fmt"

	"github.com/hados-io/hados/operators/types"
)

func Example() {
	price, _ := types.Parse("decimal(7,2)")
	qty, _ := types.Parse("IntegerType")
	line, _ := types.Arithmetic("*", qty, price)
	total, _ := types.Aggregate("sum", line)
	buf, _ := types.AggregateBuffer("sum", line)
	arrowType, _ := types.ToArrow(total)
	fmt.Println(line, total, buf, arrowType)
	// Output: decimal(18,2) decimal(28,2) [decimal(28,2) boolean] decimal(28, 2)
}
