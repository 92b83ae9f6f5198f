package rules

import (
	"fmt"
	"io"
	"strconv"
	"strings"
)

// WriteText prints the converted plan the way Spark prints a physical
// plan, with Dpu names and inserted transitions, then the subqueries, the
// fused pipelines, every fallback with its reason and the decision.
func (r *Result) WriteText(w io.Writer) error {
	var b strings.Builder
	state := "stays on the host"
	if r.Offloaded() {
		state = "offloaded"
	}
	fmt.Fprintf(&b, "== Physical Plan (hados: %s, strategy %s) ==\n", state, r.Options.Strategy)
	writeTree(&b, r.Root, "", "")
	if len(r.Subqueries) > 0 {
		b.WriteString("\n===== Subqueries =====\n")
		for i, s := range r.Subqueries {
			sq := r.Plan.Subqueries[i]
			fmt.Fprintf(&b, "\nSubquery:%d Hosting operator id = %d\n", sq.ID, sq.HostID)
			if s == nil {
				b.WriteString("(repeats an earlier subquery)\n")
				continue
			}
			writeTree(&b, s, "", "")
		}
	}
	b.WriteString("\n== Device pipelines ==\n")
	if len(r.Pipelines) == 0 {
		b.WriteString("(none)\n")
	}
	for _, p := range r.Pipelines {
		parts := make([]string, 0, len(p.Nodes))
		for _, n := range p.Nodes {
			parts = append(parts, fmt.Sprintf("(%d) %s", n.Spark.ID, n.Name()))
		}
		fmt.Fprintf(&b, "Pipeline %d: %s\n", p.ID, strings.Join(parts, " -> "))
	}
	b.WriteString("\n== Fallbacks ==\n")
	fbs := r.Fallbacks()
	if len(fbs) == 0 {
		b.WriteString("(none)\n")
	}
	for _, f := range fbs {
		fmt.Fprintf(&b, "(%d) %s: %s\n", f.ID, f.Operator, f.Support)
	}
	c := r.Count()
	fmt.Fprintf(&b, "\n== Decision ==\noffloaded: %s; executable today: %s; operators %d, supported %d, on device %d (planned %d)\n",
		yesNo(r.Offloaded()), yesNo(r.ExecutableToday()), c.Operators, c.Supported, c.OnDevice, c.Planned)
	_, err := io.WriteString(w, b.String())
	return err
}

func yesNo(v bool) string {
	if v {
		return "yes"
	}
	return "no"
}

// writeTree prints n and its subtree in Spark's tree style: ":- " before
// every child but the last, "+- " before the last.
func writeTree(b *strings.Builder, n *Node, first, rest string) {
	b.WriteString(first)
	b.WriteString(nodeLine(n))
	b.WriteByte('\n')
	for i, c := range n.Children {
		if i == len(n.Children)-1 {
			writeTree(b, c, rest+"+- ", rest+"   ")
		} else {
			writeTree(b, c, rest+":- ", rest+":  ")
		}
	}
}

func nodeLine(n *Node) string {
	s := n.Name()
	if n.Spark == nil {
		return s
	}
	if n.Spark.Header != "" {
		s += " " + n.Spark.Header
	}
	s += " (" + strconv.Itoa(n.Spark.ID) + ")"
	if n.Pipeline > 0 {
		s += " [pipeline " + strconv.Itoa(n.Pipeline) + "]"
	}
	if n.Planned {
		s += " [planned]"
	}
	if n.IsEmptyInput() {
		s += " [empty input]"
	}
	if !n.Verdict.OK && n.counted() {
		s += " [fallback: " + string(n.Verdict.Reason) + "]"
	}
	return s
}

// Explained is the JSON form of a result (explain --json).
type Explained struct {
	Name            string          `json:"name"`
	Strategy        Strategy        `json:"strategy"`
	Offloaded       bool            `json:"offloaded"`
	ExecutableToday bool            `json:"executableToday"`
	Counts          Counts          `json:"counts"`
	Root            *ExplainedNode  `json:"root"`
	Subqueries      []ExplainedSub  `json:"subqueries,omitempty"`
	Pipelines       []ExplainedPipe `json:"pipelines,omitempty"`
	Fallbacks       []Fallback      `json:"fallbacks,omitempty"`
}

// ExplainedNode is one node of Explained.
type ExplainedNode struct {
	ID      int      `json:"id,omitempty"`
	Name    string   `json:"name"`
	Kind    string   `json:"kind"`
	SparkOp string   `json:"sparkOp,omitempty"`
	Verdict *Support `json:"verdict,omitempty"`
	Planned bool     `json:"planned,omitempty"`
	// EmptyInput marks a host leaf of no rows the executor reads as an
	// empty input (see EmptyInput).
	EmptyInput bool             `json:"emptyInput,omitempty"`
	Pipeline   int              `json:"pipeline,omitempty"`
	Exprs      []ExprSupport    `json:"unsupportedExprs,omitempty"`
	Children   []*ExplainedNode `json:"children,omitempty"`
}

// ExplainedSub is a subquery of Explained.
type ExplainedSub struct {
	ID     int            `json:"id"`
	HostID int            `json:"hostId,omitempty"`
	Root   *ExplainedNode `json:"root,omitempty"`
}

// ExplainedPipe is a pipeline of Explained: its operator ids, source first.
type ExplainedPipe struct {
	ID        int   `json:"id"`
	Operators []int `json:"operators"`
}

// Explain returns the JSON form of the result.
func (r *Result) Explain() Explained {
	e := Explained{Name: r.Plan.Name, Strategy: r.Options.Strategy, Offloaded: r.Offloaded(),
		ExecutableToday: r.ExecutableToday(), Counts: r.Count(), Root: explainNode(r.Root), Fallbacks: r.Fallbacks()}
	for i, s := range r.Subqueries {
		sq := r.Plan.Subqueries[i]
		e.Subqueries = append(e.Subqueries, ExplainedSub{ID: sq.ID, HostID: sq.HostID, Root: explainNode(s)})
	}
	for _, p := range r.Pipelines {
		e.Pipelines = append(e.Pipelines, ExplainedPipe{ID: p.ID, Operators: p.IDs()})
	}
	return e
}

func explainNode(n *Node) *ExplainedNode {
	if n == nil {
		return nil
	}
	x := &ExplainedNode{Name: n.Name(), Kind: n.Kind.String(), Planned: n.Planned, Pipeline: n.Pipeline, EmptyInput: n.IsEmptyInput()}
	if n.Spark != nil {
		x.ID, x.SparkOp = n.Spark.ID, n.Spark.Op.String()
	}
	if !n.Verdict.OK {
		v := n.Verdict
		x.Verdict = &v
	}
	for _, es := range n.Exprs {
		if !es.Support.OK {
			x.Exprs = append(x.Exprs, es)
		}
	}
	for _, c := range n.Children {
		x.Children = append(x.Children, explainNode(c))
	}
	return x
}
