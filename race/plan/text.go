package plan

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Limits on imported text, so that hostile input fails fast with a clear
// error instead of exhausting memory or time.
const (
	MaxTextBytes = 64 << 20
	maxTreeDepth = 1000
	maxLineBytes = 16 << 20
)

// rawPlan is the formatted plan split into trees and sections, before any
// expression is parsed.
type rawPlan struct {
	name     string
	main     *rawTree
	subs     []*rawSub
	sections map[int]*section
}

type rawTree struct {
	root *Node
	// nodes in tree order
	nodes []*Node
}

type rawSub struct {
	id, hostID int
	hostExpr   string
	line       int
	tree       *rawTree
}

// section is one "(N) Op …" block of node details.
type section struct {
	id     int
	line   int
	header string
	fields map[string]*field
	order  []string
	raw    string
}

type field struct {
	line  int
	count int // the [N] of "Output [N]:", -1 when absent
	value string
}

var (
	reSectionHeader = regexp.MustCompile(`^\(([0-9]{1,9})\) (.+)$`)
	reSubquery      = regexp.MustCompile(`^Subquery:([0-9]{1,9}) Hosting operator id = ([0-9]{1,9}) Hosting Expression = (.*)$`)
	reTreeLine      = regexp.MustCompile(`^([ :|+-]*?)(\* )?(\S.*) \(([0-9]{1,9})\)$`)
	reFieldLine     = regexp.MustCompile(`^([A-Z][A-Za-z ]*?)(?: \[([0-9]{1,9})\])? ?: ?(.*)$`)
)

// splitText reads the formatted plan into trees and sections.
func splitText(name string, r io.Reader) (*rawPlan, error) {
	sc := bufio.NewScanner(io.LimitReader(r, MaxTextBytes+1))
	sc.Buffer(make([]byte, 64<<10), maxLineBytes)
	rp := &rawPlan{name: name, sections: map[int]*section{}}
	perr := func(line int, construct, format string, args ...any) error {
		return &ParseError{Name: name, Line: line, Construct: construct, Msg: fmt.Sprintf(format, args...)}
	}
	const (
		stStart = iota
		stTree
		stDetails
	)
	state, lineNo, total := stStart, 0, 0
	var tree *treeBuilder
	var cur *section
	var sub *rawSub
	finishTree := func() {
		if tree == nil {
			return
		}
		t := &rawTree{root: tree.root, nodes: tree.nodes}
		if sub != nil {
			sub.tree = t
		} else if rp.main == nil {
			rp.main = t
		}
		tree = nil
	}
	for sc.Scan() {
		lineNo++
		line := strings.TrimRight(sc.Text(), "\r")
		total += len(line) + 1
		if total > MaxTextBytes {
			return nil, perr(lineNo, "input", "plan text exceeds %d bytes", MaxTextBytes)
		}
		if !utf8.ValidString(line) {
			return nil, perr(lineNo, "input", "line is not valid UTF-8")
		}
		switch {
		case state == stStart:
			if strings.TrimSpace(line) == "" {
				continue
			}
			if strings.TrimSpace(line) != "== Physical Plan ==" {
				return nil, perr(lineNo, "header", "expected \"== Physical Plan ==\", found %q", clip(line))
			}
			state, tree = stTree, &treeBuilder{name: name}
		case strings.TrimSpace(line) == "":
			finishTree()
			cur = nil
			if state == stTree {
				state = stDetails
			}
		case line == "===== Subqueries =====":
			finishTree()
			cur, state = nil, stDetails
		case reSubquery.MatchString(line):
			finishTree()
			m := reSubquery.FindStringSubmatch(line)
			id, _ := strconv.Atoi(m[1])
			host, _ := strconv.Atoi(m[2])
			sub = &rawSub{id: id, hostID: host, hostExpr: m[3], line: lineNo}
			rp.subs = append(rp.subs, sub)
			cur, state, tree = nil, stTree, &treeBuilder{name: name}
		case state == stTree:
			if err := tree.add(line, lineNo); err != nil {
				return nil, err
			}
		case reSectionHeader.MatchString(line):
			m := reSectionHeader.FindStringSubmatch(line)
			id, _ := strconv.Atoi(m[1])
			cur = &section{id: id, line: lineNo, header: m[2], fields: map[string]*field{}, raw: line}
			if _, dup := rp.sections[id]; !dup {
				rp.sections[id] = cur
			}
		case cur != nil:
			cur.raw += "\n" + line
			if err := cur.addField(line, lineNo, perr); err != nil {
				return nil, err
			}
		default:
			return nil, perr(lineNo, "plan text", "unexpected line %q outside any node section", clip(line))
		}
	}
	if err := sc.Err(); err != nil {
		return nil, perr(lineNo+1, "input", "%v", err)
	}
	finishTree()
	if state == stStart {
		return nil, perr(lineNo, "header", "missing \"== Physical Plan ==\"")
	}
	if rp.main == nil || rp.main.root == nil {
		return nil, perr(lineNo, "tree", "no physical plan tree found")
	}
	return rp, nil
}

