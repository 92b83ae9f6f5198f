// Package tpchpipes builds TPC-H lineitem in device memory and TPC-H Q1
// and Q6 as fused device pipelines (HashAggregate with the filter fused
// in), for the operators' tests and for benchmarks that compare them with
// DuckDB in the same run. Test support: it takes a testing.TB.
package tpchpipes

import (
	"fmt"
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hados-io/hados/internal/tpchgen"
	hmem "github.com/hados-io/hados/memory"
	"github.com/hados-io/hados/operators"
	"github.com/hados-io/hados/operators/expr"
	"github.com/hados-io/hados/operators/types"
)

// Layout is how Lineitem lays out the low-cardinality columns.
type Layout int

const (
	// Plain: every column as the Parquet scan produces it (decimals of
	// precision up to 18 as decimal64, strings as utf8).
	Plain Layout = iota
	// Dict: l_quantity, l_discount, l_tax, l_returnflag and l_linestatus
	// (50, 11, 9, 3 and 2 distinct values) dictionary-encoded with int8
	// codes, as hados keeps low-cardinality columns in device memory (and
	// DuckDB's own tables are compressed): the pipeline reads one byte per
	// row and gathers the value from the cache-resident dictionary.
	Dict
)

func (l Layout) String() string {
	if l == Dict {
		return "dict"
	}
	return "plain"
}

// dictColumns are the columns Dict encodes.
var dictColumns = map[string]bool{"l_quantity": true, "l_discount": true, "l_tax": true, "l_returnflag": true, "l_linestatus": true}

// Lineitem generates lineitem at a scale factor straight into the target's
// memory (device memory on a host-visible device), keeping only the columns
// TPC-H Q1 and Q6 read, in the Plain layout.
func Lineitem(tb testing.TB, t *operators.Target, sf float64) (*arrow.Schema, []arrow.Record) {
	tb.Helper()
	return LineitemLayout(tb, t, sf, Plain)
}

// BatchRows is the rows per record of Lineitem and LineitemLayout: 2^18,
// the size of the records the Parquet scan hands to the operators
// (race/exec's scanBatchRows), so that the in-memory pipelines see the
// records a query over files would. Each record is one host/device round
// trip per engine core (docs/PERFORMANCE.md, "per-record round trips");
// HADOS_BENCH_BATCH in the pipeline benchmarks measures other sizes.
const BatchRows = 1 << 18

// LineitemLayout is Lineitem in a given layout.
func LineitemLayout(tb testing.TB, t *operators.Target, sf float64, layout Layout) (*arrow.Schema, []arrow.Record) {
	tb.Helper()
	return LineitemBatches(tb, t, sf, layout, BatchRows)
}

// LineitemBatches is LineitemLayout with records of about batchRows rows
// (tpchgen's batch size): every record is one synchronous round trip of a
// pipeline to the device, so the batch size sets how much of a run is
// host/device hand-off rather than kernel time.
func LineitemBatches(tb testing.TB, t *operators.Target, sf float64, layout Layout, batchRows int) (*arrow.Schema, []arrow.Record) {
	tb.Helper()
	if batchRows <= 0 {
		tb.Fatalf("tpchpipes: batch of %d rows", batchRows)
	}
	var mem memory.Allocator = hmem.NewHostAllocator(t.Host, nil)
	if t.HostVisible() {
		a, err := hmem.NewDeviceAllocator(t.Pool, nil)
		if err != nil {
			tb.Fatal(err)
		}
		mem = a
	}
	rr, err := tpchgen.NewTableReader("lineitem", tpchgen.Options{SF: sf, Mem: mem, BatchRows: batchRows})
	if err != nil {
		tb.Fatal(err)
	}
	defer rr.Release()
	keep := []string{"l_quantity", "l_extendedprice", "l_discount", "l_tax", "l_returnflag", "l_linestatus", "l_shipdate"}
	var idx []int
	var fields []arrow.Field
	for _, name := range keep {
		i := rr.Schema().FieldIndices(name)[0]
		idx = append(idx, i)
		fields = append(fields, rr.Schema().Field(i))
	}
	for j := range fields {
		if d, ok := fields[j].Type.(*arrow.Decimal128Type); ok && d.Precision <= 18 {
			fields[j].Type = &arrow.Decimal64Type{Precision: d.Precision, Scale: d.Scale}
		}
		if layout == Dict && dictColumns[fields[j].Name] {
			fields[j].Type = &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: fields[j].Type}
		}
	}
	schema := arrow.NewSchema(fields, nil)
	var recs []arrow.Record
	for rr.Next() {
		r := rr.Record()
		cols := make([]arrow.Array, len(idx))
		for j, i := range idx {
			cols[j] = deviceLayout(mem, r.Column(i))
			if layout == Dict && dictColumns[fields[j].Name] {
				d, err := DictEncode(mem, cols[j])
				cols[j].Release()
				if err != nil {
					tb.Fatalf("%s: %v", fields[j].Name, err)
				}
				cols[j] = d
			}
		}
		recs = append(recs, array.NewRecord(schema, cols, r.NumRows()))
		for _, c := range cols {
			c.Release()
		}
	}
	if err := rr.Err(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		for _, r := range recs {
			r.Release()
		}
	})
	return schema, recs
}

