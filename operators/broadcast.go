package operators

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/hados-io/hados/device"
	hmem "github.com/hados-io/hados/memory"
	"github.com/hados-io/hados/operators/expr"
)

// BroadcastTable is a build side built once and shared by many joins
// (tasks) on the same device: Spark's BroadcastExchange feeding
// BroadcastHashJoins. Probes only read the table, so the joins may run at
// once.
//
// It is reference counted: the creator holds one reference, each join
// made by NewBroadcastHashJoin takes one (released by the join's Close),
// and the table — the build record, its device hash table and the memory
// reserved for it on the creator's account — is freed when the last
// reference is released.
type BroadcastTable struct {
	t        *Target
	table    *joinTable
	schema   *arrow.Schema // the build child's columns
	keys     []*expr.Expr
	nullSafe []bool
	refs     atomic.Int64
}

// NewBroadcastTable reads build to its end (opening and closing it) and
// builds the hash table over keys.
func NewBroadcastTable(ctx context.Context, t *Target, build Operator, keys []*expr.Expr, nullSafe []bool) (*BroadcastTable, error) {
	if err := t.Validate(); err != nil {
		return nil, err
	}
	if len(keys) == 0 || len(keys) > device.MaxJoinKeys || (nullSafe != nil && len(nullSafe) != len(keys)) {
		return nil, fmt.Errorf("%w: broadcast table: %d keys and %d null-safe flags", device.ErrInvalid, len(keys), len(nullSafe))
	}
	for k, e := range keys {
		if _, err := keyVType(e, build.Schema()); err != nil {
			return nil, fmt.Errorf("broadcast table: key %d: %w", k, err)
		}
	}
	s, err := newSide(t, build, keys)
	if err != nil {
		return nil, err
	}
	err = s.op.Open(ctx)
	var rec arrow.Record
	if err == nil {
		rec, err = collectBuild(ctx, t, s.op)
	}
	if cerr := s.op.Close(); err == nil && cerr != nil {
		if rec != nil {
			rec.Release()
		}
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	jt, err := buildTable(ctx, t, rec, s.data, s.keys, nullSafe)
	if err != nil {
		if errors.Is(err, hmem.ErrQuotaExceeded) {
			return nil, QuotaExceeded("BroadcastHashJoin", err, "a broadcast table is built in memory")
		}
		return nil, err
	}
	b := &BroadcastTable{t: t, table: jt, schema: build.Schema(), keys: keys, nullSafe: nullSafe}
	b.refs.Store(1)
	return b, nil
}

// Rows is the number of build rows.
func (b *BroadcastTable) Rows() int { return b.table.rows }

// Retain takes a reference.
func (b *BroadcastTable) Retain() { b.refs.Add(1) }

// Release drops a reference; the last one frees the table.
func (b *BroadcastTable) Release() {
	switch n := b.refs.Add(-1); {
	case n == 0:
		b.table.free(context.Background())
	case n < 0:
		panic("operators: BroadcastTable released more often than retained")
	}
}

// NewBroadcastHashJoin joins probe with a shared table; spec.Build says
// which side the table is (its keys in spec are the table's; the probe
// side's keys are probe's). The join holds a reference to the table until
// Close.
func NewBroadcastHashJoin(t *Target, probe Operator, table *BroadcastTable, spec JoinSpec) (*HashJoin, error) {
	h, probeKeys, err := newBroadcastJoin(t, probe, table.schema, spec)
	if err != nil {
		return nil, err
	}
	if err := h.checkTable(table, probeKeys); err != nil {
		return nil, err
	}
	h.useTable(table)
	return h, nil
}

// NewBroadcastHashJoinLazy is NewBroadcastHashJoin with a table that may
// not be built yet: schema is its build side's columns, and the join's
// Open calls table after opening probe — so that the probe side (a scan
// and its read-ahead) starts while the table is built, in this task or
// another — and takes a reference to the table it returns (the caller
// keeps its own). An error of table, or a table that does not fit spec,
// comes back from Open.
func NewBroadcastHashJoinLazy(t *Target, probe Operator, schema *arrow.Schema, spec JoinSpec,
	table func(context.Context) (*BroadcastTable, error)) (*HashJoin, error) {
	h, probeKeys, err := newBroadcastJoin(t, probe, schema, spec)
	if err != nil {
		return nil, err
	}
	h.pending = func(ctx context.Context) error {
		b, err := table(ctx)
		if err != nil {
			return err
		}
		if !b.schema.Equal(schema) {
			return fmt.Errorf("%w: broadcast hash join: the table's columns %s are not the join's %s", device.ErrInvalid, b.schema, schema)
		}
		if err := h.checkTable(b, probeKeys); err != nil {
			return err
		}
		h.useTable(b)
		return nil
	}
	return h, nil
}

// newBroadcastJoin is a join of probe with a table of build columns
// schema, without the table; it returns the probe side's keys.
func newBroadcastJoin(t *Target, probe Operator, schema *arrow.Schema, spec JoinSpec) (*HashJoin, []*expr.Expr, error) {
	if err := t.Validate(); err != nil {
		return nil, nil, err
	}
	left, right := probe.Schema(), schema
	probeKeys := spec.LeftKeys
	if spec.Build == BuildLeft {
		left, right = right, left
		probeKeys = spec.RightKeys
	}
	if err := spec.validate(left, right); err != nil {
		return nil, nil, err
	}
	h, err := newHashJoin(t, spec, left, right)
	if err != nil {
		return nil, nil, err
	}
	if h.probeSide, err = newSide(t, probe, probeKeys); err != nil {
		return nil, nil, err
	}
	h.buildSide = side{schema: schema}
	return h, probeKeys, nil
}

// checkTable reports whether table can be the join's build side: on the
// join's device, with keys of the probe keys' types and null-safety.
func (h *HashJoin) checkTable(table *BroadcastTable, probeKeys []*expr.Expr) error {
	if h.t.Device != table.t.Device {
		return fmt.Errorf("%w: broadcast hash join: the table lives on another device", device.ErrInvalid)
	}
	if len(probeKeys) != len(table.keys) {
		return fmt.Errorf("%w: broadcast hash join: %d probe keys for a table of %d keys", device.ErrInvalid, len(probeKeys), len(table.keys))
	}
	for k, e := range probeKeys {
		vt, _ := keyVType(e, h.probeSide.schema)
		if vt != table.table.vtypes[k] {
			return fmt.Errorf("%w: broadcast hash join: probe key %d is stored as %s, the table's as %s", device.ErrInvalid, k, vt, table.table.vtypes[k])
		}
		if (h.spec.NullSafe != nil && h.spec.NullSafe[k]) != (table.nullSafe != nil && table.nullSafe[k]) {
			return fmt.Errorf("%w: broadcast hash join: key %d null-safety differs from the table's", device.ErrInvalid, k)
		}
	}
	return nil
}

// useTable makes table the join's build side, taking a reference.
func (h *HashJoin) useTable(table *BroadcastTable) {
	h.buildSide = side{schema: table.schema, data: table.table.data, keys: table.table.keys}
	table.Retain()
	h.shared = table
	h.pending = nil
}

// opName is the name a join's quota errors give: BroadcastHashJoin when it
// probes a shared table, HashJoin otherwise.
func (h *HashJoin) opName() string {
	if h.shared != nil || h.pending != nil {
		return "BroadcastHashJoin"
	}
	return "HashJoin"
}
