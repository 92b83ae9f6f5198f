package operators_test

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/hados-io/hados/operators"
	"github.com/hados-io/hados/operators/expr"
	"github.com/hados-io/hados/operators/types"
)

// TestTopN compares TakeOrderedAndProject with the reference sort sliced
// [offset, offset+limit): ties (low-cardinality keys), limit beyond the
// rows, offsets, several compaction rounds, and a projection.
func TestTopN(t *testing.T) {
	ctx := context.Background()
	tgt := newTarget(t, "soft:memory=256MiB,cores=2")
	cases := []struct{ rows, limit, offset int }{
		{0, 5, 0}, {1, 5, 0}, {100, 10, 0}, {100, 500, 0}, {3000, 7, 3}, {3000, 0, 2}, {300000, 25, 10}, {50, 10, 60},
	}
	for ci, c := range cases {
		rng := rand.New(rand.NewPCG(uint64(ci), 5))
		schema := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
			{Name: "s", Type: arrow.BinaryTypes.LargeString, Nullable: true}, {Name: "v", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil)
		recs := randomBatches(rng, schema, c.rows, 0.1)
		for i, r := range recs { // low cardinality keys: many ties
			recs[i] = lowCardinality(t, r)
		}
		keys := []operators.SortKey{{Expr: expr.Column(0, "k", types.DataType{Kind: types.Int}), Descending: ci%2 == 0, NullsFirst: ci%3 == 0}}
		want := refSortRows(rowsOf(recs), keyValues(t, recs, keys), keys)
		lo, hi := min(c.offset, len(want)), min(c.offset+c.limit, len(want))
		want = want[lo:hi]
		var proj []*expr.Expr
		var names []string
		if ci%2 == 1 { // project v, k
			proj = []*expr.Expr{expr.Column(2, "v", types.DataType{Kind: types.Long}), expr.Column(0, "k", types.DataType{Kind: types.Int})}
			names = []string{"v", "k"}
			for i, row := range want {
				want[i] = []any{row[2], row[0]}
			}
		}
		op, err := operators.NewTopN(tgt, operators.NewRecordSource(schema, recs...), keys, c.limit, c.offset, proj, names)
		releaseAll(recs)
		if err != nil {
			t.Fatal(err)
		}
		out, err := operators.Collect(ctx, op)
		if err != nil {
			t.Fatalf("case %+v: %v", c, err)
		}
		got := rowsOf(out)
		releaseAll(out)
		if err := compareRows(got, want); err != nil {
			t.Fatalf("case %+v: %v", c, err)
		}
	}
	if _, err := operators.NewTopN(tgt, operators.NewRecordSource(arrow.NewSchema(nil, nil)), nil, 1, 0, nil, nil); err == nil {
		t.Fatal("TopN without keys: no error")
	}
}

// lowCardinality maps column 0 (int32) of r to a few values.
func lowCardinality(t *testing.T, r arrow.Record) arrow.Record {
	rows := rowsOf([]arrow.Record{r})
	for _, row := range rows {
		if row[0] != nil {
			row[0] = row[0].(int32) & 3
		}
	}
	s := r.Schema()
	r.Release()
	b := make([][]any, len(rows))
	copy(b, rows)
	return recordOfAny(t, s, b)
}

// recordOfAny is recordOf with large strings.
func recordOfAny(t *testing.T, s *arrow.Schema, rows [][]any) arrow.Record {
	fields := append([]arrow.Field(nil), s.Fields()...)
	for i, f := range fields {
		if f.Type.ID() == arrow.LARGE_STRING {
			fields[i].Type = arrow.BinaryTypes.String
		}
	}
	return recordOf(t, arrow.NewSchema(fields, nil), rows)
}