// deviceLayout returns arr in hados's layout (types.ToArrow: decimals of
// precision up to 18 in 64 bits, as the Parquet scan produces them); the
// caller releases the result.
func deviceLayout(mem memory.Allocator, arr arrow.Array) arrow.Array {
	d, ok := arr.(*array.Decimal128)
	if !ok || d.DataType().(*arrow.Decimal128Type).Precision > 18 {
		arr.Retain()
		return arr
	}
	dt := d.DataType().(*arrow.Decimal128Type)
	b := array.NewDecimal64Builder(mem, &arrow.Decimal64Type{Precision: dt.Precision, Scale: dt.Scale})
	defer b.Release()
	b.Reserve(d.Len())
	for i := 0; i < d.Len(); i++ {
		if d.IsNull(i) {
			b.AppendNull()
		} else {
			b.Append(decimal.Decimal64(d.Value(i).LowBits()))
		}
	}
	return b.NewArray()
}

// firstSeenCodes gives row i the int8 code of value(i), numbering values
// in first-seen order and appending each new one with add; an error past
// 128 distinct values.
func firstSeenCodes[T comparable](value func(int) T, add func(T)) func(i int) (int8, error) {
	codes := map[T]int8{}
	return func(i int) (int8, error) {
		v := value(i)
		c, ok := codes[v]
		if !ok {
			if len(codes) == math.MaxInt8+1 {
				return 0, fmt.Errorf("more than %d distinct values", math.MaxInt8+1)
			}
			c = int8(len(codes))
			codes[v] = c
			add(v)
		}
		return c, nil
	}
}

// DictEncode returns arr (decimal64 or utf8) as a dictionary array with
// int8 codes, the values in first-seen order; an error when arr has more
// than 127 distinct values. The caller releases the result.
func DictEncode(mem memory.Allocator, arr arrow.Array) (arrow.Array, error) {
	idx := array.NewInt8Builder(mem)
	defer idx.Release()
	idx.Reserve(arr.Len())
	vb := array.NewBuilder(mem, arr.DataType())
	defer vb.Release()
	var code func(i int) (int8, error)
	switch a := arr.(type) {
	case *array.Decimal64:
		code = firstSeenCodes(a.Value, vb.(*array.Decimal64Builder).Append)
	case *array.String:
		code = firstSeenCodes(a.Value, vb.(*array.StringBuilder).Append)
	default:
		return nil, fmt.Errorf("dictionary encoding of %s", arr.DataType())
	}
	for i := 0; i < arr.Len(); i++ {
		if arr.IsNull(i) {
			idx.AppendNull()
			continue
		}
		c, err := code(i)
		if err != nil {
			return nil, err
		}
		idx.UnsafeAppend(c)
	}
	indices, values := idx.NewArray(), vb.NewArray()
	defer indices.Release()
	defer values.Release()
	dt := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: arr.DataType()}
	return array.NewDictionaryArray(dt, indices, values), nil
}

var (
	tBool = types.DataType{Kind: types.Boolean}
	tDate = types.DataType{Kind: types.Date}
)

