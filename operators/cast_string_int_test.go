package operators_test

import (
	"bufio"
	"context"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hados-io/hados/operators"
	"github.com/hados-io/hados/operators/expr"
	"github.com/hados-io/hados/operators/types"
)

// castStrIntCase is one line of testdata/cast_string_int.golden: an input
// string (nil: SQL NULL) and Spark's int and bigint results (nil: NULL).
type castStrIntCase struct {
	in          any
	asInt, asBI any
}

// loadCastStrIntGolden reads testdata/cast_string_int.golden.
func loadCastStrIntGolden(t *testing.T) []castStrIntCase {
	t.Helper()
	path := filepath.Join("testdata", "cast_string_int.golden")
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []castStrIntCase
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		text := sc.Text()
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		fields := strings.Split(text, "\t")
		if len(fields) != 3 {
			t.Fatalf("%s:%d: %d tab-separated fields, want 3", path, line, len(fields))
		}
		var c castStrIntCase
		if fields[0] != "null" {
			s, err := strconv.Unquote(fields[0])
			if err != nil {
				t.Fatalf("%s:%d: input %s: %v", path, line, fields[0], err)
			}
			c.in = s
		}
		for i, bits := range []int{32, 64} {
			if fields[1+i] == "null" {
				continue
			}
			n, err := strconv.ParseInt(fields[1+i], 10, bits)
			if err != nil {
				t.Fatalf("%s:%d: result %s: %v", path, line, fields[1+i], err)
			}
			if bits == 32 {
				c.asInt = int32(n)
			} else {
				c.asBI = n
			}
		}
		cases = append(cases, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return cases
}

// decimalText is the expected cast(x as string) of an int or bigint result.
func decimalText(v any) any {
	switch x := v.(type) {
	case int32:
		return strconv.FormatInt(int64(x), 10)
	case int64:
		return strconv.FormatInt(x, 10)
	}
	return nil
}

// runProjection evaluates proj over rec with the reference evaluator and
// on the device in both memory modes, and returns the rows of each, keyed
// "reference", "device host-visible" and "device discrete". It takes over
// rec.
func runProjection(t *testing.T, rec arrow.Record, proj []*expr.Expr) map[string][][]any {
	t.Helper()
	defer rec.Release()
	reference, err := refFilterProject(rec, nil, proj)
	if err != nil {
		t.Fatal(err)
	}
	sides := map[string][][]any{"reference": reference}
	names := make([]string, len(proj))
	for i := range names {
		names[i] = "c" + strconv.Itoa(i)
	}
	for _, mode := range []string{"host-visible", "discrete"} {
		tgt := newTarget(t, "soft:memory=64MiB,cores=1,mode="+mode)
		rec.Retain()
		op, err := operators.NewFilterProject(tgt, operators.NewRecordSource(rec.Schema(), rec), nil, proj, names)
		rec.Release()
		if err != nil {
			t.Fatal(err)
		}
		out, err := operators.Collect(context.Background(), op)
		if err != nil {
			t.Fatalf("%s: %v", mode, err)
		}
		sides["device "+mode] = rowsOf(out)
		for _, r := range out {
			r.Release()
		}
	}
	return sides
}

// TestCastStringIntGolden checks string → int/bigint casts and the chained
// cast(cast(s as int|bigint) as string) against Spark's values, on the
// device and in the reference evaluator.
func TestCastStringIntGolden(t *testing.T) {
	cases := loadCastStrIntGolden(t)
	schema := arrow.NewSchema([]arrow.Field{{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	sb := b.Field(0).(*array.StringBuilder)
	for _, c := range cases {
		if c.in == nil {
			sb.AppendNull()
		} else {
			sb.Append(c.in.(string))
		}
	}
	rec := b.NewRecordBatch()
	b.Release()

	s := expr.Column(0, "s", types.StringType)
	asInt := expr.Call(expr.OpCast, types.IntType, s)
	asBI := expr.Call(expr.OpCast, types.LongType, s)
	proj := []*expr.Expr{
		asInt, asBI,
		expr.Call(expr.OpCast, types.StringType, asInt),
		expr.Call(expr.OpCast, types.StringType, asBI),
	}
	sides := runProjection(t, rec, proj)
	cols := []string{"int", "bigint", "int→string", "bigint→string"}
	for side, rows := range sides {
		if len(rows) != len(cases) {
			t.Fatalf("%s: %d rows, want %d", side, len(rows), len(cases))
		}
		for i, c := range cases {
			want := []any{c.asInt, c.asBI, decimalText(c.asInt), decimalText(c.asBI)}
			for j := range want {
				if rows[i][j] != want[j] {
					t.Errorf("%s: cast(%q as %s) = %#v, Spark gives %#v", side, c.in, cols[j], rows[i][j], want[j])
				}
			}
		}
	}
}

// TestCastIntStringRoundTrip checks cast(x as string) is x's decimal text
// and cast(cast(x as string) as int|bigint) gives x back, at the limits.
func TestCastIntStringRoundTrip(t *testing.T) {
	ints := []int32{0, 1, -1, 7, -13, math.MaxInt32, math.MinInt32}
	longs := []int64{0, -1, 1 << 40, math.MaxInt64, math.MinInt64, math.MaxInt32 + 1, math.MinInt32 - 1}
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "i", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "l", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	b.Field(0).(*array.Int32Builder).AppendValues(ints, nil)
	b.Field(0).(*array.Int32Builder).AppendNull()
	b.Field(1).(*array.Int64Builder).AppendValues(longs, nil)
	b.Field(1).(*array.Int64Builder).AppendNull()
	rec := b.NewRecordBatch()
	b.Release()

	i := expr.Column(0, "i", types.IntType)
	l := expr.Column(1, "l", types.LongType)
	iStr := expr.Call(expr.OpCast, types.StringType, i)
	lStr := expr.Call(expr.OpCast, types.StringType, l)
	proj := []*expr.Expr{iStr, lStr, expr.Call(expr.OpCast, types.IntType, iStr), expr.Call(expr.OpCast, types.LongType, lStr)}
	sides := runProjection(t, rec, proj)
	for side, rows := range sides {
		for r := range rows {
			var wantI, wantL any
			if r < len(ints) {
				wantI = ints[r]
			}
			if r < len(longs) {
				wantL = longs[r]
			}
			want := []any{decimalText(wantI), decimalText(wantL), wantI, wantL}
			for j := range want {
				if rows[r][j] != want[j] {
					t.Errorf("%s: row %d column %d = %#v, want %#v", side, r, j, rows[r][j], want[j])
				}
			}
		}
	}
}

// FuzzCastStringInt checks that the device's string → int/bigint parser
// agrees with the reference evaluator on any input, chained back to string.
func FuzzCastStringInt(f *testing.F) {
	for _, s := range []string{"", ".", "-.", "+", " 12 ", "1.9", "\x7f-3\x00", "2147483648", "-9223372036854775809", "1e3", "0x10", "١"} {
		f.Add(s)
	}
	schema := arrow.NewSchema([]arrow.Field{{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	s := expr.Column(0, "s", types.StringType)
	asInt := expr.Call(expr.OpCast, types.IntType, s)
	asBI := expr.Call(expr.OpCast, types.LongType, s)
	proj := []*expr.Expr{asInt, asBI, expr.Call(expr.OpCast, types.StringType, asInt), expr.Call(expr.OpCast, types.StringType, asBI)}
	f.Fuzz(func(t *testing.T, in string) {
		b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
		b.Field(0).(*array.StringBuilder).Append(in)
		rec := b.NewRecordBatch()
		b.Release()
		sides := runProjection(t, rec, proj)
		want := sides["reference"]
		for side, rows := range sides {
			if err := compareRows(rows, want); err != nil {
				t.Errorf("%q: %s: %v", in, side, err)
			}
		}
	})
}
