package plan

import "strings"

// Op identifies a Spark physical operator. Its String is the stable name
// used in the JSON form (Spark's own node name); OpUnknown marks an operator
// the importer does not model, whose printed name is kept in Node.OpName.
type Op uint8

// The operators.
const (
	OpUnknown Op = iota
	OpScan
	OpFilter
	OpProject
	OpHashAggregate
	OpObjectHashAggregate
	OpSortAggregate
	OpSort
	OpTakeOrderedAndProject
	OpCollectLimit
	OpGlobalLimit
	OpLocalLimit
	OpBroadcastHashJoin
	OpShuffledHashJoin
	OpSortMergeJoin
	OpBroadcastNestedLoopJoin
	OpCartesianProduct
	OpExchange
	OpBroadcastExchange
	OpReusedExchange
	OpUnion
	OpExpand
	OpWindow
	OpGenerate
	OpColumnarToRow
	OpRowToColumnar
	OpInputAdapter
	OpWholeStageCodegen
	OpAdaptiveSparkPlan
	OpSubquery
	OpReusedSubquery
	OpSubqueryBroadcast
	OpEmptyRelation
	OpLocalTableScan
	OpRange
	opCount
)

var opNames = [opCount]string{
	OpUnknown:                 "Unknown",
	OpScan:                    "Scan",
	OpFilter:                  "Filter",
	OpProject:                 "Project",
	OpHashAggregate:           "HashAggregate",
	OpObjectHashAggregate:     "ObjectHashAggregate",
	OpSortAggregate:           "SortAggregate",
	OpSort:                    "Sort",
	OpTakeOrderedAndProject:   "TakeOrderedAndProject",
	OpCollectLimit:            "CollectLimit",
	OpGlobalLimit:             "GlobalLimit",
	OpLocalLimit:              "LocalLimit",
	OpBroadcastHashJoin:       "BroadcastHashJoin",
	OpShuffledHashJoin:        "ShuffledHashJoin",
	OpSortMergeJoin:           "SortMergeJoin",
	OpBroadcastNestedLoopJoin: "BroadcastNestedLoopJoin",
	OpCartesianProduct:        "CartesianProduct",
	OpExchange:                "Exchange",
	OpBroadcastExchange:       "BroadcastExchange",
	OpReusedExchange:          "ReusedExchange",
	OpUnion:                   "Union",
	OpExpand:                  "Expand",
	OpWindow:                  "Window",
	OpGenerate:                "Generate",
	OpColumnarToRow:           "ColumnarToRow",
	OpRowToColumnar:           "RowToColumnar",
	OpInputAdapter:            "InputAdapter",
	OpWholeStageCodegen:       "WholeStageCodegen",
	OpAdaptiveSparkPlan:       "AdaptiveSparkPlan",
	OpSubquery:                "Subquery",
	OpReusedSubquery:          "ReusedSubquery",
	OpSubqueryBroadcast:       "SubqueryBroadcast",
	OpEmptyRelation:           "EmptyRelation",
	OpLocalTableScan:          "LocalTableScan",
	OpRange:                   "Range",
}

var opByName = func() map[string]Op {
	m := make(map[string]Op, opCount)
	for i, n := range opNames {
		m[n] = Op(i)
	}
	delete(m, "Unknown")
	return m
}()

// String returns the operator's stable name.
func (o Op) String() string {
	if o < opCount {
		return opNames[o]
	}
	return "Unknown"
}

// ParseOp returns the operator with the given stable name, or OpUnknown.
func ParseOp(name string) Op { return opByName[name] }

// IsJoin reports the join operators.
func (o Op) IsJoin() bool {
	switch o {
	case OpBroadcastHashJoin, OpShuffledHashJoin, OpSortMergeJoin, OpBroadcastNestedLoopJoin, OpCartesianProduct:
		return true
	}
	return false
}

// IsAggregate reports the aggregate operators.
func (o Op) IsAggregate() bool {
	return o == OpHashAggregate || o == OpObjectHashAggregate || o == OpSortAggregate
}

// EmptyLeaf reports a leaf that produces no rows: Spark's EmptyRelation
// (what its optimizer leaves of a subtree it proved empty) or a
// LocalTableScan of no rows (printed "<empty>"). It reads nothing, so an
// executor can run it anywhere as an empty input of its output columns.
func (n *Node) EmptyLeaf() bool {
	if n == nil || len(n.Children) > 0 {
		return false
	}
	switch n.Op {
	case OpEmptyRelation:
		return true
	case OpLocalTableScan:
		return strings.HasPrefix(strings.TrimSpace(n.Arguments), "<empty>") || strings.HasPrefix(strings.TrimSpace(n.Header), "<empty>")
	}
	return false
}
