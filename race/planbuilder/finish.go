package planbuilder

import (
	"fmt"
	"strings"

	"github.com/hados-io/hados/race/plan"
)

// finish gives a numbered operator tree the details Spark prints: the
// exchanges' plan ids (post-order, continuing across trees), the printed
// Arguments of exchanges, sorts and TakeOrderedAndProject, and the
// whole-stage codegen stage ids.
func finish(root *plan.Node, planID *int64, reuses map[*plan.Node]*plan.Node) {
	var post func(n *plan.Node)
	post = func(n *plan.Node) {
		for _, c := range n.Children {
			post(c)
		}
		switch {
		case n.Exchange != nil:
			*planID++
			n.Exchange.PlanID = *planID
			n.Arguments = exchangeArguments(n.Exchange)
		case n.Broadcast != nil:
			*planID++
			n.Broadcast.PlanID = *planID
			nullAware := strings.HasSuffix(n.Arguments, "true")
			n.Arguments = fmt.Sprintf("%s(List(%s),%t), [plan_id=%d]", n.Broadcast.Mode, strings.Join(n.Broadcast.Keys, ", "), nullAware, *planID)
		case n.Sort != nil:
			n.Arguments = fmt.Sprintf("[%s], %t, 0", exprList(n.Sort.Orders), n.Sort.Global)
		case n.TakeOrdered != nil:
			t := n.TakeOrdered
			n.Arguments = fmt.Sprintf("%d, [%s], [%s]", t.Limit, exprList(t.Orders), exprList(t.Projection))
		}
	}
	post(root)
	st := &stager{reuses: reuses}
	st.number(root, true)
}

func exprList(xs []*plan.Expr) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = x.String()
	}
	return strings.Join(parts, ", ")
}

func exchangeArguments(x *plan.ExchangeInfo) string {
	var part string
	switch x.Kind {
	case plan.PartSingle:
		part = "SinglePartition"
	case plan.PartRange:
		part = fmt.Sprintf("rangepartitioning(%s, %d)", exprList(x.Exprs), x.NumPartitions)
	default:
		part = fmt.Sprintf("hashpartitioning(%s, %d)", exprList(x.Exprs), x.NumPartitions)
	}
	return fmt.Sprintf("%s, %s, [plan_id=%d]", part, x.ShuffleOrigin, x.PlanID)
}

// stager numbers whole-stage codegen stages as Spark's
// CollapseCodegenStages does: a stage is a maximal tree of codegen
// operators; the stages below a stage's inputs are numbered before it, in
// child order; sort-merge and shuffled hash joins read each child as a
// separate stage. Stages are numbered before exchange reuse, so a
// ReusedExchange accounts for the stages of the subtree it replaces.
type stager struct {
	reuses  map[*plan.Node]*plan.Node
	counter int
}

// number numbers the stages of n's tree; with assign false it only
// counts them.
func (s *stager) number(n *plan.Node, assign bool) {
	if target := s.reuses[n]; target != nil {
		s.number(target, false)
		return
	}
	if !n.Codegen {
		for _, c := range n.Children {
			s.number(c, assign)
		}
		return
	}
	var members []*plan.Node
	var collect func(m *plan.Node)
	collect = func(m *plan.Node) {
		members = append(members, m)
		separate := m.Op == plan.OpSortMergeJoin || m.Op == plan.OpShuffledHashJoin
		for _, c := range m.Children {
			if c.Codegen && !separate {
				collect(c)
			} else {
				s.number(c, assign)
			}
		}
	}
	collect(n)
	s.counter++
	if assign {
		for _, m := range members {
			m.CodegenStage = s.counter
		}
	}
}
