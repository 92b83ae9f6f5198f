package operators

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/hados-io/hados/device"
	"github.com/hados-io/hados/operators/types"
)

// Union returns the rows of its children one child after the other
// (Spark's UnionExec). The children must have the same number of columns
// and the same column types (Spark types: a string column may be utf8,
// large_utf8 or dictionary-encoded in different children); the output
// takes the first child's names, a column is nullable when it is in any
// child. Where children encode a string column differently, the output
// column is utf8 and batches in another encoding are converted with one
// device GATHER.
//
// Union owns its children; Close closes them all.
type Union struct {
	t        *Target
	children []Operator
	out      *arrow.Schema
	convert  []bool // per child: some column needs converting to utf8
	cur      int
	opened   int
	stats    Stats
}

// NewUnion builds the operator; its error names the child and the column
// whose type differs from the first child's.
func NewUnion(t *Target, children []Operator) (*Union, error) {
	if len(children) == 0 {
		return nil, fmt.Errorf("%w: union of no children", device.ErrInvalid)
	}
	first := children[0].Schema()
	fields := append([]arrow.Field(nil), first.Fields()...)
	logical := make([]types.DataType, len(fields))
	for j, f := range fields {
		dt, err := types.FromArrow(f.Type)
		if err != nil {
			return nil, fmt.Errorf("union: child 0 column %d (%s): %w", j, f.Name, err)
		}
		logical[j] = dt
	}
	for i, c := range children[1:] {
		s := c.Schema()
		if s.NumFields() != len(fields) {
			return nil, fmt.Errorf("%w: union: child %d has %d columns, child 0 has %d", device.ErrInvalid, i+1, s.NumFields(), len(fields))
		}
		for j, f := range s.Fields() {
			dt, err := types.FromArrow(f.Type)
			if err != nil || dt != logical[j] {
				return nil, fmt.Errorf("%w: union: child %d column %d (%s) is %s, child 0 column %d (%s) is %s", device.ErrInvalid,
					i+1, j, f.Name, f.Type, j, fields[j].Name, fields[j].Type)
			}
			if !arrow.TypeEqual(f.Type, fields[j].Type) {
				fields[j].Type = arrow.BinaryTypes.String // strings encoded differently: utf8
			}
			fields[j].Nullable = fields[j].Nullable || f.Nullable
		}
	}
	u := &Union{t: t, children: children, out: arrow.NewSchema(fields, nil)}
	for _, c := range children {
		conv := false
		for j, f := range c.Schema().Fields() {
			conv = conv || !arrow.TypeEqual(f.Type, fields[j].Type)
		}
		u.convert = append(u.convert, conv)
	}
	return u, nil
}

func (u *Union) Schema() *arrow.Schema { return u.out }

// Open opens every child (in order; on error the opened ones stay for Close).
func (u *Union) Open(ctx context.Context) (err error) {
	defer func() { err = nameQuota("Union", err) }()
	for ; u.opened < len(u.children); u.opened++ {
		if err := u.children[u.opened].Open(ctx); err != nil {
			return err
		}
	}
	return nil
}

// Stats reports what the operator did.
func (u *Union) Stats() Stats { return u.stats }

func (u *Union) Next(ctx context.Context) (_ arrow.Record, err error) {
	defer func() { err = nameQuota("Union", err) }()
	for u.cur < len(u.children) {
		rec, err := u.children[u.cur].Next(ctx)
		if err != nil {
			return nil, fmt.Errorf("union: child %d: %w", u.cur, err)
		}
		if rec == nil {
			u.cur++
			continue
		}
		out, err := u.conform(ctx, rec, u.convert[u.cur])
		rec.Release()
		if err != nil {
			return nil, err
		}
		u.stats.RowsIn += out.NumRows()
		u.stats.RowsOut += out.NumRows()
		u.stats.Batches++
		return out, nil
	}
	return nil, nil
}

// conform gives rec the union's schema, converting strings when needed.
func (u *Union) conform(ctx context.Context, rec arrow.Record, convert bool) (arrow.Record, error) {
	if convert {
		rows := make([]int32, rec.NumRows())
		for i := range rows {
			rows[i] = int32(i)
		}
		g, err := u.t.Gather(ctx, rec, rows)
		if err != nil {
			return nil, fmt.Errorf("union: child %d: converting strings to utf8: %w", u.cur, err)
		}
		defer g.Release()
		rec = g
	}
	return array.NewRecord(u.out, rec.Columns(), rec.NumRows()), nil
}

// Reset starts again at the first child and resets every child (see
// Resetter); the first error wins, after every child was reset.
func (u *Union) Reset(ctx context.Context) error {
	u.cur, u.opened, u.stats = 0, 0, Stats{}
	return u.eachChild(func(c Operator) error { return Reset(ctx, c) })
}

func (u *Union) Close() error { return u.eachChild(Operator.Close) }

// eachChild calls f on every child and returns the first error.
func (u *Union) eachChild(f func(Operator) error) error {
	var err error
	for _, c := range u.children {
		if e := f(c); err == nil {
			err = e
		}
	}
	return err
}
