// Package scan is hados' Parquet scan: it reads the files of one Spark scan
// node, prunes what cannot match, and decodes the rest into Arrow records
// whose buffers come from an allocator the caller chooses — on a
// host-visible DPU, device memory.
//
// # What a scan is given
//
// Spark's FileSourceScanExec hands hados a list of files (or a table
// directory of Hive-style col=value/ partitions), the required columns
// (ReadSchema plus partition columns), the partition filters and the pushed
// data filters. Filters arrive in Spark's data source form (IsNull, EqualTo,
// In, StringStartsWith, And, Not, …); this package models them as Go values
// (Filter) that print the way Spark prints them, so plans and logs agree.
// Literals are typed Values and are compared in the column's domain.
//
// # Pruning, in order
//
// Pruning never drops a row that matches: every step asks "may a row here
// make the filter TRUE?" and only a certain no prunes.
//
//  1. Partitions: partition values are typed from the required columns'
//     types (__HIVE_DEFAULT_PARTITION__ is null) and the partition filters
//     evaluated exactly; failing files are never opened.
//  2. Row groups by column-chunk statistics: min/max and null counts.
//     Statistics written before ColumnOrder existed (deprecated min/max) are
//     ignored for binary columns (they were signed-byte ordered); INT96 has
//     no order; floating-point tests that NaN could satisfy (>, >=, !=,
//     = NaN) never prune, since writers leave NaN out of min/max and Spark
//     orders NaN above every number; truncated string bounds stay bounds.
//  3. Pages by the page index: the ColumnIndex of each filter column gives
//     per-page bounds, turned into row ranges (And intersects, Or unites);
//     a row group with no range left is pruned whole. Otherwise the record
//     reader seeks (pqarrow's SeekToRow, which uses the OffsetIndex to skip
//     pages) to each surviving range and drops the rows outside them by
//     zero-copy slicing. Because a batch started in one range may run past
//     its end (by up to BatchRows-1 rows), a pruned page is not always left
//     undecoded; Stats.PagesPruned counts pages of the required columns
//     whose rows all lie outside the ranges, i.e. whose rows never reach the
//     output, and which the seek skips when a range starts after them.
//  4. Row groups by dictionaries: when every data page of a chunk is
//     dictionary encoded (per the chunk's encoding stats), its dictionary is
//     the exact set of values, and any filter form is tested on it.
//  5. Row groups by bloom filters, for = and IN literals whose physical
//     encoding can be reproduced exactly (not ±0.0 nor NaN).
//
// Each step is counted in Stats and can be switched off in Options.
//
// # Decoding and memory
//
// Decoding is arrow-go's pqarrow with Options.Alloc: every buffer of a
// returned record comes from it. When Options.Alloc offers AllocateUninit
// (hados' allocators do), pqarrow's fresh buffers are not cleared first:
// arrow-go writes every byte it reads (decodealloc.go says why that holds;
// tests poison such memory). Page reading and decompression scratch live on
// the Go heap, recycled across column chunks, row groups and scans
// (pagealloc.go). Snappy pages are decompressed on the host by the
// software DPU's C decoder, in place: this package's init registers
// internal/csnappy as arrow-go's Snappy codec, process-wide (codec.go),
// which took about a sixth off the CPU time of Q6's scan. On a
// host-visible device the pages of snappy and lz4_raw chunks can instead
// be read into device memory and decompressed by the device (OpDecompress,
// one program per page; devdecomp.go), through the virtual file of
// inflate.go, at every parallelism. That path is switched off for now: the page buffers it holds in device memory are not bounded
// by what the operators above still need (four concurrent Q6 tasks on two
// 64 MiB devices ran out of memory), and it saved only ~3% of the CPU.
//
// A string or binary column whose every chunk in a file is dictionary
// encoded (per the footer's encoding stats) is read through pqarrow's
// dictionary reader — bulk int32 indices, the dictionary inserted once —
// and expanded into the same dense array, in device memory, by two tight
// loops (dictread.go), one when every dictionary value has the same
// length; pqarrow's dense path appends such values one by one, which was
// over a third of TPC-H Q1's CPU. In a row group read whole, such a column
// that is flat (required or optional, not nested) and whose chunk is
// wholly dictionary encoded is not given to pqarrow at all: the scan takes
// its pages from arrow-go's page reader (read, decrypted, decompressed;
// data page v1 and v2) and decodes the dictionary page, the definition
// levels and the RLE/bit-packed indices itself, straight into the dense
// array (dictpage.go); pqarrow's index decoding cost about 6 ns a value
// of Q1's one-byte flags, the whole column now about 3.
//
// A consumer that reads dictionaries (a device pipeline) may name such
// columns in Options.DictColumns: those every file reads as dictionaries
// then come out as dictionary<int32, utf8|binary> — the row group's
// dictionary once, in the decode allocator's memory, shared by its
// batches, and 4 bytes of checked index a row — instead of being expanded
// (dictout.go); Scanner.Schema says which columns do.
//
// Fixed-width columns are taken the same way (dictfixed.go): a flat INT32,
// INT64, FLOAT, DOUBLE or FIXED_LEN_BYTE_ARRAY-decimal chunk of a row
// group read whole, whose data pages are all dictionary encoded (or
// dictionary encoded and then, past the writer's dictionary size limit,
// PLAIN), has its dictionary decoded once into the output type's values
// (dates, integers, decimal64, timestamps in microseconds, floats: the same
// values pqarrow and convert gave), and its RLE/bit-packed indices
// unpacked and gathered straight into the dense output buffer, eight at a
// time for widths up to 16 bits (under a nanosecond a value), PLAIN pages
// copied; definition levels are decoded run by run. pqarrow's dictionary
// decoding of such columns was about a third of TPC-H Q6's scan.
//
// String columns of many distinct values are taken too (plainstr.go): a
// flat BYTE_ARRAY chunk of a row group read whole whose data pages are
// PLAIN, or dictionary encoded and then PLAIN, has its values — a 4-byte
// length and the bytes — walked straight into the offsets and value
// buffers from the decode allocator (short values as one 16- or 64-byte
// store), values of dictionary-encoded pages looked up in the chunk's
// dictionary. pqarrow appended each value to a builder in Go memory that
// convert then copied: TPC-H customer's four string columns now scan in
// about a third of the CPU.
//
// Output types follow types.ToArrow: decimals of precision <= 18 are
// decimal64 — INT64 ones are decoded as their unscaled integers and
// relabelled without a copy, INT32 ones widened, FIXED_LEN_BYTE_ARRAY ones
// narrowed from pqarrow's decimal128 — and timestamps (MILLIS, INT96 as
// Spark writes them) become timestamp[us, UTC]. A required column of a type
// hados does not model fails Open with an *UnsupportedTypeError wrapping
// ErrUnsupportedType, naming the column and its type. An allocation failure
// (*memory.AllocError, e.g. a task quota) is recovered at the worker boundary
// and returned by Next; everything allocated is given back.
//
// # Concurrency and lifetime
//
// Open reads every footer, checks the files agree with the required types,
// cuts each file's row groups into splits of about SplitBytes and starts
// Parallelism workers. The consumer reads splits in order, so output order
// is file order then row group order whatever the parallelism, and a record
// never spans row groups. Workers decode ahead while the consumer works,
// within a budget of bytes for the whole scan (PrefetchBytes; by default
// about two splits' decoded bytes per worker beyond the first, at least
// one, and at most a quarter of a task account's quota; prefetch.go): a
// worker on a later split than the one being read keeps decoding while
// its records fit the budget, and the worker on the split being read may
// always queue Prefetch records, so the scan never waits on records the
// consumer cannot reach.
//
// When a core has no worker — the last splits, fewer splits than workers,
// a worker waiting for prefetch room — the time goes into the row groups
// being read, and there most of it is decompressing pages (snappy decoding
// of lineitem's l_extendedprice alone is about two thirds of Q6's scan).
// So when the scan can run goroutines side by side (Parallelism and
// GOMAXPROCS above 1), a row group read whole and begun while fewer
// workers decode than goroutines can run is decompressed in parallel
// (inflate.go): the page headers of its largest compressed column chunks
// are walked, and up to Parallelism-1 helper goroutines for the whole scan
// read and decompress their pages a bounded window ahead of the decoder,
// in the order it needs them, while the decoder decodes and decompresses
// the rest; it decompresses itself any page no helper has reached. It
// costs two copies of the bytes the helpers decompress, which is why a
// row group begun while every core has a worker, or a scan on one core,
// decodes straight from the file — unless the device decompresses:
// then every chunk it has a codec for is inflated, by the device, whatever
// the parallelism, and the helpers (if any) submit pages to it ahead of
// the decoder. Row groups the page index cuts into row ranges
// (the reader seeks), data page v2, encrypted and uncompressed files are
// decoded straight from the file too.
//
// Next returns records the caller owns and must Release. Close (idempotent)
// cancels the workers, waits for them and releases records decoded ahead;
// no goroutine survives it.
// Cancelling Open's context has the same effect and makes Next return the
// context's error.
//
// # Errors
//
// A required column that some files of the table lack reads as nulls in
// those files' rows, as Spark's schema merging does (row groups of such a
// file are pruned by a filter that nulls cannot satisfy).
//
// A bad file — missing, truncated, bad magic, corrupted footer or page, a
// column of another type than the table's — gives an error naming the file
// (a *FileError, with the row group where one applies) wrapping ErrCorrupt or
// ErrSchemaMismatch. arrow-go v18.8.0 neither writes nor verifies page CRCs,
// so a corrupted page is detected only when it fails to decompress or
// decode. The scan ignores the Arrow schema some writers store in the footer
// (ARROW:schema), as Spark does.
package scan
