package expr

import (
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hados-io/hados/operators/types"
)

// checkRandom builds a random schema, record and expressions from seed,
// and checks that every expression validates and evaluates to a column of
// its type and the record's length, with all memory released. It reports
// the ops it used.
func checkRandom(t testing.TB, seed uint64, exprs int, seen map[Op]int) {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	schema := RandomSchema(rng, 1+rng.IntN(6))
	rec := RandomRecord(rng, schema, 1+rng.IntN(24), 0.2, mem)
	defer rec.Release()
	for k := 0; k < exprs; k++ {
		e := RandomExpr(rng, schema, 1+rng.IntN(5), types.Unknown)
		if err := Validate(e, schema); err != nil {
			t.Fatalf("seed %d: RandomExpr made an invalid tree %s: %v", seed, e, err)
		}
		out, err := Eval(e, rec, mem)
		if err != nil {
			t.Fatalf("seed %d: Eval(%s): %v", seed, e, err)
		}
		want, _ := types.ToArrow(e.Type)
		if out.Len() != int(rec.NumRows()) || !arrow.TypeEqual(out.DataType(), want) {
			t.Fatalf("seed %d: Eval(%s): %d rows of %s, want %d of %s", seed, e, out.Len(), out.DataType(), rec.NumRows(), want)
		}
		out.Release()
		if seen != nil {
			_ = e.Walk(func(x *Expr) error { seen[x.Op]++; return nil })
		}
	}
}

func TestRandomExprsValidateAndEval(t *testing.T) {
	seeds := 300
	if testing.Short() {
		seeds = 50
	}
	seen := map[Op]int{}
	for seed := 0; seed < seeds; seed++ {
		checkRandom(t, uint64(seed), 8, seen)
	}
	for _, op := range Ops() {
		if seen[op] == 0 {
			t.Errorf("RandomExpr never produced %s over %d seeds", op, seeds)
		}
	}
}

func TestRandomExprWantedType(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	schema := RandomSchema(rng, 4)
	for _, want := range []types.DataType{tBool, tInt, tLong, tDbl, tDate, tTS, tStr, tDec(38, 10), tDec(5, 5)} {
		for i := 0; i < 50; i++ {
			e := RandomExpr(rng, schema, 4, want)
			if e.Type != want {
				t.Fatalf("RandomExpr(want %s) made %s of type %s", want, e, e.Type)
			}
			if err := Validate(e, schema); err != nil {
				t.Fatalf("RandomExpr(want %s) made an invalid tree: %v", want, err)
			}
		}
	}
	anyDec := types.DataType{Kind: types.Decimal}
	for i := 0; i < 50; i++ {
		if e := RandomExpr(rng, schema, 3, anyDec); e.Type.Kind != types.Decimal {
			t.Fatalf("RandomExpr(any decimal) made %s", e.Type)
		}
	}
}

func TestRandomRecordEncodings(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rng := rand.New(rand.NewPCG(1, 2))
	seen := map[arrow.Type]bool{}
	for i := 0; i < 40; i++ {
		schema := RandomSchema(rng, 5)
		rec := RandomRecord(rng, schema, 10, 0.3, mem)
		for c, f := range schema.Fields() {
			seen[f.Type.ID()] = true
			if !arrow.TypeEqual(rec.Column(c).DataType(), f.Type) {
				t.Errorf("column %d: %s, want %s", c, rec.Column(c).DataType(), f.Type)
			}
		}
		rec.Release()
	}
	for _, id := range []arrow.Type{arrow.BOOL, arrow.INT32, arrow.INT64, arrow.FLOAT64, arrow.DECIMAL64, arrow.DECIMAL128,
		arrow.DATE32, arrow.TIMESTAMP, arrow.STRING, arrow.LARGE_STRING, arrow.DICTIONARY} {
		if !seen[id] {
			t.Errorf("RandomSchema never produced %s", id)
		}
	}
}
