// Package convert translates RACE's plan expressions (package race/plan,
// Catalyst expressions as Spark printed them) into the operators'
// expression IR (package operators/expr), the form the device pipeline
// compiler and the host evaluator consume.
//
// # What changes on the way
//
// Spark names columns by attribute: name#id, resolved anywhere in the
// plan. The operators address columns by position in their input batch, so
// an attribute reference becomes a column index into the child's output
// (the Schema a caller passes). Spark's function names ("=", "AND",
// "isnotnull", "CheckOverflow", "substr", …) become expr.Op values; the
// table lives in funcs.go and is the single place that says which Catalyst
// functions the operators model. Literals become expr values: booleans
// bool, int and date int32 (dates as days since 1970-01-01), bigint and
// timestamp int64 (microseconds), double float64, decimals *big.Int holding
// the unscaled value (the scale is the type's), strings string; a null
// literal is a nil value of its type.
//
// Aliases are transparent (the alias names the column in the output
// schema, which the caller builds), sort orders convert their key.
// Spark's planner already inserted the casts and decimal adjustments it
// needs, so conversion never adds any: what Spark printed is what runs.
// The one adjustment is Spark's own literal rule: an integer literal
// meeting a decimal operand is retyped as decimal(digits, 0), as Spark's
// DecimalPrecision does (newer Spark versions no longer print that cast).
//
// # What does not convert
//
// A function without an expr.Op (upper, round, named_struct, a window
// function…), an expression the importer kept opaque, a subquery
// reference, a literal of a type the IR has no value for, a call with the
// wrong number of arguments, or an attribute that is not in the input
// schema is an *Error naming the construct and the reason (Code): the
// planner reports it as the node's fallback reason. Conversion never
// panics and holds no resources: the result is a fresh immutable tree.
package convert
