// Package plan is RACE's typed plan IR: Spark physical operators and
// Catalyst expressions with resolved types, and the importers that build it
// from Spark's EXPLAIN FORMATTED text and from the IR's own JSON.
//
// # The IR
//
// A Plan is a tree of Nodes plus the blocks of Spark's "Subqueries"
// section. A Node mirrors one Spark physical operator: its Op (a stable
// enum; OpUnknown keeps the printed name in OpName), the operator id
// Spark printed as "(N)", whole-stage-codegen marking and stage, the
// attributes it consumes (Input) and produces (Output), its children, and
// one operator-specific payload (Scan, Filter, Project, Agg, Join, Sort,
// Limit, TakeOrdered, Exchange, Broadcast, Reused, Expand, Window). Every
// node also keeps its raw section text and source line for explain output
// and messages.
//
// Expressions are small trees of Expr: attribute references (name#id),
// typed literals, calls (operators, functions, aggregates, CASE, IN, cast,
// subquery references), aliases and sort orders, each with its
// types.DataType. Expr.String prints an expression back the way Spark
// prints it; anything that cannot be parsed is kept as an opaque
// expression with its raw text. Everything is plain data with no
// resources to release; a Plan is safe for concurrent reads once built.
//
// # Importing EXPLAIN FORMATTED
//
// ImportSpark reads the formatted plan: the indented tree, the per-node
// sections (Output, Input, Condition, Keys, Functions, Aggregate
// Attributes, Results, Arguments, join keys/type/condition, PushedFilters,
// PartitionFilters, ReadSchema, Location) and the "===== Subqueries ====="
// blocks. The text is ambiguous in three ways the importer resolves from
// the whole plan:
//
//   - String literals are printed without quotes: "(c_mktsegment#2 =
//     BUILDING)", "(p_brand#5 = Brand#12)", padded CHAR values such as
//     "MED BOX   ". An attribute is a name#id whose id (or, for ids a
//     reused exchange renumbered, whose name) was printed in some
//     attribute list of the plan; any other text is a literal running to
//     the next delimiter.
//   - Literals carry no type. A literal is typed by its shape (integer,
//     decimal digits, yyyy-mm-dd, true/false/null, else string) and then
//     coerced to the expression it meets (the other comparison operand,
//     the IN value, the other CASE branches).
//   - Aggregate modes: partial_ and merge_ prefixes name the Partial and
//     PartialMerge functions, but Final and Complete print alike
//     ("count(1)"). A function is Final when its arguments name an
//     attribute missing from the input (the input carries the buffers),
//     or, naming none (count(1)), when another function of the operator
//     is Final or the input holds a column beyond the keys that no
//     function reads (a buffer, count#8).
//
// Column types come from each scan's ReadSchema and flow through every
// operator's Output with Spark's typing rules (package
// operators/types): arithmetic and decimal precision, aggregate results
// and partial-aggregate buffers (sum#30, isEmpty#31), aliases, join keys,
// ReusedExchange and Union by position, dynamic-pruning subqueries.
// Partition columns, which a scan prints in Output but not in ReadSchema,
// are typed by that flow where they meet a typed column, then by the same
// table's column at another scan of the plan, then by the import's Catalog
// (ImportOptions; learned from other plans with Catalog.Learn), and last by
// the shape of a literal they are compared with in PartitionFilters. What
// cannot be inferred stays types.Unknown; that is never an error.
// Malformed structure is an error: a *ParseError naming the file, line and
// construct.
//
// # Subqueries and null-aware anti joins
//
// Each block of the Subqueries section is linked to the expressions that
// use it. Its Kind ("scalar" or "dynamic-pruning") and ExprID come from its
// hosting expression: a "scalar-subquery" or "reused-scalar-subquery" call
// (Spark's Subquery scalar-subquery#N and ReusedSubquery Subquery
// scalar-subquery#N) and a "dynamicpruning" call carry the same N in
// Expr.ID. A block that prints no plan (a ReusedSubquery, a pruning
// subquery shared by several scans) has Reuses, the ID of the block that
// does. Plan.SubqueryFor(expr) returns the block with the plan for any such
// expression, and Plan.ScalarSubqueries the scalar plans to run before the
// main plan; a scalar subquery returns one row of one column, or of a
// struct whose fields ("field" calls) the host reads.
//
// A NOT IN subquery becomes a null-aware anti join (JoinInfo.NullAwareAnti):
// formatted plans do not print the flag on the join but on its build
// side's broadcast, HashedRelationBroadcastMode(keys,true), read into
// BroadcastInfo.NullAware and carried to the left-anti broadcast hash join
// above it.
//
// # JSON (schema version 1)
//
// Plan.MarshalJSON writes, and DecodeJSON reads, this document (fields
// with zero values are omitted unless marked "always"):
//
//	Plan      {"version": 1 (always), "name": string, "root": Node,
//	           "subqueries": [Subquery]}
//	Subquery  {"id": int (always), "hostId": int, "hostExpr": Expr,
//	           "kind": "scalar"|"dynamic-pruning", "exprId": int, "planId": int,
//	           "root": Node (absent when the block repeats an earlier one),
//	           "reuses": int (the id of the block with the plan, when no root),
//	           "line": int}
//	Node      {"id": int (always), "op": Op (always), "opName": string,
//	           "header": string, "codegen": bool, "codegenStage": int,
//	           "output": [Attr], "input": [Attr], "children": [Node],
//	           "line": int, "raw": string, "arguments": string,
//	           and at most one payload:
//	           "scan":        {"format", "table", "location",
//	                           "readSchema": [Attr], "requiredColumns": [string],
//	                           "pushedFilters"|"partitionFilters"|"dataFilters": [Expr],
//	                           "batched": bool}
//	           "filter":      {"condition": Expr}
//	           "project":     {"list": [Expr]}
//	           "agg":         {"keys": [Expr], "functions": [AggCall],
//	                           "aggAttrs": [Attr], "results": [Expr]}
//	           "join":        {"type": JoinType, "buildSide": "left"|"right",
//	                           "leftKeys"|"rightKeys": [Expr], "condition": Expr,
//	                           "exists": Attr, "nullAwareAnti": bool}
//	           "sort":        {"orders": [Expr], "global": bool}
//	           "limit":       {"limit": int, "offset": int}
//	           "takeOrdered": {"limit": int, "offset": int, "orders": [Expr],
//	                           "projection": [Expr]}
//	           "exchange":    {"kind": "hash"|"range"|"roundrobin"|"single"|"unknown",
//	                           "exprs": [Expr], "numPartitions": int,
//	                           "shuffleOrigin": string, "planId": int}
//	           "broadcast":   {"mode": string, "keys": [string], "nullAware": bool,
//	                           "planId": int}
//	           "reused":      {"reusesId": int (always; 0 = unknown)}
//	           "expand":      {"projections": [[Expr]]}
//	           "window":      {"exprs"|"partitionBy"|"orderBy": [Expr]}}
//	AggCall   {"func": string, "mode": "Complete"|"Partial"|"PartialMerge"|"Final"
//	           (always), "distinct": bool, "type": DataType, "expr": Expr}
//	Attr      {"name": string (always), "id": int (always),
//	           "type": DataType (always), "nullable": bool (always)}
//	Expr      {"kind": "opaque"|"attr"|"literal"|"call"|"alias"|"sort" (always),
//	           "type": DataType (always), "name": string, "id": int,
//	           "lit": Literal, "args": [Expr], "distinct": bool,
//	           "desc": bool, "nullsFirst": bool, "raw": string}
//	Literal   {"null": bool, "bool": bool, "int": int, "big": string,
//	           "float": number, "str": string}
//	Op        the operator's stable name: "Scan", "Filter", "HashAggregate",
//	          "BroadcastHashJoin", … or "Unknown" (see Op.String)
//	JoinType  "Inner"|"LeftOuter"|"RightOuter"|"FullOuter"|"LeftSemi"|
//	          "LeftAnti"|"ExistenceJoin"|"Cross"|"Unknown"
//	DataType  Spark's simpleString ("int", "decimal(12,2)", …), "unknown",
//	          or the printed name of an unsupported type
//
// A decoder rejects a missing or different version, unknown fields, unknown
// enum names, null operators or expressions, a subquery reusing a block
// that has no plan of its kind and id, and nesting deeper than the text
// importer allows. The fields kind, exprId, planId, reuses and nullAware
// were added to version 1 without a version change: documents written
// before them still decode.
//
// # Limits
//
// Imported text is capped at MaxTextBytes, JSON at MaxJSONBytes, operator
// trees at 1000 levels and expressions at 256 levels; exceeding a limit is
// a clear error, never a crash.
package plan
