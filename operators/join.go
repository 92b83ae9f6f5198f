package operators

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/hados-io/hados/device"
	"github.com/hados-io/hados/operators/expr"
	"github.com/hados-io/hados/operators/types"
)

// Hash join
//
// A HashJoin builds a hash table over one side's join keys on the device
// (JOIN_BUILD; unique integer keys filling a small range make a dense
// array indexed by the key; the device can also build a large table of
// unique keys over every engine core, each filling its region, which is
// off until it measures faster: maxBuildParts), then streams the other side through it batch by batch: the
// device probes each batch (one JOIN_PROBE op per engine core over row
// ranges, resumed until every row is done) and returns pairs of row
// numbers (probe row, build row, -1 for none); the host turns the pairs
// into Spark's result for the join type and the device materialises the
// output rows of both sides by row number (GATHER) — except a side whose
// rows are consecutive rows of an input in device memory, which is a
// zero-copy slice of it; on several cores the next probe batch is probed
// while the current output is gathered. An extra non-equi
// condition is evaluated on the device over the candidate pairs before the
// host decides: a conjunction of column comparisons by one JOIN_COND op
// over the pairs' row numbers, anything else by a pipeline over the
// gathered pairs (join_cond.go).
//
// Either side may be the build side (the plan says which: BuildLeft or
// BuildRight), for every join type. When the outer side of an outer join
// (or the left side of a semi, anti or existence join) is the build side,
// the operator keeps a matched flag per build row on the host across probe
// batches and emits the build rows the result needs after the last batch.
//
// Spark's SortMergeJoin executes as this hash join: the sort-merge plan's
// equi-keys and condition mean the same thing. When the build side does not
// fit the task's memory quota and the target can spill, the operator falls
// back to a grace hash join (both sides partitioned by key hash into spill
// runs, joined partition by partition) — the stand-in for Spark's
// sort-merge fallback to disk.

// JoinType is Spark's join type.
type JoinType uint8

const (
	JoinInner JoinType = iota
	JoinLeftOuter
	JoinRightOuter
	JoinFullOuter
	JoinLeftSemi
	JoinLeftAnti
	JoinExistence
)

var joinTypeNames = [...]string{"inner", "left outer", "right outer", "full outer", "left semi", "left anti", "existence"}

func (j JoinType) String() string {
	if int(j) < len(joinTypeNames) {
		return joinTypeNames[j]
	}
	return fmt.Sprintf("JoinType(%d)", uint8(j))
}

// BuildSide says which child the hash table is built over.
type BuildSide uint8

const (
	BuildRight BuildSide = iota
	BuildLeft
)

func (b BuildSide) String() string {
	if b == BuildLeft {
		return "build left"
	}
	return "build right"
}

// JoinSpec describes a join.
type JoinSpec struct {
	Type      JoinType
	Build     BuildSide
	LeftKeys  []*expr.Expr // over the left child's columns
	RightKeys []*expr.Expr // over the right child's columns
	NullSafe  []bool       // per key (Spark's <=> keys); nil = none
	// Condition is an optional extra condition over the left columns then
	// the right columns (indices: left 0..nl-1, right nl..).
	Condition *expr.Expr
	// NullAwareAnti: a LeftAnti join from NOT IN: a null key on the right
	// side empties the result (unless the right side is empty), and a left
	// row with a null key never qualifies when the right side is not empty.
	NullAwareAnti bool
	Names         []string // optional output names
}

