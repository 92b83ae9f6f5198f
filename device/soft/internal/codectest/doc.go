// Package codectest is the Go-side test harness of the software DPU's
// compression engine: the LZ4 and Snappy block codecs written in C in
// device/soft (codec_lz4.h, codec_snappy.h).
//
// # Why the codecs exist
//
// The DMA layer can compress what it moves ("link compression"). Going to
// the device, the host compresses a chunk with a Go library
// (github.com/pierrec/lz4/v4 CompressBlock or github.com/golang/snappy
// Encode), DMAs the smaller buffer, and the device engine decompresses it
// in C; coming back, the engine compresses in C and the host decompresses
// with the same Go libraries. The two halves never share code, so the only
// contract is the byte format: the raw LZ4 block format (no frame) and the
// Snappy block format (uvarint length preamble, no framing chunks). This
// package proves the C side honours that contract.
//
// # The C codecs
//
// The headers are header-only C99 with every function static, so the
// engine's translation unit and this package's cgo preamble each get a
// private copy. Every entry point has the shape
//
//	int64_t f(const uint8_t *src, int64_t n, uint8_t *dst, int64_t cap)
//
// and returns the bytes written or a negative HD_CODEC_E* code (invalid
// argument, corrupt input, destination too small, input too large). The
// compressors are single-pass greedy hash matchers in the style of LZ4's
// fast mode: one candidate per hash (of 5 bytes for LZ4, 4 for Snappy), a
// step that grows over incompressible stretches, and a hash table on the C
// stack (16 KiB for LZ4, 32 KiB for Snappy), so nothing allocates. The
// decompressors treat input as hostile: they never read outside src[0, n)
// nor write outside dst[0, cap), every loop consumes input, and malformed
// blocks return HD_CODEC_ECORRUPT. The LZ4 decoder may use
// dst[result, cap) as scratch space (so pass the expected size as cap); the
// Snappy decoder, which reads the decoded length first, never writes past
// it.
//
// # This package
//
// The wrappers (LZ4Compress, LZ4Decompress, SnappyCompress,
// SnappyDecompress and their ...Into forms) hand Go slices straight to C
// for the duration of a call; cgo allows this because a []byte holds no Go
// pointers, and C keeps no reference. Slices returned by the wrappers are
// new Go memory owned by the caller; the ...Into forms write into the
// caller's buffers. All functions are safe for concurrent use: the C code
// has no global state.
//
// The tests check round trips over empty, tiny, incompressible, repetitive,
// text and mixed data up to several MB; interoperability in both
// directions with the Go libraries; hand-made valid and malformed blocks;
// golden compressed outputs in testdata/golden; fuzzers that compare the C
// decoders with the Go libraries on arbitrary input, run on exact-size
// C-heap buffers so that `go test -asan` turns any overrun into a failure,
// and the same comparison over thousands of mutations of long blocks and
// over copies at the edge of the output written so far (mutate_test.go),
// which reach the Snappy decoder's fast loop (run them with -asan after
// changing a decoder: an over-read there fails only under it);
// and a standalone C program (testdata/standalone.c) compiled as strict
// C99 with -Werror and, where available, AddressSanitizer and
// UndefinedBehaviorSanitizer. The benchmarks put each C codec beside its
// Go library in the same run and report the speed ratio as x_go;
// BenchmarkSnappyPages and TestSnappyPages (pages_test.go) do so on
// Parquet-page-shaped blocks, the host scan's input: synthetic int64-key,
// decimal and date pages, and real pages extracted from TPC-H Parquet
// files when a directory of them is on disk ($HADOS_SNAPPY_PAGES).
//
// Note for builders: the go command does not notice edits to the headers,
// which live outside this package's directory; after changing them, force
// a rebuild (for example go test -a, or any change of CGO_CFLAGS).
package codectest
