// Package rules is RACE's planner: an ordered list of named rules that
// takes an imported Spark physical plan (package race/plan) and decides
// which operators run on the DPU, producing the converted tree the
// executor consumes and `hados explain` prints.
//
// # The rules
//
// Rules returns the list; each entry says why it sits where it does.
//
//  1. validate gives every operator and every top-level expression a
//     Support{OK, Reason, Detail}. It asks the device: expressions are
//     converted to the operators' IR (package race/convert) and compiled
//     by the device pipeline compiler (operators/pipeline), whose
//     *Unsupported error is the verdict; operators are looked up in the
//     capability table (kind.go); column types must have a device value
//     type; aggregate functions must be ones operators.HashAggregate
//     computes. Configuration (spark.hados.enabled,
//     spark.hados.expression.<name>.enabled) and ANSI mode are verdicts
//     too. Reason codes are stable strings (support.go). A leaf of no rows
//     (Spark's EmptyRelation, an empty LocalTableScan) gets the OK verdict
//     EmptyInput: it stays a host operator, explain marks it "[empty
//     input]", it counts as neither offloaded nor fallen back, and the
//     executor reads it as an empty input, so it never keeps a query on
//     the host. An aggregate mixing update and merge modes falls back
//     (one device aggregation does one or the other).
//  2. convert turns each supported operator into its Dpu node (DpuScan,
//     DpuFilter, DpuProject, DpuHashAggregate, DpuSort, DpuHashJoin,
//     DpuExchange, DpuBroadcastExchange, DpuReusedExchange, DpuUnion,
//     DpuTopN, DpuLimit). Filter, Project and aggregates carry their
//     converted expressions (Node.Device) for the executor.
//  3. transitions inserts ColumnarToRow where device columns reach a host
//     operator and RowToColumnar where host rows reach a device one, and
//     drops Spark's own ColumnarToRow above a device node.
//  4. strategy makes the final decision. AllOrNothing (the original RACE
//     design) keeps the whole query on the host when any operator outside
//     the whitelist falls back; under AQE, Options.WholePlan makes a query
//     stage inherit the whole query's decision. Cost prices every device
//     region: its device time plus the DMA time of the bytes crossing its
//     boundaries against its host time, keeping only regions that win.
//  5. fuse groups maximal chains between pipeline breakers (a scan, filters
//     and projections, and an aggregation as sink) into device pipelines.
//  6. sanity checks that every edge joins the same side, transitions are
//     consistent and device operators read what their children produce.
//
// # Capability declaration
//
// Scan, Filter, Project and the aggregates execute on the device today.
// Sort, the hash and sort-merge joins, exchanges, union, top-N and limits
// are planned by the operator issue: the capability table declares them so
// that plans and qualification reflect the target design, Node.Planned
// marks them, and Result.ExecutableToday says whether a converted plan
// runs with today's operators.
//
// # Results, explain and metrics
//
// Run returns a Result: the converted tree of the main query and of each
// subquery, the pipelines, fallbacks and counts. WriteText prints it in
// Spark's tree style with Dpu names; Explain gives its JSON form. Stats
// counts decisions by operator and reason for the
// hados_race_operators_total metric. Results are plain data: nothing to
// release; a Result is safe for concurrent reads once Run returns, and
// Stats is safe for concurrent use.
package rules
