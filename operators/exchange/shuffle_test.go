package exchange

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// readPartition reads partition p of outputs into one record (nil if empty).
func readPartition(t testing.TB, outputs []MapOutput, p int, mem memory.Allocator) (arrow.RecordBatch, Stats, error) {
	return readPartitionOf(t, outputs, p, allTypesSchema, mem)
}

func readPartitionOf(t testing.TB, outputs []MapOutput, p int, schema *arrow.Schema, mem memory.Allocator) (arrow.RecordBatch, Stats, error) {
	t.Helper()
	r, err := NewShuffleReader(outputs, p, schema, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var recs []arrow.RecordBatch
	defer func() {
		for _, rec := range recs {
			rec.Release()
		}
	}()
	for {
		rec, err := r.Next()
		if err != nil {
			return nil, r.Stats(), err
		}
		if rec == nil {
			break
		}
		recs = append(recs, rec)
	}
	if len(recs) == 0 {
		return nil, r.Stats(), nil
	}
	out, err := Concat(recs, mem)
	return out, r.Stats(), err
}

type partitionerCase struct {
	name string
	make func(t testing.TB, n, mapID int) Partitioner
}

var partitionerCases = []partitionerCase{
	{"hash", func(t testing.TB, n, _ int) Partitioner {
		h, err := NewHash([]int{3, 12, 11}, n)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}},
	{"roundrobin", func(t testing.TB, n, mapID int) Partitioner {
		r, err := NewRoundRobin(n, mapID)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}},
}

// TestShuffleRoundTrip writes several map outputs of random data with nulls
// (every supported type) and reads every partition back, for each codec,
// several partition counts, and with and without spilling.
func TestShuffleRoundTrip(t *testing.T) {
	for _, codec := range []Codec{LZ4, Snappy, NoCompression} {
		for _, n := range []int{1, 7, 200} {
			for _, limit := range []int64{0, 16 << 10} {
				pc := partitionerCases[(n/7)%2]
				name := fmt.Sprintf("%s/n=%d/%s/limit=%d", codec, n, pc.name, limit)
				t.Run(name, func(t *testing.T) { roundTrip(t, codec, n, limit, pc) })
			}
		}
	}
}

func roundTrip(t *testing.T, codec Codec, n int, limit int64, pc partitionerCase) {
	mem := checkedMem(t)
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(uint64(n), uint64(codec)))
	const maps, recsPerMap, rows = 3, 2, 200
	var outputs []MapOutput
	// want[p] accumulates the expected rows of partition p, map by map.
	want := make([][]arrow.RecordBatch, n)
	defer func() {
		for _, ws := range want {
			for _, w := range ws {
				w.Release()
			}
		}
	}()
	var written Stats
	for m := 0; m < maps; m++ {
		w, err := NewShuffleWriter(pc.make(t, n, m), WriterOptions{Dir: dir, ShuffleID: 9, MapID: m, Codec: codec, MemoryLimit: limit, Allocator: mem})
		if err != nil {
			t.Fatal(err)
		}
		ref := pc.make(t, n, m)
		for k := 0; k < recsPerMap; k++ {
			rec := randomRecord(t, rng, mem, rows, 0.1)
			id := ids(t, ref, rec)
			for p, e := range expectedPartitions(t, rec, id, n, mem) {
				if e != nil {
					want[p] = append(want[p], e)
				}
			}
			if err := w.Write(rec); err != nil {
				t.Fatal(err)
			}
			rec.Release()
		}
		out, err := w.Close()
		if err != nil {
			t.Fatal(err)
		}
		if limit > 0 && w.Stats().Spills == 0 {
			t.Errorf("map %d: no spill with a %d-byte limit", m, limit)
		}
		written.Blocks += w.Stats().Blocks
		written.Rows += w.Stats().Rows
		outputs = append(outputs, out)
		for _, path := range []string{out.DataPath, out.IndexPath} {
			st, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if st.Mode().Perm() != 0o600 {
				t.Errorf("%s has mode %v, want 0600", path, st.Mode().Perm())
			}
		}
	}
	if written.Rows != maps*recsPerMap*rows {
		t.Errorf("writer counted %d rows", written.Rows)
	}
	// Only committed files remain: no temporaries, no spill runs.
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2*maps {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("directory holds %v, want %d data+index files", names, 2*maps)
	}
	var read Stats
	total := 0
	for p := 0; p < n; p++ {
		got, st, err := readPartition(t, outputs, p, mem)
		if err != nil {
			t.Fatalf("partition %d: %v", p, err)
		}
		read.Blocks += st.Blocks
		if len(want[p]) == 0 {
			if got != nil {
				t.Errorf("partition %d: %d rows, want none", p, got.NumRows())
				got.Release()
			}
			continue
		}
		exp, err := Concat(want[p], mem)
		if err != nil {
			t.Fatal(err)
		}
		if got == nil {
			t.Errorf("partition %d: empty, want %d rows", p, exp.NumRows())
		} else {
			if err := sameRows(exp, got); err != nil {
				t.Errorf("partition %d: %v", p, err)
			}
			total += int(got.NumRows())
			got.Release()
		}
		exp.Release()
	}
	if total != maps*recsPerMap*rows {
		t.Errorf("read %d rows in all, want %d", total, maps*recsPerMap*rows)
	}
	if read.Blocks != written.Blocks {
		t.Errorf("read %d blocks, wrote %d", read.Blocks, written.Blocks)
	}
}

