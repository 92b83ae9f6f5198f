package planbuilder

import (
	"errors"
	"fmt"

	"github.com/hados-io/hados/internal/tpchgen"
	"github.com/hados-io/hados/operators/types"
	"github.com/hados-io/hados/race/plan"
)

// DefaultPartitions is the shuffle width of exchanges when Options leave it
// zero: Spark's default spark.sql.shuffle.partitions.
const DefaultPartitions = 200

// Options configure a Builder.
type Options struct {
	// Schema selects the column types of the TPC-H tables (tpchgen.Standard:
	// bigint keys, decimal(15,2) money; tpchgen.SparkTest: decimal(10,0)).
	Schema tpchgen.Schema
	// Partitions is the number of partitions of hash and range exchanges;
	// zero means DefaultPartitions.
	Partitions int
	// Database prefixes scanned table names ("spark_catalog.default" when
	// empty), as Spark prints them.
	Database string
	// Joins selects how joins are planned: by estimated size at
	// ScaleFactor (JoinsBySize, the default) or as the query writes them
	// (JoinsAsWritten: the shapes of Spark's approved plans).
	Joins JoinSelection
	// ScaleFactor is the TPC-H scale the size estimates assume (zero
	// means 1).
	ScaleFactor float64
	// BroadcastThreshold is the largest estimated size in bytes of a join
	// side JoinsBySize broadcasts (zero means DefaultBroadcastThreshold;
	// SparkBroadcastThreshold gives Spark's choices; negative broadcasts
	// nothing but the sides a query broadcasts explicitly).
	BroadcastThreshold int64
}

// Builder builds one plan. It allocates Spark-style attribute ids (unique
// within the plan), resolves column names to attributes, types every
// expression, and numbers the operators when the plan is built. A Builder
// is not safe for concurrent use; it holds no resources.
type Builder struct {
	opts    Options
	tables  map[string][]plan.Attr // column name and type per table
	nextID  int64
	err     error
	subs    []*subquery
	aggs    map[*plan.Node]*aggState
	reuses  map[*plan.Node]*plan.Node // ReusedExchange → reused exchange
	scanned map[*plan.Node]*plan.Node // ColumnarToRow → its Scan
	rows    map[*plan.Node]float64    // estimated output rows (JoinsBySize)
	built   bool
}

// subquery is a scalar subquery registered by ScalarSubquery.
type subquery struct {
	expr *plan.Expr
	root *Rel
}

// New returns a builder over the standard TPC-H schema with default options.
func New() *Builder { return NewWith(Options{}) }

// NewWith returns a builder with the given options.
func NewWith(opts Options) *Builder {
	if opts.Partitions <= 0 {
		opts.Partitions = DefaultPartitions
	}
	if opts.Database == "" {
		opts.Database = "spark_catalog.default"
	}
	b := &Builder{opts: opts, tables: map[string][]plan.Attr{}, aggs: map[*plan.Node]*aggState{},
		reuses: map[*plan.Node]*plan.Node{}, scanned: map[*plan.Node]*plan.Node{}, rows: map[*plan.Node]float64{}}
	for _, t := range tpchgen.Tables() {
		cols := make([]plan.Attr, 0, len(t.Columns))
		for _, c := range t.Columns {
			ty, err := types.Parse(c.SparkType(opts.Schema))
			if err != nil {
				b.fail(fmt.Errorf("planbuilder: table %s column %s: %w", t.Name, c.Name, err))
			}
			cols = append(cols, plan.Attr{Name: c.Name, Type: ty, Nullable: true})
		}
		b.tables[t.Name] = cols
	}
	return b
}

// AddTable declares (or replaces) a table the builder can scan.
func (b *Builder) AddTable(name string, cols []plan.Attr) {
	b.tables[name] = append([]plan.Attr(nil), cols...)
}

// Err returns the first error met while building, or nil.
func (b *Builder) Err() error { return b.err }

func (b *Builder) fail(err error) {
	if b.err == nil {
		b.err = err
	}
}

