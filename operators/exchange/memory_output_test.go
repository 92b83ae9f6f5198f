package exchange

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// writeOutputs writes maps map outputs of random rows (hash partitioned
// into n) with the given options and returns them; the caller releases
// them.
func writeOutputs(t *testing.T, dir string, maps, n, rows int, opts WriterOptions) []MapOutput {
	t.Helper()
	rng := rand.New(rand.NewPCG(uint64(n), uint64(rows)))
	var outs []MapOutput
	for m := 0; m < maps; m++ {
		h, err := NewHash([]int{3, 12}, n)
		if err != nil {
			t.Fatal(err)
		}
		o := opts
		o.Dir, o.MapID = dir, m
		w, err := NewShuffleWriter(h, o)
		if err != nil {
			t.Fatal(err)
		}
		for b := 0; b < 3; b++ {
			rec := randomRecord(t, rng, memory.DefaultAllocator, rows, 0.1)
			err := w.Write(rec)
			rec.Release()
			if err != nil {
				t.Fatal(err)
			}
		}
		out, err := w.Close()
		if err != nil {
			t.Fatal(err)
		}
		outs = append(outs, out)
	}
	return outs
}

// readRange reads partitions [lo, hi) with one range reader into one
// record (nil when empty).
func readRange(t *testing.T, outs []MapOutput, lo, hi int, mem memory.Allocator) (arrow.RecordBatch, Stats) {
	t.Helper()
	r, err := NewShuffleRangeReader(outs, lo, hi, allTypesSchema, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var recs []arrow.RecordBatch
	for {
		rec, err := r.Next()
		if err != nil {
			t.Fatalf("[%d, %d): %v", lo, hi, err)
		}
		if rec == nil {
			break
		}
		recs = append(recs, rec)
	}
	defer func() {
		for _, rec := range recs {
			rec.Release()
		}
	}()
	if len(recs) == 0 {
		return nil, r.Stats()
	}
	out, err := Concat(recs, mem)
	if err != nil {
		t.Fatal(err)
	}
	return out, r.Stats()
}

// TestMemoryOutputs checks that a map output kept in memory reads back
// exactly like the same output written to files, one partition at a time
// and as coalesced ranges, and that outputs over the limit or spilled go
// to files.
func TestMemoryOutputs(t *testing.T) {
	tests := []struct {
		name       string
		maps, n    int
		rows       int
		keep       int64
		memLimit   int64
		wantMemory bool
	}{
		{"one partition", 2, 1, 50, 1 << 20, 0, true},
		{"200 partitions, most empty", 3, 200, 20, 1 << 20, 0, true},
		{"7 partitions", 2, 7, 300, 1 << 20, 0, true},
		{"over the limit", 2, 7, 300, 1 << 10, 0, false},
		{"spilled", 2, 7, 300, 1 << 30, 16 << 10, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			files := writeOutputs(t, dir, tc.maps, tc.n, tc.rows, WriterOptions{ShuffleID: 1, MemoryLimit: tc.memLimit})
			kept := writeOutputs(t, dir, tc.maps, tc.n, tc.rows, WriterOptions{ShuffleID: 2, MemoryLimit: tc.memLimit, KeepInMemory: tc.keep})
			defer func() {
				for _, o := range kept {
					o.Release()
					o.Release() // idempotent
				}
			}()
			for m, o := range kept {
				if got := o.Memory != nil; got != tc.wantMemory {
					t.Fatalf("map %d in memory: %v, want %v", m, got, tc.wantMemory)
				}
				if o.Memory != nil && (o.DataPath != "" || len(o.PartitionLengths) != tc.n) {
					t.Fatalf("map %d: memory output with files %q or %d lengths", m, o.DataPath, len(o.PartitionLengths))
				}
			}
			mem := checkedMem(t)
			// every partition alone, then ranges of 1, 3 and all partitions
			for _, width := range []int{1, 3, tc.n} {
				for lo := 0; lo < tc.n; lo += width {
					hi := min(lo+width, tc.n)
					want, _ := readRange(t, files, lo, hi, mem)
					got, st := readRange(t, kept, lo, hi, mem)
					if (want == nil) != (got == nil) {
						t.Fatalf("[%d, %d): files gave %v rows, memory %v", lo, hi, want, got)
					}
					if want != nil {
						if err := sameRows(want, got); err != nil {
							t.Fatalf("[%d, %d): %v", lo, hi, err)
						}
						if tc.wantMemory && st.FileBytes != 0 {
							t.Fatalf("[%d, %d): a memory output read %d file bytes", lo, hi, st.FileBytes)
						}
						want.Release()
						got.Release()
					}
				}
			}
			// a range reads the records of its partitions one after the
			// other, each in map order: like single-partition readers
			for p := 0; p < tc.n; p++ {
				one, _, err := readPartition(t, kept, p, mem)
				if err != nil {
					t.Fatal(err)
				}
				if one != nil {
					one.Release()
				}
			}
		})
	}
}

