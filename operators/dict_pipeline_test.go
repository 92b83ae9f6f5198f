package operators_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hados-io/hados/operators"
	"github.com/hados-io/hados/operators/expr"
	"github.com/hados-io/hados/operators/optest"
	"github.com/hados-io/hados/operators/pipeline"
	"github.com/hados-io/hados/operators/types"
)

// dictCase is one column type with the index type its dictionary uses.
type dictCase struct {
	value arrow.DataType
	index arrow.DataType
	pool  func(r *rand.Rand) string // a value as Arrow's ValueStr spells it
}

var dictCases = []dictCase{
	{arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int8, func(r *rand.Rand) string { return fmt.Sprint(r.IntN(2000) - 1000) }},
	{&arrow.Decimal64Type{Precision: 15, Scale: 2}, arrow.PrimitiveTypes.Uint8, func(r *rand.Rand) string { return fmt.Sprintf("%d.%02d", r.IntN(100), r.IntN(100)) }},
	{arrow.PrimitiveTypes.Float64, arrow.PrimitiveTypes.Int16, func(r *rand.Rand) string { return fmt.Sprint(float64(r.IntN(1000)) / 8) }},
	{&arrow.Decimal128Type{Precision: 30, Scale: 3}, arrow.PrimitiveTypes.Int32, func(r *rand.Rand) string { return fmt.Sprintf("%d.%03d", r.Int64N(1e15), r.IntN(1000)) }},
	{arrow.FixedWidthTypes.Date32, arrow.PrimitiveTypes.Int8, func(r *rand.Rand) string { return fmt.Sprintf("199%d-0%d-1%d", r.IntN(10), 1+r.IntN(9), r.IntN(10)) }},
	{arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int16, func(r *rand.Rand) string { return fmt.Sprint(r.Int64N(1e12)) }},
	{arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int8, func(r *rand.Rand) string { return string(rune('A' + r.IntN(26))) }},
	{arrow.BinaryTypes.String, arrow.PrimitiveTypes.Uint8, func(r *rand.Rand) string { return fmt.Sprintf("s%03d", r.IntN(300)) }},
}

// dictRecord builds the same random columns twice: plain, and
// dictionary-encoded (cards distinct values, nullRate nulls).
func dictRecord(t *testing.T, mem memory.Allocator, r *rand.Rand, rows int, nullRate float64) (plain, dict arrow.Record) {
	var pf, df []arrow.Field
	var pc, dc []arrow.Array
	for j, c := range dictCases {
		card := 1 + r.IntN(100)
		vb := array.NewBuilder(mem, c.value)
		seen := map[string]bool{}
		for k := 0; k < card; k++ {
			s := c.pool(r)
			if seen[s] {
				continue
			}
			seen[s] = true
			if err := vb.AppendValueFromString(s); err != nil {
				t.Fatal(err)
			}
		}
		values := vb.NewArray()
		vb.Release()
		ib := array.NewBuilder(mem, c.index)
		pb := array.NewBuilder(mem, c.value)
		for i := 0; i < rows; i++ {
			if r.Float64() < nullRate {
				ib.AppendNull()
				pb.AppendNull()
				continue
			}
			k := r.IntN(values.Len())
			if err := ib.AppendValueFromString(fmt.Sprint(k)); err != nil {
				t.Fatal(err)
			}
			if err := pb.AppendValueFromString(values.ValueStr(k)); err != nil {
				t.Fatal(err)
			}
		}
		indices := ib.NewArray()
		dt := &arrow.DictionaryType{IndexType: c.index, ValueType: c.value}
		dc = append(dc, array.NewDictionaryArray(dt, indices, values))
		pc = append(pc, pb.NewArray())
		indices.Release()
		values.Release()
		ib.Release()
		pb.Release()
		name := fmt.Sprintf("c%d", j)
		pf = append(pf, arrow.Field{Name: name, Type: c.value, Nullable: true})
		df = append(df, arrow.Field{Name: name, Type: dt, Nullable: true})
	}
	plain = array.NewRecord(arrow.NewSchema(pf, nil), pc, int64(rows))
	dict = array.NewRecord(arrow.NewSchema(df, nil), dc, int64(rows))
	for i := range pc {
		pc[i].Release()
		dc[i].Release()
	}
	return plain, dict
}

func colOf(s *arrow.Schema, j int) *expr.Expr {
	dt, err := types.FromArrow(s.Field(j).Type)
	if err != nil {
		panic(err)
	}
	return expr.Column(j, s.Field(j).Name, dt)
}