// TestLimit covers limits and offsets across batch boundaries, and that
// the child is not pulled once the limit is reached.
func TestLimit(t *testing.T) {
	ctx := context.Background()
	tgt := newTarget(t, "soft:memory=64MiB,cores=1")
	schema := arrow.NewSchema([]arrow.Field{{Name: "i", Type: arrow.PrimitiveTypes.Int64}}, nil)
	var recs []arrow.Record
	n := int64(0)
	for _, size := range []int{3, 0, 5, 1, 7} {
		var rows [][]any
		for i := 0; i < size; i++ {
			rows = append(rows, []any{n})
			n++
		}
		recs = append(recs, recordOf(t, schema, rows))
	}
	defer releaseAll(recs)
	for _, c := range []struct{ limit, offset int }{{0, 0}, {1, 0}, {4, 0}, {4, 2}, {100, 0}, {5, 14}, {-1, 9}, {3, 3}, {2, 100}} {
		src := &countingSource{RecordSource: operators.NewRecordSource(schema, recs...)}
		op, err := operators.NewLimit(tgt, src, c.limit, c.offset)
		if err != nil {
			t.Fatal(err)
		}
		out, err := operators.Collect(ctx, op)
		if err != nil {
			t.Fatal(err)
		}
		got := rowsOf(out)
		releaseAll(out)
		var want [][]any
		for i := int64(c.offset); i < n && (c.limit < 0 || i < int64(c.offset+c.limit)); i++ {
			want = append(want, []any{i})
		}
		if err := compareRows(got, want); err != nil {
			t.Fatalf("limit %d offset %d: %v", c.limit, c.offset, err)
		}
		if c.limit == 4 && c.offset == 0 && src.pulled != 3 { // batches of 3, 0 and 5 rows
			t.Fatalf("limit 4 pulled %d batches, want 3", src.pulled)
		}
	}
	if _, err := operators.NewLimit(tgt, operators.NewRecordSource(schema), 1, -1); err == nil {
		t.Fatal("negative offset: no error")
	}
}

type countingSource struct {
	*operators.RecordSource
	pulled int
}

func (c *countingSource) Next(ctx context.Context) (arrow.Record, error) {
	r, err := c.RecordSource.Next(ctx)
	if r != nil {
		c.pulled++
	}
	return r, err
}

// TestUnion concatenates children in order, converts strings encoded
// differently to utf8, and names the child and column whose type differs.
func TestUnion(t *testing.T) {
	ctx := context.Background()
	tgt := newTarget(t, "soft:memory=64MiB,cores=1")
	rng := rand.New(rand.NewPCG(2, 2))
	mk := func(st arrow.DataType, rows int) (*arrow.Schema, []arrow.Record) {
		s := arrow.NewSchema([]arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Int64, Nullable: true}, {Name: "b", Type: st, Nullable: true}}, nil)
		return s, randomBatches(rng, s, rows, 0.2)
	}
	s1, r1 := mk(arrow.BinaryTypes.String, 100)
	s2, r2 := mk(&arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}, 3000)
	s3, r3 := mk(arrow.BinaryTypes.String, 0)
	defer releaseAll(r1)
	defer releaseAll(r2)
	defer releaseAll(r3)
	want := rowsOf(append(append(append([]arrow.Record(nil), r1...), r2...), r3...))
	op, err := operators.NewUnion(tgt, []operators.Operator{operators.NewRecordSource(s1, r1...), operators.NewRecordSource(s2, r2...), operators.NewRecordSource(s3, r3...)})
	if err != nil {
		t.Fatal(err)
	}
	if op.Schema().Field(1).Type.ID() != arrow.STRING {
		t.Fatalf("union string column is %s, want utf8", op.Schema().Field(1).Type)
	}
	out, err := operators.Collect(ctx, op)
	if err != nil {
		t.Fatal(err)
	}
	got := rowsOf(out)
	releaseAll(out)
	if err := compareRows(got, want); err != nil {
		t.Fatal(err)
	}
	bad := arrow.NewSchema([]arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Int64}, {Name: "x", Type: arrow.PrimitiveTypes.Float64}}, nil)
	_, err = operators.NewUnion(tgt, []operators.Operator{operators.NewRecordSource(s1), operators.NewRecordSource(bad)})
	if err == nil || !strings.Contains(err.Error(), "child 1 column 1 (x) is float64, child 0 column 1 (b) is utf8") {
		t.Fatalf("type mismatch: %v", err)
	}
	short := arrow.NewSchema([]arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Int64}}, nil)
	if _, err = operators.NewUnion(tgt, []operators.Operator{operators.NewRecordSource(s1), operators.NewRecordSource(short)}); err == nil ||
		!strings.Contains(err.Error(), "child 1 has 1 columns, child 0 has 2") {
		t.Fatalf("column count: %v", err)
	}
}
