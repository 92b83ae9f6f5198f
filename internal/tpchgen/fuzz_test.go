package tpchgen

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
)

// FuzzParseSchema: any string either parses to a known schema that
// round-trips through String, or fails with ErrInvalidOptions naming it.
func FuzzParseSchema(f *testing.F) {
	for _, s := range []string{"", "standard", "spark-test", "SPARK_TEST", " spark-test ", "x", "\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseSchema(s)
		if err != nil {
			if !errors.Is(err, ErrInvalidOptions) || !strings.Contains(err.Error(), "unknown schema") {
				t.Fatalf("ParseSchema(%q): unexpected error %v", s, err)
			}
			return
		}
		if back, err := ParseSchema(got.String()); err != nil || back != got {
			t.Fatalf("%q -> %v does not round-trip", s, got)
		}
	})
}

// FuzzOptions: validation never panics and rejects exactly the bad values.
func FuzzOptions(f *testing.F) {
	f.Add(0.01, "lineitem", 0, 0)
	f.Add(-1.0, "orders", 10, 5)
	f.Add(math.NaN(), "", 0, 0)
	f.Add(1e-9, "region", -3, 0)
	f.Add(1.0, "LineItem ", 1, 1)
	f.Add(math.Inf(1), "nation,part", 0, 0)
	f.Fuzz(func(t *testing.T, sf float64, tables string, rowGroup, batch int) {
		opt := Options{SF: sf, Out: "out", RowGroupRows: rowGroup, BatchRows: batch}
		if tables != "" {
			opt.Tables = strings.Split(tables, ",")
		}
		r, err := opt.resolve(true)
		if err != nil {
			if !errors.Is(err, ErrInvalidOptions) {
				t.Fatalf("error %v does not wrap ErrInvalidOptions", err)
			}
			return
		}
		if !(sf > 0) || r.RowGroupRows <= 0 || r.BatchRows <= 0 || r.BatchRows > r.RowGroupRows || len(r.tables) == 0 {
			t.Fatalf("accepted bad options %+v -> %+v", opt, r.Options)
		}
	})
}

// FuzzSplitIndependence: for any seed and batch size, a table read in
// batches equals the table read in one batch.
func FuzzSplitIndependence(f *testing.F) {
	f.Add(uint64(0), 1, uint8(0))
	f.Add(uint64(42), 7, uint8(1))
	f.Add(uint64(1<<63), 100, uint8(5))
	f.Fuzz(func(t *testing.T, seed uint64, batch int, which uint8) {
		if batch < 1 || batch > 1<<16 {
			return
		}
		names := []string{"lineitem", "orders", "partsupp", "part", "customer", "supplier", "nation", "region"}
		name := names[int(which)%len(names)]
		opt := Options{SF: 0.0005, Seed: seed}
		whole := generateTable(t, name, opt)
		opt.BatchRows = batch
		split := generateTable(t, name, opt)
		if !reflect.DeepEqual(whole, split) {
			t.Fatalf("%s (seed %d) differs when read in %d-row batches", name, seed, batch)
		}
	})
}