func (s *section) addField(line string, lineNo int, perr func(int, string, string, ...any) error) error {
	var key, count, value string
	if strings.HasPrefix(line, "Location") && !strings.HasPrefix(line, "Location:") {
		key, value = "Location", strings.TrimSpace(strings.TrimPrefix(line, "Location"))
	} else {
		m := reFieldLine.FindStringSubmatch(line)
		if m == nil {
			if len(s.order) == 0 {
				return perr(lineNo, "node ("+strconv.Itoa(s.id)+")", "line %q is not \"Key: value\"", clip(line))
			}
			// A continuation of the previous field's value.
			f := s.fields[s.order[len(s.order)-1]]
			f.value += "\n" + line
			return nil
		}
		key, count, value = m[1], m[2], m[3]
	}
	f := &field{line: lineNo, count: -1, value: value}
	if count != "" {
		f.count, _ = strconv.Atoi(count)
	}
	if _, ok := s.fields[key]; !ok {
		s.order = append(s.order, key)
	}
	s.fields[key] = f
	return nil
}

// treeBuilder assembles the indented operator tree:
//
//	TakeOrderedAndProject (21)
//	+- * HashAggregate (20)
//	   :- …
//
// Each level indents by three characters; ":- " opens a child that has
// later siblings, "+- " the last child.
type treeBuilder struct {
	name  string
	root  *Node
	stack []*Node // stack[d] is the last node seen at depth d; nil for a "== … ==" marker
	nodes []*Node
	skip  int // depth at or below which lines are skipped (AQE initial plan), -1 none
}

func (t *treeBuilder) add(line string, lineNo int) error {
	if t.stack == nil {
		t.skip = -1
	}
	depth, rest := treeDepth(line)
	perr := func(format string, args ...any) error {
		return &ParseError{Name: t.name, Line: lineNo, Construct: "tree", Msg: fmt.Sprintf(format, args...)}
	}
	if depth > maxTreeDepth {
		return perr("tree deeper than %d levels", maxTreeDepth)
	}
	if depth > len(t.stack) || (depth == 0 && t.root != nil) {
		return perr("line %q is indented to depth %d below a tree of depth %d", clip(line), depth, len(t.stack))
	}
	if t.skip >= 0 && depth > t.skip {
		return nil
	}
	t.skip = -1
	t.stack = t.stack[:depth]
	if strings.HasPrefix(rest, "== ") {
		// AQE markers: "== Final Plan ==", "== Initial Plan ==".
		if strings.Contains(rest, "Initial Plan") {
			t.skip = depth
		}
		t.stack = append(t.stack, nil)
		return nil
	}
	m := reTreeLine.FindStringSubmatch(rest)
	if m == nil {
		if depth == 0 {
			return perr("line %q is not \"[*] Operator (id)\"", clip(line))
		}
		// A logical plan printed below an operator (EmptyRelation's
		// LocalRelation): no operator id, not part of the physical tree.
		t.stack = append(t.stack, nil)
		t.skip = depth
		return nil
	}
	id, _ := strconv.Atoi(m[4])
	n := &Node{ID: id, Codegen: m[2] != "", Line: lineNo}
	n.OpName, n.Header = splitOpName(m[3])
	n.Op = opFromName(n.OpName)
	if depth == 0 {
		t.root = n
	} else {
		parent := t.nearestParent(depth)
		if parent == nil {
			return perr("operator (%d) has no parent", id)
		}
		parent.Children = append(parent.Children, n)
	}
	t.stack = append(t.stack, n)
	t.nodes = append(t.nodes, n)
	return nil
}

func (t *treeBuilder) nearestParent(depth int) *Node {
	for d := depth - 1; d >= 0; d-- {
		if t.stack[d] != nil {
			return t.stack[d]
		}
	}
	return nil
}

// treeDepth returns the depth of a tree line and its text after the
// branch marker.
func treeDepth(line string) (int, string) {
	i := strings.Index(line, "+- ")
	j := strings.Index(line, ":- ")
	if j >= 0 && (i < 0 || j < i) {
		i = j
	}
	if i < 0 || strings.TrimLeft(line[:i], " :|") != "" {
		return 0, line
	}
	return i/3 + 1, line[i+3:]
}

// splitOpName splits "Scan parquet db.t" into ("Scan parquet", "db.t") and
// "BroadcastHashJoin Inner BuildRight" into ("BroadcastHashJoin", "Inner BuildRight").
func splitOpName(s string) (string, string) {
	words := strings.SplitN(s, " ", 3)
	if words[0] == "Scan" && len(words) > 1 {
		rest := ""
		if len(words) == 3 {
			rest = words[2]
		}
		return "Scan " + words[1], rest
	}
	if len(words) == 1 {
		return s, ""
	}
	return words[0], strings.TrimSpace(s[len(words[0]):])
}

func opFromName(name string) Op {
	if strings.HasPrefix(name, "Scan ") {
		return OpScan
	}
	return ParseOp(name)
}
