package plan

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/hados-io/hados/operators/types"
)

var (
	reCodegen = regexp.MustCompile(`\[codegen id : ([0-9]{1,9})\]`)
	reReuses  = regexp.MustCompile(`\[Reuses operator id: ([0-9]{1,9}|unknown)\]`)
	rePlanID  = regexp.MustCompile(`\[(?:plan_id=|id=#)([0-9]{1,18})\]`)
)

// fillNode reads a node's details section into its attribute lists and
// operator payload.
func (im *importer) fillNode(n *Node, sec *section) error {
	n.Line, n.Raw = sec.line, sec.raw
	if m := reCodegen.FindStringSubmatch(sec.header); m != nil {
		n.CodegenStage, _ = strconv.Atoi(m[1])
	}
	if f := sec.fields["Arguments"]; f != nil {
		n.Arguments = f.value
	}
	construct := fmt.Sprintf("(%d) %s", n.ID, n.OpName)
	for _, key := range []string{"Output", "Input"} {
		f := sec.fields[key]
		if f == nil {
			continue
		}
		attrs, err := parseAttrField(f)
		if err != nil {
			return im.errAt(f.line, key+" of "+construct, "%v", err)
		}
		if key == "Output" {
			n.Output = attrs
		} else {
			n.Input = attrs
		}
	}
	args := n.Arguments
	switch n.Op {
	case OpScan:
		return im.fillScan(n, sec, construct)
	case OpFilter:
		n.Filter = &FilterInfo{}
		if f := sec.fields["Condition"]; f != nil {
			n.Filter.Condition = im.expr(f.value)
		}
	case OpProject:
		n.Project = &ProjectInfo{List: im.fieldList(sec, "Output")}
	case OpHashAggregate, OpObjectHashAggregate, OpSortAggregate:
		return im.fillAgg(n, sec)
	case OpBroadcastHashJoin, OpShuffledHashJoin, OpSortMergeJoin, OpBroadcastNestedLoopJoin, OpCartesianProduct:
		im.fillJoin(n, sec)
	case OpSort:
		parts, _ := splitTop(args, ", ")
		n.Sort = &SortInfo{}
		if len(parts) > 0 {
			n.Sort.Orders = im.exprList(parts[0])
		}
		if len(parts) > 1 {
			n.Sort.Global = parts[1] == "true"
		}
	case OpTakeOrderedAndProject:
		parts, _ := splitTop(args, ", ")
		t := &TakeOrderedInfo{}
		if len(parts) > 0 {
			t.Limit, _ = strconv.ParseInt(parts[0], 10, 64)
		}
		lists := parts[min(1, len(parts)):]
		if len(lists) == 3 { // Spark 3.4+: limit, offset, orders, projection
			if off, err := strconv.ParseInt(lists[0], 10, 64); err == nil {
				t.Offset, lists = off, lists[1:]
			}
		}
		if len(lists) > 0 {
			t.Orders = im.exprList(lists[0])
		}
		if len(lists) > 1 {
			t.Projection = im.exprList(lists[1])
		}
		n.TakeOrdered = t
	case OpCollectLimit, OpGlobalLimit, OpLocalLimit:
		parts, _ := splitTop(args, ", ")
		l := &LimitInfo{}
		if len(parts) > 0 {
			l.Limit, _ = strconv.ParseInt(strings.TrimSpace(parts[0]), 10, 64)
		}
		if len(parts) > 1 {
			l.Offset, _ = strconv.ParseInt(strings.TrimSpace(parts[1]), 10, 64)
		}
		n.Limit = l
	case OpExchange:
		im.fillExchange(n, sec)
	case OpBroadcastExchange:
		b := &BroadcastInfo{PlanID: planID(args)}
		parts, _ := splitTop(args, ", ")
		if len(parts) > 0 {
			mode := parts[0]
			if i := strings.IndexByte(mode, '('); i >= 0 {
				b.Mode = mode[:i]
				if j := strings.Index(mode, "List("); j >= 0 {
					if inner, ok := balanced(mode[j+len("List("):]); ok {
						b.Keys, _ = splitTop(inner, ", ")
					}
				}
			} else {
				b.Mode = mode
			}
			b.NullAware = broadcastNullAware(mode)
		}
		n.Broadcast = b
	case OpReusedExchange:
		r := &ReusedInfo{}
		if m := reReuses.FindStringSubmatch(sec.header); m != nil && m[1] != "unknown" {
			r.ReusesID, _ = strconv.Atoi(m[1])
		}
		n.Reused = r
	case OpExpand:
		parts, _ := splitTop(args, ", ")
		e := &ExpandInfo{}
		if len(parts) > 0 {
			rows, _ := splitList(parts[0])
			for _, row := range rows {
				e.Projections = append(e.Projections, im.exprList(unwrapSeq(row)))
			}
		}
		if len(parts) > 1 && n.Output == nil {
			if out, err := parseAttrField(&field{count: -1, value: parts[1]}); err == nil {
				n.Output = out
			}
		}
		n.Expand = e
	case OpWindow:
		parts, _ := splitTop(args, ", ")
		w := &WindowInfo{}
		for i, part := range parts {
			list := im.exprList(part)
			switch i {
			case 0:
				w.Exprs = list
			case 1:
				w.PartitionBy = list
			case 2:
				w.OrderBy = list
			}
		}
		n.Window = w
	}
	return nil
}

