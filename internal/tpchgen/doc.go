// Package tpchgen generates the TPC-H benchmark data set (specification
// section 4.2) and writes it as Parquet, so hados can be tested and
// benchmarked on TPC-H without an external dbgen.
//
// # What is generated
//
// The eight tables follow the specification's cardinalities, keys and value
// distributions: SF*10,000 suppliers, SF*200,000 parts with four partsupp
// rows each (suppliers chosen by the specification's formula), SF*150,000
// customers, SF*1,500,000 orders with sparse keys (only the first 8 of
// every 32 keys are used) and customers whose key is a multiple of three
// never ordering, one to seven lineitems per order, and the fixed nation
// and region tables. Values follow 4.2.3: order dates uniform in
// [1992-01-01, 1998-12-31 - 151 days]; ship, commit and receipt dates at
// the specified offsets; return flag and line status decided against
// CURRENTDATE 1995-06-17; discounts 0.00-0.10, taxes 0.00-0.08, quantities
// 1-50; extended price = quantity * retail price of the part, the retail
// price from its formula; the order's total price and status computed from
// its lines; part names from the 92 colour words; the type, container,
// segment, priority, ship-mode and ship-instruction lists; phone numbers
// whose prefix is the nation; and comments cut from a pool of pseudo-text
// produced by the specification's grammar (4.2.2.10), including the
// "Customer ... Complaints" and "Customer ... Recommends" supplier comments
// Q16 looks for. The values are not byte-for-byte those of the reference
// dbgen (its random number streams are not reproduced), but every
// distribution, key relationship and query property is: Q1 returns four
// groups, Q6 selects about 1.9% of lineitem, and so on. Two deliberate
// differences: the text pool is 8 MiB instead of 300 MB, and at least one
// supplier carries each of the complaint and recommendation comments even
// when SF*5 rounds to zero.
//
// # Schemas
//
// Standard uses the specification's types (identifiers bigint, money and
// quantities decimal(15,2), dates date, text string). SparkTest has the
// same values with every decimal typed decimal(10,0), rounded half-up as a
// cast would; it matches the schema Spark's approved TPC-H plans in
// ../shared/spark-plans/tpch were made against. Tables describes both.
//
// # Determinism and parallelism
//
// Every value is a pure function of (seed, column stream, row): each row
// seeds a small SplitMix64 sequence from a hash of the three. Rows
// therefore do not depend on how a table is cut into batches or files, the
// tables can be generated in any order and in parallel, and the same seed
// gives the same values. With the same options the Parquet bytes are
// identical too. Generate cuts each table into part files of at most two
// row groups (lineitem by ranges of orders) and writes the files with
// Options.Workers goroutines (GOMAXPROCS by default), largest table first.
//
// # Output and failure
//
// Generate writes Out/<table>/part-NNNNN.parquet with snappy compression,
// column statistics and row groups of Options.RowGroupRows rows (1<<20 by
// default); decimals are stored as INT64 and the Arrow schema is embedded.
// Files are written under hidden temporary names and renamed only when the
// whole run has succeeded, so a cancelled or failed run leaves no partial
// Parquet file visible and removes the directories it created; a
// successful run deletes part files of earlier runs it did not rewrite.
//
// # Streaming and memory
//
// NewTableReader streams a table as Arrow record batches without touching
// the disk, for tests and in-memory benchmarks. The caller owns the
// returned reader and must Release it; a batch is owned by the reader and
// valid until the next call to Next (Retain it to keep it). Buffers come
// from Options.Mem. Generate releases everything it allocates before it
// returns. Progress callbacks are serialised but run on worker goroutines.
package tpchgen
