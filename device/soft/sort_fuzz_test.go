package soft_test

import (
	"encoding/binary"
	"testing"

	"github.com/hados-io/hados/device"
)

// FuzzSortGatherDescriptors feeds mutated hados_sort / hados_gather
// descriptors and op arguments to SORT, MERGE and GATHER: every input must
// end in a result or a clear error, never a crash or a hang.
func FuzzSortGatherDescriptors(f *testing.F) {
	f.Add([]byte{}, uint8(0), uint64(0), uint64(3), uint64(0))
	f.Add([]byte{0, 0, 0, 0}, uint8(1), uint64(1), uint64(2), uint64(1))
	f.Add([]byte{0xff, 0x10, 0x02, 0x00}, uint8(2), uint64(0), uint64(4), uint64(0))
	f.Add([]byte{0x18, 0x00, 0x00, 0x00, 0x05}, uint8(0), uint64(2), uint64(1), uint64(9))
	f.Add([]byte{}, uint8(0), uint64(0), uint64(3), uint64(8|16|32|1<<8|2<<12))
	f.Fuzz(func(t *testing.T, patch []byte, which uint8, a0, a1, a2 uint64) {
		e := newEnv(t, "soft:memory=8MiB,cores=1", 4<<20)
		k := e.putColumn(vcol{vt: device.VTI64, vals: []val{{i: 3}, {null: true}, {i: 1}}}, colEnc{})
		s := e.putColumn(vcol{vt: device.VTStr, vals: []val{{s: "b"}, {s: "a"}, {null: true}}}, colEnc{dict: true})
		var desc []byte
		switch which % 3 {
		case 0, 1:
			desc, _ = (&device.Sort{Rows: 3, Keys: []device.SortKey{{Column: k}, {Column: s, Flags: 3}}}).Encode()
		default:
			desc, _ = (&device.Gather{Rows: 3, Columns: []device.Column{k, s}}).Encode()
		}
		// Patch: pairs of (offset, byte) applied to the descriptor.
		for i := 0; i+1 < len(patch); i += 2 {
			desc[int(patch[i])%len(desc)] = patch[i+1]
		}
		da := e.put(desc)
		rows := make([]byte, 16)
		for i, r := range []int32{2, 0, -1, 1} {
			binary.LittleEndian.PutUint32(rows[4*i:], uint32(r))
		}
		ra := e.put(rows)
		out := e.alloc(256)
		var op device.Op
		switch which % 3 {
		case 0:
			var bounds uint64 // a bounded SORT (device.SortBounds) for some a2
			if a2&8 != 0 {
				lo, hi := uint64(0xffffffff), uint64(0x7fffffff)
				if a2&16 != 0 {
					lo = (a2 >> 8) % 4 // 3: past the rows
				}
				if a2&32 != 0 {
					hi = (a2 >> 12) % 4
				}
				bounds = device.SortBounds | hi<<32 | lo
				if a2&64 != 0 {
					bounds = a2 >> 16 // raw
				}
			}
			op = device.Op{Code: device.OpSort, Src: da, Len: uint64(len(desc)), Dst: out, Args: [4]uint64{a0 % 8, a1 % 8, a2 % 8, bounds}}
		case 1:
			op = device.Op{Code: device.OpMerge, Src: da, Len: uint64(len(desc)), Dst: out, Args: [4]uint64{uint64(ra), a0 % 5, uint64(ra) + 8, a1 % 3}}
		default:
			o := e.put(device.EncodeColumns([]device.Column{e.outColumn(device.VTI64, 8, 0), e.outColumn(device.VTStr, 8, 16)}, 8))
			op = device.Op{Code: device.OpGather, Src: da, Len: uint64(len(desc)), Args: [4]uint64{uint64(ra), a0 % 6, uint64(o)}}
		}
		run(t, e.q, op) // any status; the device must survive
	})
}
