package soft_test

import (
	"encoding/binary"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/hados-io/hados/device"
)

// FuzzJoinDescriptor hands the join ops mutated hados_join descriptors
// (and probe cursors): a build, a probe of a live table, or a free. Each
// must either work or fail with an error naming the join — never crash,
// hang or touch memory outside the device's.
//
// which selects the op (low two bits: 3 is a build asking for flags
// parts; 2 with bit 0x40 is a build part of the state at the descriptor's
// first word, part next) and, with bit 0x80, rewrites the header's magic,
// version and size so mutations reach the key columns.
func FuzzJoinDescriptor(f *testing.F) {
	e := newEnv(f, "soft:memory=16MiB,mode=host-visible", 8<<20)
	c := joinCase{vts: []device.VType{device.VTI64, device.VTStr}, card: 10, nullRate: 0.1}
	r := rand.New(rand.NewPCG(1, 1))
	b, p := genSide(r, c, 64), genSide(r, c, 32)
	size := uint64(device.SizeofJoinHeader + 2*device.SizeofColumn)
	bdesc := e.putJoin(b, nil, nil, false)
	state, err := e.build(bdesc, 0)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() {
		e.t = f
		e.free(state)
	})
	pdesc := e.putJoin(p, []colEnc{{}, {dict: true}}, nil, true)
	dictDesc := e.putJoin(b, []colEnc{{}, {dict: true, offset: 2}}, []bool{true, false}, false)
	const capacity = 64
	probeRows, buildRows := e.alloc(4*capacity), e.alloc(4*capacity)
	cell := e.alloc(8)
	mark := e.next
	f.Add(e.read(bdesc, size), uint8(0), uint64(0), uint64(0), uint8(0))
	f.Add(e.read(dictDesc, size), uint8(0x80), uint64(0), uint64(0), uint8(0))
	f.Add(e.read(pdesc, size), uint8(1), uint64(0), uint64(32), uint8(3))
	f.Add(e.read(pdesc, size), uint8(0x81), uint64(5), uint64(20), uint8(1))
	f.Add(e.read(pdesc, size), uint8(1), uint64(40), uint64(20), uint8(7))
	f.Add([]byte{}, uint8(2), uint64(0), uint64(0), uint8(0))
	f.Add(e.read(bdesc, size), uint8(3), uint64(0), uint64(0), uint8(2))
	f.Add(e.read(bdesc, size), uint8(3), uint64(0), uint64(0), uint8(3))
	st := binary.LittleEndian.AppendUint64(nil, uint64(state))
	f.Add(st, uint8(0x42), uint64(1), uint64(0), uint8(0))
	f.Add(binary.LittleEndian.AppendUint64(nil, uint64(bdesc)), uint8(0x42), uint64(0), uint64(0), uint8(0))
	f.Fuzz(func(t *testing.T, desc []byte, which uint8, next, end uint64, flags uint8) {
		if len(desc) > 4096 {
			return
		}
		e.t = t
		e.next = mark
		if which&0x80 != 0 && len(desc) >= device.SizeofJoinHeader {
			desc = append([]byte(nil), desc...)
			le := binary.LittleEndian
			le.PutUint32(desc, device.JoinMagic)
			le.PutUint32(desc[4:], device.RelationalVersion)
			le.PutUint32(desc[8:], uint32(len(desc)))
		}
		a := e.put(desc)
		var op device.Op
		switch which & 3 {
		case 0:
			op = device.Op{Code: device.OpJoinBuild, Src: a, Len: uint64(len(desc)), Dst: cell, Args: [4]uint64{1 << 20}}
		case 3:
			op = device.Op{Code: device.OpJoinBuild, Src: a, Len: uint64(len(desc)), Dst: cell, Args: [4]uint64{1 << 20, uint64(flags)}}
		case 1:
			o := device.JoinOut{ProbeRows: probeRows, BuildRows: buildRows, Capacity: capacity, Flags: uint32(flags), NextRow: next, EndRow: end}
			op = device.Op{Code: device.OpJoinProbe, Src: a, Len: uint64(len(desc)), Args: [4]uint64{uint64(state), uint64(e.put(o.Encode()))}}
		case 2:
			if which&0x40 != 0 && len(desc) >= 8 {
				at := binary.LittleEndian.Uint64(desc)
				op = device.Op{Code: device.OpJoinBuild, Args: [4]uint64{0, 0, at, next}}
				if at == uint64(state) { // a part of a table built whole: nothing to do
					if res := run(t, e.q, op); res.Err != nil || res.Results[0] != at {
						t.Fatalf("part %d of a built table: %v, result 0x%x", next, res.Err, res.Results[0])
					}
					return
				}
			} else if len(desc) >= 8 {
				op = device.Op{Code: device.OpJoinFree, Src: device.Addr(binary.LittleEndian.Uint64(desc))}
			} else {
				op = device.Op{Code: device.OpJoinFree, Src: a}
			}
			if op.Src == state {
				return // freeing the live table is legal
			}
		}
		res := run(t, e.q, op)
		if res.Err != nil {
			if !strings.Contains(strings.ToLower(res.Err.Error()), "join") {
				t.Fatalf("error %q does not name the join", res.Err)
			}
			return
		}
		switch op.Code {
		case device.OpJoinBuild:
			if op.Args[2] != 0 {
				t.Fatalf("build part of 0x%x (not a join state) succeeded", op.Args[2])
			}
			e.free(device.Addr(res.Results[0]))
		case device.OpJoinFree:
			t.Fatalf("free of 0x%x (not a join state) succeeded", op.Src)
		case device.OpJoinProbe:
			if res.Results[0] > capacity {
				t.Fatalf("probe wrote %d pairs into %d", res.Results[0], capacity)
			}
		}
	})
}
