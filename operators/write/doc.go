// Package write is hados' native Parquet writer: the device-side
// counterpart of Spark's InsertIntoHadoopFsRelationCommand / WriteFiles for
// the parquet format.
//
// # What a Writer does
//
// One Writer serves one Spark write task. It takes the task's output as a
// stream of arrow records (their buffers may live in device memory; they are
// read like any arrow record and never retained) and produces the files
// Spark would have produced:
//
//   - Parquet encoded with arrow-go's pqarrow: dictionary encoding, data
//     pages of Options.PageBytes (1 MiB), row groups closed at
//     Options.RowGroupBytes (128 MiB, counted after encoding and
//     compression, a page at a time) or Options.RowGroupRows;
//   - column chunk and page statistics and a page index (column and offset
//     indexes) unless turned off, and split-block bloom filters on the
//     columns named in Options.BloomFilters;
//   - codecs snappy (Spark's default), lz4_raw, zstd or none;
//   - Spark's physical types: decimals as INT32 (precision <= 9), INT64
//     (<= 18) or FIXED_LEN_BYTE_ARRAY, DATE, UTF8 strings, timestamps as
//     INT64 TIMESTAMP(MICROS) (adjusted to UTC for Spark's timestamp, not for
//     timestamp_ntz) or, with TimestampType "int96", Spark's legacy INT96.
//     arrow Decimal32/Decimal64 columns, which pqarrow cannot encode, are
//     widened to Decimal128 on the way (they still land in INT32/INT64);
//   - file names part-<split>-<TaskID>.c<counter><codec>.parquet, with a new
//     counter every Options.MaxFileRows rows (maxRecordsPerFile).
//
// # Dynamic partitions
//
// With Options.PartitionBy the rows go to Hive-style directories
// col=value/col2=value2/ below Options.Dir and the partition columns are
// not stored in the files. Values are rendered as Spark's
// Cast(value AS STRING) does (dates yyyy-MM-dd, timestamps
// "yyyy-MM-dd HH:mm:ss[.ffffff]" in Options.TimeZone, doubles as Java's
// Double.toString, decimals as BigDecimal.toString) and escaped by
// EscapePathName like ExternalCatalogUtils.escapePathName; a null or empty
// value becomes __HIVE_DEFAULT_PARTITION__. Spark sorts a task's rows by the
// partition columns, so a partition's rows usually arrive as one run and are
// written as zero-copy slices; unsorted input works too, through a gather.
// Each partition seen keeps one file open until Commit.
//
// # Atomic commit
//
// Files are written under Dir/_temporary/<task>-<split>-<attempt>/, a
// directory Spark's readers skip for its leading underscore. Commit closes
// and fsyncs every file, then renames each into place, creating partition
// directories (0755; files are 0644) as needed, and finally removes the
// temporary directory. If a Write or Commit step fails — a record with
// another schema, a cancelled context, a failed mkdir or rename — the
// Writer removes its temporaries, the files it had already renamed and the
// directories it had created, so nothing of the task remains visible; it
// then refuses further calls with ErrClosed. Abort does the same on demand.
// Rename is atomic per file on a local or POSIX file system; the set of a
// task's files appears one file at a time, as with Hadoop's
// FileOutputCommitter v2, and the job-level _SUCCESS marker is the
// caller's business.
//
// # Memory and lifetime
//
// A Writer owns its open files and the encoder's buffers, allocated from
// Options.Allocator, until Commit or Abort returns; one of them must be
// called. Buffered row groups keep each open file's current row group, as
// encoded and compressed pages, in memory. Bloom filter bitsets (up to 1 MiB
// per filtered column and row group when NDV is unknown) are, in arrow-go
// v18.8.0, freed only by a garbage-collector cleanup once the file is
// closed, not explicitly; an accounting allocator sees them drop later.
//
// A Writer is not safe for concurrent use; distinct Writers (tasks) may
// write into the same Dir concurrently.
package write
