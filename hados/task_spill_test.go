package hados

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hados-io/hados/operators/exchange"
)

// TestTaskSpill: each task target gets a private spill directory under
// spark.hados.spill.dir, the runtime's snapshot counts what it spilled,
// and End removes the files.
func TestTaskSpill(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Devices = "soft:count=2,memory=64MiB"
	dir := filepath.Join(t.TempDir(), "spill")
	if err := cfg.Set("spark.hados.spill.dir", dir); err != nil {
		t.Fatal(err)
	}
	if err := cfg.Set("spark.hados.spill.codec", "snappy"); err != nil || cfg.SpillCodec != exchange.Snappy {
		t.Fatalf("codec %v: %v", cfg.SpillCodec, err)
	}
	if err := cfg.Set("spark.hados.spill.codec", "zstd"); err == nil {
		t.Error("an unknown spill codec was accepted")
	}
	rt, err := Open(cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	t1, err := rt.BeginTask(TaskSpec{ID: 1, Devices: []string{"0", "1"}, Amount: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	t2, err := rt.BeginTask(TaskSpec{ID: 2, Devices: []string{"1"}, Amount: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	dirs := map[string]bool{}
	for _, tg := range append(t1.Targets(), t2.Targets()...) {
		if tg.Spill == nil || filepath.Dir(tg.Spill.Dir()) != dir || dirs[tg.Spill.Dir()] {
			t.Fatalf("spill manager %v: want a private directory under %s", tg.Spill, dir)
		}
		dirs[tg.Spill.Dir()] = true
	}
	schema := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64}}, nil)
	b := array.NewInt64Builder(memory.DefaultAllocator)
	b.AppendValues([]int64{1, 2, 3}, nil)
	col := b.NewArray()
	rec := array.NewRecordBatch(schema, []arrow.Array{col}, 3)
	defer rec.Release()
	col.Release()
	b.Release()
	w, err := t2.Targets()[0].Spill.Create("Sort", schema)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Finish(); err != nil {
		t.Fatal(err)
	}
	snap := rt.Snapshot()
	if sp := snap.Devices[1].Spill; len(sp) != 1 || sp[0].Operator != "Sort" || sp[0].Rows != 3 || sp[0].Files != 2 || sp[0].Bytes == 0 {
		t.Errorf("device 1 spill stats %+v", sp)
	}
	if sp := snap.Devices[0].Spill; len(sp) != 0 {
		t.Errorf("device 0 spill stats %+v", sp)
	}
	spillDir := t2.Targets()[0].Spill.Dir()
	if err := t2.End(); err != nil {
		t.Fatal(err)
	}
	if err := t1.End(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(spillDir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("task spill directory left after End: %v", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("%d entries left in %s", len(ents), dir)
	}
	if sp := rt.Snapshot().Devices[1].Spill; len(sp) != 1 || sp[0].Rows != 3 {
		t.Errorf("spill counts must outlive the task: %+v", sp)
	}
}

func TestTaskSpillDisabledAndBad(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Devices = "soft:memory=64MiB"
	cfg.SpillDir = ""
	rt, err := Open(cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	task, err := rt.BeginTask(TaskSpec{ID: 1})
	if err != nil {
		t.Fatal(err)
	}
	if task.Targets()[0].Spill != nil {
		t.Error("an empty spark.hados.spill.dir must disable spilling")
	}
	task.End()

	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o600)
	cfg.SpillDir = file
	rt2, err := Open(cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer rt2.Close()
	if _, err := rt2.BeginTask(TaskSpec{ID: 9}); err == nil || !strings.Contains(err.Error(), "spark.hados.spill.dir") ||
		!strings.Contains(err.Error(), "task 9") {
		t.Errorf("a file as spill directory: %v", err)
	}
	if d := DefaultConfig().SpillDir; d != filepath.Join(os.TempDir(), "hados-spill") {
		t.Errorf("default spill dir %s", d)
	}
}