// TestPipelineDictionaryInputs: FilterProject and HashAggregate over
// dictionary-encoded columns (int8 / uint8 / int16 / int32 codes; int,
// bigint, double, date, decimal64, decimal128 and string values) give the
// results of the same columns stored plain: random data with nulls,
// sliced records, filters on the dictionary columns (run on their codes
// where they can) and projections that gather them, on a host-visible and
// a discrete device.
func TestPipelineDictionaryInputs(t *testing.T) {
	ctx := context.Background()
	tBool := types.DataType{Kind: types.Boolean}
	for _, mode := range []string{"host-visible", "discrete"} {
		tgt := newTarget(t, "soft:memory=256MiB,cores=2,mode="+mode)
		mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
		for seed, rows := range []int{1, 7, 3000, 9000} {
			for _, nullRate := range []float64{0, 0.1, 1} {
				name := fmt.Sprintf("%s/rows%d/nulls%g", mode, rows, nullRate)
				r := rand.New(rand.NewPCG(uint64(seed), uint64(nullRate*10)))
				plain, dict := dictRecord(t, mem, r, rows, nullRate)
				if rows > 10 { // sliced: Arrow offsets into codes and validity
					p, d := plain.NewSlice(3, int64(rows-5)), dict.NewSlice(3, int64(rows-5))
					plain.Release()
					dict.Release()
					plain, dict = p, d
				}
				ps, ds := plain.Schema(), dict.Schema()
				run := func(s *arrow.Schema, rec arrow.Record, what string) (fp, agg string) {
					cond := expr.Call(expr.OpAnd, tBool,
						expr.Call(expr.OpGt, tBool, colOf(s, 0), expr.Literal(int32(-500), types.DataType{Kind: types.Int})),
						expr.Between(colOf(s, 1), expr.Decimal(1000, 15, 2), expr.Decimal(8000, 15, 2)))
					var proj []*expr.Expr
					var names []string
					for j := range dictCases {
						proj = append(proj, colOf(s, j))
						names = append(names, s.Field(j).Name)
					}
					f, err := operators.NewFilterProject(tgt, operators.NewRecordSource(s, rec), cond, proj, names)
					if err != nil {
						t.Fatal(err)
					}
					out, err := operators.Collect(ctx, f)
					if err != nil {
						t.Fatalf("%s: FilterProject over %s: %v", name, what, err)
					}
					fp = strings.Join(optest.SortedRows(out), "\n")
					sum := colOf(s, 1)
					h, err := operators.NewHashAggregate(tgt, operators.NewRecordSource(s, rec),
						expr.Call(expr.OpLt, tBool, colOf(s, 5), expr.Literal(int64(5e11), types.LongType)),
						[]*expr.Expr{colOf(s, 6), colOf(s, 4)},
						[]operators.AggCall{{Func: "sum", Args: []*expr.Expr{sum}, Input: sum.Type},
							{Func: "max", Args: []*expr.Expr{colOf(s, 3)}, Input: colOf(s, 3).Type},
							{Func: "min", Args: []*expr.Expr{colOf(s, 2)}, Input: colOf(s, 2).Type},
							{Func: "count", Input: types.LongType}},
						operators.AggUpdate, []string{"k1", "k2", "s", "e", "mx", "mn", "n"})
					if err != nil {
						t.Fatal(err)
					}
					out, err = operators.Collect(ctx, h)
					if err != nil {
						t.Fatalf("%s: HashAggregate over %s: %v", name, what, err)
					}
					return fp, strings.Join(optest.SortedRows(out), "\n")
				}
				pfp, pagg := run(ps, plain, "plain")
				dfp, dagg := run(ds, dict, "dictionaries")
				if pfp != dfp {
					t.Errorf("%s: FilterProject: plain\n%s\ndict\n%s", name, pfp, dfp)
				}
				if pagg != dagg {
					t.Errorf("%s: HashAggregate: plain\n%s\ndict\n%s", name, pagg, dagg)
				}
				plain.Release()
				dict.Release()
			}
		}
		mem.AssertSize(t, 0)
	}
}

// TestPipelineDictionaryUnsupported: a dictionary the device does not
// read (boolean values, uint16 codes, too many entries) fails with
// ErrUnsupportedType and a data-type reason, never a wrong answer.
func TestPipelineDictionaryUnsupported(t *testing.T) {
	ctx := context.Background()
	tgt := newTarget(t, "soft:memory=64MiB,cores=1,mode=host-visible")
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	big := array.NewInt64Builder(mem)
	for i := 0; i < operators.MaxDeviceDictionary+1; i++ {
		big.Append(int64(i))
	}
	bigValues := big.NewArray()
	big.Release()
	defer bigValues.Release()
	for _, c := range []struct {
		index  arrow.DataType
		values arrow.Array
		want   string
	}{
		{arrow.PrimitiveTypes.Uint16, bigValues, "want int8, uint8, int16 or int32 indices"},
		{arrow.PrimitiveTypes.Int32, bigValues, "dictionary of 65537 entries"},
	} {
		ib := array.NewBuilder(mem, c.index)
		_ = ib.AppendValueFromString("3")
		ib.AppendNull()
		indices := ib.NewArray()
		ib.Release()
		dt := &arrow.DictionaryType{IndexType: c.index, ValueType: c.values.DataType()}
		d := array.NewDictionaryArray(dt, indices, c.values)
		indices.Release()
		s := arrow.NewSchema([]arrow.Field{{Name: "d", Type: dt, Nullable: true}}, nil)
		rec := array.NewRecord(s, []arrow.Array{d}, 2)
		d.Release()
		f, err := operators.NewFilterProject(tgt, operators.NewRecordSource(s, rec), nil, []*expr.Expr{colOf(s, 0)}, []string{"d"})
		if err == nil {
			var out []arrow.Record
			out, err = operators.Collect(ctx, f)
			for _, o := range out {
				o.Release()
			}
		}
		var u *pipeline.Unsupported
		if !errors.Is(err, operators.ErrUnsupportedType) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("dictionary<%s, int64>: %v (want ErrUnsupportedType, %q)", c.index, err, c.want)
		} else if c.index.ID() == arrow.INT32 && (!errors.As(err, &u) || u.Code != pipeline.ReasonDataType) {
			t.Errorf("dictionary<%s, int64>: %v: want reason %s", c.index, err, pipeline.ReasonDataType)
		}
		rec.Release()
	}
}
