package exec_test

import (
	"context"
	"errors"
	"math/big"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/hados-io/hados/hados"
	"github.com/hados-io/hados/internal/tpchgen"
	"github.com/hados-io/hados/operators/expr"
	"github.com/hados-io/hados/race/exec"
	"github.com/hados-io/hados/race/planbuilder"
	"github.com/hados-io/hados/race/rules"
)

const sf = 0.01

func warehouse(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if _, err := tpchgen.Generate(context.Background(), tpchgen.Options{SF: sf, Out: dir, Tables: []string{"lineitem"}}); err != nil {
		t.Fatal(err)
	}
	return dir
}

func runtime(t *testing.T, devices string) *hados.Runtime {
	t.Helper()
	cfg := hados.DefaultConfig()
	cfg.Devices = devices
	rt, err := hados.Open(cfg, hados.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := rt.Close(); err != nil {
			t.Errorf("runtime close: %v", err)
		}
	})
	return rt
}

func convert(t *testing.T, q int) *rules.Result {
	t.Helper()
	p, err := planbuilder.TPCH(q, planbuilder.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := rules.Run(p, rules.DefaultOptions(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// q6Reference computes Q6's revenue exactly from the generator's rows.
func q6Reference(t *testing.T) *big.Int {
	rr, err := tpchgen.NewTableReader("lineitem", tpchgen.Options{SF: sf})
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	s := rr.Schema()
	col := func(r arrow.Record, n string) arrow.Array { return r.Column(s.FieldIndices(n)[0]) }
	lo, hi := expr.DaysFromCivil(1994, 1, 1), expr.DaysFromCivil(1995, 1, 1)
	sum := new(big.Int)
	for rr.Next() {
		r := rr.Record()
		ship := col(r, "l_shipdate").(*array.Date32)
		disc, qty, price := col(r, "l_discount").(*array.Decimal128), col(r, "l_quantity").(*array.Decimal128), col(r, "l_extendedprice").(*array.Decimal128)
		for i := 0; i < int(r.NumRows()); i++ {
			d := int32(ship.Value(i))
			dc := disc.Value(i).BigInt().Int64()
			if d >= lo && d < hi && dc >= 5 && dc <= 7 && qty.Value(i).BigInt().Int64() < 2400 {
				sum.Add(sum, new(big.Int).Mul(price.Value(i).BigInt(), disc.Value(i).BigInt()))
			}
		}
	}
	return sum
}

// TestTPCHQ6EndToEnd runs the Spark-shaped Q6 plan from Parquet files
// through RACE and the executor on both memory modes and checks the answer
// against an exact reference over the same generated rows.
func TestTPCHQ6EndToEnd(t *testing.T) {
	dir := warehouse(t)
	want := q6Reference(t)
	for _, devices := range []string{"soft:memory=256MiB", "soft:memory=256MiB,mode=discrete"} {
		t.Run(devices, func(t *testing.T) {
			rt := runtime(t, devices)
			out, err := exec.Run(context.Background(), exec.Env{Runtime: rt, Warehouse: dir}, convert(t, 6))
			if err != nil {
				t.Fatal(err)
			}
			defer out.Release()
			if len(out.Records) != 1 || out.Records[0].NumRows() != 1 || out.Schema.Field(0).Name != "revenue" {
				t.Fatalf("result: %d records, schema %v", len(out.Records), out.Schema)
			}
			got := expr.ValueAt(out.Records[0].Column(0), 0)
			if g, ok := got.(*big.Int); !ok || g.Cmp(want) != 0 {
				t.Fatalf("revenue %v, reference %s (scale 4)", got, want)
			}
			if len(out.Stats) == 0 || out.Stats[0].RowsIn == 0 && out.Stats[0].RowsOut == 0 {
				t.Fatalf("no operator stats: %+v", out.Stats)
			}
		})
	}
}

func TestNotExecutable(t *testing.T) {
	rt := runtime(t, "soft:memory=64MiB")
	_, err := exec.Run(context.Background(), exec.Env{Runtime: rt, Warehouse: t.TempDir()}, convert(t, 1))
	if !errors.Is(err, exec.ErrNotExecutable) {
		t.Fatalf("Q1 (it sorts): %v", err)
	}
	_, err = exec.Run(context.Background(), exec.Env{Runtime: rt, Warehouse: t.TempDir()}, convert(t, 6))
	if err == nil {
		t.Fatal("a missing table ran")
	}
}
