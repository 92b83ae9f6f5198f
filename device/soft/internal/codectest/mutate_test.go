package codectest

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"
)

// TestSnappyDecodeMutated runs the decoder differential (fuzzDecoder: C on
// exact-size C buffers against golang/snappy) over thousands of mutations
// of blocks long enough for the decoder's fast loop: l_extendedprice-shaped
// prices (short literals and copies), text and mixed data, each with one
// to three bytes changed or cut short. A mutated tag or offset lands in the
// fast loop far more often than the fuzzers' small seeds reach it.
func TestSnappyDecodeMutated(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 0x5eed))
	for _, c := range []corpus{
		{"prices", pricesData(20_000, 21)},
		{"text", textData(20_000, 22)},
		{"mixed", mixedData(20_000, 23)},
	} {
		block, err := snappyCodec.goCompress(c.data)
		if err != nil {
			t.Fatal(err)
		}
		n := 3000
		if testing.Short() {
			n = 300
		}
		for range n {
			in := append([]byte(nil), block...)
			for range 1 + r.IntN(3) {
				in[r.IntN(len(in))] = byte(r.Uint32())
			}
			if r.IntN(8) == 0 {
				in = in[:r.IntN(len(in))]
			}
			fuzzDecoder(t, snappyCodec, in, len(c.data)+r.IntN(3)-1)
		}
	}
}

// TestSnappyCopyOffsetBounds puts a copy whose offset is zero, exactly the
// bytes written so far, or one more, after literals of 1..24 bytes, in each
// of the three copy forms, with enough data after it for the decoder's
// fast loop to be the one that meets it; the C decoder must agree with
// golang/snappy on each.
func TestSnappyCopyOffsetBounds(t *testing.T) {
	for form := 1; form <= 3; form++ {
		for lit := 1; lit <= 24; lit++ {
			for _, off := range []int{0, 1, lit - 1, lit, lit + 1, lit + 8} {
				const clen, tail = 6, 200
				var b []byte
				b = binary.AppendUvarint(b, uint64(lit+clen+tail))
				b = append(b, byte(lit-1)<<2)
				for i := range lit {
					b = append(b, byte('a'+i))
				}
				switch form {
				case 1:
					b = append(b, byte(off>>8)<<5|byte(clen-4)<<2|1, byte(off))
				case 2:
					b = append(b, byte(clen-1)<<2|2, byte(off), byte(off>>8))
				case 3:
					b = append(b, byte(clen-1)<<2|3, byte(off), byte(off>>8), byte(off>>16), byte(off>>24))
				}
				b = append(b, 60<<2, tail-1) // a literal of tail bytes (1-byte length)
				for i := range tail {
					b = append(b, byte(i))
				}
				fuzzDecoder(t, snappyCodec, b, lit+clen+tail)
			}
		}
	}
}

// TestSnappyRandomElements decodes long blocks of random elements, every
// tag value among them: literals of 1..70 bytes, and copies in all three
// forms with every length the form allows and offsets from 1 (a run) to
// the bytes written so far (past 64 KiB for the 4-byte form), so each copy
// path of the fast loop (offset >= 16, == 8, 8..15, < 8; length above 16)
// meets each form. Half of the blocks then get one byte changed. The C
// decoder, on exact-size C buffers, must agree with golang/snappy.
func TestSnappyRandomElements(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 0xe1e))
	n := 200
	if testing.Short() {
		n = 40
	}
	for range n {
		var body []byte
		size := 0
		target := 1000 + r.IntN(100_000)
		for size < target {
			if size == 0 || r.IntN(3) == 0 {
				l := 1 + r.IntN(70)
				if l <= 60 {
					body = append(body, byte(l-1)<<2)
				} else {
					body = append(body, 60<<2, byte(l-1))
				}
				for range l {
					body = append(body, byte(r.Uint32()))
				}
				size += l
				continue
			}
			var off int
			switch r.IntN(4) {
			case 0:
				off = 1 + r.IntN(min(size, 16))
			case 1:
				off = min(size, 8)
			default:
				off = 1 + r.IntN(size)
			}
			switch form := 1 + r.IntN(3); {
			case form == 1 && off < 2048:
				l := 4 + r.IntN(8)
				body = append(body, byte(off>>8)<<5|byte(l-4)<<2|1, byte(off))
				size += l
			case form == 2 && off < 65536:
				l := 1 + r.IntN(64)
				body = append(body, byte(l-1)<<2|2, byte(off), byte(off>>8))
				size += l
			default:
				l := 1 + r.IntN(64)
				body = append(body, byte(l-1)<<2|3, byte(off), byte(off>>8), byte(off>>16), byte(off>>24))
				size += l
			}
		}
		block := append(binary.AppendUvarint(nil, uint64(size)), body...)
		if r.IntN(2) == 0 {
			block[r.IntN(len(block))] = byte(r.Uint32())
		}
		fuzzDecoder(t, snappyCodec, block, size)
	}
}
