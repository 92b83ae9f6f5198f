package scan

import (
	"bytes"
	"fmt"

	"github.com/hados-io/hados/operators/types"
)

// pred is a Filter compiled against column types, in negation normal form:
// Not is pushed down to the leaves, so a pred means "the rows where the
// filter is TRUE" and And/Or compose that meaning directly (a row passes an
// Or when either side is true, whatever the other side's null is).
type pred struct {
	kind  predKind
	kids  []*pred // and, or
	leaf  *leaf
	label string // the Filter it came from, for errors
}

type predKind uint8

const (
	pTrue predKind = iota + 1
	pFalse
	pAnd
	pOr
	pLeaf
)

// op is a leaf operator. Every op but opIsNull is false on a null value.
type op uint8

const (
	opIsNull op = iota + 1
	opIsNotNull
	opEq
	opNe
	opLt
	opLe
	opGt
	opGe
	opIn
	opNotIn
	opStarts
	opNotStarts
	opEnds
	opNotEnds
	opContains
	opNotContains
)

// negated is the op true exactly where o is false on a non-null value.
var negated = map[op]op{
	opEq: opNe, opNe: opEq, opLt: opGe, opGe: opLt, opLe: opGt, opGt: opLe,
	opIn: opNotIn, opNotIn: opIn, opStarts: opNotStarts, opNotStarts: opStarts,
	opEnds: opNotEnds, opNotEnds: opEnds, opContains: opNotContains, opNotContains: opContains,
	opIsNull: opIsNotNull, opIsNotNull: opIsNull,
}

// leaf is one column test.
type leaf struct {
	col  string
	typ  types.DataType
	dom  domain
	op   op
	vals []datum // one for comparisons, the non-null list for In/NotIn
}

// typeOf resolves a column name to its Spark type.
type typeOf func(name string) (types.DataType, error)

// compile turns a Filter into a pred; errors name the filter.
func compile(f Filter, resolve typeOf) (*pred, error) {
	p, err := compileNeg(f, false, resolve)
	if err != nil {
		return nil, fmt.Errorf("filter %s: %w", str(f), err)
	}
	return p, nil
}

func compileAll(fs []Filter, resolve typeOf) (*pred, error) {
	out := &pred{kind: pAnd}
	for _, f := range fs {
		p, err := compile(f, resolve)
		if err != nil {
			return nil, err
		}
		out.kids = append(out.kids, p)
	}
	return simplify(out), nil
}

func simplify(p *pred) *pred {
	if p.kind != pAnd && p.kind != pOr {
		return p
	}
	absorb, unit := pFalse, pTrue // for And: false absorbs, true is the unit
	if p.kind == pOr {
		absorb, unit = pTrue, pFalse
	}
	kids := p.kids[:0:0]
	for _, k := range p.kids {
		k = simplify(k)
		switch k.kind {
		case absorb:
			return &pred{kind: absorb}
		case unit:
			continue
		}
		kids = append(kids, k)
	}
	switch len(kids) {
	case 0:
		return &pred{kind: unit}
	case 1:
		return kids[0]
	}
	return &pred{kind: p.kind, kids: kids}
}

func compileNeg(f Filter, neg bool, resolve typeOf) (*pred, error) {
	switch f := f.(type) {
	case nil:
		return nil, fmt.Errorf("nil filter")
	case And, Or:
		var l, r Filter
		kind := pAnd
		if o, ok := f.(Or); ok {
			l, r, kind = o.Left, o.Right, pOr
		} else {
			a := f.(And)
			l, r = a.Left, a.Right
		}
		if neg { // De Morgan: Not(a AND b) is true iff a or b is false
			kind = map[predKind]predKind{pAnd: pOr, pOr: pAnd}[kind]
		}
		lp, err := compileNeg(l, neg, resolve)
		if err != nil {
			return nil, err
		}
		rp, err := compileNeg(r, neg, resolve)
		if err != nil {
			return nil, err
		}
		return simplify(&pred{kind: kind, kids: []*pred{lp, rp}}), nil
	case Not:
		return compileNeg(f.Child, !neg, resolve)
	case IsNull:
		return mkLeaf(f.Attr, opIsNull, neg, nil, resolve)
	case IsNotNull:
		return mkLeaf(f.Attr, opIsNotNull, neg, nil, resolve)
	case EqualTo:
		return mkLeaf(f.Attr, opEq, neg, []Value{f.Value}, resolve)
	case EqualNullSafe:
		if f.Value == nil {
			return mkLeaf(f.Attr, opIsNull, neg, nil, resolve)
		}
		if !neg {
			return mkLeaf(f.Attr, opEq, false, []Value{f.Value}, resolve)
		}
		// Not(a <=> v) is true where a is null or a != v.
		isNull, err := mkLeaf(f.Attr, opIsNull, false, nil, resolve)
		if err != nil {
			return nil, err
		}
		ne, err := mkLeaf(f.Attr, opNe, false, []Value{f.Value}, resolve)
		if err != nil {
			return nil, err
		}
		return simplify(&pred{kind: pOr, kids: []*pred{isNull, ne}}), nil
	case GreaterThan:
		return mkLeaf(f.Attr, opGt, neg, []Value{f.Value}, resolve)
	case GreaterThanOrEqual:
		return mkLeaf(f.Attr, opGe, neg, []Value{f.Value}, resolve)
	case LessThan:
		return mkLeaf(f.Attr, opLt, neg, []Value{f.Value}, resolve)
	case LessThanOrEqual:
		return mkLeaf(f.Attr, opLe, neg, []Value{f.Value}, resolve)
	case In:
		return mkLeaf(f.Attr, opIn, neg, f.Values, resolve)
	case StringStartsWith:
		return mkLeaf(f.Attr, opStarts, neg, []Value{f.Value}, resolve)
	case StringEndsWith:
		return mkLeaf(f.Attr, opEnds, neg, []Value{f.Value}, resolve)
	case StringContains:
		return mkLeaf(f.Attr, opContains, neg, []Value{f.Value}, resolve)
	}
	return nil, fmt.Errorf("unknown filter type %T", f)
}

