package spill

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hados-io/hados/internal/arrowsize"
	hmem "github.com/hados-io/hados/memory"
	"github.com/hados-io/hados/operators/exchange"
)

// TestChargeTo: a writer charged to an account never holds more than the
// account allows (it commits segments early instead), gives every byte
// back at Finish and Abort, and its run reads back whole.
func TestChargeTo(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	m, err := NewManager(t.TempDir(), exchange.LZ4)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	probe := makeRecord(mem, 500, 1)
	one, schema := uint64(arrowsize.Record(probe)), probe.Schema()
	probe.Release()
	acct := hmem.NewAccount("task 1", 3*one+one/2, nil) // room for three records
	for _, abort := range []bool{false, true} {
		w, err := m.Create("Test", schema)
		if err != nil {
			t.Fatal(err)
		}
		w.ChargeTo(acct)
		var recs []arrow.Record
		for i := range 10 {
			r := makeRecord(mem, 500, uint64(i))
			if err := w.Write(r); err != nil {
				t.Fatal(err)
			}
			recs = append(recs, r)
			if n := acct.InUse(); n > acct.Limit() {
				t.Fatalf("the writer holds %d bytes over a limit of %d", n, acct.Limit())
			}
		}
		if abort {
			w.Abort()
		} else {
			run, err := w.Finish()
			if err != nil {
				t.Fatal(err)
			}
			if run.Files() < 2*3 {
				t.Errorf("%d files: the quota should have cut the run into segments of three records", run.Files())
			}
			got := readAll(t, run, mem)
			want := concat(t, recs)
			if !array.RecordEqual(got, want) {
				t.Errorf("the run reads back differently")
			}
			got.Release()
			want.Release()
			run.Remove()
		}
		for _, r := range recs {
			r.Release()
		}
		if n := acct.InUse(); n != 0 {
			t.Errorf("abort=%v: the account holds %d bytes after the writer ended", abort, n)
		}
	}
	if st := acct.Stats(); st.Peak == 0 || st.Peak > st.Limit {
		t.Errorf("peak %d, limit %d", st.Peak, st.Limit)
	}
}
