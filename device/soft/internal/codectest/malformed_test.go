package codectest

import (
	"bytes"
	"errors"
	"testing"
)

// vector is a hand-made block: either its decoded bytes or the error the
// decoder must give, with capacity cap.
type vector struct {
	name string
	in   []byte
	cap  int
	want []byte // nil with err set
	err  error
}

func runVectors(t *testing.T, c codec, vs []vector) {
	t.Helper()
	for _, v := range vs {
		t.Run(v.name, func(t *testing.T) {
			got, err := c.decompress(v.in, v.cap)
			if v.err != nil {
				if !errors.Is(err, v.err) {
					t.Fatalf("%s %x: got (%x, %v), want error %v", c.name, v.in, got, err, v.err)
				}
			} else if err != nil || !bytes.Equal(got, v.want) {
				t.Fatalf("%s %x: got (%q, %v), want %q", c.name, v.in, got, err, v.want)
			}
			// The exact-size C-heap path gives the same answer.
			r, out := callExact(c.cDecompress, v.in, v.cap)
			if _, xerr := result(c.name, "decompress", r); !errors.Is(xerr, v.err) || (v.err == nil && !bytes.Equal(out, v.want)) {
				t.Fatalf("exact-buffer path: r=%d out=%q", r, out)
			}
			// The Go library agrees on what is valid and what it decodes to.
			gv, gerr := c.goDecompress(v.in, v.cap)
			if (gerr == nil) != (v.err == nil) || (gerr == nil && !bytes.Equal(gv, v.want)) {
				t.Fatalf("Go library disagrees: (%q, %v)", gv, gerr)
			}
		})
	}
}

func TestLZ4Vectors(t *testing.T) {
	runVectors(t, lz4Codec, []vector{
		{name: "empty input", in: nil, cap: 8, want: []byte{}},
		{name: "empty block", in: []byte{0x00}, cap: 8, want: []byte{}},
		{name: "literals only", in: []byte{0x30, 'a', 'b', 'c'}, cap: 8, want: []byte("abc")},
		{name: "run of one byte", in: []byte{0x1f, 'z', 1, 0, 3, 0x10, '!'}, cap: 64,
			want: append(bytes.Repeat([]byte("z"), 1+4+15+3), '!')},
		{name: "ends after a match", in: []byte{0x20, 'a', 'b', 2, 0}, cap: 8, want: []byte("abababab"[:6])},
		{name: "long literal extension", in: append([]byte{0xf0, 255, 0}, bytes.Repeat([]byte{'q'}, 270)...),
			cap: 300, want: bytes.Repeat([]byte{'q'}, 270)},
		{name: "truncated literals", in: []byte{0x50, 'a', 'b'}, cap: 8, err: ErrCorrupt},
		{name: "truncated literal length", in: []byte{0xf0, 255}, cap: 600, err: ErrCorrupt},
		{name: "truncated offset", in: []byte{0x11, 'a', 1}, cap: 8, err: ErrCorrupt},
		{name: "zero offset", in: []byte{0x10, 'a', 0, 0, 0x00}, cap: 8, err: ErrCorrupt},
		{name: "offset before start", in: []byte{0x10, 'a', 2, 0, 0x00}, cap: 8, err: ErrCorrupt},
		{name: "offset with no output", in: []byte{0x00, 1, 0}, cap: 8, err: ErrCorrupt},
		{name: "truncated match length", in: []byte{0x1f, 'a', 1, 0, 255}, cap: 600, err: ErrCorrupt},
		{name: "final token with match", in: []byte{0x11, 'a'}, cap: 8, err: ErrCorrupt},
		{name: "literals past capacity", in: []byte{0x30, 'a', 'b', 'c'}, cap: 2, err: ErrShortBuffer},
		{name: "match past capacity", in: []byte{0x1f, 'z', 1, 0, 200}, cap: 100, err: ErrShortBuffer},
	})
}

