package soft_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hados-io/hados/device"
	"github.com/hados-io/hados/device/soft/internal/cctest"
)

// buildSO compiles C sources into a shared object in a temporary directory.
func buildSO(t *testing.T, name string, args ...string) string {
	t.Helper()
	cc := cctest.Compiler(t, "gcc")
	out := filepath.Join(t.TempDir(), name)
	cmd := exec.Command(cc, append([]string{"-shared", "-fPIC", "-O2", "-fvisibility=hidden", "-I../include", "-o", out}, append(args, "-lpthread")...)...)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building %s: %v\n%s", name, err, msg)
	}
	return out
}

// TestPluginSoftEngine builds the software DPU as a standalone driver .so and
// drives it through the plugin path, exactly as a vendor driver would be.
func TestPluginSoftEngine(t *testing.T) {
	srcs, _ := filepath.Glob("soft_*.c")
	so := buildSO(t, "libhados_soft.so", append([]string{"-DHADOS_SOFT_PLUGIN"}, srcs...)...)
	set, err := device.OpenString("soft:memory=4MiB;plugin:" + so + ":count=2,memory=8MiB,mode=discrete")
	if err != nil {
		t.Fatal(err)
	}
	defer set.Close()
	if set.Len() != 3 {
		t.Fatalf("%d devices, want 3", set.Len())
	}
	d, err := set.Get("2")
	if err != nil {
		t.Fatal(err)
	}
	info := d.Info()
	if info.Driver != "plugin:"+so || info.Mode != device.Discrete || info.MemoryBytes != 8<<20 {
		t.Fatalf("plugin device info: %+v", info)
	}
	if _, err := d.SelfTest(); err != nil {
		t.Fatal(err)
	}
	q := queue(t, d, 4)
	a := alloc(t, d, 1<<20)
	src := bytes.Repeat([]byte("plugin"), 1<<17)
	dst := make([]byte, len(src))
	c := run(t, q,
		device.Op{Code: device.OpCopyH2D, Dst: a, Host: src, Len: uint64(len(src))},
		device.Op{Code: device.OpCopyD2H, Src: a, Host: dst, Len: uint64(len(src))})
	if c.Err != nil || !bytes.Equal(src, dst) {
		t.Fatalf("round trip through the plugin: %v", c.Err)
	}
	// a bad option is reported by the plugin's own message
	if _, err := device.OpenString("plugin:" + so + ":memory=0"); err == nil || !strings.Contains(err.Error(), "memory=0") {
		t.Fatalf("bad plugin option: %v", err)
	}
}

func TestPluginBad(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	wrongABI := buildSO(t, "libwrong.so", write("wrong.c", `
#include "hados_driver.h"
static hados_driver_vtable vt = {.abi_version = 99, .struct_size = sizeof(hados_driver_vtable), .name = "wrong"};
__attribute__((visibility("default"))) const hados_driver_vtable *hados_driver_entry(void) { return &vt; }
`))
	noSymbol := buildSO(t, "libnone.so", write("none.c", `__attribute__((visibility("default"))) int not_a_driver(void) { return 1; }`))
	incomplete := buildSO(t, "libincomplete.so", write("inc.c", `
#include "hados_driver.h"
static hados_driver_vtable vt = {.abi_version = HADOS_DRIVER_ABI_VERSION, .struct_size = sizeof(hados_driver_vtable), .name = "inc"};
__attribute__((visibility("default"))) const hados_driver_vtable *hados_driver_entry(void) { return &vt; }
`))
	notELF := write("garbage.so", "this is not a shared object")
	for _, tc := range []struct {
		cfg, want string
		is        error
	}{
		{"plugin:" + wrongABI, "ABI version 99", device.ErrNotSupported},
		{"plugin:" + noSymbol, "no symbol hados_driver_entry", device.ErrNotSupported},
		{"plugin:" + incomplete, "lacks a required function", device.ErrNotSupported},
		{"plugin:" + notELF, "cannot load driver", device.ErrInvalid},
		{"plugin:" + filepath.Join(dir, "missing.so"), "no such file", device.ErrInvalid},
		{"nosuchdriver", `unknown device driver "nosuchdriver"`, device.ErrInvalid},
	} {
		_, err := device.OpenString(tc.cfg)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, tc.is) {
			t.Errorf("%s: %v, want %v mentioning %q", tc.cfg, err, tc.is, tc.want)
		}
	}
}
