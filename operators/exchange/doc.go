// Package exchange moves rows between the stages of a query the way Spark's
// ShuffleExchangeExec does, so that every row lands in the partition Spark
// would have put it in, and writes and reads the shuffle files in between.
//
// # Partitioning
//
// A Partitioner assigns a partition id to every row of an Arrow record:
//
//   - Hash is HashPartitioning(keys, n): pmod(Murmur3Hash(keys; 42), n).
//     HashColumns reproduces Spark's hash() bit for bit over Arrow arrays:
//     the running hash of a row is the seed of the next key; a null keeps it
//     unchanged; booleans, bytes, shorts, ints and dates hash as ints; longs
//     and timestamps as longs (low word first); floats and doubles through
//     floatToIntBits / doubleToLongBits with -0.0 folded into 0.0 and NaN
//     canonical; decimals up to precision 18 as the long unscaled value,
//     wider ones as the bytes of BigInteger.toByteArray(); strings and
//     binary with hashUnsafeBytes, whose tail bytes are mixed one at a time
//     as sign-extended ints (not standard Murmur3). Dictionary arrays hash
//     their values. The tests hold a table of known Spark hash() values.
//   - RoundRobin is RoundRobinPartitioning(n): map task m starts at
//     new java.util.Random(byteswap32(m)).nextInt(n) (JavaRandom and
//     Byteswap32 are exact ports, checked against the JDK) and deals rows
//     out from the next partition on, in arrival order.
//   - Range is RangePartitioning(orders, n) given its bounds: a row goes to
//     the first bound not below it under Spark's ordering (direction, nulls
//     first/last, NaN largest). A Sampler draws a reservoir sample and picks
//     bounds like RangePartitioner.determineBounds; its random choices are
//     not Spark's, so bit-exact range exchanges take Spark's bounds.
//   - Single is SinglePartition.
//
// Partition splits a record by ids into one record per partition.
//
// # Shuffle files
//
// A ShuffleWriter is one map task's output, laid out like Spark's sort
// shuffle: a data file holding each reduce partition's blocks contiguously,
// in partition order, and an index file of n+1 big-endian int64 offsets.
// A block is a 24-byte header (magic, codec, partition, lengths, CRC-32C)
// followed by an Arrow IPC stream compressed with LZ4 (the default, like
// spark.io.compression.codec), Snappy or nothing. The writer buffers
// partitioned records up to a memory limit and spills them, partition by
// partition, to temporary runs; Close merges runs and memory into the data
// file. Files are written under temporary names, mode 0600, and renamed
// into place, index last.
//
// A small map output need not touch the disk at all: with
// WriterOptions.KeepInMemory, Close hands the partitioned records over to
// a MemoryOutput when they fit and never spilled, so a small query's
// exchanges skip the IPC encoding, compression, files and decoding (the
// consumer shares a memory budget between its map tasks and decides with
// ShuffleWriter.SetKeepInMemory).
//
// A ShuffleReader returns reduce partition p of a list of map outputs, in
// map order; NewShuffleRangeReader returns partitions [lo, hi) one after
// the other (a coalesced group), reading each map output's index once
// and opening a data file only for a partition that has rows there. A
// MemoryOutput's records are copied into the reader's allocator,
// consecutive ones (up to GatherRows rows) into one record. It validates
// the index against the data file and every block
// (magic, lengths against the partition's extent, checksum, codec,
// decompressed size, the Arrow stream itself): damage gives a
// *CorruptError naming the file, partition and offset, never a panic or a
// runaway allocation. The reader is given the exchange's schema and only
// accepts blocks whose embedded schema message is byte-identical to it,
// because arrow-go's schema decoder trusts flatbuffer lengths.
//
// # Memory and concurrency
//
// Records passed in stay the caller's. Every record returned (by Partition,
// Concat, Sampler.Bounds or ShuffleReader.Next) is owned by the caller and
// must be released; its buffers come from the allocator given. Writers and
// readers must be ended with Close (or Abort). Nothing here starts
// goroutines or is safe for concurrent use by several goroutines, except
// the pure hash functions.
package exchange
