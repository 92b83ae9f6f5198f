package write

import (
	"github.com/hados-io/hados/internal/testkit"

	"flag"
	"math/rand/v2"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

var partSchema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64},
	{Name: "d", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
	{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "region", Type: arrow.BinaryTypes.String, Nullable: true},
}, nil)

// partRows builds n rows whose (d, region) cycle through awkward values:
// nulls, an empty string, characters Spark escapes, non-ASCII. With
// shuffle the rows of a partition are scattered (forcing the gather path).
func partRows(t *testing.T, mem memory.Allocator, n int, shuffle bool) arrow.Record {
	t.Helper()
	regions := []*string{ptr("us/east"), ptr("a=b"), ptr(""), nil, ptr("日本"), ptr("x%y:z")}
	dates := []*int32{ptr(int32(19723)), nil, ptr(int32(-1))} // 2024-01-01, null, 1969-12-31
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	if shuffle {
		rand.New(rand.NewPCG(1, 2)).Shuffle(n, func(i, j int) { order[i], order[j] = order[j], order[i] })
	} else {
		// Spark sorts by the partition columns: emulate by grouping
		sort.SliceStable(order, func(a, b int) bool {
			ka := order[a]%len(regions)*10 + order[a]%len(dates)
			kb := order[b]%len(regions)*10 + order[b]%len(dates)
			return ka < kb
		})
	}
	b := array.NewRecordBuilder(mem, partSchema)
	defer b.Release()
	for _, i := range order {
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		if d := dates[i%len(dates)]; d == nil {
			b.Field(1).AppendNull()
		} else {
			b.Field(1).(*array.Date32Builder).Append(arrow.Date32(*d))
		}
		b.Field(2).(*array.StringBuilder).Append("n" + string(rune('a'+i%26)))
		if r := regions[i%len(regions)]; r == nil {
			b.Field(3).AppendNull()
		} else {
			b.Field(3).(*array.StringBuilder).Append(*r)
		}
	}
	return b.NewRecordBatch()
}

func ptr[T any](v T) *T { return &v }

func TestPartitionedOutput(t *testing.T) {
	for _, shuffle := range []bool{false, true} {
		name := map[bool]string{false: "sorted", true: "unsorted"}[shuffle]
		t.Run(name, func(t *testing.T) {
			mem := checkedMem(t)
			dir := t.TempDir()
			w := mustWriter(t, Options{Dir: dir, Schema: partSchema, PartitionBy: []string{"d", "region"}, TaskID: "job", Split: 3, Allocator: mem})
			const n = 900
			// two records, so that partitions span Write calls
			for k, rows := range []int{n / 3, n - n/3} {
				rec := partRows(t, mem, rows, shuffle)
				if k == 1 {
					// offset ids of the second record
					ids := rec.Column(0).(*array.Int64).Int64Values()
					for i := range ids {
						ids[i] += n / 3
					}
				}
				err := w.Write(rec)
				rec.Release()
				if err != nil {
					t.Fatal(err)
				}
			}
			res, err := w.Commit()
			if err != nil {
				t.Fatal(err)
			}
			checkGolden(t, "partitioned.golden", strings.Join(listTree(t, dir), "\n")+"\n")

			var total int64
			for _, fi := range res.Files {
				tbl := readFile(t, fi.Path)
				if got := tbl.Schema().NumFields(); got != 2 || tbl.Schema().Field(0).Name != "id" || tbl.Schema().Field(1).Name != "name" {
					t.Errorf("%s: schema %s, want only id and name", fi.RelPath, tbl.Schema())
				}
				if tbl.NumRows() != fi.Rows {
					t.Errorf("%s: %d rows, result says %d", fi.RelPath, tbl.NumRows(), fi.Rows)
				}
				total += tbl.NumRows()
				if want := filepath.Dir(filepath.FromSlash(fi.RelPath)); filepath.FromSlash(fi.PartitionPath) != want {
					t.Errorf("%s: partition path %q", fi.RelPath, fi.PartitionPath)
				}
				// every id in the file belongs in this directory
				ids := column(t, tbl, "id").(*array.Int64)
				for i := 0; i < ids.Len(); i++ {
					if got := expectPartition(ids.Value(i) % (n / 3)); got != fi.PartitionPath {
						// ids of the second record were offset by n/3: the
						// residue keeps the (d, region) cycle only when n/3
						// is a multiple of 6, which 300 is.
						t.Fatalf("%s holds id %d of partition %s", fi.RelPath, ids.Value(i), got)
					}
				}
				ids.Release()
				tbl.Release()
			}
			if total != n {
				t.Errorf("%d rows in all, want %d", total, n)
			}
		})
	}
}

// expectPartition is the directory partRows puts row i in.
func expectPartition(i int64) string {
	d := []string{"d=2024-01-01", "d=__HIVE_DEFAULT_PARTITION__", "d=1969-12-31"}[i%3]
	r := []string{"region=us%2Feast", "region=a%3Db", "region=__HIVE_DEFAULT_PARTITION__", "region=__HIVE_DEFAULT_PARTITION__", "region=日本", "region=x%25y%3Az"}[i%6]
	return d + "/" + r
}

func TestPartitionValuesInResult(t *testing.T) {
	mem := checkedMem(t)
	w := mustWriter(t, Options{Dir: t.TempDir(), Schema: partSchema, PartitionBy: []string{"region"}, TaskID: "job", Allocator: mem})
	rec := partRows(t, mem, 6, false)
	defer rec.Release()
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	res, err := w.Commit()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range res.Files {
		v := f.Partition[0]
		got = append(got, v.Column+"|"+v.Value+"|"+map[bool]string{true: "null", false: "value"}[v.Null])
	}
	want := []string{"region||null", "region|a=b|value", "region|us/east|value", "region|x%y:z|value", "region|日本|value"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("partition values\n got %v\nwant %v", got, want)
	}
}

func checkGolden(t *testing.T, name, got string) {
	testkit.Golden(t, filepath.Join("testdata", name), got, *update)
}