// TestRangeReaderReadsIndexOnce: a range over many (mostly empty)
// partitions reads each map output's index once, and opens a data file
// only for the partitions that have rows.
func TestRangeReaderReadsIndexOnce(t *testing.T) {
	dir := t.TempDir()
	const maps, n = 3, 200
	outs := writeOutputs(t, dir, maps, n, 10, WriterOptions{ShuffleID: 3})
	mem := checkedMem(t)
	rec, st := readRange(t, outs, 0, n, mem)
	if rec == nil || rec.NumRows() != maps*3*10 {
		t.Fatalf("range read %v", rec)
	}
	rec.Release()
	var data int64
	for _, o := range outs {
		for _, l := range o.PartitionLengths {
			data += l
		}
	}
	if index := st.FileBytes - data; index != maps*8*(n+1) {
		t.Errorf("read %d index bytes, want %d (each index once)", index, maps*8*(n+1))
	}
}

// TestRangeReaderErrors: a reversed range, and a partition beyond a
// memory output's, are errors naming what is wrong.
func TestRangeReaderErrors(t *testing.T) {
	if _, err := NewShuffleRangeReader(nil, 3, 2, allTypesSchema, nil); err == nil || !strings.Contains(err.Error(), "reversed") {
		t.Errorf("reversed range: %v", err)
	}
	dir := t.TempDir()
	outs := writeOutputs(t, dir, 1, 4, 10, WriterOptions{ShuffleID: 4, KeepInMemory: 1 << 20})
	defer outs[0].Release()
	r, err := NewShuffleRangeReader(outs, 4, 5, allTypesSchema, checkedMem(t))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := r.Next(); err == nil || !strings.Contains(err.Error(), "partition 4 out of range") {
		t.Errorf("partition past a memory output: %v", err)
	}
}

// TestMemoryOutputOutlivesReaders: records read from a memory output are
// copies; releasing the output leaves them intact.
func TestMemoryOutputOutlivesReaders(t *testing.T) {
	dir := t.TempDir()
	outs := writeOutputs(t, dir, 1, 1, 40, WriterOptions{ShuffleID: 5, KeepInMemory: 1 << 20})
	mem := checkedMem(t)
	before, _ := readRange(t, outs, 0, 1, mem)
	again, _ := readRange(t, outs, 0, 1, mem)
	outs[0].Release()
	if err := sameRows(before, again); err != nil {
		t.Fatal(fmt.Errorf("after the output's release: %w", err))
	}
	before.Release()
	again.Release()
}

// TestSliceBytes: the estimated size of a partition's rows is their share
// of the buffers, not the whole shared buffers.
func TestSliceBytes(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	rec := randomRecord(t, rng, memory.DefaultAllocator, 1000, 0)
	defer rec.Release()
	for c, col := range rec.Columns() {
		whole := sliceBytes(col)
		part := col.Data()
		s := rec.NewSlice(0, 10)
		got := sliceBytes(s.Column(c))
		s.Release()
		if got <= 0 || got*20 > whole {
			t.Errorf("column %s: 10 of 1000 rows estimated at %d bytes of %d (buffers %d)", rec.ColumnName(c), got, whole, part.Len())
		}
	}
}

// TestRangeReaderGathersMemoryRecords: consecutive records of memory
// outputs come back as one record of at most GatherRows rows (a record
// over it alone), in order with a file output's records between them,
// with the rows of an all-file read.
func TestRangeReaderGathersMemoryRecords(t *testing.T) {
	tests := []struct {
		name    string
		n, rows int
	}{
		{"small records, 7 partitions", 7, 300},
		{"records over a third of GatherRows", 1, GatherRows/3 + 100},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			files := writeOutputs(t, dir, 3, tc.n, tc.rows, WriterOptions{ShuffleID: 1})
			kept := writeOutputs(t, dir, 3, tc.n, tc.rows, WriterOptions{ShuffleID: 2, KeepInMemory: 1 << 30})
			defer func() {
				for _, o := range kept {
					o.Release()
				}
			}()
			mixed := []MapOutput{kept[0], files[1], kept[2]}
			mem := checkedMem(t)
			want, _ := readRange(t, files, 0, tc.n, mem)
			defer want.Release()
			r, err := NewShuffleRangeReader(mixed, 0, tc.n, allTypesSchema, mem)
			if err != nil {
				t.Fatal(err)
			}
			var recs []arrow.RecordBatch
			defer func() {
				for _, rec := range recs {
					rec.Release()
				}
			}()
			for {
				rec, err := r.Next()
				if err != nil {
					t.Fatal(err)
				}
				if rec == nil {
					break
				}
				recs = append(recs, rec)
				if rec.NumRows() > GatherRows && rec.NumRows() != int64(tc.rows) {
					t.Fatalf("record of %d rows: over GatherRows and not one written record", rec.NumRows())
				}
			}
			if err := r.Close(); err != nil {
				t.Fatal(err)
			}
			// 3 maps of 3 writes: 9 records a partition at most when
			// nothing is gathered; memory outputs must give fewer
			if written := 9 * tc.n; len(recs) >= written {
				t.Fatalf("%d records for %d written: nothing gathered", len(recs), written)
			}
			got, err := Concat(recs, mem)
			if err != nil {
				t.Fatal(err)
			}
			defer got.Release()
			if err := sameRows(want, got); err != nil {
				t.Fatal(err)
			}
		})
	}
}
