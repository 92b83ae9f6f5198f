package codectest

import (
	"testing"

	"github.com/golang/snappy"
	"github.com/pierrec/lz4/v4"
)

// Benchmarks run each C codec beside its Go library on the same input in
// the same run. The Go library's sub-benchmark runs first and records its
// speed; ours then reports MB/s (via SetBytes) and "x_go", its speed
// divided by the library's. Decompression decodes the library's own
// blocks (the host-to-device direction), so both sides read identical
// bytes. Run with:
//
//	go test -run '^$' -bench . ./device/soft/internal/codectest/

const benchSize = 1 << 20

// benchInputs are 1 MiB of synthetic word salad, mixed and random data,
// l_extendedprice-shaped int64 prices (pricesData),
// plus real text when it is on disk: Spark plans from the shared corpus
// and an English novel from pierrec/lz4's testdata.
func benchInputs() []corpus {
	cs := []corpus{
		{"text", textData(benchSize, 11)},
		{"mixed", mixedData(benchSize, 12)},
		{"random", randomData(benchSize, 13)},
		{"prices", pricesData(benchSize, 14)},
	}
	if p := sparkPlans(benchSize); len(p) > 0 {
		cs = append(cs, corpus{"plans", p})
	}
	if t := tomSawyer(); len(t) > 0 {
		cs = append(cs, corpus{"novel", t})
	}
	return cs
}

// benchOp is one side of a comparison: it transforms in into dst.
type benchOp func(dst, in []byte) error

// runOp times op over in, charging len(raw) bytes per iteration (the
// uncompressed size, for both directions), and returns MB/s.
func runOp(b *testing.B, op benchOp, dst, in []byte, raw int) float64 {
	b.SetBytes(int64(raw))
	b.ResetTimer()
	for b.Loop() {
		if err := op(dst, in); err != nil {
			b.Fatal(err)
		}
	}
	return float64(raw) * float64(b.N) / b.Elapsed().Seconds() / 1e6
}

// benchPair runs the Go library then ours on every input.
func benchPair(b *testing.B, goName string, dstSize func(raw []byte) int,
	input func(raw []byte) []byte, ours, theirs benchOp) {
	for _, c := range benchInputs() {
		in := input(c.data)
		dst := make([]byte, dstSize(c.data))
		var goMBs float64
		b.Run(c.name+"/"+goName, func(b *testing.B) {
			goMBs = runOp(b, theirs, dst, in, len(c.data))
		})
		b.Run(c.name+"/hados", func(b *testing.B) {
			mbs := runOp(b, ours, dst, in, len(c.data))
			if goMBs > 0 {
				b.ReportMetric(mbs/goMBs, "x_go")
			}
		})
	}
}

func ignoreN(_ int, err error) error { return err }

func identity(raw []byte) []byte { return raw }
func rawLen(raw []byte) int      { return len(raw) }

func lz4Block(raw []byte) []byte {
	out, err := lz4Codec.goCompress(raw)
	if err != nil {
		panic(err)
	}
	return out
}

func BenchmarkLZ4Compress(b *testing.B) {
	benchPair(b, "pierrec", func(raw []byte) int { return LZ4Bound(len(raw)) }, identity,
		func(dst, in []byte) error { return ignoreN(LZ4CompressInto(dst, in)) },
		func(dst, in []byte) error { return ignoreN(lz4.CompressBlock(in, dst, nil)) })
}

func BenchmarkLZ4Decompress(b *testing.B) {
	benchPair(b, "pierrec", rawLen, lz4Block,
		func(dst, in []byte) error { return ignoreN(LZ4DecompressInto(dst, in)) },
		func(dst, in []byte) error { return ignoreN(lz4.UncompressBlock(in, dst)) })
}

func BenchmarkSnappyCompress(b *testing.B) {
	benchPair(b, "golang", func(raw []byte) int { return SnappyBound(len(raw)) }, identity,
		func(dst, in []byte) error { return ignoreN(SnappyCompressInto(dst, in)) },
		func(dst, in []byte) error { snappy.Encode(dst, in); return nil })
}

func BenchmarkSnappyDecompress(b *testing.B) {
	benchPair(b, "golang", rawLen, func(raw []byte) []byte { return snappy.Encode(nil, raw) },
		func(dst, in []byte) error { return ignoreN(SnappyDecompressInto(dst, in)) },
		func(dst, in []byte) error { _, err := snappy.Decode(dst, in); return err })
}