func TestWriterErrors(t *testing.T) {
	mem := checkedMem(t)
	h, _ := NewHash([]int{0}, 2)
	if _, err := NewShuffleWriter(h, WriterOptions{Dir: filepath.Join(t.TempDir(), "missing")}); err == nil {
		t.Error("missing directory: no error")
	}
	if _, err := NewShuffleWriter(h, WriterOptions{Dir: t.TempDir(), Codec: Codec(7)}); err == nil {
		t.Error("bad codec: no error")
	}
	dir := t.TempDir()
	w, err := NewShuffleWriter(h, WriterOptions{Dir: dir, Allocator: mem})
	if err != nil {
		t.Fatal(err)
	}
	a := int32Record(t, mem, []int32{1, 2}, nil)
	defer a.Release()
	b := float64Record(t, mem, []float64{1}, nil)
	defer b.Release()
	if err := w.Write(a); err != nil {
		t.Fatal(err)
	}
	if err := w.Write(b); err == nil || !strings.Contains(err.Error(), "schema") {
		t.Errorf("schema change: err = %v", err)
	}
	w.Abort()
	w.Abort()
	if err := w.Write(a); err == nil {
		t.Error("write after abort: no error")
	}
	if _, err := w.Close(); err == nil {
		t.Error("close after abort: no error")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("aborted writer left %d files", len(entries))
	}
}

func TestParseCodec(t *testing.T) {
	for name, want := range map[string]Codec{"lz4": LZ4, "LZ4": LZ4, "snappy": Snappy, "none": NoCompression, "": LZ4} {
		got, err := ParseCodec(name)
		if err != nil || got != want {
			t.Errorf("ParseCodec(%q) = %v, %v; want %v", name, got, err, want)
		}
	}
	if _, err := ParseCodec("zstd"); err == nil {
		t.Error("zstd accepted")
	}
}

// TestEmptyPartitionsAndOutputs: a writer with no rows commits an index of
// zeros; readers of it and of empty partitions return nothing.
func TestEmptyOutputs(t *testing.T) {
	mem := checkedMem(t)
	dir := t.TempDir()
	h, _ := NewHash([]int{0}, 5)
	w, err := NewShuffleWriter(h, WriterOptions{Dir: dir, Allocator: mem})
	if err != nil {
		t.Fatal(err)
	}
	out, err := w.Close()
	if err != nil {
		t.Fatal(err)
	}
	for p := 0; p < 5; p++ {
		got, _, err := readPartition(t, []MapOutput{out}, p, mem)
		if err != nil || got != nil {
			t.Fatalf("partition %d of empty output: %v, %v", p, got, err)
		}
	}
	if _, _, err := readPartition(t, []MapOutput{out}, 5, mem); err == nil {
		t.Error("partition 5 of 5: no error")
	}
}