// balanced returns the text of s up to the ')' closing an already opened
// parenthesis.
func balanced(s string) (string, bool) {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(', '[':
			depth++
		case ']':
			depth--
		case ')':
			if depth == 0 {
				return s[:i], true
			}
			depth--
		}
	}
	return "", false
}

// unwrapSeq turns "ArrayBuffer(a, b)", "List(a, b)" or "[a, b]" into "[a, b]".
func unwrapSeq(s string) string {
	for _, p := range []string{"ArrayBuffer(", "List(", "WrappedArray(", "Vector("} {
		if strings.HasPrefix(s, p) && strings.HasSuffix(s, ")") {
			return "[" + s[len(p):len(s)-1] + "]"
		}
	}
	return s
}

func planID(args string) int64 {
	if m := rePlanID.FindStringSubmatch(args); m != nil {
		id, _ := strconv.ParseInt(m[1], 10, 64)
		return id
	}
	return 0
}

func (im *importer) fillScan(n *Node, sec *section, construct string) error {
	s := &ScanInfo{Format: strings.TrimPrefix(n.OpName, "Scan "), Table: n.Header}
	if s.Table == "" {
		_, s.Table = splitOpName(sec.header)
	}
	if f := sec.fields["Location"]; f != nil {
		s.Location = f.value
	}
	if f := sec.fields["Batched"]; f != nil {
		s.Batched = f.value == "true"
	}
	if f := sec.fields["ReadSchema"]; f != nil {
		fields, err := types.ParseStruct(f.value)
		if err != nil {
			return im.errAt(f.line, "ReadSchema of "+construct, "%v", err)
		}
		for _, fd := range fields {
			a := Attr{Name: fd.Name, Type: fd.Type, Nullable: fd.Nullable}
			for _, o := range n.Output {
				if o.Name == fd.Name {
					a.ID = o.ID
					break
				}
			}
			s.ReadSchema = append(s.ReadSchema, a)
			s.RequiredColumns = append(s.RequiredColumns, fd.Name)
		}
	}
	if f := sec.fields["PushedFilters"]; f != nil {
		for _, e := range im.exprList(f.value) {
			s.PushedFilters = append(s.PushedFilters, sourceFilter(e, n.Output))
		}
	}
	s.PartitionFilters = im.fieldList(sec, "PartitionFilters")
	s.DataFilters = im.fieldList(sec, "DataFilters")
	n.Scan = s
	return nil
}

// sourceFilter turns the first argument of a data-source filter
// (EqualTo(col,value)), printed as a bare column name, into an attribute
// reference to the scan's output column of that name, so that typing can
// type the value.
func sourceFilter(e *Expr, out []Attr) *Expr {
	if e.Kind != ExprCall || len(e.Args) == 0 {
		return e
	}
	switch e.Name {
	case "And", "Or", "Not":
		for i, a := range e.Args {
			e.Args[i] = sourceFilter(a, out)
		}
		return e
	}
	if c := e.Args[0]; c.Kind == ExprLiteral {
		for _, o := range out {
			if o.Name == c.Raw {
				e.Args[0] = AttrRef(o)
				break
			}
		}
	}
	return e
}

func (im *importer) fillAgg(n *Node, sec *section) error {
	a := &AggInfo{Keys: im.fieldList(sec, "Keys"), Results: im.fieldList(sec, "Results")}
	if f := sec.fields["Aggregate Attributes"]; f != nil {
		attrs, err := parseAttrField(f)
		if err != nil {
			return im.errAt(f.line, fmt.Sprintf("Aggregate Attributes of (%d) %s", n.ID, n.OpName), "%v", err)
		}
		a.AggAttrs = attrs
	}
	for _, e := range im.fieldList(sec, "Functions") {
		c := AggCall{Expr: e, Func: e.Name, Distinct: e.Distinct}
		switch {
		case e.Kind != ExprCall:
		case strings.HasPrefix(e.Name, "partial_"):
			c.Func, c.Mode = strings.TrimPrefix(e.Name, "partial_"), AggPartial
		case strings.HasPrefix(e.Name, "merge_"):
			c.Func, c.Mode = strings.TrimPrefix(e.Name, "merge_"), AggPartialMerge
		default:
			c.Mode = AggComplete // or Final: decided by unprefixedModes
		}
		a.Functions = append(a.Functions, c)
	}
	unprefixedModes(n.Input, a)
	n.Agg = a
	return nil
}

