package soft

import (
	"encoding/binary"
	"testing"
)

// fuzzDev is shared by the fuzz iterations of one process (opening a
// device per input would dominate); it is never closed before exit.
var fuzzDev *hookDev

// FuzzAggUpdate derives a random spec (key types, domains, a subset of the
// aggregate forms, possibly malformed registers) and random vectors from
// the input, runs them through the state and compares with the reference.
// Invalid specs must be refused with an error, never crash.
func FuzzAggUpdate(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16})
	f.Add([]byte{0x00, 0xff, 0x10, 0x80, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c})
	f.Add([]byte{0x63, 0x31, 0x07, 0x40, 0xfe, 0x13, 0x37, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01})
	f.Add([]byte{0x24, 0x66, 0x22, 0x05, 0x11, 0x99, 0x42, 0x21, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff, 0x01, 0x23, 0x45})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 16 {
			return
		}
		if fuzzDev == nil {
			d, err := hookOpen(testMem)
			if err != nil {
				t.Fatal(err)
			}
			fuzzDev = d
		}
		before := fuzzDev.heapUsed()
		c := aggCase{
			card:     1 + int(data[1])%40*int(1+data[2]%4*30),
			domain:   data[3]&1 != 0,
			outOfDom: float64(data[3]>>1&3) * 0.002,
			nullRate: []float64{0, 0.1, 0.5, 1}[data[4]&3],
			sel:      data[4]&4 != 0,
			small:    data[4]&8 != 0,
			vectors:  1 + int(data[5]%4),
		}
		nk := int(data[0] % 5)
		c.keyVTs = make([]uint32, nk)
		for k := range nk {
			c.keyVTs[k] = keyTypes[int(data[6+k])%len(keyTypes)]
		}
		g := newAggGen(c, binary.LittleEndian.Uint64(data[8:16]))
		mask := binary.LittleEndian.Uint32(data[10:14]) | 1
		var aggs []hookAgg
		for j, a := range g.spec.Aggs {
			if mask>>(j%32)&1 != 0 {
				aggs = append(aggs, a)
			}
		}
		g.spec.Aggs = aggs
		if len(data) > 16 && data[16]&1 != 0 { // a malformed aggregate: must be refused
			bad := g.spec
			bad.Aggs = append(append([]hookAgg(nil), aggs...), hookAgg{Func: uint16(data[16] >> 1 % 8), Flags: uint16(data[16] >> 4),
				Arg: uint16(data[7]), In: uint32(data[16] % 9), Out: uint32(data[7] % 9)})
			if s, err := fuzzDev.create(bad, 0); err == nil {
				s.free()
			}
		}
		s, err := fuzzDev.create(g.spec, 0)
		if err != nil {
			t.Fatalf("create: %v", err)
		}
		ref := newRef(g.spec)
		for range c.vectors {
			keys, args, args2, n, sel := g.vector()
			if err := s.update(keys, args, args2, n, sel); err != nil {
				t.Fatalf("update: %v", err)
			}
			ref.update(keys, args, args2, n, sel)
		}
		checkEmit(t, s, ref, nil)
		s.free()
		if u := fuzzDev.heapUsed(); u != before {
			t.Fatalf("heap: %d bytes in use after free, %d before", u, before)
		}
	})
}
