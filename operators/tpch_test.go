package operators_test

import (
	"context"
	"fmt"
	"math/big"
	"os"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/hados-io/hados/internal/tpchpipes"
	"github.com/hados-io/hados/operators"
	"github.com/hados-io/hados/operators/expr"
)

// decimalOf reads a decimal column value as an exact big.Int unscaled.
func decimalOf(a arrow.Array, i int) *big.Int {
	switch c := a.(type) {
	case *array.Decimal128:
		return c.Value(i).BigInt()
	case *array.Decimal64:
		return big.NewInt(int64(c.Value(i)))
	}
	panic(fmt.Sprintf("not a decimal: %T", a))
}

// refQ1 computes Q1's groups in plain Go with exact arithmetic: per group
// (flag+status) sum_qty, sum_price, sum_disc_price (scale 4), sum_charge
// (scale 6), count.
func refQ1(s *arrow.Schema, recs []arrow.Record) map[string][5]*big.Int {
	out := map[string][5]*big.Int{}
	limit := expr.DaysFromCivil(1998, 9, 2)
	hundred := big.NewInt(100)
	for _, r := range recs {
		get := func(n string) arrow.Array { return r.Column(s.FieldIndices(n)[0]) }
		ship := get("l_shipdate").(*array.Date32)
		flag, status := get("l_returnflag").(*array.String), get("l_linestatus").(*array.String)
		for i := 0; i < int(r.NumRows()); i++ {
			if int32(ship.Value(i)) > limit {
				continue
			}
			k := flag.Value(i) + "|" + status.Value(i)
			g, ok := out[k]
			if !ok {
				g = [5]*big.Int{new(big.Int), new(big.Int), new(big.Int), new(big.Int), new(big.Int)}
				out[k] = g
			}
			q, p := decimalOf(get("l_quantity"), i), decimalOf(get("l_extendedprice"), i)
			d, tx := decimalOf(get("l_discount"), i), decimalOf(get("l_tax"), i)
			g[0].Add(g[0], q)
			g[1].Add(g[1], p)
			dp := new(big.Int).Mul(p, new(big.Int).Sub(hundred, d)) // scale 4
			g[2].Add(g[2], dp)
			g[3].Add(g[3], new(big.Int).Mul(dp, new(big.Int).Add(hundred, tx))) // scale 6
			g[4].Add(g[4], big.NewInt(1))
		}
	}
	return out
}

func TestTPCHQ1Q6(t *testing.T) {
	for _, mode := range []string{"host-visible", "discrete"} {
		t.Run(mode, func(t *testing.T) {
			tgt := newTarget(t, "soft:memory=512MiB,cores=2,mode="+mode)
			s, recs := tpchpipes.Lineitem(t, tgt, 0.01)
			ctx := context.Background()

			out, err := operators.Collect(ctx, tpchpipes.Q1(t, tgt, s, recs))
			if err != nil {
				t.Fatal(err)
			}
			want := refQ1(s, recs)
			got := map[string][5]*big.Int{}
			for _, r := range out {
				for i := 0; i < int(r.NumRows()); i++ {
					k := r.Column(0).(*array.String).Value(i) + "|" + r.Column(1).(*array.String).Value(i)
					got[k] = [5]*big.Int{decimalOf(r.Column(2), i), decimalOf(r.Column(4), i), decimalOf(r.Column(6), i),
						decimalOf(r.Column(8), i), big.NewInt(r.Column(16).(*array.Int64).Value(i))}
				}
				r.Release()
			}
			if len(got) != 4 || len(want) != 4 {
				t.Fatalf("Q1 groups: got %d, want %d (4)", len(got), len(want))
			}
			for k, w := range want {
				for j := range w {
					if got[k][j].Cmp(w[j]) != 0 {
						t.Errorf("Q1 group %s value %d: device %s, reference %s", k, j, got[k][j], w[j])
					}
				}
			}

			out, err = operators.Collect(ctx, tpchpipes.Q6(t, tgt, s, recs))
			if err != nil {
				t.Fatal(err)
			}
			if len(out) != 1 || out[0].NumRows() != 1 {
				t.Fatalf("Q6: %d records", len(out))
			}
			rev := decimalOf(out[0].Column(0), 0)
			out[0].Release()
			if want := refQ6(s, recs); rev.Cmp(want) != 0 {
				t.Fatalf("Q6 revenue: device %s, reference %s", rev, want)
			}
		})
	}
}

func refQ6(s *arrow.Schema, recs []arrow.Record) *big.Int {
	sum := new(big.Int)
	lo, hi := expr.DaysFromCivil(1994, 1, 1), expr.DaysFromCivil(1995, 1, 1)
	for _, r := range recs {
		get := func(n string) arrow.Array { return r.Column(s.FieldIndices(n)[0]) }
		ship := get("l_shipdate").(*array.Date32)
		for i := 0; i < int(r.NumRows()); i++ {
			d := int32(ship.Value(i))
			disc, qty := decimalOf(get("l_discount"), i), decimalOf(get("l_quantity"), i)
			if d >= lo && d < hi && disc.Int64() >= 5 && disc.Int64() <= 7 && qty.Int64() < 2400 {
				sum.Add(sum, new(big.Int).Mul(decimalOf(get("l_extendedprice"), i), disc))
			}
		}
	}
	return sum
}

// BenchmarkTPCH runs Q1 and Q6 as fused device pipelines over lineitem in
// device memory (SF from HADOS_BENCH_SF, default 1) with 1 and 2 engine
// cores. The DuckDB comparison of the same queries lives in bench/.
func BenchmarkTPCH(b *testing.B) {
	sf := 1.0
	if v := os.Getenv("HADOS_BENCH_SF"); v != "" {
		sf, _ = strconv.ParseFloat(v, 64)
	}
	for _, cores := range []int{1, 2} {
		tgt := newTarget(b, fmt.Sprintf("soft:memory=4GiB,cores=%d", cores))
		s, recs := tpchpipes.Lineitem(b, tgt, sf)
		for _, q := range []struct {
			name string
			mk   func(testing.TB, *operators.Target, *arrow.Schema, []arrow.Record) *operators.HashAggregate
		}{{"q1", tpchpipes.Q1}, {"q6", tpchpipes.Q6}} {
			b.Run(fmt.Sprintf("%s/sf%g/cores%d", q.name, sf, cores), func(b *testing.B) {
				var times []time.Duration
				for i := 0; i < b.N; i++ {
					start := time.Now()
					out, err := operators.Collect(context.Background(), q.mk(b, tgt, s, recs))
					if err != nil {
						b.Fatal(err)
					}
					times = append(times, time.Since(start))
					for _, r := range out {
						r.Release()
					}
				}
				sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
				b.ReportMetric(float64(times[len(times)/2].Microseconds())/1e3, "median-ms")
			})
		}
	}
}