func (b *Builder) failf(format string, args ...any) {
	b.fail(fmt.Errorf("planbuilder: "+format, args...))
}

// newID returns a fresh attribute or expression id.
func (b *Builder) newID() int64 {
	b.nextID++
	return b.nextID
}

// newAttr returns a fresh nullable attribute.
func (b *Builder) newAttr(name string, ty types.DataType) plan.Attr {
	return plan.Attr{Name: name, ID: b.newID(), Type: ty, Nullable: true}
}

// ErrBuild wraps every error Build returns.
var ErrBuild = errors.New("planbuilder: cannot build plan")

// Build numbers the operators of r's tree and of the registered scalar
// subqueries the way Spark does (post-order, main plan first), links
// reused exchanges and subquery hosts, and returns the plan. name becomes
// Plan.Name. The first error met while building is returned instead.
func (b *Builder) Build(name string, r *Rel) (*plan.Plan, error) {
	if b.built {
		b.failf("Build called twice: a Builder builds one plan")
	}
	b.built = true
	if b.err != nil {
		return nil, fmt.Errorf("%w %q: %w", ErrBuild, name, b.err)
	}
	if r == nil || r.n == nil {
		return nil, fmt.Errorf("%w %q: no root operator", ErrBuild, name)
	}
	p := &plan.Plan{Version: plan.Version, Name: name, Root: r.n}
	next := 0
	seen := map[*plan.Node]bool{}
	var post func(n *plan.Node)
	post = func(n *plan.Node) {
		if seen[n] {
			b.failf("operator %s is used twice in the plan (build each input once; share exchanges with Reuse)", n.Op)
			return
		}
		seen[n] = true
		for _, c := range n.Children {
			post(c)
		}
		next++
		n.ID = next
	}
	post(p.Root)
	var planID int64
	finish(p.Root, &planID, b.reuses)
	for i, s := range b.subs {
		post(s.root.n)
		finish(s.root.n, &planID, b.reuses)
		p.Subqueries = append(p.Subqueries, &plan.Subquery{ID: i + 1, HostExpr: cloneExpr(s.expr), Root: s.root.n})
	}
	for reused, target := range b.reuses {
		reused.Reused.ReusesID = target.ID
	}
	// Hosts of the scalar subqueries: the operator whose expressions use it.
	for _, sq := range p.Subqueries {
		id := sq.HostExpr.ID
		_ = p.Walk(func(n *plan.Node) error {
			if sq.HostID != 0 {
				return nil
			}
			n.Exprs(func(e *plan.Expr) {
				_ = e.Walk(func(x *plan.Expr) error {
					if x.Kind == plan.ExprCall && x.Name == "scalar-subquery" && x.ID == id {
						sq.HostID = n.ID
					}
					return nil
				})
			})
			return nil
		})
	}
	p.LinkSubqueries()
	for _, sq := range p.Subqueries {
		if sq.HostID == 0 {
			b.failf("scalar subquery #%d is not used by any operator", sq.HostExpr.ID)
		}
	}
	for reused, target := range b.reuses {
		if !seen[target] {
			b.failf("ReusedExchange (%d) reuses an exchange that is not in the plan", reused.ID)
		}
	}
	if b.err != nil {
		return nil, fmt.Errorf("%w %q: %w", ErrBuild, name, b.err)
	}
	_ = p.Walk(func(n *plan.Node) error {
		n.Exprs(func(e *plan.Expr) { _ = e.Walk(setLiteralRaw) })
		return nil
	})
	for _, sq := range p.Subqueries {
		_ = sq.HostExpr.Walk(setLiteralRaw)
	}
	p.LinkSubqueries()
	return p, nil
}

// setLiteralRaw records a literal's printed text in Raw, as the importer
// keeps it.
func setLiteralRaw(e *plan.Expr) error {
	if e.Kind == plan.ExprLiteral {
		e.Raw = ""
		e.Raw = e.String()
	}
	return nil
}
