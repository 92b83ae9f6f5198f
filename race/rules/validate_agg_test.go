package rules

import (
	"strings"
	"testing"

	"github.com/hados-io/hados/race/plan"
)

// TestMixedAggModes: Spark's distinct rewrite can merge buffers and update
// a distinct function in one operator; one device aggregation does one or
// the other, so the operator falls back rather than run one mode for both.
func TestMixedAggModes(t *testing.T) {
	text := `== Physical Plan ==
HashAggregate (3)
+- * ColumnarToRow (2)
   +- Scan parquet default.t (1)


(1) Scan parquet default.t
Output [3]: [k#1, b#2, count#3]
Batched: true
ReadSchema: struct<k:int,b:int,count:bigint>

(2) ColumnarToRow [codegen id : 1]
Input [3]: [k#1, b#2, count#3]

(3) HashAggregate
Input [3]: [k#1, b#2, count#3]
Keys [1]: [k#1]
Functions [2]: [merge_count(1), partial_count(distinct b#2)]
Aggregate Attributes [2]: [count#4, count#5]
Results [3]: [k#1, count#6, count#7]
`
	p, err := plan.ImportSpark("mixed", strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	r := run(t, p, DefaultOptions())
	if n := node(r, 3); n.Support.OK || n.Support.Reason != ReasonAggregate || !strings.Contains(n.Support.Detail, "mixes update and merge") {
		t.Fatalf("verdict %v: want %s (mixes update and merge modes)", n.Support, ReasonAggregate)
	}
}
