package plan

import "github.com/hados-io/hados/operators/types"

// Node is one physical operator of an imported plan. Exactly the payload
// pointer matching Op is set (Scan for OpScan, Agg for the aggregates, Join
// for the joins, …); operators without a payload keep their printed
// arguments in Arguments. Nodes are plain data owned by their Plan.
type Node struct {
	// ID is the operator id, the (N) of the formatted plan.
	ID int `json:"id"`
	Op Op  `json:"op"`
	// OpName is the operator name as printed ("Scan parquet",
	// "BroadcastHashJoin", or the name of an unknown operator).
	OpName string `json:"opName,omitempty"`
	// Header is the rest of the tree line after the name (join type and
	// build side, scanned table …), for explain and debugging.
	Header string `json:"header,omitempty"`
	// Codegen reports the '*' marking an operator inside whole-stage
	// codegen; CodegenStage is its "[codegen id : N]" (0 when absent).
	Codegen      bool `json:"codegen,omitempty"`
	CodegenStage int  `json:"codegenStage,omitempty"`
	// Output are the attributes the operator produces; Input, when
	// printed, the ones it consumes.
	Output   []Attr  `json:"output,omitempty"`
	Input    []Attr  `json:"input,omitempty"`
	Children []*Node `json:"children,omitempty"`
	// Line is the line of the node's details section ("(N) Op …"), or of
	// its tree line when it has none; Raw is the section's text.
	Line int    `json:"line,omitempty"`
	Raw  string `json:"raw,omitempty"`
	// Arguments is the printed "Arguments:" value, kept for every operator.
	Arguments string `json:"arguments,omitempty"`

	Scan        *ScanInfo        `json:"scan,omitempty"`
	Filter      *FilterInfo      `json:"filter,omitempty"`
	Project     *ProjectInfo     `json:"project,omitempty"`
	Agg         *AggInfo         `json:"agg,omitempty"`
	Join        *JoinInfo        `json:"join,omitempty"`
	Sort        *SortInfo        `json:"sort,omitempty"`
	Limit       *LimitInfo       `json:"limit,omitempty"`
	TakeOrdered *TakeOrderedInfo `json:"takeOrdered,omitempty"`
	Exchange    *ExchangeInfo    `json:"exchange,omitempty"`
	Broadcast   *BroadcastInfo   `json:"broadcast,omitempty"`
	Reused      *ReusedInfo      `json:"reused,omitempty"`
	Expand      *ExpandInfo      `json:"expand,omitempty"`
	Window      *WindowInfo      `json:"window,omitempty"`
}

// ScanInfo describes a file scan ("Scan parquet db.table").
type ScanInfo struct {
	// Format is "parquet", "orc", …; Table the table identifier as printed,
	// e.g. spark_catalog.default.lineitem.
	Format string `json:"format"`
	Table  string `json:"table,omitempty"`
	// Location is the printed location (InMemoryFileIndex […], or the
	// plan-stability placeholder).
	Location string `json:"location,omitempty"`
	// ReadSchema are the data columns read (partition columns are not in
	// it); RequiredColumns their names in order.
	ReadSchema      []Attr   `json:"readSchema,omitempty"`
	RequiredColumns []string `json:"requiredColumns,omitempty"`
	// PushedFilters are data-source filters (IsNotNull, EqualTo,
	// GreaterThan, In, StringStartsWith, And, Or, Not …) as calls whose
	// first argument is the column (an attribute when the column is in
	// Output) and whose other arguments are typed literals.
	PushedFilters    []*Expr `json:"pushedFilters,omitempty"`
	PartitionFilters []*Expr `json:"partitionFilters,omitempty"`
	DataFilters      []*Expr `json:"dataFilters,omitempty"`
	Batched          bool    `json:"batched,omitempty"`
}

// FilterInfo is a Filter's condition.
type FilterInfo struct {
	Condition *Expr `json:"condition"`
}

// ProjectInfo is a Project's list: attributes and aliases.
type ProjectInfo struct {
	List []*Expr `json:"list"`
}

// AggMode is an aggregate function's mode.
type AggMode uint8

// The modes, as Spark names them.
const (
	AggComplete AggMode = iota
	AggPartial
	AggPartialMerge
	AggFinal
)

var aggModeNames = [...]string{"Complete", "Partial", "PartialMerge", "Final"}

func (m AggMode) String() string {
	if int(m) < len(aggModeNames) {
		return aggModeNames[m]
	}
	return "Complete"
}

// AggCall is one aggregate function of an aggregate operator. Its
// arguments are Expr.Args.
type AggCall struct {
	// Func is the function without mode prefix ("sum", "avg", "count").
	Func     string  `json:"func,omitempty"`
	Mode     AggMode `json:"mode"`
	Distinct bool    `json:"distinct,omitempty"`
	// Type is the function's result type.
	Type types.DataType `json:"type,omitempty"`
	// Expr is the call as printed (e.g. partial_sum(...)).
	Expr *Expr `json:"expr,omitempty"`
}

