package soft_test

import (
	"encoding/binary"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/hados-io/hados/device"
)

// FuzzJoinCondDescriptor hands JOIN_COND mutated hados_join_cond
// descriptors (their columns, row counts, pair arrays and terms) and pair
// ranges. The op must either work (writing only its range's output bytes,
// 0 or 1, and counting the ones) or fail with an error naming the join
// condition — never crash or touch memory outside the device's.
//
// fix&1 rewrites the header's magic, version and size so mutations reach
// the terms.
func FuzzJoinCondDescriptor(f *testing.F) {
	e := newEnv(f, "soft:memory=16MiB,mode=host-visible", 8<<20)
	r := rand.New(rand.NewPCG(3, 3))
	const probeRows, buildRows, pairs = 40, 30, 64
	pa := e.putColumn(randVCol(r, device.VTI64, probeRows, 0.1), colEnc{})
	ba := e.putColumn(randVCol(r, device.VTI64, buildRows, 0), colEnc{offset: 3})
	pd := e.putColumn(randVCol(r, device.VTI128, probeRows, 0.2), colEnc{})
	bd := e.putColumn(randVCol(r, device.VTI128, buildRows, 0.2), colEnc{})
	pf := e.putColumn(randVCol(r, device.VTF64, probeRows, 0.1), colEnc{})
	bf := e.putColumn(randVCol(r, device.VTF64, buildRows, 0.1), colEnc{})
	pp, bb := make([]int32, pairs), make([]int32, pairs)
	for i := range pp {
		pp[i], bb[i] = int32(i*probeRows/pairs), int32(r.IntN(buildRows+1))-1
	}
	out := e.alloc(pairs + 8)
	c := device.JoinCond{Pairs: pairs, ProbeRows: probeRows, BuildRows: buildRows, ProbeIdx: e.putI32s(pp), BuildIdx: e.putI32s(bb), Out: out}
	mark := e.next
	for _, terms := range [][]device.JoinTerm{
		{{Cmp: device.JoinCmpNe, BBuild: true, A: pa, B: ba}},
		{{Cmp: device.JoinCmpLt, BBuild: true, A: pa, B: ba}, {Cmp: device.JoinCmpGe, ABuild: true, A: bd, B: pd}},
		{{Cmp: device.JoinCmpEq, BBuild: true, A: pf, B: bf}},
	} {
		c.Flags = 0
		c.Terms = terms
		d, err := c.Encode()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(d, uint8(0), uint64(0), uint64(pairs))
		f.Add(d, uint8(1), uint64(10), uint64(20))
		c.Flags = device.JoinCondFirstPass
		d, _ = c.Encode()
		f.Add(d, uint8(0), uint64(5), uint64(pairs))
	}
	f.Fuzz(func(t *testing.T, desc []byte, fix uint8, lo, hi uint64) {
		if len(desc) > 4096 {
			return
		}
		e.t = t
		e.next = mark
		if fix&1 != 0 && len(desc) >= device.SizeofJoinCondHdr {
			desc = append([]byte(nil), desc...)
			le := binary.LittleEndian
			le.PutUint32(desc, device.JoinCondMagic)
			le.PutUint32(desc[4:], device.RelationalVersion)
			le.PutUint32(desc[8:], uint32(len(desc)))
		}
		var a device.Addr
		if len(desc) > 0 {
			a = e.put(desc)
		} else {
			a = e.alloc(8)
		}
		e.write(out, make([]byte, pairs+8))
		op := device.Op{Code: device.OpJoinCond, Src: a, Len: uint64(len(desc)), Args: [4]uint64{lo, hi}}
		res := run(t, e.q, op)
		if res.Err != nil {
			if !strings.Contains(res.Err.Error(), "join condition") {
				t.Fatalf("error %q does not name the join condition", res.Err)
			}
			return
		}
		le := binary.LittleEndian
		if len(desc) < device.SizeofJoinCondHdr || le.Uint64(desc[24:]) != pairs || le.Uint64(desc[64:]) != uint64(out) {
			return // the output is elsewhere (the op checked it lies in device memory)
		}
		got := e.read(out, pairs+8)
		ones := uint64(0)
		for i, v := range got {
			if v > 1 || (v == 1 && (uint64(i) < lo || uint64(i) >= hi)) {
				t.Fatalf("output byte %d = %d (range [%d, %d))", i, v, lo, hi)
			}
			ones += uint64(v)
		}
		if ones != res.Results[0] {
			t.Fatalf("result %d, %d bytes set", res.Results[0], ones)
		}
	})
}
