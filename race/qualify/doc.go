// Package qualify reports, over many Spark plans, what hados would
// offload: per query whether it is offloaded under the configured
// strategy, whether every operator is supported (fully offloadable),
// whether it can execute with today's device operators, its share of
// supported operators and its fallback reasons; overall the counts and the
// top reasons. It is the engine of `hados qualify`.
//
// Plans come from EXPLAIN FORMATTED text files or from Spark event logs
// (one JSON event per line), where the formatted plan is the
// physicalPlanDescription of SparkListenerSQLExecutionStart and of
// SparkListenerSQLAdaptiveExecutionUpdate (the last one of an execution
// wins: it is AQE's final plan). Partition columns, which a formatted plan
// prints without a type, are typed from the plan itself where it can and
// otherwise from the other plans of the same run (a plan.Catalog learned
// from all of them). A plan that does not import is counted as
// an error with its message, never a crash. Everything is plain data.
package qualify
