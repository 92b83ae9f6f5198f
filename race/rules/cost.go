package rules

import (
	"fmt"
	"math"

	"github.com/hados-io/hados/operators/types"
	"github.com/hados-io/hados/race/plan"
)

// CostModel prices a device region. A formatted plan carries no row
// counts, so rows are estimated from the shape (ScanRows per scan, half
// of a filter's input passing, a tenth of an aggregation's input as
// groups); bytes are rows times the output row width.
type CostModel struct {
	// DMABytesPerSecond is the host↔device link bandwidth.
	DMABytesPerSecond float64 `json:"dmaBytesPerSecond"`
	// HostBytesPerSecond and DeviceBytesPerSecond are operator throughput
	// over input bytes on either side.
	HostBytesPerSecond   float64 `json:"hostBytesPerSecond"`
	DeviceBytesPerSecond float64 `json:"deviceBytesPerSecond"`
	// ScanRows is the row count assumed for a scan.
	ScanRows float64 `json:"scanRows"`
}

// DefaultCostModel is a PCIe Gen4 x16 link and a device four times the
// host's throughput.
func DefaultCostModel() CostModel {
	return CostModel{DMABytesPerSecond: 12e9, HostBytesPerSecond: 1.5e9, DeviceBytesPerSecond: 6e9, ScanRows: 1e7}
}

// costStrategy keeps each device region (a connected set of device
// operators) only if its device time plus the DMA time of the bytes
// crossing its boundaries beats its host time.
func costStrategy(r *Result) {
	// Verdicts first: an operator that falls back is on the host already.
	est := estimator{m: r.Options.Cost, rows: map[*plan.Node]float64{}}
	seen := map[*Node]bool{}
	r.Walk(func(n *Node) {
		if !n.Kind.OnDevice() || seen[n] {
			return
		}
		region, in := regionOf(n, seen)
		var work float64
		for _, x := range region {
			work += est.inputBytes(x.Spark)
		}
		crossing := est.bytes(n.Spark) // the region's output goes back to the host
		for _, b := range in {
			crossing += est.bytes(b.Spark)
		}
		m := r.Options.Cost
		host := work / m.HostBytesPerSecond
		dev := work/m.DeviceBytesPerSecond + crossing/m.DMABytesPerSecond
		if dev < host {
			return
		}
		v := Unsupported(ReasonCost, fmt.Sprintf("region (%s): device %.3gs + DMA of %.3g bytes ≥ host %.3gs",
			joinIDs(region), dev, crossing, host))
		member := map[*Node]bool{}
		for _, x := range region {
			member[x] = true
		}
		revert(r, func(x *Node) bool { return member[x] }, v)
	})
}

// regionOf collects the device region whose top is n, and the host nodes
// feeding it (below its RowToColumnar transitions).
func regionOf(n *Node, seen map[*Node]bool) (region, inputs []*Node) {
	var visit func(*Node)
	visit = func(x *Node) {
		seen[x] = true
		region = append(region, x)
		for _, c := range x.Children {
			switch {
			case c.Kind.OnDevice():
				visit(c)
			case c.Kind == RowToColumnar && len(c.Children) == 1:
				inputs = append(inputs, c.Children[0])
			}
		}
	}
	visit(n)
	return region, inputs
}

type estimator struct {
	m    CostModel
	rows map[*plan.Node]float64
}

func (e *estimator) bytes(p *plan.Node) float64 {
	if p == nil {
		return 0
	}
	return e.rowCount(p) * rowWidth(p.Output)
}

func (e *estimator) inputBytes(p *plan.Node) float64 {
	if len(p.Children) == 0 {
		return e.bytes(p)
	}
	var s float64
	for _, c := range p.Children {
		s += e.bytes(c)
	}
	return s
}

func (e *estimator) rowCount(p *plan.Node) float64 {
	if v, ok := e.rows[p]; ok {
		return v
	}
	e.rows[p] = e.m.ScanRows // guards cycles through malformed input
	var in, sum float64
	for i, c := range p.Children {
		v := e.rowCount(c)
		sum += v
		if i == 0 || v > in {
			in = v
		}
	}
	if len(p.Children) == 0 {
		in, sum = e.m.ScanRows, e.m.ScanRows
	}
	v := in
	switch {
	case p.Filter != nil:
		v = in / 2
	case p.Agg != nil && len(p.Agg.Keys) == 0:
		v = 1
	case p.Agg != nil:
		v = math.Max(1, in/10)
	case p.Limit != nil:
		v = math.Min(in, float64(p.Limit.Limit))
	case p.TakeOrdered != nil:
		v = math.Min(in, float64(p.TakeOrdered.Limit))
	case p.Op == plan.OpUnion:
		v = sum
	case p.Expand != nil:
		v = in * float64(max(1, len(p.Expand.Projections)))
	}
	e.rows[p] = v
	return v
}

// rowWidth estimates the bytes of one row of attrs.
func rowWidth(attrs []plan.Attr) float64 {
	var w float64
	for _, a := range attrs {
		switch a.Type.Kind {
		case types.Boolean:
			w++
		case types.Int, types.Date, types.Float:
			w += 4
		case types.Decimal:
			if a.Type.Precision > 18 {
				w += 16
			} else {
				w += 8
			}
		case types.String, types.Binary:
			w += 24
		default:
			w += 8
		}
	}
	return max(w, 1)
}
