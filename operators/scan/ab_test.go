package scan

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hados-io/hados/device"
	_ "github.com/hados-io/hados/device/soft"
	hmem "github.com/hados-io/hados/memory"
)

// abVariant is one setting of the scan's switchable speed-ups.
type abVariant struct {
	name string
	set  func()
}

// abVariants compare the scan as it was (clearing every decoded buffer,
// page buffers from arrow's Go allocator, Go's decompressors) with each
// speed-up alone and all together; "morning" is the default before the C
// Snappy decoder (codec.go), "host-after" the default now.
var abVariants = []abVariant{
	{"before", func() { setAB(false, false, false, false) }},
	{"no-clear", func() { setAB(true, false, false, false) }},
	{"page-pool", func() { setAB(false, true, false, false) }},
	{"device", func() { setAB(false, false, true, false) }},
	{"c-snappy", func() { setAB(false, false, false, true) }},
	{"morning", func() { setAB(true, true, false, false) }},
	{"host-after", func() { setAB(true, true, false, true) }},
	{"after", func() { setAB(true, true, true, true) }},
	// session 3 of 2026-11-29: "session2" is "host-after" with helpers
	// for every row group and prefetch of Prefetch records per split, as
	// before; "idle-help" and "pf-bytes" each change alone; "now" both
	// (prefetch.go, helpersWhenIdle in worker.go).
	{"session2", func() { setAB(true, true, false, true); setPrefetchAB(false, false) }},
	{"idle-help", func() { setAB(true, true, false, true); setPrefetchAB(true, false) }},
	{"pf-bytes", func() { setAB(true, true, false, true); setPrefetchAB(false, true) }},
	{"now", func() { setAB(true, true, false, true) }},
	// session 3, H7 (string columns read through dictionaries): "dict-2pass"
	// is pqarrow's index decoding and the two-pass expansion, as before;
	// "dict-1pass" the one-pass expansion of one-length values
	// (dictread.go); "now" adds the scan's own page decoding (dictpage.go).
	{"dict-2pass", func() { setAB(true, true, false, true); expandUniform, ownDictPages = false, false }},
	{"dict-1pass", func() { setAB(true, true, false, true); ownDictPages = false }},
	// session 4, H10: "fixed-pq" decodes dictionary-encoded fixed-width
	// chunks through pqarrow, as before; "fixed-dict" those wholly
	// dictionary encoded by the scan (dictfixed.go), "now" also those
	// that fell back to plain part way.
	{"fixed-pq", func() { setAB(true, true, false, true); ownFixedDicts = false }},
	{"fixed-dict", func() { setAB(true, true, false, true); ownFixedPlain = false }},
	// session 5: "short-bytes" expands dictionaries of short strings of
	// differing lengths a byte at a time, as before; "now" with one 16- or
	// 32-byte store per value (expandShortVar).
	{"short-bytes", func() { setAB(true, true, false, true); expandShort = false }},
	// session 5, H20: "plain-pq" decodes string chunks with PLAIN pages
	// through pqarrow, as before; "now" by the scan itself (plainstr.go).
	{"plain-pq", func() { setAB(true, true, false, true); ownPlainStr = false }},
}

// abDefault is the variant the package's defaults amount to, restored
// after a comparison.
const abDefault = "now"

// setAB sets the switches of the earlier rounds, and those of this one to
// their defaults.
func setAB(noClear, pagePool, dev, cSnappy bool) {
	clearDecodeBuffers, plainPageBuffers, deviceDecompression = !noClear, !pagePool, dev
	setCSnappy(cSnappy)
	setPrefetchAB(true, true)
	expandUniform, ownDictPages, ownFixedDicts, ownFixedPlain, expandShort = true, true, true, true, true
	ownPlainStr = true
}

func setPrefetchAB(idleHelpers, byBytes bool) {
	helpersWhenIdle, prefetchByBytes = idleHelpers, byBytes
}

