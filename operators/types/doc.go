// Package types is hados' model of Spark SQL data types.
//
// Spark hands hados physical plans whose every column and expression carries
// a Catalyst data type. The planner (race/plan) needs those types to decide
// what a device can run, and the operators need them to pick kernels and
// Arrow layouts. This package is the single place where the two agree.
//
// # Values
//
// A DataType is a small comparable value: a Kind plus, for decimals, a
// precision and scale, and for kinds hados does not model (arrays, maps,
// structs, intervals, …) the name Spark printed, so that callers can report
// "unsupported data type array<int>". The zero DataType is "unknown": the
// importer uses it where a type cannot be inferred rather than failing.
// DataType owns no memory; copy it freely.
//
// # Names
//
// String prints Spark's simpleString ("int", "bigint", "decimal(10,0)",
// "timestamp_ntz", …). Parse accepts those, the DDL spellings ("integer",
// "long", "dec(7,2)") and the Scala case-object names that appear inside
// physical plans ("IntegerType", "DecimalType(12,2)"). ParseStruct reads the
// "struct<a:int,b:decimal(10,0)>" strings of a scan's ReadSchema.
//
// # Arrow
//
// ToArrow and FromArrow map to and from arrow-go types: decimals of precision
// up to 18 use the 64-bit decimal layout (arrow.Decimal64Type), wider ones the
// 128-bit one; dates are date32 (days), timestamps are microseconds (UTC for
// Spark's timestamp, zone-less for timestamp_ntz).
//
// # Typing rules
//
// Spark (non-ANSI mode, spark.sql.decimalOperations.allowPrecisionLoss=true,
// the default) derives the type of every arithmetic expression, comparison and
// aggregate from its inputs. Arithmetic, Widen, Aggregate, AggregateBuffer,
// MakeDecimal, UnscaledValue, CheckOverflow, PromotePrecision and Cast
// reproduce those rules (Spark's DecimalPrecision, decimalExpressions and the
// aggregate functions' dataType/aggBufferAttributes) so that the planner can
// type derived columns of an imported plan. Decimal results wider than 38
// digits keep their integral digits and lose scale down to min(scale, 6), as
// DecimalType.adjustPrecisionScale does.
//
// Everything here is pure Go without cgo and safe for concurrent use.
package types
