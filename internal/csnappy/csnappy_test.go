package csnappy

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/golang/snappy"
)

// goEncode and goDecode are the reference: golang/snappy, which accepts
// exactly the Snappy block format (arrow-go's own codec decodes with
// klauspost's s2, which also takes s2's extensions, e.g. repeat offsets).
func goEncode(in []byte) []byte { return snappy.Encode(nil, in) }

func goDecode(src []byte) ([]byte, error) { return snappy.Decode(nil, src) }

// inputs are blocks of the shapes Parquet pages have: PLAIN int64 prices,
// small dictionary indices, text, random bytes, runs, and the edges.
func inputs() [][]byte {
	r := rand.New(rand.NewPCG(1, 2))
	var out [][]byte
	out = append(out, nil, []byte{0}, []byte("a"), bytes.Repeat([]byte{7}, 100000))
	prices := make([]byte, 8*40000)
	for i := 0; i < len(prices); i += 8 {
		binary.LittleEndian.PutUint64(prices[i:], uint64(90000+r.IntN(10_000_000)))
	}
	out = append(out, prices)
	idx := make([]byte, 300000)
	for i := range idx {
		idx[i] = byte(r.IntN(4) * 17)
	}
	out = append(out, idx)
	noise := make([]byte, 70000)
	for i := range noise {
		noise[i] = byte(r.Uint32())
	}
	out = append(out, noise)
	var text []byte
	words := []string{"furiously ", "regular ", "deposits ", "sleep ", "quickly ", "bold ", "accounts "}
	for len(text) < 200000 {
		text = append(text, words[r.IntN(len(words))]...)
	}
	out = append(out, text)
	for n := 1; n < 200; n++ { // short blocks: the decoder's careful tail
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(r.IntN(3))
		}
		out = append(out, b)
	}
	return out
}

// TestDecodeMatchesGo decodes what Go's encoders make and compares with
// the input and with klauspost's decoder, into fresh, short and roomy
// destinations.
func TestDecodeMatchesGo(t *testing.T) {
	for i, in := range inputs() {
		for _, enc := range [][]byte{goEncode(in), literals(in)} {
			want, err := goDecode(enc)
			if err != nil || !bytes.Equal(want, in) {
				t.Fatalf("input %d: Go's decoder disagrees with its encoder", i)
			}
			for _, dst := range [][]byte{nil, make([]byte, 0, len(in)/2), make([]byte, 3, len(in)+64)} {
				got, err := Decode(dst, enc)
				if err != nil {
					t.Fatalf("input %d (%d bytes): %v", i, len(in), err)
				}
				if !bytes.Equal(got, in) {
					t.Fatalf("input %d (%d bytes): decoded bytes differ", i, len(in))
				}
				if cap(dst) >= len(in) && len(in) > 0 && &got[0] != &dst[:1][0] {
					t.Fatalf("input %d: did not decode into a roomy dst", i)
				}
			}
		}
	}
}

// literals encodes in as one literal per 60 bytes then copies of the
// previous 60 bytes where they repeat: element sequences Go's encoder
// does not make.
func literals(in []byte) []byte {
	out := binary.AppendUvarint(nil, uint64(len(in)))
	for i := 0; i < len(in); {
		n := min(60, len(in)-i)
		if i >= 60 && bytes.Equal(in[i:i+n], in[i-60:i-60+n]) {
			out = append(out, byte((n-1)<<2|2), 60, 0) // copy, 2-byte offset
		} else {
			out = append(out, byte((n-1)<<2))
			out = append(out, in[i:i+n]...)
		}
		i += n
	}
	return out
}

