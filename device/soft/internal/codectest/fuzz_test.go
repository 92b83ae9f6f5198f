package codectest

import (
	"bytes"
	"testing"
)

// fuzzCap bounds the decode capacity the fuzzers use, keeping every
// iteration small however large a length the input claims.
const fuzzCap = 1 << 16

// seedDecoders adds valid blocks from both implementations plus a few
// hand-made broken ones.
func seedDecoders(f *testing.F, c codec) {
	for _, cs := range corpora() {
		if len(cs.data) > 4096 {
			continue
		}
		ours, _ := c.compress(cs.data)
		theirs, _ := c.goCompress(cs.data)
		f.Add(ours, uint16(len(cs.data)))
		f.Add(theirs, uint16(len(cs.data)+7))
		if len(ours) > 2 {
			f.Add(ours[:len(ours)/2], uint16(len(cs.data)))
		}
	}
	f.Add([]byte{}, uint16(0))
	f.Add([]byte{0xff, 0xff, 0xff}, uint16(100))
}

// fuzzDecoder checks one input: the C decoder (on exact-size C buffers, so
// -asan sees any overrun) must not crash, must agree with the Go library on
// whether the block is valid, and must decode it to the same bytes.
func fuzzDecoder(t *testing.T, c codec, in []byte, capacity int) {
	r, out := callExact(c.cDecompress, in, capacity)
	if r > int64(capacity) {
		t.Fatalf("%s: decoded %d bytes into capacity %d", c.name, r, capacity)
	}
	ref, err := c.goDecompress(in, capacity)
	switch {
	case (r >= 0) != (err == nil):
		t.Fatalf("%s %x cap %d: C returns %d, Go library err=%v", c.name, in, capacity, r, err)
	case r >= 0 && !bytes.Equal(out, ref):
		t.Fatalf("%s %x cap %d: C and Go library decode differently", c.name, in, capacity)
	}
}

// fuzzRoundTrip checks that compress then decompress (C both ways, on
// exact-size C buffers) and the Go library's decoder all restore data.
func fuzzRoundTrip(t *testing.T, c codec, data []byte) {
	r, comp := callExact(c.cCompress, data, c.bound(len(data)))
	if r < 0 {
		t.Fatalf("%s compress %d bytes: code %d", c.name, len(data), r)
	}
	r, out := callExact(c.cDecompress, comp, len(data))
	if r < 0 || !bytes.Equal(out, data) {
		t.Fatalf("%s round trip of %x: code %d, got %x", c.name, data, r, out)
	}
	if ref, err := c.goDecompress(comp, len(data)); err != nil || !bytes.Equal(ref, data) {
		t.Fatalf("%s: Go library decodes our block of %x wrongly: %v", c.name, data, err)
	}
}

func seedRoundTrip(f *testing.F) {
	for _, cs := range corpora() {
		if len(cs.data) <= 4096 {
			f.Add(cs.data)
		}
	}
}

func FuzzLZ4Decompress(f *testing.F) {
	seedDecoders(f, lz4Codec)
	f.Fuzz(func(t *testing.T, in []byte, capacity uint16) {
		fuzzDecoder(t, lz4Codec, in, int(capacity)%fuzzCap)
	})
}

func FuzzSnappyDecompress(f *testing.F) {
	seedDecoders(f, snappyCodec)
	f.Fuzz(func(t *testing.T, in []byte, capacity uint16) {
		fuzzDecoder(t, snappyCodec, in, int(capacity)%fuzzCap)
	})
}

func FuzzLZ4RoundTrip(f *testing.F) {
	seedRoundTrip(f)
	f.Fuzz(func(t *testing.T, data []byte) { fuzzRoundTrip(t, lz4Codec, data) })
}

func FuzzSnappyRoundTrip(f *testing.F) {
	seedRoundTrip(f)
	f.Fuzz(func(t *testing.T, data []byte) { fuzzRoundTrip(t, snappyCodec, data) })
}
