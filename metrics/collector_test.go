package metrics

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hados-io/hados/device"
	"github.com/hados-io/hados/dma"
	"github.com/hados-io/hados/internal/stats"
	"github.com/hados-io/hados/memory"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/prometheus/common/expfmt"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/ and docs/metrics.md")

// TestCollectGolden compares the exposition text of hand-built snapshots
// with testdata/<name>.prom (go test -update rewrites them).
func TestCollectGolden(t *testing.T) {
	dupAccounts := Snapshot{Devices: []DeviceSnapshot{{
		Info: device.Info{Address: "0", Driver: "soft"},
		Accounts: []memory.AccountStats{
			{Name: "task-1", Limit: 100, InUse: 10, Peak: 20, Reservations: 1, Releases: 0, QuotaExceeded: 1},
			{Name: "task-2", Limit: 50, InUse: 5, Peak: 5, Reservations: 2},
			{Name: "task-1", Limit: 200, InUse: 30, Peak: 40, Reservations: 3, Releases: 2, QuotaExceeded: 4},
			{Name: "task-2", InUse: 1, Peak: 1, Reservations: 1, Releases: 1}, // unlimited: the merge is unlimited
		},
	}}}
	hostOnly := Snapshot{Host: &memory.PoolStats{InUseBytes: 4096, Peak: 8192, SlabBytes: 4 << 20, LiveBuffers: 1, Allocs: 3, Frees: 2}}
	cases := []struct {
		name  string
		snap  Snapshot
		names []string // families compared; nil: all
	}{
		{name: "full", snap: fixtureSnapshot()},
		{name: "empty", snap: Snapshot{}},
		{name: "host_only", snap: hostOnly},
		{name: "merged_accounts", snap: dupAccounts, names: []string{
			accountInUse.name, accountLimit.name, accountPeak.name,
			accountReservations.name, accountReleases.name, accountQuotaExceeded.name}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := NewCollector(fixed(tc.snap))
			golden := filepath.Join("testdata", tc.name+".prom")
			if *update {
				names := tc.names
				if names == nil { // CollectAndFormat formats only the families it is given
					for _, f := range catalog {
						names = append(names, f.name)
					}
				}
				text, err := testutil.CollectAndFormat(c, expfmt.TypeTextPlain, names...)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, text, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			f, err := os.Open(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			defer f.Close()
			if err := testutil.CollectAndCompare(c, f, tc.names...); err != nil {
				t.Errorf("%s differs (go test -update rewrites it after review):\n%v", golden, err)
			}
		})
	}
}

// TestCollectSnapshotsOnce checks that one scrape reads the source once.
func TestCollectSnapshotsOnce(t *testing.T) {
	var calls atomic.Int64
	src := SourceFunc(func() Snapshot { calls.Add(1); return fixtureSnapshot() })
	reg := prometheus.NewPedanticRegistry()
	if err := Register(reg, src); err != nil {
		t.Fatal(err)
	}
	if _, err := reg.Gather(); err != nil {
		t.Fatal(err)
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("one Gather called Snapshot %d times, want 1", n)
	}
}

// TestCollectCoversCatalog checks that the full fixture emits every family,
// so that the golden file documents all of them.
func TestCollectCoversCatalog(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	if err := Register(reg, fixed(fixtureSnapshot())); err != nil {
		t.Fatal(err)
	}
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, mf := range mfs {
		got[mf.GetName()] = true
	}
	for _, f := range catalog {
		if !got[f.name] {
			t.Errorf("the full fixture does not emit %s", f.name)
		}
	}
	if len(got) != len(catalog) {
		t.Errorf("gathered %d families, the catalog has %d", len(got), len(catalog))
	}
}

// TestCollectBadSnapshots checks that snapshot contents that cannot become
// valid series are reported by Gather, naming the problem, while the rest
// of the scrape is still gathered.
func TestCollectBadSnapshots(t *testing.T) {
	dev := func(addr string) DeviceSnapshot { return DeviceSnapshot{Info: device.Info{Address: addr}} }
	cases := []struct {
		name    string
		snap    Snapshot
		wantErr string
		stillOK string // a series family that must still be gathered
	}{
		{
			name:    "duplicate device address",
			snap:    Snapshot{Devices: []DeviceSnapshot{dev("0"), dev("0")}},
			wantErr: `device address "0" appears twice`,
			stillOK: deviceInfo.name,
		},
		{
			name:    "device named like the host pool",
			snap:    Snapshot{Host: &memory.PoolStats{}, Devices: []DeviceSnapshot{dev(HostDevice), dev("1")}},
			wantErr: `device address "host" appears twice`,
			stillOK: deviceInfo.name,
		},
		{
			name:    "label value not UTF-8",
			snap:    Snapshot{Devices: []DeviceSnapshot{dev("\xff")}, Host: &memory.PoolStats{}},
			wantErr: "hados_device_info",
			stillOK: poolInUse.name,
		},
		{
			name: "malformed histogram",
			snap: Snapshot{Devices: []DeviceSnapshot{{Info: device.Info{Address: "0"},
				DMA: dma.Stats{H2D: dma.DirStats{Latency: stats.HistogramSnapshot{Bounds: []float64{1, 2}, Counts: []uint64{1}}}}}}},
			wantErr: "hados_dma_transfer_duration_seconds: histogram has 2 bounds but 1 counts",
			stillOK: dmaBytes.name,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			reg := prometheus.NewPedanticRegistry()
			if err := Register(reg, fixed(tc.snap)); err != nil {
				t.Fatal(err)
			}
			mfs, err := reg.Gather()
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("Gather error = %v, want one containing %q", err, tc.wantErr)
			}
			found := false
			for _, mf := range mfs {
				found = found || mf.GetName() == tc.stillOK
			}
			if !found {
				t.Errorf("%s was not gathered alongside the error", tc.stillOK)
			}
		})
	}
}

