package hados

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hados-io/hados/device"
)

func TestParseConfig(t *testing.T) {
	c := DefaultConfig()
	text := `# hados settings
spark.hados.devices        soft:count=2,mode=discrete
spark.hados.dma.codec=lz4
spark.hados.dma.chunkSize: 1MiB
! Spark's own keys are ignored
spark.executor.memory 4g
spark.hados.dma.watchdog 5s
spark.hados.dma.queueDepth 8
spark.hados.dma.queues 2
spark.hados.memory.lockHost false
`
	if err := ParseConfig(&c, "test.conf", strings.NewReader(text)); err != nil {
		t.Fatal(err)
	}
	if c.Devices != "soft:count=2,mode=discrete" || c.Codec != device.CodecLZ4 || c.ChunkSize != 1<<20 ||
		c.Watchdog != 5*time.Second || c.QueueDepth != 8 || c.Queues != 2 || c.LockHost {
		t.Fatalf("config: %+v", c)
	}
}

func TestParseConfigErrors(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"spark.hados.devcies soft", "test.conf:1: invalid argument: unknown configuration key spark.hados.devcies"},
		{"\n\nspark.hados.dma.codec zip", "test.conf:3:"},
		{"spark.hados.dma.codec zip", `spark.hados.dma.codec="zip"`},
		{"spark.hados.devices soft:count=0", "count=0"},
		{"spark.hados.dma.chunkSize 12 parsecs", "unknown unit"},
		{"spark.hados.dma.queueDepth 0", "want an integer in [1, 65536]"},
		{"spark.hados.dma.queues 0", "want an integer in [1, 256]"},
		{"spark.hados.dma.watchdog -1s", "positive duration"},
		{"=value", "want `key value`"},
		{strings.Repeat("x", 70000), "token too long"},
	} {
		c := DefaultConfig()
		err := ParseConfig(&c, "test.conf", strings.NewReader(tc.text))
		if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, device.ErrInvalid) {
			t.Errorf("%.30q: %v, want ErrInvalid mentioning %q", tc.text, err, tc.want)
		}
	}
}

func TestLoadConfig(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hados.conf")
	os.WriteFile(path, []byte("spark.hados.devices soft:memory=64MiB\nspark.hados.log.level debug\n"), 0o600)
	t.Setenv("HADOS_DEVICES", "soft:memory=32MiB")
	c, err := LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	if c.Devices != "soft:memory=32MiB" || c.LogLevel != "debug" {
		t.Fatalf("environment does not override the file: %+v", c)
	}
	t.Setenv("HADOS_DEVICES", "soft:count=x")
	if _, err := LoadConfig(path); err == nil || !strings.Contains(err.Error(), "HADOS_DEVICES") {
		t.Fatalf("bad environment: %v", err)
	}
	if _, err := LoadConfig(filepath.Join(t.TempDir(), "missing.conf")); err == nil {
		t.Fatal("missing file accepted")
	}
}

func TestParseBytes(t *testing.T) {
	for in, want := range map[string]uint64{"0": 0, "4096": 4096, "4KiB": 4096, "1.5 MiB": 3 << 19, "2g": 2 << 30, "1TB": 1 << 40} {
		if got, err := ParseBytes(in); err != nil || got != want {
			t.Errorf("%q: %d %v", in, got, err)
		}
	}
	for _, bad := range []string{"", "x", "-1", "1XB", "99999999999TiB"} {
		if _, err := ParseBytes(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func FuzzParseConfig(f *testing.F) {
	f.Add("spark.hados.devices soft\n")
	f.Add("spark.hados.dma.codec=lz4\n# c\n! d\nspark.hados.dma.chunkSize: 1MiB")
	f.Add("spark.hados.memory.lockHost true")
	f.Fuzz(func(t *testing.T, text string) {
		c := DefaultConfig()
		if err := ParseConfig(&c, "fuzz", strings.NewReader(text)); err != nil && !errors.Is(err, device.ErrInvalid) {
			t.Fatalf("error without ErrInvalid: %v", err)
		}
	})
}

func TestRuntime(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Devices = "soft:count=2,memory=32MiB"
	cfg.Codec = device.CodecSnappy
	rt, err := Open(cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rt.Units()) != 2 {
		t.Fatal("units")
	}
	if _, err := rt.Unit("2"); !errors.Is(err, device.ErrInvalid) {
		t.Fatalf("unit 2: %v", err)
	}
	u, _ := rt.Unit("1")
	if u.DMA.Options().Codec != device.CodecSnappy {
		t.Fatal("codec not applied")
	}
	snap := rt.Snapshot()
	if len(snap.Devices) != 2 || snap.Host == nil || snap.Devices[1].Info.Address != "1" {
		t.Fatalf("snapshot: %+v", snap)
	}
	if err := rt.Close(); err != nil {
		t.Fatal(err)
	}
	if err := rt.Close(); err != nil {
		t.Fatal(err)
	}
	cfg.Devices = "soft:memory=32MiB;nosuch"
	if _, err := Open(cfg, Options{}); err == nil || !strings.Contains(err.Error(), "nosuch") {
		t.Fatalf("bad device: %v", err)
	}
}

// TestConfigDocListsEveryKey keeps docs/configuration.md true.
func TestConfigDocListsEveryKey(t *testing.T) {
	doc, err := os.ReadFile("../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range ConfigKeys() {
		row := "| `" + k.Name + "` |"
		if !strings.Contains(string(doc), row) || !strings.Contains(string(doc), "`"+k.Default+"`") {
			t.Errorf("docs/configuration.md lacks a row for %s (default %s)", k.Name, k.Default)
		}
	}
}
