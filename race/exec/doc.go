// Package exec executes a converted plan (race/rules.Result) on a hados
// runtime, the way Spark runs a physical plan: as a DAG of stages, each
// stage as parallel tasks.
//
// # Stages
//
// The converted tree is cut at its exchanges. A DpuExchange ends a map
// stage, whose tasks write shuffle files (operators/exchange's
// ShuffleWriter, Spark's sort-shuffle layout, the codec of
// Env.ShuffleCodec; small shuffles stay in memory), and the stage above
// reads them back, each task its reduce partitions from every map output
// in map order, small records concatenated into batches. A
// DpuBroadcastExchange ends a collect stage: its rows are copied to host
// memory once, and the first task on each device that joins against them
// builds the device's BroadcastTable, which the stage's other tasks there
// share (on a query of one device the broadcast stage builds it as soon as
// its rows are in, so that independent broadcasts build in parallel, and
// the stages joining against it start beside the build: a broadcast join
// takes its table in Open, after its probe side's scan has started, and
// waits there while the table is built). A
// ReusedExchange reads the stage of the exchange it reuses, so that stage
// runs once. TakeOrderedAndProject, CollectLimit and GlobalLimit need all
// their input in one place: each task computes the local form (its first
// limit+offset rows, ordered for a TopN), a gather stage collects them and
// one task computes the final form. The tree's top is a collect stage too:
// its rows, concatenated in partition order, are the result.
//
// Stages run as soon as the stages they read are done (independent
// broadcasts in parallel). Scalar subqueries run once each (a
// ReusedSubquery is the same id), planned before the tree that reads
// them but run beside it: a stage whose own operators read one starts it
// with its wait for its inputs and runs when both are done, so the
// stages that read none (TPC-H Q11's partial aggregation by part) run
// beside the subquery. Its value — a typed null when it returns no row,
// an error naming the subquery when it returns more — is bound into the
// consuming operator's expressions (rules.Result.Bind) before it is
// compiled.
//
// A host leaf of no rows (rules.EmptyInput: Spark's EmptyRelation, an
// empty LocalTableScan) is read as an empty input of its columns, one
// task, so a global aggregation above it still returns its one row.
// WarehouseCatalog types the columns such a leaf (or a partition column)
// leaves untyped in Spark's text, from the warehouse's Parquet files.
//
// # Tasks and partitions
//
// A stage has one task per partition of its input: a scan's splits
// (tasks of about equal bytes, the table's bytes over max(4 MiB, bytes per
// engine core) and at most 128 MiB each, as Spark's FilePartition packs
// files: whole small files and runs of a big file's row groups, a task
// possibly reading the end of one file and the start of the next, so that
// a table of one file still keeps every core busy and three files on two
// cores are two tasks, not three of which the last runs alone; splits.go),
// a shuffle's reduce partitions, the sum of a union's children
// (Spark's UnionRDD), the common count of a shuffled join's two sides.
// Hash exchanges number partitions as Spark does (pmod(murmur3(keys), n));
// a range exchange samples its keys on the map side, picks bounds like
// Spark's RangePartitioner and re-partitions the map outputs, so a global
// Sort above it sorts each partition and the partitions concatenate in
// order. Like AQE, contiguous small reduce partitions are coalesced into
// one task up to Env.AdvisoryPartitionBytes — by default at most the
// stage's input over the task slots (AQE's parallelismFirst), so that a
// small shuffle still gives every core a task; a partition is never split,
// so every key of a final aggregation still meets in one task.
//
// Each task is a hados.Task on one device with its memory quota; tasks are
// spread over the devices round robin and at most Env.Parallelism run at
// once (default: the engine cores of all devices); a freed slot goes to a
// waiting task of a broadcast stage (or a broadcast table's build) before
// any other, since the stage joining against it cannot start until it is
// done, then to the task that asked first. A task failing with a
// retryable device error (a DMA error, a lost or hung device, exhausted
// device memory) is tried again on the next device, up to Env.MaxFailures
// attempts (default: the runtime's spark.hados.task.maxFailures); then the
// query fails with an error naming the stage, the partition and the cause. Canceling the context stops every task: their
// device memory is freed when they end, and the query's shuffle directory
// is removed whatever happens.
//
// # Filters over scans
//
// Spark tests isnotnull(c) for every join key and filtered column. A
// filter reading a scan drops those tests for a task whose Parquet file
// declares c required (TPC-H's files declare every column so): they
// cannot fail there, and a filter left with nothing to test is not run
// at all. The file's footer decides, per task; partition columns keep
// their tests. This is switched off for now (dropRequiredNotNull): with it
// on, the operators above such scans held more device memory, enough to
// run small devices and task quotas out under concurrent queries.
//
// A filter (or an aggregation fused with one) that reads a scan directly
// and runs every batch through its device pipeline has the scan hand the
// string columns its condition tests on as dictionaries where every file
// of the task stores them wholly dictionary encoded (scanDictsFor, scan's
// Options.DictColumns): the decoder skips expanding every row's value
// (5-6% of Q19's and Q12's CPU), the pipeline tests the values through
// the dictionary, and its output is dense as before. Nothing else sees a
// dictionary column: not a filter that hands batches on unchanged, nor a
// scan under a partition or runtime filter.
//
// # Runtime join filters
//
// A broadcast hash join that drops its unmatched probe rows (an inner
// join, or a left semi join building right) filters its probe side at
// run time with its build side's keys, as Spark's InjectRuntimeFilter
// and DuckDB's join filter pushdown do: its first key pair of column
// references of an integer or date type whose probe column can be traced
// down — through transitions, filters, projections that reference it,
// exchanges, aggregations grouping by it (a group that goes is a group
// the join would drop), and the side of another join whose rows that
// join keeps or drops but never changes (either side of an inner join,
// the preserved side of an outer, semi, anti or existence join) — to a
// scan, across at least one exchange. The filter lands on the top of the
// filter/projection chain right above that scan (on the scan itself when
// the chain is fused into an aggregation), as a left semi join against
// the distinct non-null keys of the broadcast's rows, computed once per
// query (at most 64k of them, else no filter) and built into a table
// once per device. The keys are read from the earliest broadcast that
// holds them all: the build side's own, or one it was inner joined with
// on the key further down (Q17's build side is lineitem joined with
// part's broadcast of 188 parts: the keys come from part's). The stage
// the filter lands in waits for that broadcast (a filter is skipped when
// the broadcast needs that stage, when the stage ran for an earlier
// tree, or when an exchange on the way is reused: another consumer reads
// it unfiltered, or when a join against a broadcast in the scan's stage
// already has the key for its own, as Q20's semi join of lineitem with
// the forest parts: the filter would only move that join's probe). In
// TPC-H Q17 it turns the aggregation of 6M lineitem rows into 200k
// groups into one of the 6k rows of the 188 parts the join keeps. Its
// statistics are an operator "(19) DpuHashJoin runtime filter (188 keys)
// on (12) DpuScan parquet", rows in and out. RunStage runs without them
// (runtimeFilters switches them). The other direction — a semi or anti
// join whose small left side cuts its large right side before the right
// side is built (TPC-H Q4, Q21, Q22) — is in the plan itself: the
// builder's semi-join reduction (planbuilder's SemiJoin), a left semi
// join of the right side against a broadcast of the left side's keys,
// which runs as any other broadcast join.
//
// A filter whose key reaches its scan in the join's own stage lands
// there when the way down crosses the preserved side of an anti or outer
// join: that join keeps (nearly) every row of the side, so the filter
// spares it the probe and copy of the rows the join above drops (TPC-H
// Q16's anti join of 800k partsupp rows with the complaining suppliers
// then probes the 120k its join with the 30k parts keeps; rtfbelow.go,
// filtersBelowJoins switches it).
//
// # Aggregations over filters and projections
//
// An aggregation reading a Filter and/or a Project of its own stage
// (Spark's Filter → Project → partial aggregate) runs them inside its own
// device pipeline: the filter becomes the aggregation's fused condition
// and its keys and arguments are rewritten over the projection's input,
// so the projected columns are never written to device memory. Its
// statistics name the chain ("(3) DpuFilter+(4) DpuProject+(5)
// DpuHashAggregate"). When the rewritten aggregation does not compile,
// the chain runs as a FilterProject below it, as before.
//
// # Projections that only pick columns
//
// A Project whose every expression is a column reference (Spark's
// projections after a join pick, reorder and rename columns) copies
// nothing: each output batch is the input batch's own arrays, retained
// (a column picked twice is the same array twice), under the output's
// names. So is a Filter+Project chain whose filter has nothing left to
// test. A column typed unlike its expression is computed by a
// FilterProject as before (passProjects switches this).
//
// # Partitioned tables
//
// A scan's columns that Spark does not read from the files (outside its
// ReadSchema) are Hive partition columns, read from the file's col=value
// directories. Spark drops a predicate on them from the Filter above the
// scan once it prunes partitions with it, so its PartitionFilters must
// hold here: the scanner skips the files it can rule out, and the device
// applies them exactly to the rows read (rules puts them in the scan's
// payload). A dynamic pruning filter (dynamicpruningexpression) is only
// an optimisation: the join above it drops the same rows.
//
// # One stage at a time
//
// A host engine that schedules stages and does the shuffles itself (Spark
// through the C ABI) runs the same plan a task at a time instead. Stages
// lists the DAG in dependency order (StageInfo: kind, partitions, inputs,
// output partitioning and columns); RunStage runs partition p of one stage
// with the outputs of the stages it reads handed in as Env.Inputs — a
// shuffle input replaces the shuffle read, a broadcast or gather input is
// read whole as that stage's records. Nothing is coalesced (the host
// engine decides that). A shuffle_map task returns its rows split by
// reduce partition, PartitionColumn first, with Spark's partition ids; a
// range exchange's rows come without ids (its bounds need every map
// task's sample: the host engine's RangePartitioner computes them).
//
// # Ownership
//
// Run returns host records the caller releases (Result.Release). Every
// intermediate output — shuffle files, collected records, broadcast
// tables and the query's own broadcast tasks — belongs to the run and is
// released before Run returns.
package exec