func TestRegister(t *testing.T) {
	reg := prometheus.NewRegistry()
	src := fixed(Snapshot{})
	if err := Register(reg, src); err != nil {
		t.Fatal(err)
	}
	err := Register(reg, src)
	var are prometheus.AlreadyRegisteredError
	if !errors.As(err, &are) {
		t.Errorf("second Register = %v, want an AlreadyRegisteredError in the chain", err)
	}
	if err := Register(nil, src); err == nil {
		t.Error("Register(nil registry) succeeded")
	}
	if err := Register(reg, nil); err == nil {
		t.Error("Register(nil source) succeeded")
	}
}

func TestMergeAccounts(t *testing.T) {
	in := []memory.AccountStats{
		{Name: "a", Limit: 10, InUse: 1, Peak: 2},
		{Name: "b", InUse: 3, Peak: 3},
		{Name: "a", Limit: 5, InUse: 4, Peak: 4, QuotaExceeded: 1},
	}
	keep := append([]memory.AccountStats(nil), in...)
	got := mergeAccounts(in)
	want := []memory.AccountStats{
		{Name: "a", Limit: 15, InUse: 5, Peak: 6, QuotaExceeded: 1},
		{Name: "b", InUse: 3, Peak: 3},
	}
	if len(got) != len(want) {
		t.Fatalf("merged %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("account %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	for i := range keep {
		if in[i] != keep[i] {
			t.Errorf("mergeAccounts modified its input at %d", i)
		}
	}
}

// TestLint runs promlint over everything the full fixture emits.
func TestLint(t *testing.T) {
	problems, err := testutil.CollectAndLint(NewCollector(fixed(fixtureSnapshot())))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("promlint: %s: %s", p.Metric, p.Text)
	}
}

// TestHelpTexts checks the catalog's naming rules, which promlint checks
// only for emitted families: unique names under hados_<layer>_, _total on
// counters only, a help text ending in a full stop.
func TestHelpTexts(t *testing.T) {
	seen := map[string]bool{}
	for _, f := range catalog {
		if seen[f.name] {
			t.Errorf("%s is in the catalog twice", f.name)
		}
		seen[f.name] = true
		layer, _, _ := strings.Cut(strings.TrimPrefix(f.name, "hados_"), "_")
		if !strings.HasPrefix(f.name, "hados_") || (layer != "device" && layer != "memory" && layer != "dma" && layer != "spill" && layer != "race") {
			t.Errorf("%s is not named hados_<device|memory|dma|spill|race>_…", f.name)
		}
		if (f.kind == counter) != strings.HasSuffix(f.name, "_total") {
			t.Errorf("%s is a %s: _total belongs on counters and only there", f.name, f.kind)
		}
		if !strings.HasSuffix(f.help, ".") || len(f.help) < 20 {
			t.Errorf("%s: help %q is not a sentence", f.name, f.help)
		}
		if layer != "race" && (len(f.labels) == 0 || f.labels[0] != labelDevice) {
			t.Errorf("%s: first label is not %q", f.name, labelDevice)
		}
	}
}

// TestNewCollectorNil checks the documented panic message.
func TestNewCollectorNil(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "nil Source") {
			t.Errorf("recovered %v, want a panic naming the nil Source", r)
		}
	}()
	NewCollector(nil)
}
