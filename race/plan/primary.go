package plan

import (
	"strings"

	"github.com/hados-io/hados/operators/types"
)

// bareTerminators end an unquoted literal at nesting depth zero.
var bareTerminators = []string{
	" AND ", " OR ", " THEN ", " ELSE ", " WHEN ", " END", " AS ", " as ", " ASC", " DESC",
	" = ", " <=> ", " <= ", " >= ", " != ", " < ", " > ", " LIKE ", " IN (", " IN dynamicpruning#",
}

func (p *exprParser) primary() (*Expr, error) {
	if sp, ok := p.spans[p.pos]; ok {
		p.pos = sp.end
		return &Expr{Kind: ExprAttr, Name: sp.name, ID: sp.id}, nil
	}
	if p.pos >= len(p.s) {
		return newLiteral(""), nil
	}
	switch c := p.s[p.pos]; {
	case c == '(':
		p.pos++
		e, err := p.expr()
		if err != nil {
			return nil, err
		}
		return e, p.expect(")")
	case c == '[':
		p.pos++
		args, err := p.list("]")
		if err != nil {
			return nil, err
		}
		return call("list", args...), nil
	}
	r := p.rest()
	switch {
	case keyword(r, "CASE WHEN"):
		return p.caseWhen()
	case strings.HasPrefix(r, "Subquery scalar-subquery#"):
		return p.scalarSubquery("scalar-subquery", len("Subquery scalar-subquery#"))
	case strings.HasPrefix(r, "ReusedSubquery Subquery scalar-subquery#"):
		return p.scalarSubquery("reused-scalar-subquery", len("ReusedSubquery Subquery scalar-subquery#"))
	}
	if lit, ok := p.compactLiteral(); ok {
		return lit, nil
	}
	// Function call: identifier immediately followed by '('.
	j := p.pos
	for j < len(p.s) && (isIdentByte(p.s[j]) || p.s[j] == '.' || p.s[j] == '-' && j > p.pos) {
		j++
	}
	if j > p.pos && j < len(p.s) && p.s[j] == '(' {
		return p.call(p.s[p.pos:j], j+1)
	}
	return newLiteral(p.scanBare(true)), nil
}

// keyword reports whether s starts with kw followed by a space.
func keyword(s, kw string) bool {
	return strings.HasPrefix(s, kw+" ")
}

// compactLiteral reads a number, a date or null/true/false that ends at a
// delimiter.
func (p *exprParser) compactLiteral() (*Expr, bool) {
	j := p.pos
	for j < len(p.s) && !isDelimiter(p.s[j]) {
		j++
	}
	tok := p.s[p.pos:j]
	if !p.boundaryAt(j) {
		return nil, false
	}
	if tok == "null" || tok == "true" || tok == "false" || reInteger.MatchString(tok) ||
		reDecimal.MatchString(tok) || reFloat.MatchString(tok) || reDate.MatchString(tok) {
		p.pos = j
		return newLiteral(tok), true
	}
	return nil, false
}

// operatorTexts are what may follow an operand inside an expression.
var operatorTexts = append([]string{" + ", " - ", " * ", " / ", " % ", " | ", " & ", " ^ ", " div ", " INSET ", " windowspecdefinition("},
	bareTerminators...)

// boundaryAt reports whether an operand may end at offset j: at the end,
// before a closing bracket or comma, or before an operator. "2 yr Degree"
// is therefore one string, not the number 2.
func (p *exprParser) boundaryAt(j int) bool {
	if j >= len(p.s) || p.s[j] != ' ' {
		return true
	}
	for _, op := range operatorTexts {
		if strings.HasPrefix(p.s[j:], op) {
			return true
		}
	}
	return false
}

func isDelimiter(c byte) bool { return c == ' ' || c == ')' || c == ',' || c == ']' }

