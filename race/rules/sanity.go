package rules

import (
	"fmt"

	"github.com/hados-io/hados/operators/expr"
)

// sanity checks the final tree: every edge connects the same side (host
// rows or device columns), transitions have one child and never undo each
// other, device operators read attributes their children produce, and
// converted expressions stay within their input.
func sanity(r *Result) error {
	var errs []error
	var visit func(n, parent *Node)
	visit = func(n, parent *Node) {
		if err := checkNode(n, parent); err != nil {
			errs = append(errs, err)
		}
		for _, c := range n.Children {
			visit(c, n)
		}
	}
	for _, t := range r.Trees() {
		visit(t, nil)
	}
	if len(errs) > 0 {
		return fmt.Errorf("%w: %v", ErrSanity, errs[0])
	}
	return nil
}

// sides returns the side a node reads (in) and produces (out): true is the
// device.
func sides(n *Node) (in, out bool) {
	switch {
	case n.Kind == RowToColumnar:
		return false, true
	case n.Kind == ColumnarToRow:
		return true, false
	case n.Kind.OnDevice():
		return true, true
	}
	return false, false
}

func label(n *Node) string {
	if n.Spark != nil {
		return fmt.Sprintf("(%d) %s", n.Spark.ID, n.Name())
	}
	return n.Kind.String()
}

func checkNode(n, parent *Node) error {
	if n.Kind.IsTransition() {
		if len(n.Children) != 1 {
			return fmt.Errorf("%s has %d children", label(n), len(n.Children))
		}
		if c := n.Children[0]; c.Kind.IsTransition() {
			return fmt.Errorf("%s directly above %s", label(n), label(c))
		}
	} else if n.Spark == nil {
		return fmt.Errorf("%s stands for no Spark operator", label(n))
	}
	if parent != nil {
		pin, _ := sides(parent)
		if _, out := sides(n); pin != out {
			return fmt.Errorf("%s feeds %s across host and device without a transition", label(n), label(parent))
		}
	}
	if !n.Kind.OnDevice() {
		return nil
	}
	if in := n.Spark.Input; len(in) > 0 {
		have := map[int64]bool{}
		for _, c := range n.Children {
			for _, a := range c.Output() {
				have[a.ID] = true
			}
		}
		for _, a := range in {
			if len(n.Children) > 0 && !have[a.ID] {
				return fmt.Errorf("%s reads %s, which no child produces", label(n), a)
			}
		}
	}
	if p := n.Device; p != nil {
		width := len(p.Input)
		check := func(xs ...*expr.Expr) error {
			for _, x := range xs {
				if x == nil {
					continue
				}
				if err := x.Walk(func(e *expr.Expr) error {
					if e.Op == expr.OpColumn && (e.Col < 0 || e.Col >= width) {
						return fmt.Errorf("%s: column %d of an input of %d", label(n), e.Col, width)
					}
					return nil
				}); err != nil {
					return err
				}
			}
			return nil
		}
		if err := check(append(append([]*expr.Expr{p.Filter}, p.Project...), p.Keys...)...); err != nil {
			return err
		}
		for _, c := range p.Calls {
			if err := check(c.Args...); err != nil {
				return err
			}
		}
		width = len(p.ResultInput)
		if err := check(p.Results...); err != nil {
			return err
		}
	}
	return nil
}
