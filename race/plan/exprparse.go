package plan

import (
	"fmt"
	"strconv"
	"strings"
)

// maxExprDepth bounds expression nesting so hostile input cannot exhaust
// the stack.
const maxExprDepth = 256

// attrIndex knows every attribute printed in a plan's attribute lists
// (Output, Input, Aggregate Attributes, Results, aliases): the names seen
// for each id. It is what tells the attribute p_brand#5 from the string
// literal Brand#12.
//
// An id never printed in a list can still be an attribute: a final
// aggregate over a reused exchange refers to columns by ids of the
// original subtree. Such "name#id" is taken as an attribute when name is
// a known attribute name (so d_day_name#63 is one, Brand#12 is not).
type attrIndex struct {
	byID   map[int64][]string
	byName map[string]bool
}

func newAttrIndex() *attrIndex {
	return &attrIndex{byID: map[int64][]string{}, byName: map[string]bool{}}
}

func (ix *attrIndex) add(name string, id int64) {
	ix.byName[name] = true
	for _, n := range ix.byID[id] {
		if n == name {
			return
		}
	}
	ix.byID[id] = append(ix.byID[id], name)
}

// span is a known attribute reference found in an expression's text.
type span struct {
	end  int
	name string
	id   int64
}

// findSpans locates every "name#id" of a known attribute in s and returns
// the longest one starting at each offset. Names may contain spaces,
// parentheses and '#' ("order count #5", "(avg(x) * 1.2)#20",
// "ctr_store_sk#11#21"), so they are matched verbatim rather than lexed.
func (ix *attrIndex) findSpans(s string) map[int]span {
	spans := map[int]span{}
	for h := strings.IndexByte(s, '#'); h >= 0; {
		j := h + 1
		for j < len(s) && isDigit(s[j]) {
			j++
		}
		if j > h+1 && j-h-1 <= 18 && (j == len(s) || !isDigit(s[j])) {
			id, _ := strconv.ParseInt(s[h+1:j], 10, 64)
			names := ix.byID[id]
			// An identifier before '#' that is a known attribute name.
			k := h
			for k > 0 && isIdentByte(s[k-1]) {
				k--
			}
			if k < h && ix.byName[s[k:h]] {
				names = append(names[:len(names):len(names)], s[k:h])
			}
			for _, name := range names {
				start := h - len(name)
				if start < 0 || s[start:h] != name {
					continue
				}
				if isIdentByte(name[0]) && start > 0 && isIdentByte(s[start-1]) {
					continue
				}
				if old, ok := spans[start]; !ok || old.end < j {
					spans[start] = span{end: j, name: name, id: id}
				}
			}
		}
		next := strings.IndexByte(s[h+1:], '#')
		if next < 0 {
			break
		}
		h += 1 + next
	}
	return spans
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isIdentByte(c byte) bool {
	return c == '_' || c == '$' || isDigit(c) || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// exprParser is a recursive-descent parser over one printed expression.
// Spark prints binary operators inside parentheses with single spaces
// around the operator ("(a = b)", "(x + 1)"), string literals without
// quotes, and literals without types; the parser relies on the first and
// scans unquoted text up to the next delimiter for the second.
type exprParser struct {
	s     string
	pos   int
	spans map[int]span
	depth int
}

type exprError struct {
	pos int
	msg string
}

func (e *exprError) Error() string { return fmt.Sprintf("at offset %d: %s", e.pos, e.msg) }

// parseExpr parses s as one item of a printed list: an expression,
// optionally followed by a sort direction or " AS name#id".
func parseExpr(s string, ix *attrIndex) (*Expr, error) {
	p := &exprParser{s: s, spans: ix.findSpans(s)}
	e, err := p.item(true)
	if err != nil {
		return nil, err
	}
	if p.pos != len(p.s) {
		return nil, p.errf("unexpected %q", clip(p.s[p.pos:]))
	}
	return e, nil
}

func (p *exprParser) errf(format string, args ...any) error {
	return &exprError{pos: p.pos, msg: fmt.Sprintf(format, args...)}
}

func (p *exprParser) rest() string { return p.s[p.pos:] }

func (p *exprParser) eat(tok string) bool {
	if strings.HasPrefix(p.rest(), tok) {
		p.pos += len(tok)
		return true
	}
	return false
}

func (p *exprParser) expect(tok string) error {
	if !p.eat(tok) {
		return p.errf("expected %q, found %q", tok, clip(p.rest()))
	}
	return nil
}

func (p *exprParser) skipSpaces() {
	for p.pos < len(p.s) && p.s[p.pos] == ' ' {
		p.pos++
	}
}

// item parses an expression with an optional sort order and, at the top
// level of a list, an optional alias.
func (p *exprParser) item(allowAlias bool) (*Expr, error) {
	e, err := p.expr()
	if err != nil {
		return nil, err
	}
	if so, ok := p.sortSuffix(e); ok {
		e = so
	}
	if allowAlias && strings.HasPrefix(p.rest(), " AS ") {
		target := p.s[p.pos+4:]
		h := strings.LastIndexByte(target, '#')
		if h < 0 {
			return nil, p.errf("alias %q has no #id", clip(target))
		}
		id, err := strconv.ParseInt(target[h+1:], 10, 64)
		if err != nil {
			return nil, p.errf("alias %q has a bad #id", clip(target))
		}
		p.pos = len(p.s)
		return &Expr{Kind: ExprAlias, Name: target[:h], ID: id, Args: []*Expr{e}}, nil
	}
	return e, nil
}

func (p *exprParser) sortSuffix(e *Expr) (*Expr, bool) {
	var desc bool
	switch {
	case p.eat(" ASC"):
	case p.eat(" DESC"):
		desc = true
	default:
		return e, false
	}
	nullsFirst := !desc
	switch {
	case p.eat(" NULLS FIRST"):
		nullsFirst = true
	case p.eat(" NULLS LAST"):
		nullsFirst = false
	}
	return &Expr{Kind: ExprSortOrder, Args: []*Expr{e}, Desc: desc, NullsFirst: nullsFirst}, true
}

func (p *exprParser) enter() error {
	p.depth++
	if p.depth > maxExprDepth {
		return p.errf("expression nested deeper than %d", maxExprDepth)
	}
	return nil
}

func call(name string, args ...*Expr) *Expr { return &Expr{Kind: ExprCall, Name: name, Args: args} }

// expr := and (" OR " and)*
func (p *exprParser) expr() (*Expr, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	return p.binaryChain([]string{"OR"}, p.and)
}

func (p *exprParser) and() (*Expr, error) { return p.binaryChain([]string{"AND"}, p.not) }

func (p *exprParser) binaryChain(ops []string, next func() (*Expr, error)) (*Expr, error) {
	l, err := next()
	if err != nil {
		return nil, err
	}
	for {
		op, ok := p.infix(ops)
		if !ok {
			return l, nil
		}
		r, err := next()
		if err != nil {
			return nil, err
		}
		l = call(op, l, r)
	}
}

// infix consumes " op " for one of ops.
func (p *exprParser) infix(ops []string) (string, bool) {
	for _, op := range ops {
		if p.eat(" " + op + " ") {
			return op, true
		}
	}
	return "", false
}

func (p *exprParser) not() (*Expr, error) {
	if p.eat("NOT ") {
		if err := p.enter(); err != nil {
			return nil, err
		}
		defer func() { p.depth-- }()
		e, err := p.not()
		if err != nil {
			return nil, err
		}
		return call("NOT", e), nil
	}
	return p.comparison()
}

var comparisonOps = []string{"<=>", "<=", ">=", "!=", "=", "<", ">"}

func (p *exprParser) comparison() (*Expr, error) {
	l, err := p.bitwise()
	if err != nil {
		return nil, err
	}
	if op, ok := p.infix(comparisonOps); ok {
		r, err := p.bitwise()
		if err != nil {
			return nil, err
		}
		return call(op, l, r), nil
	}
	switch {
	case p.eat(" LIKE "), p.eat(" like "):
		r, err := p.bitwise()
		if err != nil {
			return nil, err
		}
		return call("LIKE", l, r), nil
	case p.eat(" IN dynamicpruning#"):
		id, err := p.number()
		if err != nil {
			return nil, err
		}
		e := call("dynamicpruning", l)
		e.ID = id
		return e, nil
	case p.eat(" INSET "):
		// InSet prints "x INSET (a,b)" or "x INSET a, b, c".
		args := []*Expr{l}
		if p.eat("(") {
			for !p.eat(")") {
				if len(args) > 1 {
					if err := p.expect(","); err != nil {
						return nil, err
					}
				}
				x, err := p.primary()
				if err != nil {
					return nil, err
				}
				args = append(args, x)
			}
		} else {
			for len(args) == 1 || p.eat(", ") {
				x, err := p.primary()
				if err != nil {
					return nil, err
				}
				args = append(args, x)
			}
		}
		return call("IN", args...), nil
	case p.eat(" IN ("):
		args := []*Expr{l}
		for !p.eat(")") {
			if len(args) > 1 {
				if err := p.expect(","); err != nil {
					return nil, err
				}
			}
			x, err := p.expr()
			if err != nil {
				return nil, err
			}
			args = append(args, x)
		}
		return call("IN", args...), nil
	}
	return l, nil
}

func (p *exprParser) bitwise() (*Expr, error) {
	return p.binaryChain([]string{"|", "&", "^"}, p.additive)
}

func (p *exprParser) additive() (*Expr, error) {
	return p.binaryChain([]string{"+", "-"}, p.multiplicative)
}

func (p *exprParser) multiplicative() (*Expr, error) {
	return p.binaryChain([]string{"*", "/", "%", "div"}, p.unary)
}

func (p *exprParser) unary() (*Expr, error) {
	if p.pos+1 < len(p.s) && p.s[p.pos] == '-' && !isDigit(p.s[p.pos+1]) && p.s[p.pos+1] != ' ' {
		p.pos++
		if err := p.enter(); err != nil {
			return nil, err
		}
		defer func() { p.depth-- }()
		e, err := p.unary()
		if err != nil {
			return nil, err
		}
		return call("-", e), nil
	}
	start := p.pos
	e, err := p.primary()
	if err != nil {
		return nil, err
	}
	return p.postfix(e, start)
}

func (p *exprParser) number() (int64, error) {
	start := p.pos
	for p.pos < len(p.s) && isDigit(p.s[p.pos]) {
		p.pos++
	}
	v, err := strconv.ParseInt(p.s[start:p.pos], 10, 64)
	if err != nil {
		return 0, p.errf("expected a number")
	}
	return v, nil
}

// postfix applies what may follow a primary that began at start: "#id"
// (an attribute named by the text before it), ".field" of a scalar
// subquery, or " windowspecdefinition(…)".
func (p *exprParser) postfix(e *Expr, start int) (*Expr, error) {
	for {
		switch {
		case p.pos < len(p.s) && p.s[p.pos] == '#' && e.Kind != ExprLiteral:
			// "(expr)#id" or "f(x)#id" not known as an attribute name.
			p.pos++
			id, err := p.number()
			if err != nil {
				return nil, err
			}
			e = &Expr{Kind: ExprAttr, Name: p.s[start : p.pos-len(strconv.FormatInt(id, 10))-1], ID: id}
		case p.pos < len(p.s) && p.s[p.pos] == '.' && e.Kind == ExprCall && strings.HasSuffix(e.Name, "scalar-subquery"):
			p.pos++
			field := p.scanBare(false)
			e = &Expr{Kind: ExprCall, Name: "field", Args: []*Expr{e}, Lit: &Literal{Str: field}}
		case strings.HasPrefix(p.rest(), " windowspecdefinition("):
			p.pos++
			spec, err := p.primary()
			if err != nil {
				return nil, err
			}
			e = call("window", e, spec)
		default:
			return e, nil
		}
	}
}
