package plan

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// MaxJSONBytes bounds the input of DecodeJSON.
const MaxJSONBytes = 64 << 20

// MarshalJSON encodes the plan in the versioned IR JSON (see the package
// documentation for the schema).
func (p *Plan) MarshalJSON() ([]byte, error) {
	type wire Plan // no methods: avoids recursion
	w := wire(*p)
	if w.Version == 0 {
		w.Version = Version
	}
	return json.Marshal(&w)
}

// DecodeJSON reads a plan written by MarshalJSON. Malformed JSON, an
// unknown or missing version, unknown fields or enum names, null nodes or
// expressions, and nesting beyond the importer's limits are errors
// (*ParseError wrapping ErrSyntax).
func DecodeJSON(r io.Reader) (*Plan, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxJSONBytes+1))
	if err != nil {
		return nil, jsonErr("input", "%v", err)
	}
	if len(data) > MaxJSONBytes {
		return nil, jsonErr("input", "plan JSON exceeds %d bytes", MaxJSONBytes)
	}
	var head struct {
		Version *int `json:"version"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, jsonErr("document", "%v", err)
	}
	if head.Version == nil {
		return nil, jsonErr("version", "missing \"version\"")
	}
	if *head.Version != Version {
		return nil, jsonErr("version", "unsupported plan IR version %d (this build reads version %d)", *head.Version, Version)
	}
	type wire Plan
	var w wire
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&w); err != nil {
		return nil, jsonErr("document", "%v", err)
	}
	if dec.More() {
		return nil, jsonErr("document", "trailing data after the plan")
	}
	p := Plan(w)
	if err := p.validate(); err != nil {
		return nil, err
	}
	if !p.linked() { // written before the subquery links existed
		linkSubqueries(&p)
	}
	return &p, nil
}

func jsonErr(construct, format string, args ...any) error {
	return &ParseError{Name: "plan JSON", Construct: construct, Msg: fmt.Sprintf(format, args...)}
}

// validate checks what JSON cannot: no null nodes or expressions, and
// nesting within the importer's limits.
func (p *Plan) validate() error {
	if p.Root == nil {
		return jsonErr("root", "plan has no root node")
	}
	if err := validateNode(p.Root, 0, "root"); err != nil {
		return err
	}
	for i, s := range p.Subqueries {
		where := fmt.Sprintf("subqueries[%d]", i)
		if s == nil {
			return jsonErr(where, "null subquery")
		}
		if s.HostExpr != nil {
			if err := validateExpr(s.HostExpr, 0, where+".hostExpr"); err != nil {
				return err
			}
		}
		if s.Root != nil {
			if err := validateNode(s.Root, 0, where+".root"); err != nil {
				return err
			}
		}
	}
	return p.validateSubqueries()
}

func validateNode(n *Node, depth int, where string) error {
	if depth > maxTreeDepth {
		return jsonErr(where, "operator tree deeper than %d", maxTreeDepth)
	}
	var err error
	n.Exprs(func(e *Expr) {
		if err == nil {
			err = validateExpr(e, 0, fmt.Sprintf("%s (%d %s)", where, n.ID, n.Op))
		}
	})
	if err != nil {
		return err
	}
	if err := checkNilExprs(n); err != nil {
		return jsonErr(fmt.Sprintf("%s (%d %s)", where, n.ID, n.Op), "%v", err)
	}
	for i, c := range n.Children {
		cw := fmt.Sprintf("%s.children[%d]", where, i)
		if c == nil {
			return jsonErr(cw, "null operator")
		}
		if err := validateNode(c, depth+1, cw); err != nil {
			return err
		}
	}
	return nil
}

// checkNilExprs rejects null entries in a node's expression lists, which
// Exprs silently skips.
func checkNilExprs(n *Node) error {
	lists := [][]*Expr{}
	if s := n.Scan; s != nil {
		lists = append(lists, s.PushedFilters, s.PartitionFilters, s.DataFilters)
	}
	if p := n.Project; p != nil {
		lists = append(lists, p.List)
	}
	if a := n.Agg; a != nil {
		lists = append(lists, a.Keys, a.Results)
		for _, c := range a.Functions {
			if c.Expr == nil {
				return fmt.Errorf("aggregate function without expression")
			}
		}
	}
	if j := n.Join; j != nil {
		lists = append(lists, j.LeftKeys, j.RightKeys)
	}
	if s := n.Sort; s != nil {
		lists = append(lists, s.Orders)
	}
	if t := n.TakeOrdered; t != nil {
		lists = append(lists, t.Orders, t.Projection)
	}
	if e := n.Exchange; e != nil {
		lists = append(lists, e.Exprs)
	}
	if e := n.Expand; e != nil {
		lists = append(lists, e.Projections...)
	}
	if w := n.Window; w != nil {
		lists = append(lists, w.Exprs, w.PartitionBy, w.OrderBy)
	}
	for _, l := range lists {
		for _, e := range l {
			if e == nil {
				return fmt.Errorf("null expression in a list")
			}
		}
	}
	return nil
}

func validateExpr(e *Expr, depth int, where string) error {
	if depth > maxExprDepth {
		return jsonErr(where, "expression nested deeper than %d", maxExprDepth)
	}
	for _, a := range e.Args {
		if a == nil {
			return jsonErr(where, "null argument of %s %q", e.Kind, e.Name)
		}
		if err := validateExpr(a, depth+1, where); err != nil {
			return err
		}
	}
	return nil
}

// Text encodings of the enums, used by JSON.

func (o Op) MarshalText() ([]byte, error) { return []byte(o.String()), nil }

func (o *Op) UnmarshalText(b []byte) error {
	if string(b) == "Unknown" {
		*o = OpUnknown
		return nil
	}
	v, ok := opByName[string(b)]
	if !ok {
		return fmt.Errorf("unknown operator %q", b)
	}
	*o = v
	return nil
}

func (k ExprKind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

func (k *ExprKind) UnmarshalText(b []byte) error {
	v, ok := parseExprKind(string(b))
	if !ok {
		return fmt.Errorf("unknown expression kind %q", b)
	}
	*k = v
	return nil
}

func (m AggMode) MarshalText() ([]byte, error) { return []byte(m.String()), nil }

func (m *AggMode) UnmarshalText(b []byte) error {
	for i, n := range aggModeNames {
		if n == string(b) {
			*m = AggMode(i)
			return nil
		}
	}
	return fmt.Errorf("unknown aggregate mode %q", b)
}

func (j JoinType) MarshalText() ([]byte, error) { return []byte(j.String()), nil }

func (j *JoinType) UnmarshalText(b []byte) error {
	for i, n := range joinTypeNames {
		if n == string(b) {
			*j = JoinType(i)
			return nil
		}
	}
	return fmt.Errorf("unknown join type %q", b)
}

func (k PartitioningKind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

func (k *PartitioningKind) UnmarshalText(b []byte) error {
	for i, n := range partNames {
		if n == string(b) {
			*k = PartitioningKind(i)
			return nil
		}
	}
	return fmt.Errorf("unknown partitioning %q", b)
}