// TestDecodeCorrupt: truncations and byte flips of valid blocks give
// ErrCorrupt (or, for a flip that still makes a valid block, the bytes Go
// decodes), never a crash.
func TestDecodeCorrupt(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, in := range inputs()[:8] {
		enc := goEncode(in)
		for cut := 0; cut < len(enc); cut += 1 + len(enc)/50 {
			checkAgainstGo(t, enc[:cut])
		}
		for range 200 {
			m := bytes.Clone(enc)
			m[r.IntN(len(m))] ^= byte(1 + r.IntN(255))
			checkAgainstGo(t, m)
		}
	}
	for _, bad := range [][]byte{{}, {0x80}, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, {5, 0x01, 0}, {4, 0x0c}, {0xff, 0xff, 0xff, 0xff, 0x0f, 0}} {
		if _, err := Decode(nil, bad); !errors.Is(err, ErrCorrupt) {
			t.Errorf("Decode(%x) = %v, want ErrCorrupt", bad, err)
		}
	}
}

// checkAgainstGo decodes src with both decoders: C must fail exactly
// where Go fails and decode the same bytes where Go succeeds.
func checkAgainstGo(t *testing.T, src []byte) {
	t.Helper()
	if n, err := snappy.DecodedLen(src); err == nil && n > maxExpansion(len(src)) {
		// Go would allocate what the preamble announces (up to 4 GiB)
		// before finding out; C refuses first.
		if _, err := Decode(nil, src); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("block of %d bytes announcing %d: %v, want ErrCorrupt", len(src), n, err)
		}
		return
	}
	want, werr := goDecode(src)
	got, gerr := Decode(nil, src)
	switch {
	case werr == nil && gerr != nil:
		t.Fatalf("block %x…: Go decodes, C says %v", src[:min(len(src), 16)], gerr)
	case werr != nil && gerr == nil:
		t.Fatalf("block %x…: Go says %v, C decodes it", src[:min(len(src), 16)], werr)
	case gerr != nil && !errors.Is(gerr, ErrCorrupt):
		t.Fatalf("error %v does not wrap ErrCorrupt", gerr)
	case werr == nil && !bytes.Equal(got, want):
		t.Fatalf("block %x…: C and Go decode differently", src[:min(len(src), 16)])
	}
}

// TestRegister: the registered codec decodes with C, encodes exactly as
// the codec it wraps, and restore puts the old one back.
func TestRegister(t *testing.T) {
	base, _ := compress.GetCodec(compress.Codecs.Snappy)
	restore, err := Register()
	if err != nil {
		t.Fatal(err)
	}
	c, _ := compress.GetCodec(compress.Codecs.Snappy)
	if _, ok := c.(Codec); !ok {
		t.Fatalf("registered codec is %T", c)
	}
	if again, _ := Register(); again == nil { // wrapping twice keeps one layer
		t.Fatal("second Register failed")
	} else {
		c2, _ := compress.GetCodec(compress.Codecs.Snappy)
		if cc, ok := c2.(Codec); !ok {
			t.Fatalf("registered codec is %T", c2)
		} else if _, nested := cc.fullCodec.(Codec); nested {
			t.Fatal("Register wrapped its own codec")
		}
		again()
	}
	in := inputs()[4]
	if !bytes.Equal(c.Encode(nil, in), base.Encode(nil, in)) {
		t.Fatal("encoding changed")
	}
	out, err := compress.Decode(c, make([]byte, len(in)), c.Encode(nil, in))
	if err != nil || !bytes.Equal(out, in) {
		t.Fatalf("round trip through the registry: %v", err)
	}
	if _, err := compress.Decode(c, nil, []byte{4, 0x0c}); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("corrupt block through the registry: %v", err)
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("Codec.Decode of a corrupt block did not panic")
			}
		}()
		c.Decode(nil, []byte{4, 0x0c})
	}()
	restore()
	if c, _ := compress.GetCodec(compress.Codecs.Snappy); c != base {
		t.Fatalf("restore left %T", c)
	}
}

// FuzzDecode compares the C decoder with klauspost's on arbitrary blocks.
func FuzzDecode(f *testing.F) {
	for _, in := range inputs()[:8] {
		enc := goEncode(in)
		f.Add(enc[:min(len(enc), 4096)])
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		checkAgainstGo(t, src)
	})
}
