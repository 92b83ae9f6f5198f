package rules

// Pipeline is one fused device pipeline: a maximal chain between pipeline
// breakers, source first: an optional DpuScan, then DpuFilter and
// DpuProject nodes, then an optional DpuHashAggregate as its sink. The
// executor compiles each into one device program (operators.FilterProject
// or operators.HashAggregate with the filter fused in front).
type Pipeline struct {
	ID    int
	Nodes []*Node
}

// IDs returns the Spark operator ids of the pipeline, source first.
func (p Pipeline) IDs() []int {
	out := make([]int, 0, len(p.Nodes))
	for _, n := range p.Nodes {
		out = append(out, n.Spark.ID)
	}
	return out
}

func streaming(n *Node) bool { return n != nil && (n.Kind == DpuFilter || n.Kind == DpuProject) }

// fuse finds the pipelines. Every breaker (exchange, sort, join, an
// aggregation's output, a transition) ends one.
func fuse(r *Result) error {
	r.Pipelines = nil
	r.Walk(func(n *Node) { n.Pipeline = 0 })
	var visit func(n, parent *Node)
	visit = func(n, parent *Node) {
		top := n.Kind == DpuHashAggregate ||
			streaming(n) && !(streaming(parent) || parent != nil && parent.Kind == DpuHashAggregate)
		if top {
			r.chain(n)
		}
		for _, c := range n.Children {
			visit(c, n)
		}
	}
	for _, t := range r.Trees() {
		visit(t, nil)
	}
	return nil
}

func (r *Result) chain(top *Node) {
	nodes := []*Node{top}
	for cur := top; len(cur.Children) == 1; {
		c := cur.Children[0]
		if streaming(c) {
			nodes, cur = append(nodes, c), c
			continue
		}
		if c.Kind == DpuScan {
			nodes = append(nodes, c)
		}
		break
	}
	for i, j := 0, len(nodes)-1; i < j; i, j = i+1, j-1 {
		nodes[i], nodes[j] = nodes[j], nodes[i]
	}
	p := Pipeline{ID: len(r.Pipelines) + 1, Nodes: nodes}
	for _, n := range nodes {
		n.Pipeline = p.ID
	}
	r.Pipelines = append(r.Pipelines, p)
}
