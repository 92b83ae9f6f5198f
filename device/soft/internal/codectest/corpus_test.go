package codectest

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"strings"
)

// words is a small vocabulary for text-like data: English and TPC-H-ish
// tokens, so that the generated text has the match structure of logs, CSV
// and comments rather than of either noise or a single repeated byte.
var words = strings.Fields(`the of and to in is that for it as was with be by on not
he this are or his from at which but have an they you were her she there
would their we him been has when who will more no if out so said what up its
about into than them can only other new some could time these two may then
do first any my now such like our over man me even most made after also did
many before must through back years where much your way well down should
because each just those people how too little state good very make world
still own see men work long get here between both life being under never day
same another know while last might us great old year off come since against
go came right used take three lineitem orders customer supplier nation region
part partsupp quantity extendedprice discount tax returnflag linestatus
shipdate commitdate receiptdate shipinstruct shipmode comment AIR MAIL SHIP
TRUCK RAIL FOB REG DELIVER IN PERSON COLLECT COD NONE TAKE BACK RETURN`)

// textData returns n bytes of deterministic word salad with numbers and
// punctuation: the "text-like data" the throughput goals refer to.
func textData(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 0x7e47))
	var b strings.Builder
	b.Grow(n + 64)
	for b.Len() < n {
		// Zipf-like: low indexes are much more frequent.
		i := int(float64(len(words)) * r.Float64() * r.Float64())
		b.WriteString(words[i])
		switch r.IntN(12) {
		case 0:
			fmt.Fprintf(&b, " %d.%02d|", r.IntN(100000), r.IntN(100))
		case 1:
			b.WriteString(".\n")
		case 2:
			b.WriteString(", ")
		default:
			b.WriteByte(' ')
		}
	}
	return []byte(b.String()[:n])
}

// pricesData returns n bytes of little-endian int64 prices shaped as
// TPC-H's l_extendedprice (internal/tpchgen: quantity 1..50 times the
// part's retail price in cents), the PLAIN page that dominates Q6's scan:
// snappy codes it as many 2-5 byte literals and short copies.
func pricesData(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 0x9e1ce))
	b := make([]byte, n+8)
	for i := 0; i < n; i += 8 {
		pk := 1 + r.Int64N(200000)
		price := 90000 + (pk/10)%20001 + 100*(pk%1000)
		binary.LittleEndian.PutUint64(b[i:], uint64((1+r.Int64N(50))*price))
	}
	return b[:n]
}

// randomData returns n incompressible bytes.
func randomData(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 0xbad5eed))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// repeatData returns n bytes repeating a period-byte pattern (period 1 is a
// run of one byte): the overlapping-copy case of both formats.
func repeatData(n, period int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('a' + i%period)
	}
	return b
}

// mixedData alternates random, text and run stretches of random lengths,
// so matches start and end at every alignment and near window edges.
func mixedData(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 0x31415))
	b := make([]byte, 0, n)
	for len(b) < n {
		k := 1 + r.IntN(300)
		switch r.IntN(4) {
		case 0:
			b = append(b, randomData(k, r.Uint64())...)
		case 1:
			b = append(b, textData(k, r.Uint64())...)
		case 2:
			b = append(b, repeatData(k, 1+r.IntN(9))...)
		default: // copy an earlier stretch, near or far
			if len(b) > 0 {
				from := r.IntN(len(b))
				b = append(b, b[from:min(len(b), from+k)]...)
			}
		}
	}
	return b[:n]
}

// corpus is a named input for table tests.
type corpus struct {
	name string
	data []byte
}

// corpora is the shared table of inputs: edge sizes around the formats'
// end-of-block limits and every data shape, all small.
func corpora() []corpus {
	cs := []corpus{
		{"empty", nil},
		{"one-byte", []byte{'x'}},
		{"zeros-4", make([]byte, 4)},
		{"zeros-12", make([]byte, 12)},
		{"zeros-13", make([]byte, 13)},
		{"zeros-17", make([]byte, 17)},
		{"zeros-64k", make([]byte, 65536)},
		{"zeros-64k+1", make([]byte, 65537)},
		{"random-1k", randomData(1024, 1)},
		{"random-100k", randomData(100_000, 2)},
		{"text-1k", textData(1024, 3)},
		{"text-300k", textData(300_000, 4)},
		{"mixed-200k", mixedData(200_000, 5)},
		{"prices-100k", pricesData(100_000, 6)},
	}
	for _, p := range []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 15, 16, 17, 255, 300} {
		cs = append(cs, corpus{fmt.Sprintf("period-%d", p), repeatData(5000+p, p)})
	}
	for n := 1; n <= 40; n++ {
		cs = append(cs, corpus{fmt.Sprintf("text-%d", n), textData(n, uint64(n))})
	}
	return cs
}
