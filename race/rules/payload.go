package rules

import (
	"github.com/hados-io/hados/operators/expr"
	"github.com/hados-io/hados/race/plan"
)

// SortKey is one of Spark's SortOrder keys, converted: the key over the
// node's input, its direction and where nulls go.
type SortKey struct {
	Expr       *expr.Expr
	Descending bool
	NullsFirst bool
}

// BuildSide, BuildRight and BuildLeft re-export plan's build sides.
type BuildSide = plan.BuildSide

const BuildRight, BuildLeft = plan.BuildRight, plan.BuildLeft

// JoinPayload is a hash join converted: keys over each child's output,
// the extra condition over the left columns then the right ones.
// BroadcastHashJoin, ShuffledHashJoin and SortMergeJoin all become one
// (the device joins by hashing; a sort-merge join's sorted inputs are
// not needed).
type JoinPayload struct {
	Type  plan.JoinType
	Build BuildSide
	// LeftKeys and RightKeys pair up: row l joins row r when every
	// LeftKeys[i](l) = RightKeys[i](r) (never for a null key, unless
	// NullSafe[i]).
	LeftKeys, RightKeys []*expr.Expr
	NullSafe            []bool
	Condition           *expr.Expr
	// NullAwareAnti is a NOT IN anti join: a null on the build side
	// empties the result, and a null probe key never qualifies.
	NullAwareAnti bool
	// LeftWidth is the left child's column count (the condition's right
	// columns start there).
	LeftWidth int
}

// Partitioning is an exchange's partitioning converted: hash keys or
// range orders over the child's output, and the number of partitions
// (for a range exchange, the number asked for; the sampled bounds may
// give fewer).
type Partitioning struct {
	Kind   plan.PartitioningKind
	N      int
	Keys   []*expr.Expr
	Orders []SortKey
}
