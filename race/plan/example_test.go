package plan_test

import (
	"fmt"
	"strings"

	"github.com/hados-io/hados/race/plan"
)

func Example() {
	text := `== Physical Plan ==
* Filter (2)
+- Scan parquet default.customer (1)


(1) Scan parquet default.customer
Output [2]: [c_custkey#1, c_mktsegment#2]
ReadSchema: struct<c_custkey:bigint,c_mktsegment:string>

(2) Filter [codegen id : 1]
Input [2]: [c_custkey#1, c_mktsegment#2]
Condition : (isnotnull(c_mktsegment#2) AND (c_mktsegment#2 = BUILDING))
`
	p, err := plan.ImportSpark("example", strings.NewReader(text))
	if err != nil {
		fmt.Println(err)
		return
	}
	cond := p.Root.Filter.Condition
	lit := cond.Args[1].Args[1]
	fmt.Println(cond)
	fmt.Printf("%s literal %q\n", lit.Type, lit.Lit.Str)
	fmt.Println(p.Root.Output[0].Name, p.Root.Output[0].Type)
	// Output:
	// (isnotnull(c_mktsegment#2) AND (c_mktsegment#2 = BUILDING))
	// string literal "BUILDING"
	// c_custkey bigint
}
