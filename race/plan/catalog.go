package plan

import (
	"sort"
	"strings"

	"github.com/hados-io/hados/operators/types"
)

// Catalog gives column types by table. A formatted plan types a scan's data
// columns in its ReadSchema but prints partition columns (ss_sold_date_sk of
// a table partitioned by it) with no type at all; the importer types them
// from the plan where it can (a join key, a dynamic-pruning subquery,
// another scan of the same table, a partition filter's literal) and
// otherwise from a Catalog, if ImportOptions has one.
//
// A Catalog is usually learned from plans (Learn): the same tables recur
// across the queries of one application or benchmark, and a column that is
// a partition column in one plan is typed in another by a join, or read as
// a data column by a plan of an unpartitioned copy of the table. Entries
// that disagree cancel out: a column learned with two types is never
// guessed. Tables are matched by their printed identifier
// (spark_catalog.default.store_sales), or else by their last component
// (store_sales); columns case-insensitively, as Spark resolves them.
//
// A Catalog is plain data; it is not safe for concurrent writes.
type Catalog struct {
	cols map[catalogKey]types.DataType
	bad  map[catalogKey]bool
}

type catalogKey struct{ table, column string }

// NewCatalog returns an empty catalog.
func NewCatalog() *Catalog {
	return &Catalog{cols: map[catalogKey]types.DataType{}, bad: map[catalogKey]bool{}}
}

// Add records that column of table has type t, under the table's full and
// short names. A known type that disagrees with an earlier one removes the
// entry for good; unknown types are ignored.
func (c *Catalog) Add(table, column string, t types.DataType) {
	if !t.IsKnown() || t.Kind == types.Null || table == "" {
		return
	}
	for _, k := range append(catalogKeys(table, column), catalogKey{anyTable, strings.ToLower(column)}) {
		if c.bad[k] {
			continue
		}
		if old, ok := c.cols[k]; ok && old != t {
			delete(c.cols, k)
			c.bad[k] = true
			continue
		}
		c.cols[k] = t
	}
}

// Lookup returns the type of column of table, trying the full table name
// first, and false when it is unknown or learned with conflicting types.
func (c *Catalog) Lookup(table, column string) (types.DataType, bool) {
	if c == nil {
		return types.Unknown, false
	}
	for _, k := range catalogKeys(table, column) {
		if c.bad[k] {
			return types.Unknown, false
		}
		if t, ok := c.cols[k]; ok {
			return t, true
		}
	}
	return types.Unknown, false
}

// Learn records the type of every typed column of every scan of p: its
// ReadSchema and the columns typing inferred (partition columns typed by
// a join, for instance).
func (c *Catalog) Learn(p *Plan) {
	scanColumns(p, func(n *Node, a Attr) types.DataType { return a.Type }, c.Add)
}

// Tables returns the short names of the tables the catalog knows, sorted.
func (c *Catalog) Tables() []string {
	seen := map[string]bool{}
	for k := range c.cols {
		if k.table != anyTable {
			seen[k.table[strings.LastIndexByte(k.table, '.')+1:]] = true
		}
	}
	out := make([]string, 0, len(seen))
	for t := range seen {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

// LookupColumn returns the type of a column by name alone, when every
// table the catalog has it in agrees: for leaves that name no table (the
// EmptyRelation Spark's optimizer leaves of a scan it proved empty).
func (c *Catalog) LookupColumn(column string) (types.DataType, bool) {
	return c.Lookup(anyTable, column)
}

// anyTable keys the table-agnostic entries.
const anyTable = "*"

func catalogKeys(table, column string) []catalogKey {
	table, column = strings.ToLower(strings.TrimSpace(table)), strings.ToLower(column)
	if table == anyTable {
		return []catalogKey{{anyTable, column}}
	}
	short := table[strings.LastIndexByte(table, '.')+1:]
	if short == table {
		return []catalogKey{{table, column}}
	}
	return []catalogKey{{table, column}, {short, column}}
}

// scanColumns calls fn with each scan's table, and each of its output
// columns and ReadSchema fields with the type typeOf gives it.
func scanColumns(p *Plan, typeOf func(*Node, Attr) types.DataType, fn func(table, column string, t types.DataType)) {
	_ = p.Walk(func(n *Node) error {
		s := n.Scan
		if s == nil || s.Table == "" {
			return nil
		}
		for _, f := range s.ReadSchema {
			fn(s.Table, f.Name, f.Type)
		}
		for _, a := range n.Output {
			fn(s.Table, a.Name, typeOf(n, a))
		}
		return nil
	})
}
