package plan

import (
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
)

// ImportSpark reads Spark's EXPLAIN FORMATTED text from r and returns the
// typed plan. name names the source in error messages and in Plan.Name.
//
// Malformed structure (a missing header, a broken tree, a node without its
// details section, an attribute list whose count is wrong) is a
// *ParseError naming the file, line and construct. Operators and
// expressions the importer does not model are kept as opaque nodes and
// expressions with their raw text, and types that cannot be inferred are
// left unknown; neither is an error.
func ImportSpark(name string, r io.Reader) (*Plan, error) {
	return ImportSparkWith(name, r, ImportOptions{})
}

// ImportOptions tune ImportSparkWith.
type ImportOptions struct {
	// Catalog, when set, types the scan columns the plan leaves untyped
	// (partition columns outside ReadSchema that nothing else in the plan
	// types); see Catalog.
	Catalog *Catalog
}

// ImportSparkWith is ImportSpark with options.
func ImportSparkWith(name string, r io.Reader, o ImportOptions) (*Plan, error) {
	rp, err := splitText(name, r)
	if err != nil {
		return nil, err
	}
	im := &importer{name: name, rp: rp, ix: newAttrIndex(), opts: o}
	return im.build()
}

// ParseSparkText is ImportSpark over a string.
func ParseSparkText(name, text string) (*Plan, error) {
	return ImportSpark(name, strings.NewReader(text))
}

type importer struct {
	name string
	rp   *rawPlan
	ix   *attrIndex
	plan *Plan
	opts ImportOptions
}

func (im *importer) errAt(line int, construct, format string, args ...any) error {
	return &ParseError{Name: im.name, Line: line, Construct: construct, Msg: fmt.Sprintf(format, args...)}
}

func (im *importer) build() (*Plan, error) {
	p := &Plan{Version: Version, Name: im.name, Root: im.rp.main.root}
	im.plan = p
	trees := []*rawTree{im.rp.main}
	for _, s := range im.rp.subs {
		sq := &Subquery{ID: s.id, HostID: s.hostID, Line: s.line}
		if s.tree != nil {
			sq.Root = s.tree.root
			trees = append(trees, s.tree)
		}
		p.Subqueries = append(p.Subqueries, sq)
	}
	// Every operator of every tree needs its details section.
	for _, t := range trees {
		for _, n := range t.nodes {
			sec := im.rp.sections[n.ID]
			if sec == nil {
				return nil, im.errAt(n.Line, "tree", "operator (%d) %s has no details section", n.ID, n.OpName)
			}
			if err := im.indexSection(sec); err != nil {
				return nil, err
			}
		}
	}
	for _, t := range trees {
		for _, n := range t.nodes {
			if err := im.fillNode(n, im.rp.sections[n.ID]); err != nil {
				return nil, err
			}
		}
	}
	for i, s := range im.rp.subs {
		p.Subqueries[i].HostExpr = im.expr(s.hostExpr)
	}
	linkSubqueries(p)
	markNullAwareJoins(p)
	inferTypes(p, im.opts.Catalog)
	return p, nil
}

var (
	reExistence = regexp.MustCompile(`ExistenceJoin\((.*)#([0-9]{1,18})\)`)
)

// indexSection records the attributes a section defines.
func (im *importer) indexSection(sec *section) error {
	for _, key := range []string{"Output", "Input", "Aggregate Attributes", "Results"} {
		f := sec.fields[key]
		if f == nil {
			continue
		}
		items, err := splitList(f.value)
		if err != nil {
			return im.errAt(f.line, key+" of ("+strconv.Itoa(sec.id)+")", "%v", err)
		}
		for _, it := range items {
			if a, ok := itemAttr(it); ok {
				im.ix.add(a.Name, a.ID)
			}
		}
	}
	if m := reExistence.FindStringSubmatch(sec.header); m != nil {
		id, _ := strconv.ParseInt(m[2], 10, 64)
		im.ix.add(m[1], id)
	}
	return nil
}

// expr parses one printed expression; text that does not parse becomes an
// opaque expression keeping the text.
func (im *importer) expr(text string) *Expr {
	e, err := parseExpr(text, im.ix)
	if err != nil {
		return &Expr{Kind: ExprOpaque, Raw: text}
	}
	return e
}

func (im *importer) exprList(text string) []*Expr {
	items, err := splitList(text)
	if err != nil {
		return []*Expr{{Kind: ExprOpaque, Raw: text}}
	}
	out := make([]*Expr, 0, len(items))
	for _, it := range items {
		out = append(out, im.expr(it))
	}
	return out
}

func (im *importer) fieldList(sec *section, key string) []*Expr {
	f := sec.fields[key]
	if f == nil {
		return nil
	}
	return im.exprList(f.value)
}
