package codectest

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"
)

// checkRoundTrip compresses data with the C codec and requires that both
// the C decoder and the Go library restore it exactly. It returns the
// compressed block.
func checkRoundTrip(t *testing.T, c codec, data []byte) []byte {
	t.Helper()
	comp, err := c.compress(data)
	if err != nil {
		t.Fatalf("%s compress %d bytes: %v", c.name, len(data), err)
	}
	if len(comp) > c.bound(len(data)) {
		t.Fatalf("%s: %d bytes compressed to %d, above the bound %d", c.name, len(data), len(comp), c.bound(len(data)))
	}
	got, err := c.decompress(comp, len(data))
	if err != nil {
		t.Fatalf("%s decompress own output (%d -> %d bytes): %v", c.name, len(data), len(comp), err)
	}
	if !bytes.Equal(got, data) {
		t.Fatalf("%s: round trip of %d bytes differs (got %d bytes)", c.name, len(data), len(got))
	}
	viaGo, err := c.goDecompress(comp, len(data))
	if err != nil {
		t.Fatalf("%s: Go library rejects our %d-byte block for %d bytes: %v", c.name, len(comp), len(data), err)
	}
	if !bytes.Equal(viaGo, data) {
		t.Fatalf("%s: Go library decodes our block to different bytes", c.name)
	}
	return comp
}

func TestRoundTrip(t *testing.T) {
	for _, c := range codecs {
		for _, cs := range corpora() {
			t.Run(c.name+"/"+cs.name, func(t *testing.T) {
				comp := checkRoundTrip(t, c, cs.data)
				// The exact-size C-heap path (what -asan checks) agrees.
				r, out := callExact(c.cCompress, cs.data, len(comp))
				if r < 0 || !bytes.Equal(out, comp) {
					t.Fatalf("compress into an exact-size buffer: r=%d, equal=%v", r, bytes.Equal(out, comp))
				}
				r, out = callExact(c.cDecompress, comp, len(cs.data))
				if r < 0 || !bytes.Equal(out, cs.data) {
					t.Fatalf("decompress into an exact-size buffer: r=%d", r)
				}
			})
		}
	}
}

// TestRoundTripRandomSizes covers random sizes up to several MB: a few
// large inputs and many small ones, each of a random shape.
func TestRoundTripRandomSizes(t *testing.T) {
	r := rand.New(rand.NewPCG(42, 42))
	sizes := []int{3 << 20, 1<<20 + 7}
	for range 40 {
		sizes = append(sizes, r.IntN(70_000))
	}
	if testing.Short() {
		sizes = sizes[2:]
	}
	for _, c := range codecs {
		for _, n := range sizes {
			var data []byte
			switch r.IntN(3) {
			case 0:
				data = textData(n, r.Uint64())
			case 1:
				data = mixedData(n, r.Uint64())
			default:
				data = randomData(n, r.Uint64())
			}
			checkRoundTrip(t, c, data)
		}
	}
}

// TestCompressionRatio guards against a matcher that silently stops
// finding matches: text must shrink well, runs must nearly vanish.
func TestCompressionRatio(t *testing.T) {
	for _, c := range codecs {
		text := textData(1<<20, 9)
		comp, err := c.compress(text)
		if err != nil {
			t.Fatal(err)
		}
		goComp, err := c.goCompress(text)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s text 1 MiB: ours %d bytes (%.3f), Go library %d bytes (%.3f)", c.name,
			len(comp), float64(len(comp))/float64(len(text)), len(goComp), float64(len(goComp))/float64(len(text)))
		if float64(len(comp)) > 1.15*float64(len(goComp)) {
			t.Errorf("%s: text compresses to %d bytes, more than 15%% above the Go library's %d", c.name, len(comp), len(goComp))
		}
		runs, err := c.compress(make([]byte, 1<<20))
		if err != nil {
			t.Fatal(err)
		}
		if len(runs) > 1<<20/20 { // snappy copies top out at 64 bytes per 3
			t.Errorf("%s: 1 MiB of zeros compresses to %d bytes", c.name, len(runs))
		}
	}
}

// TestCompressShortBuffer: every capacity below the output size fails with
// ErrShortBuffer, never a partial or overlong write.
func TestCompressShortBuffer(t *testing.T) {
	for _, c := range codecs {
		for _, data := range [][]byte{nil, textData(3000, 1), randomData(700, 2)} {
			comp, err := c.compress(data)
			if err != nil {
				t.Fatal(err)
			}
			for capacity := 0; capacity < len(comp); capacity += 1 + capacity/7 {
				r, _ := callExact(c.cCompress, data, capacity)
				if _, err := result(c.name, "compress", r); !errors.Is(err, ErrShortBuffer) {
					t.Fatalf("%s: %d-byte input into %d of %d needed bytes: got %d", c.name, len(data), capacity, len(comp), r)
				}
			}
		}
	}
}

// TestDecompressShortBuffer: a destination smaller than the data is
// ErrShortBuffer for both formats.
func TestDecompressShortBuffer(t *testing.T) {
	data := textData(5000, 3)
	for _, c := range codecs {
		comp, err := c.compress(data)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range []int{0, 1, 100, len(data) - 1} {
			if _, err := c.decompress(comp, n); !errors.Is(err, ErrShortBuffer) {
				t.Errorf("%s: decompress into %d of %d bytes: got %v, want ErrShortBuffer", c.name, n, len(data), err)
			}
		}
	}
}

// TestSnappyNoScribble: the Snappy decoder leaves everything past the
// decoded length untouched, however large the destination.
func TestSnappyNoScribble(t *testing.T) {
	for _, cs := range corpora() {
		comp, err := SnappyCompress(cs.data)
		if err != nil {
			t.Fatal(err)
		}
		dst := bytes.Repeat([]byte{0xa5}, len(cs.data)+100)
		n, err := SnappyDecompressInto(dst, comp)
		if err != nil || n != len(cs.data) {
			t.Fatalf("%s: %d, %v", cs.name, n, err)
		}
		if !bytes.Equal(dst[n:], bytes.Repeat([]byte{0xa5}, 100)) {
			t.Fatalf("%s: decoder wrote past the decoded length", cs.name)
		}
	}
}
