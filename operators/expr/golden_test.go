package expr

import (
	"flag"
	"fmt"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hados-io/hados/operators/types"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// formatValue prints an evaluator value of type t for golden files.
func formatGolden(v any, t types.DataType) string {
	if v == nil {
		return "NULL"
	}
	switch t.Kind {
	case types.Decimal:
		return FormatDecimal(v.(*big.Int), t.Scale)
	case types.Double:
		return FormatDouble(v.(float64))
	case types.Date:
		return FormatSparkDate(v.(int32))
	case types.Timestamp:
		return FormatSparkTimestamp(v.(int64))
	case types.String:
		return fmt.Sprintf("%q", v)
	}
	return fmt.Sprint(v)
}

// TestGoldenRandom evaluates a fixed set of random trees over a fixed
// random batch and compares every result with testdata/random_eval.golden,
// so that any change in semantics (or in the generators) shows up as a
// reviewable diff. Regenerate with: go test ./operators/expr -run Golden -update
func TestGoldenRandom(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rng := rand.New(rand.NewPCG(2026, 11))
	schema := RandomSchema(rng, 6)
	rec := RandomRecord(rng, schema, 6, 0.15, mem)
	defer rec.Release()
	var b strings.Builder
	fmt.Fprintf(&b, "schema: %s\n", strings.ReplaceAll(schema.String(), "\n", " "))
	for c, f := range schema.Fields() {
		typ, _ := types.FromArrow(f.Type)
		var vals []string
		for r := 0; r < int(rec.NumRows()); r++ {
			vals = append(vals, formatGolden(ValueAt(rec.Column(c), r), typ))
		}
		fmt.Fprintf(&b, "input %s: %s\n", f.Name, strings.Join(vals, " | "))
	}
	for k := 0; k < 40; k++ {
		e := RandomExpr(rng, schema, 1+k%4, types.Unknown)
		out, err := Eval(e, rec, mem)
		if err != nil {
			t.Fatalf("Eval(%s): %v", e, err)
		}
		var vals []string
		for r := 0; r < out.Len(); r++ {
			vals = append(vals, formatGolden(ValueAt(out, r), e.Type))
		}
		out.Release()
		fmt.Fprintf(&b, "\n%s :: %s\n  = %s\n", e, e.Type, strings.Join(vals, " | "))
	}
	path := filepath.Join("testdata", "random_eval.golden")
	if *update {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got := b.String(); got != string(want) {
		t.Errorf("results differ from %s (run with -update after checking the diff):\n%s", path, firstDiff(got, string(want)))
	}
}

// firstDiff shows the first differing line of two texts.
func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < max(len(g), len(w)); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return fmt.Sprintf("line %d:\n got: %s\nwant: %s", i+1, gl, wl)
		}
	}
	return ""
}
