package plan

import (
	"fmt"
	"regexp"
	"strconv"
)

// SubqueryKind says what a subquery block computes for its hosting
// expression.
type SubqueryKind string

// The subquery kinds.
const (
	// SubqueryScalar: "Subquery scalar-subquery#N" or "ReusedSubquery
	// Subquery scalar-subquery#N": one row of one column (or of one struct,
	// read with .field) that the host evaluates as a constant.
	SubqueryScalar SubqueryKind = "scalar"
	// SubqueryDynamicPruning: "x IN dynamicpruning#N": the set of values of
	// a dimension's join key, used to prune the fact table's partitions.
	SubqueryDynamicPruning SubqueryKind = "dynamic-pruning"
)

var rePrintedPlanID = regexp.MustCompile(`^\[id=#([0-9]{1,18})\]$`)

// LinkSubqueries fills each block's Kind, ExprID, PlanID and Reuses from
// its hosting expression (the importer and DecodeJSON do it; a plan built
// in Go calls it once its blocks are in place).
func (p *Plan) LinkSubqueries() { linkSubqueries(p) }

// linkSubqueries fills each block's Kind, ExprID, PlanID and Reuses from
// its hosting expression: blocks that print no plan (a ReusedSubquery, a
// dynamic-pruning subquery shared by several scans) point at the block of
// the same kind and expression id that does.
func linkSubqueries(p *Plan) {
	holder := map[subqueryKey]int{}
	for _, s := range p.Subqueries {
		s.Kind, s.ExprID, s.PlanID = classifyHost(s.HostExpr)
		if s.Kind != "" && s.Root != nil {
			if _, ok := holder[s.key()]; !ok {
				holder[s.key()] = s.ID
			}
		}
	}
	for _, s := range p.Subqueries {
		s.Reuses = 0
		if s.Kind != "" && s.Root == nil {
			s.Reuses = holder[s.key()]
		}
	}
}

type subqueryKey struct {
	kind SubqueryKind
	id   int64
}

func (s *Subquery) key() subqueryKey { return subqueryKey{s.Kind, s.ExprID} }

// classifyHost reads a hosting expression: its kind, the expression id
// the plan's expressions refer to it by, and Spark's printed [id=#M].
func classifyHost(h *Expr) (SubqueryKind, int64, int64) {
	if h == nil || h.Kind != ExprCall {
		return "", 0, 0
	}
	switch h.Name {
	case "scalar-subquery", "reused-scalar-subquery":
		var planID int64
		if m := rePrintedPlanID.FindStringSubmatch(h.Raw); m != nil {
			planID, _ = strconv.ParseInt(m[1], 10, 64)
		}
		return SubqueryScalar, h.ID, planID
	case "dynamicpruning":
		return SubqueryDynamicPruning, h.ID, 0
	}
	return "", 0, 0
}

// SubqueryFor returns the subquery block whose plan computes e, for e a
// "scalar-subquery", "reused-scalar-subquery" or "dynamicpruning" call
// (the expressions a Filter, Project or scan's PartitionFilters hold); nil
// for any other expression or when the plan has no such block. The block
// returned always has a Root: a reused subquery resolves to the block that
// prints its plan. Executing the block's Root once, before the operators
// hosting its expressions, gives the value every reference to its ExprID
// reads.
func (p *Plan) SubqueryFor(e *Expr) *Subquery {
	kind, id, _ := classifyHost(e)
	if kind == "" {
		return nil
	}
	var reused *Subquery
	for _, s := range p.Subqueries {
		if s.Kind != kind || s.ExprID != id {
			continue
		}
		if s.Root != nil {
			return s
		}
		if reused == nil && s.Reuses != 0 {
			reused = s
		}
	}
	if reused != nil {
		return p.holder(reused)
	}
	return nil
}

// linked reports whether any block carries the links linkSubqueries sets.
func (p *Plan) linked() bool {
	for _, s := range p.Subqueries {
		if s.Kind != "" {
			return true
		}
	}
	return false
}

// holder returns the block s.Reuses names: the one with that ID, a plan,
// and s's kind and expression id; nil when there is none.
func (p *Plan) holder(s *Subquery) *Subquery {
	for _, t := range p.Subqueries {
		if t.ID == s.Reuses && t.Root != nil && t.Kind == s.Kind && t.ExprID == s.ExprID {
			return t
		}
	}
	return nil
}

// ScalarSubqueries returns the blocks that compute scalar subqueries, one
// per expression id, in the order Spark printed them: the plans to execute
// before the main plan, whose results the scalar-subquery expressions of
// the main plan (and of later subqueries) read.
func (p *Plan) ScalarSubqueries() []*Subquery {
	var out []*Subquery
	for _, s := range p.Subqueries {
		if s.Kind == SubqueryScalar && s.Root != nil {
			out = append(out, s)
		}
	}
	return out
}

// validateSubqueries checks the links of a decoded plan: known kinds, and
// Reuses pointing at a block of the same kind and id that has a plan.
func (p *Plan) validateSubqueries() error {
	for i, s := range p.Subqueries {
		where := fmt.Sprintf("subqueries[%d]", i)
		switch s.Kind {
		case "", SubqueryScalar, SubqueryDynamicPruning:
		default:
			return jsonErr(where, "unknown subquery kind %q", s.Kind)
		}
		if s.Reuses == 0 {
			continue
		}
		if s.Root != nil {
			return jsonErr(where, "block %d has a plan and also reuses block %d", s.ID, s.Reuses)
		}
		if p.holder(s) == nil {
			return jsonErr(where, "block %d reuses block %d, which has no plan for %s #%d", s.ID, s.Reuses, s.Kind, s.ExprID)
		}
	}
	return nil
}
