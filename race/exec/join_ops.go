package exec

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/hados-io/hados/operators"
	"github.com/hados-io/hados/operators/expr"
	"github.com/hados-io/hados/race/plan"
	"github.com/hados-io/hados/race/rules"
)

// This file is the one place that calls the hash join operators of
// package operators (hash join, broadcast table).

var joinTypes = map[plan.JoinType]operators.JoinType{
	plan.JoinInner: operators.JoinInner, plan.JoinLeftOuter: operators.JoinLeftOuter,
	plan.JoinRightOuter: operators.JoinRightOuter, plan.JoinFullOuter: operators.JoinFullOuter,
	plan.JoinLeftSemi: operators.JoinLeftSemi, plan.JoinLeftAnti: operators.JoinLeftAnti,
	plan.JoinExistence: operators.JoinExistence,
}

func joinSpec(jp *rules.JoinPayload, names []string) operators.JoinSpec {
	s := operators.JoinSpec{Type: joinTypes[jp.Type], Build: operators.BuildRight, LeftKeys: jp.LeftKeys,
		RightKeys: jp.RightKeys, NullSafe: jp.NullSafe, Condition: jp.Condition, NullAwareAnti: jp.NullAwareAnti, Names: names}
	if jp.Build == rules.BuildLeft {
		s.Build = operators.BuildLeft
	}
	return s
}

func newHashJoin(t *operators.Target, left, right operators.Operator, jp *rules.JoinPayload, names []string) (operators.Operator, error) {
	return operators.NewHashJoin(t, left, right, joinSpec(jp, names))
}

// broadcastTable is a join's build side built once per device.
type broadcastTable = *operators.BroadcastTable

func newBroadcastTable(ctx context.Context, t *operators.Target, build operators.Operator, keys []*expr.Expr, nullSafe []bool) (broadcastTable, error) {
	return operators.NewBroadcastTable(ctx, t, build, keys, nullSafe)
}

// newBroadcastHashJoin joins probe with the table of a broadcast of
// columns schema, which table returns when the join opens (after its probe
// side has started: the table may still be building, ahead or in this
// task).
func newBroadcastHashJoin(t *operators.Target, probe operators.Operator, schema *arrow.Schema,
	table func(context.Context) (broadcastTable, error), jp *rules.JoinPayload, names []string) (operators.Operator, error) {
	return operators.NewBroadcastHashJoinLazy(t, probe, schema, joinSpec(jp, names), table)
}