func mkLeaf(col string, o op, neg bool, lits []Value, resolve typeOf) (*pred, error) {
	t, err := resolve(col)
	if err != nil {
		return nil, err
	}
	dom, ok := domainOf(t)
	if !ok {
		return nil, fmt.Errorf("column %s has type %s, which filters cannot test", col, t)
	}
	switch o {
	case opStarts, opEnds, opContains:
		if dom != domBytes {
			return nil, fmt.Errorf("%s on column %s of type %s: only string and binary columns", opName(o), col, t)
		}
	}
	l := &leaf{col: col, typ: t, dom: dom, op: o}
	nullInList := false
	for _, v := range lits {
		if v == nil {
			nullInList = true
			continue
		}
		d, err := coerce(t, v)
		if err != nil {
			return nil, fmt.Errorf("column %s: %w", col, err)
		}
		l.vals = append(l.vals, d)
	}
	switch {
	case o == opIn && !neg && len(l.vals) == 0:
		return &pred{kind: pFalse}, nil // In(a, []) and In(a, [null]) are never true
	case o == opIn && neg && nullInList:
		return &pred{kind: pFalse}, nil // Not(In) with a null in the list is never true
	case o != opIn && nullInList:
		return &pred{kind: pFalse}, nil // a comparison with null is null, and so is its Not
	}
	if neg {
		l.op = negated[l.op]
	}
	return &pred{kind: pLeaf, leaf: l}, nil
}

func opName(o op) string {
	switch o {
	case opStarts, opNotStarts:
		return "StringStartsWith"
	case opEnds, opNotEnds:
		return "StringEndsWith"
	}
	return "StringContains"
}

// test reports whether the leaf is true for one value (isNull: the value is null).
func (l *leaf) test(v datum, isNull bool) bool {
	switch l.op {
	case opIsNull:
		return isNull
	case opIsNotNull:
		return !isNull
	}
	if isNull {
		return false
	}
	switch l.op {
	case opIn, opNotIn:
		found := false
		for _, x := range l.vals {
			if compare(l.dom, v, x) == 0 {
				found = true
				break
			}
		}
		return found == (l.op == opIn)
	case opStarts, opNotStarts:
		return bytes.HasPrefix(v.([]byte), l.vals[0].([]byte)) == (l.op == opStarts)
	case opEnds, opNotEnds:
		return bytes.HasSuffix(v.([]byte), l.vals[0].([]byte)) == (l.op == opEnds)
	case opContains, opNotContains:
		return bytes.Contains(v.([]byte), l.vals[0].([]byte)) == (l.op == opContains)
	}
	c := compare(l.dom, v, l.vals[0])
	switch l.op {
	case opEq:
		return c == 0
	case opNe:
		return c != 0
	case opLt:
		return c < 0
	case opLe:
		return c <= 0
	case opGt:
		return c > 0
	case opGe:
		return c >= 0
	}
	return false
}

// holds folds the predicate's AND/OR structure over a test of its leaves.
func (p *pred) holds(leafTrue func(*leaf) bool) bool {
	switch p.kind {
	case pTrue:
		return true
	case pFalse:
		return false
	case pAnd:
		for _, k := range p.kids {
			if !k.holds(leafTrue) {
				return false
			}
		}
		return true
	case pOr:
		for _, k := range p.kids {
			if k.holds(leafTrue) {
				return true
			}
		}
		return false
	}
	return leafTrue(p.leaf)
}

// eval reports whether the predicate is true for one row; get returns a
// column's value in the row.
func (p *pred) eval(get func(col string) (datum, bool)) bool {
	return p.holds(func(l *leaf) bool {
		v, isNull := get(l.col)
		return l.test(v, isNull)
	})
}

// columns appends the distinct columns the predicate tests.
func (p *pred) columns(out []string) []string {
	if p.kind == pLeaf {
		for _, c := range out {
			if c == p.leaf.col {
				return out
			}
		}
		return append(out, p.leaf.col)
	}
	for _, k := range p.kids {
		out = k.columns(out)
	}
	return out
}
