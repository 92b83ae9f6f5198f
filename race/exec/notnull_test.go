package exec_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/hados-io/hados/race/exec"
	"github.com/hados-io/hados/race/planbuilder"
)

// writeNation writes dir/nation/name with columns key and region (bigint),
// declared required or optional; a nil value is a null (optional only).
func writeNation(t *testing.T, dir, name, keyCol string, keyNullable, regionNullable bool, keys, regions []*int64) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, "nation"), 0o755); err != nil {
		t.Fatal(err)
	}
	schema := arrow.NewSchema([]arrow.Field{
		{Name: keyCol, Type: arrow.PrimitiveTypes.Int64, Nullable: keyNullable},
		{Name: "n_regionkey", Type: arrow.PrimitiveTypes.Int64, Nullable: regionNullable},
	}, nil)
	cols := make([]arrow.Array, 2)
	for i, vals := range [][]*int64{keys, regions} {
		b := array.NewInt64Builder(memory.DefaultAllocator)
		for _, v := range vals {
			if v == nil {
				b.AppendNull()
			} else {
				b.Append(*v)
			}
		}
		cols[i] = b.NewArray()
		b.Release()
		defer cols[i].Release()
	}
	rec := array.NewRecord(schema, cols, int64(len(keys)))
	defer rec.Release()
	tbl := array.NewTableFromRecords(schema, []arrow.Record{rec})
	defer tbl.Release()
	f, err := os.Create(filepath.Join(dir, "nation", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := pqarrow.WriteTable(tbl, f, 1024, nil, pqarrow.DefaultWriterProps()); err != nil {
		t.Fatal(err)
	}
}

func i64s(vs ...any) []*int64 {
	out := make([]*int64, len(vs))
	for i, v := range vs {
		if v != nil {
			x := int64(v.(int))
			out[i] = &x
		}
	}
	return out
}

// TestNotNullOfRequiredColumns: a filter's isnotnull(c) over a scan is
// dropped for a task whose file declares c required (it cannot be null
// there), kept where the file declares it optional or lacks it, and never
// changes the rows: files with required and optional keys, a key named
// in another case, filters that become empty, partly empty, and fused
// with a projection.
func TestNotNullOfRequiredColumns(t *testing.T) {
	t.Cleanup(exec.SetDropRequiredNotNull(true))
	dir := t.TempDir()
	// required key, optional region with a null
	writeNation(t, dir, "part-0.parquet", "n_nationkey", false, true, i64s(1, 2, 3), i64s(10, nil, 30))
	// optional key with a null, required region
	writeNation(t, dir, "part-1.parquet", "n_nationkey", true, false, i64s(4, nil, 6), i64s(40, 50, 60))
	// required key named in upper case (the scan matches it ignoring case), optional region
	writeNation(t, dir, "part-2.parquet", "N_NATIONKEY", false, true, i64s(7, 8), i64s(nil, 80))

	type row struct{ key, region *int64 }
	all := []row{}
	for _, f := range [][2][]*int64{
		{i64s(1, 2, 3), i64s(10, nil, 30)}, {i64s(4, nil, 6), i64s(40, 50, 60)}, {i64s(7, 8), i64s(nil, 80)},
	} {
		for i := range f[0] {
			all = append(all, row{f[0][i], f[1][i]})
		}
	}
	show := func(v *int64) string {
		if v == nil {
			return "NULL"
		}
		return fmt.Sprint(*v)
	}
	want := func(keep func(r row) bool, cols int) []string {
		var out []string
		for _, r := range all {
			if keep(r) {
				if cols == 1 {
					out = append(out, show(r.key))
				} else {
					out = append(out, show(r.key)+"|"+show(r.region))
				}
			}
		}
		return sorted(out)
	}
	cases := []struct {
		name string
		top  func(b *planbuilder.Builder) *planbuilder.Rel
		keep func(r row) bool
		cols int
	}{
		{"key", func(b *planbuilder.Builder) *planbuilder.Rel {
			s := b.Scan("nation", "n_nationkey", "n_regionkey")
			return s.Filter(b.IsNotNull(s.Col("n_nationkey")))
		}, func(r row) bool { return r.key != nil }, 2},
		{"both", func(b *planbuilder.Builder) *planbuilder.Rel {
			s := b.Scan("nation", "n_nationkey", "n_regionkey")
			return s.Filter(b.And(b.IsNotNull(s.Col("n_nationkey")), b.IsNotNull(s.Col("n_regionkey"))))
		}, func(r row) bool { return r.key != nil && r.region != nil }, 2},
		{"both and a test", func(b *planbuilder.Builder) *planbuilder.Rel {
			s := b.Scan("nation", "n_nationkey", "n_regionkey")
			return s.Filter(b.And(b.IsNotNull(s.Col("n_nationkey")), b.Gt(s.Col("n_nationkey"), b.Long(1)), b.IsNotNull(s.Col("n_regionkey"))))
		}, func(r row) bool { return r.key != nil && *r.key > 1 && r.region != nil }, 2},
		{"fused with a projection", func(b *planbuilder.Builder) *planbuilder.Rel {
			s := b.Scan("nation", "n_nationkey", "n_regionkey")
			return s.Filter(b.IsNotNull(s.Col("n_nationkey"))).Keep("n_nationkey")
		}, func(r row) bool { return r.key != nil }, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := planbuilder.NewWith(planbuilder.Options{Partitions: 3})
			got := runBoth(t, buildPlan(t, c.top(b)), dir)
			if w := want(c.keep, c.cols); !sameRows(got, w) {
				t.Fatalf("got %v, want %v", got, w)
			}
		})
	}
}