func TestSnappyVectors(t *testing.T) {
	lit := func(s string) []byte { return append([]byte{byte(len(s)-1) << 2}, s...) }
	cat := func(bs ...[]byte) []byte { return bytes.Join(bs, nil) }
	runVectors(t, snappyCodec, []vector{
		{name: "empty block", in: []byte{0}, cap: 8, want: []byte{}},
		{name: "literal", in: cat([]byte{3}, lit("abc")), cap: 8, want: []byte("abc")},
		{name: "copy1 overlapping", in: cat([]byte{9}, lit("ab"), []byte{0x0d, 2}), cap: 16, want: []byte("ababababa")},
		{name: "copy2", in: cat([]byte{5}, lit("abc"), []byte{0x06, 3, 0}), cap: 8, want: []byte("abcab")},
		{name: "copy4", in: cat([]byte{5}, lit("abc"), []byte{0x07, 3, 0, 0, 0}), cap: 8, want: []byte("abcab")},
		{name: "literal with 1-byte length", in: cat([]byte{100, 0xf0, 99}, bytes.Repeat([]byte{'x'}, 100)),
			cap: 100, want: bytes.Repeat([]byte{'x'}, 100)},
		{name: "non-minimal preamble", in: cat([]byte{0x83, 0x80, 0x00}, lit("abc")), cap: 8, want: []byte("abc")},
		{name: "empty input", in: nil, cap: 8, err: ErrCorrupt},
		{name: "truncated preamble", in: []byte{0x80}, cap: 8, err: ErrCorrupt},
		{name: "preamble above 4 GiB", in: []byte{0x80, 0x80, 0x80, 0x80, 0x10}, cap: 8, err: ErrCorrupt},
		{name: "shorter than announced", in: cat([]byte{4}, lit("abc")), cap: 8, err: ErrCorrupt},
		{name: "longer than announced", in: cat([]byte{2}, lit("abc")), cap: 8, err: ErrCorrupt},
		{name: "truncated literal", in: []byte{3, 8, 'a'}, cap: 8, err: ErrCorrupt},
		{name: "truncated literal length", in: []byte{3, 0xf4, 1}, cap: 8, err: ErrCorrupt},
		{name: "truncated copy", in: cat([]byte{5}, lit("abc"), []byte{0x06, 3}), cap: 8, err: ErrCorrupt},
		{name: "zero offset", in: cat([]byte{5}, lit("abc"), []byte{0x06, 0, 0}), cap: 8, err: ErrCorrupt},
		{name: "offset before start", in: cat([]byte{5}, lit("abc"), []byte{0x06, 4, 0}), cap: 8, err: ErrCorrupt},
		{name: "huge 4-byte offset", in: cat([]byte{5}, lit("abc"), []byte{0x07, 0xff, 0xff, 0xff, 0xff}), cap: 8, err: ErrCorrupt},
		{name: "announced length above capacity", in: cat([]byte{3}, lit("abc")), cap: 2, err: ErrShortBuffer},
	})
}

func TestSnappyDecodedLen(t *testing.T) {
	for _, tc := range []struct {
		in   []byte
		want int
		err  error
	}{
		{[]byte{0}, 0, nil},
		{[]byte{0x7f}, 127, nil},
		{[]byte{0x80, 0x01}, 128, nil},
		{[]byte{0xff, 0xff, 0xff, 0xff, 0x0f}, 0xffffffff, nil},
		{[]byte{0xff, 0xff, 0xff, 0xff, 0x1f}, 0, ErrCorrupt},
		{nil, 0, ErrCorrupt},
		{[]byte{0x80, 0x80}, 0, ErrCorrupt},
	} {
		got, err := SnappyDecodedLen(tc.in)
		if got != tc.want || !errors.Is(err, tc.err) {
			t.Errorf("SnappyDecodedLen(%x) = %d, %v; want %d, %v", tc.in, got, err, tc.want, tc.err)
		}
	}
}

func TestErrorMessages(t *testing.T) {
	_, err := LZ4Decompress([]byte{0x10, 'a', 0, 0, 0}, 8)
	if err == nil || err.Error() != "codectest: lz4 decompress: corrupt input (code -2)" {
		t.Fatalf("unexpected error text: %v", err)
	}
	if _, err := SnappyDecompress([]byte{1, 0}, -1); !errors.Is(err, ErrInvalid) {
		t.Fatalf("negative capacity: %v", err)
	}
	if LZ4Bound(-1) != -1 || LZ4Bound(0x7E000001) != -1 || SnappyBound(-1) != -1 {
		t.Fatal("bounds accept invalid sizes")
	}
}
