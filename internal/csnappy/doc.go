// Package csnappy decodes Snappy blocks on the host with the software
// DPU's C decoder (device/soft/codec_snappy.h), and offers it to arrow-go's
// Parquet reader as the Snappy codec.
//
// # Why
//
// Decompressing snappy pages is about half of the CPU time of a Parquet
// scan of TPC-H lineitem's Q6 columns. arrow-go decodes them with
// klauspost/compress's s2 decoder; the C decoder, written for the device
// and tuned on those very pages (PLAIN int64 pages of short literals and
// copies), decodes them faster on the same core. Decoding on the host with
// it, in place, keeps the speed of the C code without device
// decompression's extra copy of every page (operators/scan/devdecomp.go).
//
// # Use
//
// Decode is a plain block decoder. Codec wraps another compress.Codec (the
// Snappy codec arrow-go registered): decoding goes to C, everything else —
// encoding, streams, bounds — to the wrapped codec, so files written
// through it are byte-for-byte what they were. Register installs it in
// arrow-go's codec registry for compress.Codecs.Snappy, process-wide; it is
// meant to be called from a package init (operators/scan does), since
// arrow-go's registry is a plain map that must not change while files are
// read.
//
// # Memory and safety
//
// The C decoder reads only src[0, len(src)) and writes only the decoded
// length into dst; cgo passes it the Go slices for the duration of the call
// (a []byte holds no Go pointers) and C keeps no reference. It treats its
// input as hostile: a malformed block (bad length preamble, truncated
// element, zero or too-far offset, output shorter or longer than
// announced) returns ErrCorrupt, never a crash, and the Parquet reader
// turns that into a page error. The decoder has no state: everything here
// is safe for concurrent use.
//
// This package is one of the few that import "C" (internal/layout's
// allow-list); it compiles the header from device/soft through its include
// path, so there is one copy of the C code.
package csnappy