// AggInfo describes HashAggregate, ObjectHashAggregate and SortAggregate.
type AggInfo struct {
	Keys      []*Expr   `json:"keys,omitempty"`
	Functions []AggCall `json:"functions,omitempty"`
	AggAttrs  []Attr    `json:"aggAttrs,omitempty"`
	Results   []*Expr   `json:"results,omitempty"`
}

// JoinType is a join's type.
type JoinType uint8

// The join types.
const (
	JoinUnknown JoinType = iota
	JoinInner
	JoinLeftOuter
	JoinRightOuter
	JoinFullOuter
	JoinLeftSemi
	JoinLeftAnti
	JoinExistence
	JoinCross
)

var joinTypeNames = [...]string{"Unknown", "Inner", "LeftOuter", "RightOuter", "FullOuter", "LeftSemi", "LeftAnti", "ExistenceJoin", "Cross"}

func (j JoinType) String() string {
	if int(j) < len(joinTypeNames) {
		return joinTypeNames[j]
	}
	return "Unknown"
}

func parseJoinType(s string) JoinType {
	for i, n := range joinTypeNames {
		if n == s {
			return JoinType(i)
		}
	}
	return JoinUnknown
}

// JoinInfo describes a join.
type JoinInfo struct {
	Type JoinType `json:"type,omitempty"`
	// BuildSide is "left", "right" or "" (sort-merge joins build nothing).
	BuildSide string  `json:"buildSide,omitempty"`
	LeftKeys  []*Expr `json:"leftKeys,omitempty"`
	RightKeys []*Expr `json:"rightKeys,omitempty"`
	// Condition is the extra join condition, nil for "None".
	Condition *Expr `json:"condition,omitempty"`
	// Exists is the ExistenceJoin's output attribute.
	Exists *Attr `json:"exists,omitempty"`
	// NullAwareAnti marks a null-aware anti join (NOT IN over one key):
	// a probe row with a null key, or any probe row when the build side
	// holds a null key, is dropped unless the build side is empty. Read
	// from Spark's isNullAwareAntiJoin when printed, else from the build
	// side's broadcast (BroadcastInfo.NullAware).
	NullAwareAnti bool `json:"nullAwareAnti,omitempty"`
}

// SortInfo describes a Sort.
type SortInfo struct {
	Orders []*Expr `json:"orders,omitempty"`
	Global bool    `json:"global,omitempty"`
}

// LimitInfo describes CollectLimit, GlobalLimit and LocalLimit.
type LimitInfo struct {
	Limit  int64 `json:"limit,omitempty"`
	Offset int64 `json:"offset,omitempty"`
}

// TakeOrderedInfo describes TakeOrderedAndProject.
type TakeOrderedInfo struct {
	Limit      int64   `json:"limit,omitempty"`
	Offset     int64   `json:"offset,omitempty"`
	Orders     []*Expr `json:"orders,omitempty"`
	Projection []*Expr `json:"projection,omitempty"`
}

// PartitioningKind is an exchange's partitioning scheme.
type PartitioningKind uint8

// The partitioning kinds.
const (
	PartUnknown PartitioningKind = iota
	PartHash
	PartRange
	PartRoundRobin
	PartSingle
)

var partNames = [...]string{"unknown", "hash", "range", "roundrobin", "single"}

func (p PartitioningKind) String() string {
	if int(p) < len(partNames) {
		return partNames[p]
	}
	return "unknown"
}

// ExchangeInfo describes a shuffle Exchange.
type ExchangeInfo struct {
	Kind PartitioningKind `json:"kind"`
	// Exprs are the hash keys or the range sort orders.
	Exprs         []*Expr `json:"exprs,omitempty"`
	NumPartitions int     `json:"numPartitions,omitempty"`
	// ShuffleOrigin as printed (ENSURE_REQUIREMENTS, REPARTITION_BY_COL,
	// or "true"/"false" in older Spark versions).
	ShuffleOrigin string `json:"shuffleOrigin,omitempty"`
	PlanID        int64  `json:"planId,omitempty"`
}

// BroadcastInfo describes a BroadcastExchange.
type BroadcastInfo struct {
	// Mode is HashedRelationBroadcastMode or IdentityBroadcastMode; Keys
	// its key expressions as printed (over input[i, type, nullable]).
	Mode string   `json:"mode,omitempty"`
	Keys []string `json:"keys,omitempty"`
	// NullAware marks a HashedRelationBroadcastMode(…,true): the relation
	// of a null-aware anti join (NOT IN), which also records whether the
	// build side holds a null key.
	NullAware bool  `json:"nullAware,omitempty"`
	PlanID    int64 `json:"planId,omitempty"`
}

// ReusedInfo describes a ReusedExchange: ReusesID is the operator id of
// the exchange it reuses (0 when printed as "unknown").
type ReusedInfo struct {
	ReusesID int `json:"reusesId"`
}

// ExpandInfo is an Expand's projections (one row out per projection).
type ExpandInfo struct {
	Projections [][]*Expr `json:"projections"`
}

// WindowInfo describes a Window: its window expressions (aliases of
// "window" calls), partition keys and order.
type WindowInfo struct {
	Exprs       []*Expr `json:"exprs,omitempty"`
	PartitionBy []*Expr `json:"partitionBy,omitempty"`
	OrderBy     []*Expr `json:"orderBy,omitempty"`
}