// unprefixedModes tells Final from Complete for the functions Spark prints
// without a mode prefix (count(1) is both). A Final aggregate's input
// carries the partial buffers instead of the rows: a function whose
// arguments name an attribute missing from the input is Final; so is one
// whose arguments name no attribute (count(1), count(*)) when another
// function of the operator is Final, or when the input holds columns
// beyond the keys that no function reads (the buffers, e.g. count#8).
// Reading count(1) as Complete over buffers would count buffer rows.
func unprefixedModes(input []Attr, a *AggInfo) {
	inputs := map[int64]bool{}
	for _, in := range input {
		inputs[in.ID] = true
	}
	read := map[int64]bool{} // input attributes read by keys or function arguments
	for _, k := range a.Keys {
		markAttrs(k, read)
	}
	final := false
	var blind []int // unprefixed functions naming no attribute
	for i := range a.Functions {
		c := &a.Functions[i]
		if c.Expr == nil || c.Expr.Kind != ExprCall {
			continue
		}
		names := map[int64]bool{}
		for _, arg := range c.Expr.Args {
			markAttrs(arg, names)
		}
		for id := range names {
			read[id] = true
		}
		if c.Mode != AggComplete {
			continue
		}
		if len(names) == 0 {
			blind = append(blind, i)
		}
		for id := range names {
			if !inputs[id] {
				c.Mode, final = AggFinal, true
				break
			}
		}
	}
	if len(blind) == 0 {
		return
	}
	if !final {
		for _, in := range input {
			if !read[in.ID] {
				final = true // an unread column beyond the keys: a buffer
				break
			}
		}
	}
	if final {
		for _, i := range blind {
			a.Functions[i].Mode = AggFinal
		}
	}
}

// markAttrs records the ids of the attributes e references.
func markAttrs(e *Expr, ids map[int64]bool) {
	_ = e.Walk(func(x *Expr) error {
		if x.Kind == ExprAttr {
			ids[x.ID] = true
		}
		return nil
	})
}

func (im *importer) fillJoin(n *Node, sec *section) {
	j := &JoinInfo{}
	words := strings.Fields(n.Header)
	for _, w := range words {
		switch {
		case w == "BuildRight":
			j.BuildSide = "right"
		case w == "BuildLeft":
			j.BuildSide = "left"
		case strings.HasPrefix(w, "ExistenceJoin"):
			j.Type = JoinExistence
		case parseJoinType(w) != JoinUnknown:
			j.Type = parseJoinType(w)
		}
	}
	if m := reExistence.FindStringSubmatch(n.Header); m != nil {
		j.Type = JoinExistence
		id, _ := strconv.ParseInt(m[2], 10, 64)
		j.Exists = &Attr{Name: m[1], ID: id, Type: types.BooleanType}
	}
	if f := sec.fields["Join type"]; f != nil {
		if t := parseJoinType(strings.TrimSpace(f.value)); t != JoinUnknown {
			j.Type = t
		} else if strings.HasPrefix(f.value, "ExistenceJoin") {
			j.Type = JoinExistence
		}
	}
	j.LeftKeys = im.fieldList(sec, "Left keys")
	j.RightKeys = im.fieldList(sec, "Right keys")
	if f := sec.fields["Join condition"]; f != nil && f.value != "None" {
		j.Condition = im.expr(f.value)
	}
	j.NullAwareAnti = strings.Contains(sec.raw, "isNullAwareAntiJoin") || strings.Contains(n.Header, "NullAware")
	n.Join = j
}

func (im *importer) fillExchange(n *Node, sec *section) {
	x := &ExchangeInfo{PlanID: planID(n.Arguments)}
	parts, _ := splitTop(n.Arguments, ", ")
	if len(parts) > 1 {
		x.ShuffleOrigin = parts[1]
		if strings.HasPrefix(x.ShuffleOrigin, "[") {
			x.ShuffleOrigin = ""
		}
	}
	if len(parts) > 0 {
		part := parts[0]
		head, inner := part, ""
		if i := strings.IndexByte(part, '('); i >= 0 && strings.HasSuffix(part, ")") {
			head, inner = part[:i], part[i+1:len(part)-1]
		}
		items, _ := splitTop(inner, ", ")
		if len(items) > 0 {
			if np, err := strconv.Atoi(strings.TrimSpace(items[len(items)-1])); err == nil {
				x.NumPartitions = np
				items = items[:len(items)-1]
			}
		}
		switch strings.ToLower(head) {
		case "hashpartitioning":
			x.Kind = PartHash
		case "rangepartitioning":
			x.Kind = PartRange
		case "roundrobinpartitioning":
			x.Kind = PartRoundRobin
		case "singlepartition":
			x.Kind, x.NumPartitions = PartSingle, 1
		}
		for _, it := range items {
			x.Exprs = append(x.Exprs, im.expr(it))
		}
	}
	n.Exchange = x
}
