package rules

import "github.com/hados-io/hados/race/plan"

// Kind is what a node of the converted tree is: a Spark operator left on
// the host, a device operator, or a host↔device transition.
type Kind uint8

// The kinds.
const (
	// KindHost is a Spark operator that stays on the host.
	KindHost Kind = iota
	DpuScan
	DpuFilter
	DpuProject
	DpuHashAggregate
	DpuSort
	DpuHashJoin
	DpuExchange
	DpuBroadcastExchange
	DpuReusedExchange
	DpuUnion
	DpuTopN
	DpuLimit
	// RowToColumnar moves host rows into device columns.
	RowToColumnar
	// ColumnarToRow moves device columns back to host rows.
	ColumnarToRow
	kindCount
)

var kindNames = [kindCount]string{"Host", "DpuScan", "DpuFilter", "DpuProject", "DpuHashAggregate", "DpuSort",
	"DpuHashJoin", "DpuExchange", "DpuBroadcastExchange", "DpuReusedExchange", "DpuUnion", "DpuTopN", "DpuLimit",
	"RowToColumnar", "ColumnarToRow"}

func (k Kind) String() string {
	if k < kindCount {
		return kindNames[k]
	}
	return "Host"
}

// OnDevice reports the device operators.
func (k Kind) OnDevice() bool { return k >= DpuScan && k <= DpuLimit }

// IsTransition reports RowToColumnar and ColumnarToRow.
func (k Kind) IsTransition() bool { return k == RowToColumnar || k == ColumnarToRow }

// capability is what the device declares for a Spark operator: the Dpu
// kind it becomes and whether the operator exists today.
type capability struct {
	kind  Kind
	today bool
}

// capabilities is the device's operator table: every Spark operator it
// declares and the Dpu kind it becomes. All of them execute today
// (race/exec runs them as a DAG of stages: scans, fused filters and
// projections, hash aggregations, sorts, hash joins for Spark's three
// equi-join operators, limits, TopN, unions, shuffle, broadcast and reused
// exchanges); the today flag stays so that an operator can be declared
// before it is built (Node.Planned, Result.ExecutableToday).
var capabilities = map[plan.Op]capability{
	plan.OpScan:                  {DpuScan, true},
	plan.OpFilter:                {DpuFilter, true},
	plan.OpProject:               {DpuProject, true},
	plan.OpHashAggregate:         {DpuHashAggregate, true},
	plan.OpObjectHashAggregate:   {DpuHashAggregate, true},
	plan.OpSortAggregate:         {DpuHashAggregate, true},
	plan.OpExchange:              {DpuExchange, true},
	plan.OpSort:                  {DpuSort, true},
	plan.OpBroadcastHashJoin:     {DpuHashJoin, true},
	plan.OpShuffledHashJoin:      {DpuHashJoin, true},
	plan.OpSortMergeJoin:         {DpuHashJoin, true},
	plan.OpBroadcastExchange:     {DpuBroadcastExchange, true},
	plan.OpReusedExchange:        {DpuReusedExchange, true},
	plan.OpUnion:                 {DpuUnion, true},
	plan.OpTakeOrderedAndProject: {DpuTopN, true},
	plan.OpCollectLimit:          {DpuLimit, true},
	plan.OpGlobalLimit:           {DpuLimit, true},
	plan.OpLocalLimit:            {DpuLimit, true},
}

// plumbing are Spark's own wrappers and transitions: they neither run on
// the device nor fall back, and they are not counted as operators.
var plumbing = map[plan.Op]bool{
	plan.OpColumnarToRow: true, plan.OpRowToColumnar: true, plan.OpInputAdapter: true,
	plan.OpWholeStageCodegen: true, plan.OpAdaptiveSparkPlan: true, plan.OpSubquery: true,
	plan.OpReusedSubquery: true, plan.OpSubqueryBroadcast: true,
}

// IsPlumbing reports Spark's wrapper operators (ColumnarToRow,
// InputAdapter, AdaptiveSparkPlan, Subquery…), which the rules never
// count as offloaded or fallen back.
func IsPlumbing(op plan.Op) bool { return plumbing[op] }
