package codectest

import (
	"bytes"
	"testing"
)

// TestInteropGoToC: blocks made by the Go libraries (pierrec/lz4
// CompressBlock, golang/snappy Encode) decode in C to the original bytes,
// the host-to-device direction of link compression.
func TestInteropGoToC(t *testing.T) {
	for _, c := range codecs {
		for _, cs := range corpora() {
			t.Run(c.name+"/"+cs.name, func(t *testing.T) {
				comp, err := c.goCompress(cs.data)
				if err != nil {
					t.Fatal(err)
				}
				got, err := c.decompress(comp, len(cs.data))
				if err != nil {
					t.Fatalf("C rejects the Go library's %d-byte block: %v", len(comp), err)
				}
				if !bytes.Equal(got, cs.data) {
					t.Fatalf("C decodes the Go library's block to different bytes")
				}
				if r, out := callExact(c.cDecompress, comp, len(cs.data)); r < 0 || !bytes.Equal(out, cs.data) {
					t.Fatalf("exact-buffer decode: r=%d", r)
				}
			})
		}
	}
}

// TestInteropCToGo is the device-to-host direction: the Go libraries decode
// what the C compressors produce (checkRoundTrip also asks the Go library).
func TestInteropCToGo(t *testing.T) {
	for _, c := range codecs {
		for _, cs := range corpora() {
			checkRoundTrip(t, c, cs.data)
		}
	}
}
