package expr

// The reference evaluator.
//
// Every device kernel hados compiles from an Expr is differential-tested
// against Eval, so Eval is written to be obviously right rather than fast:
// it walks the tree once per row with plain Go values (see value.go), and
// decimals are exact *big.Int unscaled values rounded only where Spark
// rounds. Each family of operations documents its Spark semantics next to
// its code: eval_logic.go (comparisons, three-valued logic, IN, CASE/IF/
// coalesce), eval_arith.go (integer, double and decimal arithmetic,
// CheckOverflow, UnscaledValue, MakeDecimal), cast.go and cast_string.go
// (non-ANSI casts), eval_date.go and eval_string.go. decimal_math.go holds
// the HALF_UP rounding and Java MathContext(38) helpers.
//
// Typing is checked up front: Eval runs Validate against the batch's schema,
// so that evaluation itself cannot fail; like Spark in non-ANSI mode it
// turns overflow, division by zero and malformed strings into NULL (or into
// wrapped integers where Java wraps). A NULL operand makes every operation
// NULL except AND/OR (Kleene logic), <=>, IS [NOT] NULL, IN (a NULL list
// item), CASE/IF conditions (NULL is not true) and coalesce.
//
// Known divergences from Spark, all outside what a planner normally
// produces, are listed where they occur: decimal % whose integral quotient
// exceeds 38 digits (Spark raises an error), date → timestamp beyond the
// bigint range (Spark raises; here NULL), string → timestamp (not
// implemented; Validate reports ErrUnsupported), non-ASCII Unicode digits in
// numeric strings (Java accepts some), and characters of invalid UTF-8
// (counted by lead byte, as UTF8String does, rather than decoded as Java
// does in LIKE).
//
// Memory: Eval's result is owned by the caller, who must Release it; the
// input record is only read. Trees are immutable and Eval keeps no state
// between calls, so concurrent calls are safe.

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hados-io/hados/operators/types"
)

// Eval evaluates e over every row of rec and returns a column of e.Type's
// Arrow type (types.ToArrow) with rec.NumRows() rows, allocated from mem
// (nil: memory.DefaultAllocator). The caller owns the result and must
// Release it; rec is only read, and is neither retained nor released.
//
// Eval is the reference evaluator: plain Go, one row at a time, exact
// (decimals use math/big), so that device kernels can be tested against
// it. It first checks e with Validate against rec's schema; after that no
// input value can make it fail (Spark's non-ANSI mode turns overflow,
// division by zero and malformed strings into NULL or wrapped values, see
// the per-operation notes in eval_*.go and cast*.go).
func Eval(e *Expr, rec arrow.Record, mem memory.Allocator) (arrow.Array, error) {
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	ev, r, err := prepare(e, rec)
	if err != nil {
		return nil, err
	}
	at, err := types.ToArrow(e.Type)
	if err != nil {
		return nil, fmt.Errorf("expr: Eval %s: %w", e, err)
	}
	b := array.NewBuilder(mem, at)
	defer b.Release()
	n := int(rec.NumRows())
	b.Reserve(n)
	for r.i = 0; r.i < n; r.i++ {
		if err := appendValue(b, ev(r)); err != nil {
			return nil, fmt.Errorf("expr: Eval %s: row %d: %w", e, r.i, err)
		}
	}
	return b.NewArray(), nil
}

// EvalRow evaluates e on row i of rec and returns the Go value (see
// ValueAt). It validates e on every call; use Eval for whole batches.
func EvalRow(e *Expr, rec arrow.Record, i int) (any, error) {
	ev, r, err := prepare(e, rec)
	if err != nil {
		return nil, err
	}
	if i < 0 || int64(i) >= rec.NumRows() {
		return nil, fmt.Errorf("expr: EvalRow: row %d out of range [0,%d)", i, rec.NumRows())
	}
	r.i = i
	return ev(r), nil
}

// prepare validates e against rec's schema and compiles it, returning the
// evaluation function and a row context over rec's columns.
func prepare(e *Expr, rec arrow.Record) (evalFn, *row, error) {
	if rec == nil {
		return nil, nil, fmt.Errorf("expr: Eval: nil record")
	}
	if err := Validate(e, rec.Schema()); err != nil {
		return nil, nil, err
	}
	cols := make([]func(int) any, rec.NumCols())
	for c := range cols {
		var err error
		if cols[c], err = rowReader(rec.Column(c)); err != nil {
			return nil, nil, fmt.Errorf("expr: Eval: column %d (%s): %w", c, rec.Schema().Field(c).Name, err)
		}
	}
	ev, err := compile(e)
	if err != nil {
		return nil, nil, err
	}
	return ev, &row{cols: cols}, nil
}

// row is the evaluation context: the input column readers and the current
// row index.
type row struct {
	cols []func(int) any
	i    int
}

// evalFn computes a node's value for one row.
type evalFn func(r *row) any

// compile turns a validated tree into a closure tree. Operands are
// evaluated lazily where Spark short-circuits (AND, OR, CASE, IF,
// coalesce), which is observable only through performance: evaluation has
// no side effects.
func compile(e *Expr) (evalFn, error) {
	args := make([]evalFn, len(e.Args))
	for i, a := range e.Args {
		f, err := compile(a)
		if err != nil {
			return nil, err
		}
		args[i] = f
	}
	switch e.Op {
	case OpColumn:
		c := e.Col
		return func(r *row) any { return r.cols[c](r.i) }, nil
	case OpLiteral:
		v := e.Value
		return func(*row) any { return v }, nil
	case OpEq, OpNe, OpLt, OpLe, OpGt, OpGe, OpEqNullSafe:
		return compileCompare(e, args), nil
	case OpAnd, OpOr, OpNot, OpIsNull, OpIsNotNull, OpIn:
		return compileLogic(e, args), nil
	case OpCaseWhen, OpIf, OpCoalesce:
		return compileConditional(e, args), nil
	case OpAdd, OpSub, OpMul, OpDiv, OpMod, OpNeg:
		return compileArith(e, args)
	case OpCast:
		return compileCast(e, args[0])
	case OpCheckOverflow, OpPromotePrecision, OpUnscaledValue, OpMakeDecimal:
		return compileDecimalFn(e, args[0]), nil
	case OpYear, OpMonth, OpDayOfMonth, OpDateAdd, OpDateSub:
		return compileDate(e, args), nil
	case OpStartsWith, OpEndsWith, OpContains, OpLike, OpSubstring, OpLength:
		return compileString(e, args)
	}
	return nil, fmt.Errorf("expr: Eval: operation %s is not supported", e.Op)
}

// unary wraps a function of one non-null value: NULL in, NULL out.
func unary(a evalFn, f func(v any) any) evalFn {
	return func(r *row) any {
		v := a(r)
		if v == nil {
			return nil
		}
		return f(v)
	}
}

// binary wraps a function of two non-null values: a NULL operand gives NULL.
func binary(a, b evalFn, f func(x, y any) any) evalFn {
	return func(r *row) any {
		x := a(r)
		if x == nil {
			return nil
		}
		y := b(r)
		if y == nil {
			return nil
		}
		return f(x, y)
	}
}