// Col is a reference to the named column of s, typed from its Arrow type.
func Col(s *arrow.Schema, name string) *expr.Expr {
	i := s.FieldIndices(name)[0]
	dt, _ := types.FromArrow(s.Field(i).Type)
	return expr.Column(i, name, dt)
}

// Arith applies op with Spark's result type for sym ("+", "-", "*", "/").
func Arith(tb testing.TB, op expr.Op, sym string, a, b *expr.Expr) *expr.Expr {
	t, err := types.Arithmetic(sym, a.Type, b.Type)
	if err != nil {
		tb.Fatal(err)
	}
	return expr.Call(op, t, a, b)
}

// Date is a date literal.
func Date(y, m, d int) *expr.Expr { return expr.Literal(expr.DaysFromCivil(y, m, d), tDate) }

// Q6 is TPC-H Q6 as one fused device pipeline: filter → sum(price*discount).
func Q6(tb testing.TB, t *operators.Target, s *arrow.Schema, recs []arrow.Record) *operators.HashAggregate {
	ship, disc, qty := Col(s, "l_shipdate"), Col(s, "l_discount"), Col(s, "l_quantity")
	cond := expr.Call(expr.OpAnd, tBool,
		expr.Call(expr.OpAnd, tBool, expr.Call(expr.OpGe, tBool, ship, Date(1994, 1, 1)), expr.Call(expr.OpLt, tBool, ship, Date(1995, 1, 1))),
		expr.Call(expr.OpAnd, tBool, expr.Between(disc, expr.Decimal(5, 15, 2), expr.Decimal(7, 15, 2)),
			expr.Call(expr.OpLt, tBool, qty, expr.Decimal(2400, 15, 2))))
	rev := Arith(tb, expr.OpMul, "*", Col(s, "l_extendedprice"), disc)
	h, err := operators.NewHashAggregate(t, operators.NewRecordSource(s, recs...), cond, nil,
		[]operators.AggCall{{Func: "sum", Args: []*expr.Expr{rev}, Input: rev.Type}}, operators.AggUpdate, []string{"revenue", "isEmpty"})
	if err != nil {
		tb.Fatal(err)
	}
	return h
}

// Q1 is TPC-H Q1's partial aggregation as one fused device pipeline.
func Q1(tb testing.TB, t *operators.Target, s *arrow.Schema, recs []arrow.Record) *operators.HashAggregate {
	qty, price, disc, tax := Col(s, "l_quantity"), Col(s, "l_extendedprice"), Col(s, "l_discount"), Col(s, "l_tax")
	one := expr.Decimal(1, 1, 0)
	discPrice := Arith(tb, expr.OpMul, "*", price, Arith(tb, expr.OpSub, "-", one, disc))
	charge := Arith(tb, expr.OpMul, "*", discPrice, Arith(tb, expr.OpAdd, "+", one, tax))
	cond := expr.Call(expr.OpLe, tBool, Col(s, "l_shipdate"), Date(1998, 9, 2))
	sum := func(e *expr.Expr) operators.AggCall {
		return operators.AggCall{Func: "sum", Args: []*expr.Expr{e}, Input: e.Type}
	}
	avg := func(e *expr.Expr) operators.AggCall {
		return operators.AggCall{Func: "avg", Args: []*expr.Expr{e}, Input: e.Type}
	}
	calls := []operators.AggCall{sum(qty), sum(price), sum(discPrice), sum(charge), avg(qty), avg(price), avg(disc),
		{Func: "count", Input: types.DataType{Kind: types.Long}}}
	names := []string{"l_returnflag", "l_linestatus", "sum_qty", "e1", "sum_base_price", "e2", "sum_disc_price", "e3",
		"sum_charge", "e4", "avg_qty_sum", "avg_qty_count", "avg_price_sum", "avg_price_count", "avg_disc_sum", "avg_disc_count", "count_order"}
	h, err := operators.NewHashAggregate(t, operators.NewRecordSource(s, recs...), cond,
		[]*expr.Expr{Col(s, "l_returnflag"), Col(s, "l_linestatus")}, calls, operators.AggUpdate, names)
	if err != nil {
		tb.Fatal(err)
	}
	return h
}
