package soft_test

import (
	"encoding/binary"
	"testing"

	"github.com/hados-io/hados/device"
)

// TestGatherOpBadStringOffsets: a gather binds its columns by their last
// row and checks each gathered string's offsets as it reads it, so rows
// with good offsets gather fine and a row whose offsets decrease or point
// past the last offset is a clear error naming it (never a read outside
// the column's bytes).
func TestGatherOpBadStringOffsets(t *testing.T) {
	e := newEnv(t, "soft:memory=16MiB,cores=1", 8<<20)
	// rows: "ab", "c", 3 -> 1 (decreasing), 1 -> 9 (past the last offset, 8), 9 -> 8, ""
	offs := []int32{0, 2, 3, 1, 9, 8, 8}
	ob := make([]byte, 4*len(offs))
	for i, o := range offs {
		binary.LittleEndian.PutUint32(ob[4*i:], uint32(o))
	}
	col := device.Column{VType: device.VTStr, Length: 6, Data: e.put([]byte("abcdefgh")), Offsets: e.put(ob)}
	got, _, err := e.runGather([]device.Column{col}, 6, []int32{1, 0, -1, 5}, 64)
	if err != nil {
		t.Fatalf("good rows: %v", err)
	}
	if got[0].vals[0].s != "c" || got[0].vals[1].s != "ab" || !got[0].vals[2].null || got[0].vals[3].s != "" {
		t.Fatalf("good rows: got %+v", got[0].vals)
	}
	for _, row := range []int32{2, 3, 4} {
		if _, _, err := e.runGather([]device.Column{col}, 6, []int32{0, row}, 64); !errIs(err, device.ErrInvalid, "string offsets") {
			t.Fatalf("row %d: %v, want ErrInvalid naming the string offsets", row, err)
		}
	}
	// a column of empty strings has no string bytes at all: still fine
	empty := device.Column{VType: device.VTStr, Length: 2, Data: e.put([]byte{0}), Offsets: e.put(make([]byte, 12))}
	if got, _, err := e.runGather([]device.Column{empty}, 2, []int32{1, 0}, 8); err != nil || got[0].vals[0].s != "" || got[0].vals[1].null {
		t.Fatalf("empty strings: %v %+v", err, got)
	}
}