// scanBare returns the unquoted text up to the next delimiter at nesting
// depth zero: ')', ']', ',' and, when multiword, one of bareTerminators
// (otherwise any space).
func (p *exprParser) scanBare(multiword bool) string {
	start, depth := p.pos, 0
	for p.pos < len(p.s) {
		c := p.s[p.pos]
		switch c {
		case '(', '[':
			depth++
		case ')', ']':
			if depth == 0 {
				return p.s[start:p.pos]
			}
			depth--
		case ',':
			if depth == 0 {
				return p.s[start:p.pos]
			}
		case ' ':
			if depth == 0 {
				if !multiword {
					return p.s[start:p.pos]
				}
				for _, t := range bareTerminators {
					if strings.HasPrefix(p.s[p.pos:], t) {
						return p.s[start:p.pos]
					}
				}
			}
		}
		p.pos++
	}
	return p.s[start:p.pos]
}

func (p *exprParser) list(closer string) ([]*Expr, error) {
	var args []*Expr
	for !p.eat(closer) {
		if len(args) > 0 {
			if err := p.expect(","); err != nil {
				return nil, err
			}
			p.skipSpaces()
		}
		if p.pos >= len(p.s) {
			return nil, p.errf("missing %q", closer)
		}
		x, err := p.item(false)
		if err != nil {
			return nil, err
		}
		args = append(args, x)
	}
	return args, nil
}

func (p *exprParser) caseWhen() (*Expr, error) {
	p.pos += len("CASE")
	var args []*Expr
	for p.eat(" WHEN ") {
		cond, err := p.expr()
		if err != nil {
			return nil, err
		}
		if err := p.expect(" THEN "); err != nil {
			return nil, err
		}
		val, err := p.expr()
		if err != nil {
			return nil, err
		}
		args = append(args, cond, val)
	}
	if len(args) == 0 {
		return nil, p.errf("CASE without WHEN")
	}
	if p.eat(" ELSE ") {
		val, err := p.expr()
		if err != nil {
			return nil, err
		}
		args = append(args, val)
	}
	if err := p.expect(" END"); err != nil {
		return nil, err
	}
	return call("CASE", args...), nil
}

// scalarSubquery parses "Subquery scalar-subquery#N, [id=#M]" (the
// ", [id=#M]" is optional).
func (p *exprParser) scalarSubquery(name string, skip int) (*Expr, error) {
	p.pos += skip
	id, err := p.number()
	if err != nil {
		return nil, err
	}
	e := call(name)
	e.ID = id
	if strings.HasPrefix(p.rest(), ", [id=#") {
		end := strings.IndexByte(p.rest(), ']')
		if end < 0 {
			return nil, p.errf("unterminated [id=#…]")
		}
		e.Raw = p.rest()[2 : end+1]
		p.pos += end + 1
	}
	return e, nil
}

// call parses name(args…); open is the offset after '('.
func (p *exprParser) call(name string, open int) (*Expr, error) {
	p.pos = open
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	switch strings.ToLower(name) {
	case "cast":
		return p.cast(name)
	case "decimaltype":
		end := strings.IndexByte(p.rest(), ')')
		if end < 0 {
			return nil, p.errf("unterminated DecimalType(")
		}
		raw := name + "(" + p.rest()[:end+1]
		t, err := types.Parse(raw)
		if err != nil {
			return nil, p.errf("%v", err)
		}
		p.pos += end + 1
		return &Expr{Kind: ExprOpaque, Raw: raw, Type: t}, nil
	}
	e := call(name)
	if p.eat("distinct ") {
		e.Distinct = true
	}
	args, err := p.list(")")
	if err != nil {
		return nil, err
	}
	e.Args = args
	return e, nil
}

// cast parses "cast(x as type)" (or CAST(x AS TYPE)).
func (p *exprParser) cast(name string) (*Expr, error) {
	x, err := p.expr()
	if err != nil {
		return nil, err
	}
	if !p.eat(" as ") && !p.eat(" AS ") {
		return nil, p.errf("expected \" as \" in %s", name)
	}
	start, depth := p.pos, 0
	for ; p.pos < len(p.s); p.pos++ {
		if c := p.s[p.pos]; c == '(' || c == '<' {
			depth++
		} else if c == '>' {
			depth--
		} else if c == ')' {
			if depth == 0 {
				break
			}
			depth--
		}
	}
	tname := p.s[start:p.pos]
	if err := p.expect(")"); err != nil {
		return nil, err
	}
	t, err := types.Parse(tname)
	if err != nil {
		return nil, p.errf("%v", err)
	}
	e := call("cast", x)
	e.Type = t
	return e, nil
}