// TestScanAB scans Q6's columns (or those listed in HADOS_SCAN_AB_COLS)
// of the lineitem files in $HADOS_SCAN_AB
// (a directory of Parquet files, e.g. the SF1 lineitem the scan benchmark
// writes under $TMPDIR/hados-bench/sf1/lineitem) into the software DPU's
// memory, alternating the variants in the same process so they share the
// machine's load, and logs each variant's best wall and process CPU time
// and its ratio to "before". HADOS_SCAN_AB_THREADS lists the parallelism
// (default "1,2"), HADOS_SCAN_AB_ROUNDS the rounds (default 5),
// HADOS_SCAN_AB_ONLY a comma-separated subset of the variants (one, for a
// profile). A
// measurement, not a test: skipped unless HADOS_SCAN_AB is set; run it
// with HADOS_POISON_UNINIT=0, or the poisoning of tests is timed too.
//
//	HADOS_SCAN_AB=/tmp/hados-bench/sf1/lineitem HADOS_POISON_UNINIT=0 go test -run TestScanAB -v ./operators/scan/
func TestScanAB(t *testing.T) {
	dir := os.Getenv("HADOS_SCAN_AB")
	if dir == "" {
		t.Skip("set HADOS_SCAN_AB to a lineitem directory to compare the scan's variants")
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.parquet"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no Parquet files in %s", dir)
	}
	md, _, err := readFooter(files[0])
	if err != nil {
		t.Fatal(err)
	}
	fs, err := readSchema(files[0], md)
	if err != nil {
		t.Fatal(err)
	}
	var all []Column
	for _, c := range fs.cols {
		all = append(all, Column{Name: c.name, Type: c.spark, Nullable: true})
	}
	names := []string{"l_quantity", "l_extendedprice", "l_discount", "l_shipdate"}
	if v := os.Getenv("HADOS_SCAN_AB_COLS"); v != "" { // e.g. l_returnflag,l_linestatus
		names = strings.Split(v, ",")
	}
	cols := pick(all, names...)
	threads := []int{1, 2}
	if v := os.Getenv("HADOS_SCAN_AB_THREADS"); v != "" {
		threads = nil
		for _, s := range strings.Split(v, ",") {
			n, _ := strconv.Atoi(strings.TrimSpace(s))
			threads = append(threads, max(n, 1))
		}
	}
	rounds := 5
	if v, _ := strconv.Atoi(os.Getenv("HADOS_SCAN_AB_ROUNDS")); v > 0 {
		rounds = v
	}
	set, err := device.OpenString("soft:memory=4GiB")
	if err != nil {
		t.Fatal(err)
	}
	defer set.Close()
	pool := hmem.NewDevicePool(set.Devices()[0], hmem.PoolOptions{})
	defer pool.Close()
	alloc, err := hmem.NewDeviceAllocator(pool, nil)
	if err != nil {
		t.Fatal(err)
	}
	variants := abVariants
	if only := os.Getenv("HADOS_SCAN_AB_ONLY"); only != "" { // for profiling one variant
		variants = nil
		for _, v := range abVariants {
			if strings.Contains(","+only+",", ","+v.name+",") {
				variants = append(variants, v)
			}
		}
	}
	defer func() {
		for _, v := range abVariants {
			if v.name == abDefault {
				v.set()
			}
		}
	}()
	for _, par := range threads {
		wall := make([]time.Duration, len(variants))
		cpu := make([]time.Duration, len(variants))
		wait := make([]time.Duration, len(variants))
		inflated := make([]int64, len(variants))
		for r := 0; r < rounds+1; r++ { // round 0 warms the caches
			for i, v := range variants {
				v.set()
				runtime.GC()
				c0, w0 := processCPU(), time.Now()
				rows, st := abScan(t, Options{Files: files, Columns: cols, Alloc: alloc, Parallelism: par})
				if r > 0 {
					wait[i] += time.Duration(st.waitNanos.Load())
					inflated[i] += st.inflated.Load()
				}
				w, c := time.Since(w0), processCPU()-c0
				if rows != 6000401 && rows <= 0 {
					t.Fatalf("%s: %d rows", v.name, rows)
				}
				if r > 0 && (wall[i] == 0 || w < wall[i]) {
					wall[i] = w
				}
				if r > 0 && (cpu[i] == 0 || c < cpu[i]) {
					cpu[i] = c
				}
			}
		}
		var b strings.Builder
		for i, v := range variants {
			fmt.Fprintf(&b, "\n  %-10s wall %7.1f ms (%.2fx)  cpu %7.1f ms (%.2fx)  workers waiting for the consumer %6.1f ms/scan, row groups inflated %.1f/scan", v.name,
				ms(wall[i]), float64(wall[i])/float64(wall[0]), ms(cpu[i]), float64(cpu[i])/float64(cpu[0]),
				ms(wait[i])/float64(rounds), float64(inflated[i])/float64(rounds))
		}
		la, _ := os.ReadFile("/proc/loadavg")
		t.Logf("columns %s, %d files, parallelism %d, best of %d rounds (load %s):%s", strings.Join(names, ","), len(files), par, rounds,
			strings.Join(strings.Fields(string(la))[:3], " "), b.String())
	}
	if alloc.Allocated() != 0 {
		t.Fatalf("%d bytes still allocated", alloc.Allocated())
	}
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }

func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// abScan scans opt to the end, releasing every record, and returns the
// rows and the scan's counters.
func abScan(t *testing.T, opt Options) (int64, *counters) {
	s, err := Open(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var rows int64
	for {
		rec, err := s.Next()
		if err != nil {
			t.Fatal(err)
		}
		if rec == nil {
			return rows, &s.cnt
		}
		rows += rec.NumRows()
		rec.Release()
	}
}
