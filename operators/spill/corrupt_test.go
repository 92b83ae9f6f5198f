package spill

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hados-io/hados/operators/exchange"
)

// drain reads a run to the end and returns the first error.
func drain(r *Run, mem memory.Allocator) error {
	rd, err := r.Open(mem)
	if err != nil {
		return err
	}
	defer rd.Close()
	for {
		rec, err := rd.Next()
		if rec == nil || err != nil {
			return err
		}
		rec.Release()
	}
}

func TestCorruptRun(t *testing.T) {
	cases := []struct {
		name   string
		damage func(data, index string) error
		want   []string // in the error, besides the file
	}{
		{"truncated data", func(data, _ string) error { return os.Truncate(data, 100) }, []string{"index ends at", "offset"}},
		{"truncated data and index", func(data, index string) error {
			os.Truncate(index, 16)
			b, _ := os.ReadFile(index)
			clear(b[8:])
			b[15] = 100 // the index agrees with the truncated file
			os.WriteFile(index, b, 0o600)
			return os.Truncate(data, 100)
		}, []string{"offset 0", "truncated", "payload"}},
		{"flipped payload byte", func(data, _ string) error {
			b, _ := os.ReadFile(data)
			b[len(b)/2] ^= 0x40
			return os.WriteFile(data, b, 0o600)
		}, []string{"offset 0", "checksum mismatch"}},
		{"bad magic", func(data, _ string) error {
			b, _ := os.ReadFile(data)
			b[0] = 'Z'
			return os.WriteFile(data, b, 0o600)
		}, []string{"offset 0", "magic"}},
		{"missing index", func(_, index string) error { return os.Remove(index) }, []string{"no such file"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := NewManager(t.TempDir(), exchange.LZ4)
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			r := writeRun(t, m, "Sort", 300)
			data := filepath.Join(m.Dir(), "Sort-000001-0000.data")
			index := filepath.Join(m.Dir(), "Sort-000001-0000.index")
			if err := c.damage(data, index); err != nil {
				t.Fatal(err)
			}
			mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
			err = drain(r, mem)
			mem.AssertSize(t, 0)
			if err == nil {
				t.Fatal("a damaged run read without error")
			}
			msg := err.Error()
			if !strings.Contains(msg, "Sort-000001-0000.") || !strings.Contains(msg, "spill: read Sort run") {
				t.Errorf("error %q does not name the operator and the file", msg)
			}
			for _, w := range c.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q lacks %q", msg, w)
				}
			}
			if c.name != "missing index" && !errors.Is(err, exchange.ErrCorrupt) {
				t.Errorf("error %v does not match exchange.ErrCorrupt", err)
			}
		})
	}
}

// FuzzRunReader reads runs whose data file is replaced by the fuzzer's
// bytes: a damaged run must give an error (or records), never a panic, a
// hang or a leak.
func FuzzRunReader(f *testing.F) {
	dir := f.TempDir()
	m, err := NewManager(dir, exchange.LZ4)
	if err != nil {
		f.Fatal(err)
	}
	defer m.Close()
	for i, n := range []int{1, 40} {
		r := writeRun(f, m, "seed", n)
		b, err := os.ReadFile(r.segs[0].DataPath)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, uint16(0))
		f.Add(b, uint16(len(b)/2+i))
	}
	f.Add([]byte("HXB1"), uint16(3))
	f.Fuzz(func(t *testing.T, data []byte, flip uint16) {
		if len(data) > 0 {
			data = append([]byte(nil), data...)
			data[int(flip)%len(data)] ^= byte(flip >> 8)
		}
		fm, err := NewManager(t.TempDir(), exchange.LZ4)
		if err != nil {
			t.Fatal(err)
		}
		defer fm.Close()
		r := writeRun(t, fm, "fuzz", 2)
		seg := r.segs[0]
		if err := os.WriteFile(seg.DataPath, data, 0o600); err != nil {
			t.Fatal(err)
		}
		idx := make([]byte, 16) // offsets 0 and len(data): the index agrees with the file
		for i := 0; i < 8; i++ {
			idx[15-i] = byte(uint64(len(data)) >> (8 * i))
		}
		if err := os.WriteFile(seg.IndexPath, idx, 0o600); err != nil {
			t.Fatal(err)
		}
		mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
		if err := drain(r, mem); err != nil && !strings.Contains(err.Error(), seg.DataPath) {
			t.Errorf("error %q does not name the file", err)
		}
		mem.AssertSize(t, 0)
	})
}
