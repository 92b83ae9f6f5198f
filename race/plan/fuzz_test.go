package plan

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// fuzzMax caps fuzz inputs; the importers' own limits are far larger, so
// this only keeps iterations fast.
const fuzzMax = 1 << 16

func FuzzImportSpark(f *testing.F) {
	for _, name := range []string{"testdata/small.explain.txt", "testdata/tpch-q3.explain.txt"} {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(data))
	}
	f.Add("== Physical Plan ==\nA (1)\n+- B (2)\n\n\n(1) A\nOutput [1]: [a#1]\n")
	f.Add("== Physical Plan ==\n* Filter (1)\n\n(1) Filter\nCondition : ((a#1 = x) AND")
	f.Add(partitionedPlan)
	f.Add("== Physical Plan ==\nBroadcastHashJoin LeftAnti BuildRight (3)\n:- A (1)\n+- BroadcastExchange (2)\n\n\n(1) A\nOutput [1]: [a#1]\n\n" +
		"(2) BroadcastExchange\nInput [1]: [b#2]\nArguments: HashedRelationBroadcastMode(List(input[0, int, true]),true), [plan_id=1]\n\n" +
		"(3) BroadcastHashJoin\nLeft keys [1]: [a#1]\nRight keys [1]: [b#2]\nJoin type: LeftAnti\nJoin condition: None\n\n" +
		"===== Subqueries =====\n\nSubquery:1 Hosting operator id = 1 Hosting Expression = Subquery scalar-subquery#5, [id=#6]\nA (4)\n\n\n(4) A\nOutput [1]: [c#7]\n\n" +
		"Subquery:2 Hosting operator id = 1 Hosting Expression = ReusedSubquery Subquery scalar-subquery#5, [id=#6]\n")
	f.Fuzz(func(t *testing.T, text string) {
		if len(text) > fuzzMax {
			return
		}
		p, err := ParseSparkText("fuzz", text)
		if err != nil {
			return
		}
		// Whatever imports must encode and decode.
		roundTrip(t, p)
	})
}

func FuzzDecodeJSON(f *testing.F) {
	data, err := os.ReadFile("testdata/small.explain.txt")
	if err != nil {
		f.Fatal(err)
	}
	p, err := ParseSparkText("seed", string(data))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(marshal(f, p)))
	f.Add(`{"version":1,"root":{"id":1,"op":"Filter"}}`)
	f.Add(`{"version":1,"root":{"id":1,"op":"Filter","filter":{"condition":{"kind":"call","type":"decimal(38,2)","args":[]}}}}`)
	f.Fuzz(func(t *testing.T, in string) {
		if len(in) > fuzzMax {
			return
		}
		p, err := DecodeJSON(strings.NewReader(in))
		if err != nil {
			return
		}
		// Anything decoded can be walked, printed and re-encoded.
		_ = p.Walk(func(n *Node) error {
			n.Exprs(func(e *Expr) { _ = e.String() })
			return nil
		})
		if _, err := DecodeJSON(bytes.NewReader(marshal(t, p))); err != nil {
			t.Fatalf("re-decode: %v", err)
		}
	})
}

func FuzzParseExpr(f *testing.F) {
	for _, s := range []string{
		"(c_mktsegment#2 = BUILDING)", "CASE WHEN (x#1 > 0.00) THEN y#3 ELSE null END",
		"x#1 INSET 1, 2, 3", "cast(x#1 as decimal(10,2))", "Subquery scalar-subquery#2, [id=#3].count(1)",
		"sum(x#1) windowspecdefinition(y#3 ASC NULLS FIRST, specifiedwindowframe(RowFrame, unboundedpreceding$(), currentrow$())) AS w#9",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > fuzzMax {
			return
		}
		e, err := parseExpr(s, exprIndex)
		if err != nil {
			return
		}
		_ = e.String()
	})
}
