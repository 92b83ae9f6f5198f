// Package spill writes the state of an operator that ran out of memory to
// local disk and reads it back: the last tier of hados's memory hierarchy
// (device → host → disk).
//
// # Why
//
// Every task runs under a device memory quota (memory.Account). A Sort, a
// HashAggregate or a HashJoin whose state outgrows it cannot simply fail:
// Spark would have spilled to disk and finished, so hados must too. The
// operator turns what it holds into Arrow records (sorted runs, partial
// aggregation buffers, partitions of a build side), writes them to a Run
// here, frees its device memory and goes on; at the end it merges the
// runs. Only when no spill directory is configured does it fail, with
// operators.QuotaExceeded naming the operator and the sizes.
//
// # Lifetime
//
// A Manager belongs to one task on one device (hados.Task gives each of
// its operator targets one, as Target.Spill). It owns a private directory,
// mode 0700, created inside the configured spill directory
// (spark.hados.spill.dir) under a unique name, so the files of concurrent
// tasks and processes never collide; files are mode 0600. Manager.Close,
// called when the task ends, removes that directory with every file in
// it, whatever state the operators left behind.
//
//	Manager ──Create──▶ Writer ──Write…──Finish──▶ Run ──Open──▶ Reader ──Next…──Close
//	                              └──Abort (removes its files)      └──Remove (deletes the run)
//
// Writer.Write copies the record it is given — it may live in device
// memory, which the operator frees right after — into Go memory and, every
// few MiB, onto disk, so a writer holds a bounded amount of host memory.
// Writer.ChargeTo charges that memory to an account (operators give a
// child of the task's, so the host side of a spill counts against the
// task's quota); when the account refuses, the writer commits to disk
// early — smaller segments, never an error.
// Records a Reader returns are owned by the caller and come from the
// allocator given to Run.Open. A Run may be opened any number of times
// (a recursive merge reads a run once per pass).
//
// # On disk
//
// There is no second file format: a run is a list of segments, each the
// single-partition output of an exchange.ShuffleWriter — a data file of
// blocks (a 24-byte header with magic, codec, lengths and a CRC-32C,
// followed by an Arrow IPC stream compressed with LZ4, Snappy or nothing)
// and an index file of offsets — renamed after the operator and run:
// <Operator>-<run>-<segment>.{data,index}. Reading goes through
// exchange.ShuffleReader, which checks every length and checksum and only
// accepts the run's own schema; a damaged or truncated file gives an error
// matching exchange.ErrCorrupt that names the file and the byte offset.
//
// # Observability
//
// Every Finish reports the run's bytes to the Spill probe
// (internal/probe, tier 2 = disk), so `hados trace` sees spills as they
// happen. Manager.Stats counts a manager's runs, the operators' Stats
// (SpillFiles, SpillBytes, SpillRows) their own, and Totals adds up the
// managers of a device by operator for the hados_spill_* metrics.
//
// # Concurrency
//
// Manager methods are safe for concurrent use. A Writer, a Run and a Reader
// belong to one goroutine at a time.
package spill