// joinOutputSchema is Spark's output of a join: inner and outer joins
// left ++ right (the outer side nullable), semi and anti joins left,
// existence joins left ++ a non-null boolean "exists". String columns come
// out as utf8 (GATHER writes utf8 whatever the input encoding).
func joinOutputSchema(spec JoinSpec, left, right *arrow.Schema) (*arrow.Schema, error) {
	var fields []arrow.Field
	add := func(s *arrow.Schema, nullable bool) {
		for _, f := range gatherSchema(s, nullable).Fields() {
			f.Metadata = arrow.Metadata{}
			fields = append(fields, f)
		}
	}
	switch spec.Type {
	case JoinInner:
		add(left, false)
		add(right, false)
	case JoinLeftOuter:
		add(left, false)
		add(right, true)
	case JoinRightOuter:
		add(left, true)
		add(right, false)
	case JoinFullOuter:
		add(left, true)
		add(right, true)
	case JoinLeftSemi, JoinLeftAnti:
		add(left, false)
	case JoinExistence:
		add(left, false)
		fields = append(fields, arrow.Field{Name: "exists", Type: arrow.FixedWidthTypes.Boolean})
	default:
		return nil, fmt.Errorf("%w: hash join: unknown join type %d", device.ErrInvalid, spec.Type)
	}
	if spec.Names != nil {
		if len(spec.Names) != len(fields) {
			return nil, fmt.Errorf("%w: hash join: %d names for %d output columns", device.ErrInvalid, len(spec.Names), len(fields))
		}
		for i := range fields {
			fields[i].Name = spec.Names[i]
		}
	}
	return arrow.NewSchema(fields, nil), nil
}

// validate checks the spec against the children's schemas.
func (spec *JoinSpec) validate(left, right *arrow.Schema) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: hash join: "+format, append([]any{device.ErrInvalid}, args...)...)
	}
	if spec.Build != BuildLeft && spec.Build != BuildRight {
		return bad("unknown build side %d", spec.Build)
	}
	if len(spec.LeftKeys) == 0 || len(spec.LeftKeys) != len(spec.RightKeys) {
		return bad("%d left keys and %d right keys (want the same number, at least one)", len(spec.LeftKeys), len(spec.RightKeys))
	}
	if len(spec.LeftKeys) > device.MaxJoinKeys {
		return bad("%d keys exceed %d", len(spec.LeftKeys), device.MaxJoinKeys)
	}
	if spec.NullSafe != nil && len(spec.NullSafe) != len(spec.LeftKeys) {
		return bad("%d null-safe flags for %d keys", len(spec.NullSafe), len(spec.LeftKeys))
	}
	if spec.NullAwareAnti {
		if spec.Type != JoinLeftAnti {
			return bad("a null-aware anti join must be a left anti join, not %s", spec.Type)
		}
		if len(spec.LeftKeys) != 1 || spec.Condition != nil {
			return bad("a null-aware anti join takes one key and no extra condition (Spark plans it so)")
		}
	}
	for k := range spec.LeftKeys {
		lv, err := keyVType(spec.LeftKeys[k], left)
		if err != nil {
			return fmt.Errorf("hash join: left key %d: %w", k, err)
		}
		rv, err := keyVType(spec.RightKeys[k], right)
		if err != nil {
			return fmt.Errorf("hash join: right key %d: %w", k, err)
		}
		if lv != rv {
			return bad("key %d: left %s (%s) and right %s (%s) are stored differently (the plan must cast)", k,
				spec.LeftKeys[k], lv, spec.RightKeys[k], rv)
		}
	}
	if spec.Condition != nil && spec.Condition.Type.Kind != types.Boolean {
		return bad("condition %s is %s, not boolean", spec.Condition, spec.Condition.Type)
	}
	return nil
}

// keyVType is the device storage of a key expression over schema s.
func keyVType(e *expr.Expr, s *arrow.Schema) (device.VType, error) {
	if e == nil {
		return 0, fmt.Errorf("%w: nil key", device.ErrInvalid)
	}
	if e.Op == expr.OpColumn {
		if e.Col < 0 || e.Col >= s.NumFields() {
			return 0, fmt.Errorf("%w: column %d of %d", device.ErrInvalid, e.Col, s.NumFields())
		}
		return storageOf(s.Field(e.Col).Type)
	}
	at, err := types.ToArrow(e.Type)
	if err != nil {
		return 0, err
	}
	return storageOf(at)
}
