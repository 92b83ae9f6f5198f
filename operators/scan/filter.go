package scan

import (
	"strings"
)

// Filter is one of Spark's data source filters (org.apache.spark.sql.sources),
// the form in which Spark pushes predicates into a scan. Filters are plain
// immutable values; String prints them the way Spark does, e.g.
// EqualTo(l_shipdate,1995-03-15), IsNotNull(x), In(a, [1,2]).
//
// Attribute names are top-level column names. Literals are Values.
type Filter interface {
	String() string
	isFilter()
}

// IsNull is true where the attribute is null.
type IsNull struct{ Attr string }

// IsNotNull is true where the attribute is not null.
type IsNotNull struct{ Attr string }

// EqualTo is true where the attribute equals the value (null if either is null).
type EqualTo struct {
	Attr  string
	Value Value
}

// EqualNullSafe is Spark's <=>: true where both are null or both are equal.
type EqualNullSafe struct {
	Attr  string
	Value Value
}

// GreaterThan is attr > value.
type GreaterThan struct {
	Attr  string
	Value Value
}

// GreaterThanOrEqual is attr >= value.
type GreaterThanOrEqual struct {
	Attr  string
	Value Value
}

// LessThan is attr < value.
type LessThan struct {
	Attr  string
	Value Value
}

// LessThanOrEqual is attr <= value.
type LessThanOrEqual struct {
	Attr  string
	Value Value
}

// In is true where the attribute equals one of the values; with a null in the
// list and no match it is null (so never true).
type In struct {
	Attr   string
	Values []Value
}

// StringStartsWith is true where the string attribute starts with Value.
type StringStartsWith struct{ Attr, Value string }

// StringEndsWith is true where the string attribute ends with Value.
type StringEndsWith struct{ Attr, Value string }

// StringContains is true where the string attribute contains Value.
type StringContains struct{ Attr, Value string }

// And is the three-valued conjunction.
type And struct{ Left, Right Filter }

// Or is the three-valued disjunction.
type Or struct{ Left, Right Filter }

// Not is the three-valued negation.
type Not struct{ Child Filter }

func (IsNull) isFilter()             {}
func (IsNotNull) isFilter()          {}
func (EqualTo) isFilter()            {}
func (EqualNullSafe) isFilter()      {}
func (GreaterThan) isFilter()        {}
func (GreaterThanOrEqual) isFilter() {}
func (LessThan) isFilter()           {}
func (LessThanOrEqual) isFilter()    {}
func (In) isFilter()                 {}
func (StringStartsWith) isFilter()   {}
func (StringEndsWith) isFilter()     {}
func (StringContains) isFilter()     {}
func (And) isFilter()                {}
func (Or) isFilter()                 {}
func (Not) isFilter()                {}

func call(name string, args ...string) string {
	return name + "(" + strings.Join(args, ",") + ")"
}

func (f IsNull) String() string    { return call("IsNull", f.Attr) }
func (f IsNotNull) String() string { return call("IsNotNull", f.Attr) }
func (f EqualTo) String() string   { return call("EqualTo", f.Attr, FormatValue(f.Value)) }
func (f EqualNullSafe) String() string {
	return call("EqualNullSafe", f.Attr, FormatValue(f.Value))
}
func (f GreaterThan) String() string { return call("GreaterThan", f.Attr, FormatValue(f.Value)) }
func (f GreaterThanOrEqual) String() string {
	return call("GreaterThanOrEqual", f.Attr, FormatValue(f.Value))
}
func (f LessThan) String() string { return call("LessThan", f.Attr, FormatValue(f.Value)) }
func (f LessThanOrEqual) String() string {
	return call("LessThanOrEqual", f.Attr, FormatValue(f.Value))
}

// String prints In the way Spark does: In(a, [1,2]).
func (f In) String() string {
	vs := make([]string, len(f.Values))
	for i, v := range f.Values {
		vs[i] = FormatValue(v)
	}
	return "In(" + f.Attr + ", [" + strings.Join(vs, ",") + "])"
}
func (f StringStartsWith) String() string { return call("StringStartsWith", f.Attr, f.Value) }
func (f StringEndsWith) String() string   { return call("StringEndsWith", f.Attr, f.Value) }
func (f StringContains) String() string   { return call("StringContains", f.Attr, f.Value) }
func (f And) String() string              { return call("And", str(f.Left), str(f.Right)) }
func (f Or) String() string               { return call("Or", str(f.Left), str(f.Right)) }
func (f Not) String() string              { return call("Not", str(f.Child)) }

func str(f Filter) string {
	if f == nil {
		return "<nil>"
	}
	return f.String()
}

// attrs appends the attribute names a filter references.
func attrs(f Filter, out []string) []string {
	switch f := f.(type) {
	case IsNull:
		return append(out, f.Attr)
	case IsNotNull:
		return append(out, f.Attr)
	case EqualTo:
		return append(out, f.Attr)
	case EqualNullSafe:
		return append(out, f.Attr)
	case GreaterThan:
		return append(out, f.Attr)
	case GreaterThanOrEqual:
		return append(out, f.Attr)
	case LessThan:
		return append(out, f.Attr)
	case LessThanOrEqual:
		return append(out, f.Attr)
	case In:
		return append(out, f.Attr)
	case StringStartsWith:
		return append(out, f.Attr)
	case StringEndsWith:
		return append(out, f.Attr)
	case StringContains:
		return append(out, f.Attr)
	case And:
		return attrs(f.Right, attrs(f.Left, out))
	case Or:
		return attrs(f.Right, attrs(f.Left, out))
	case Not:
		return attrs(f.Child, out)
	}
	return out
}
