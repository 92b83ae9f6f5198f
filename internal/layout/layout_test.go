package layout

import (
	"encoding/json"
	"io"
	"os/exec"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/hados-io/hados"

// cgoAllowed lists the only packages that may import "C".
var cgoAllowed = map[string]bool{
	"device/cdev":                    true, // the bridge to C driver vtables and dlopen
	"device/soft":                    true, // the software DPU engine
	"device/soft/internal/codectest": true, // tests of the engine's C codecs
	"cgo":                            true, // the C ABI shared library
	"internal/csnappy":               true, // the engine's C Snappy decoder on the host (Parquet pages)
}

// rank orders the layers: a package may import only ranks at or below its own.
var rank = []struct {
	prefix string
	rank   int
}{
	{"device", 0}, {"memory", 1}, {"dma", 2}, {"metrics", 3}, {"operators", 4}, {"hados", 5},
	{"race", 6}, {"cgo", 7}, {"cmd", 8}, {"examples", 8}, {"bench", 8},
}

func rankOf(rel string) (int, bool) {
	for _, r := range rank {
		if rel == r.prefix || strings.HasPrefix(rel, r.prefix+"/") {
			return r.rank, true
		}
	}
	return 0, false // internal/… and the like: shared helpers, unranked
}

type pkg struct {
	ImportPath string
	CgoFiles   []string
	Imports    []string
}

func packages(t *testing.T) []pkg {
	t.Helper()
	cmd := exec.Command("go", "list", "-json", module+"/...")
	cmd.Dir = "../.."
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Skipf("go list unavailable: %v", err)
	}
	var pkgs []pkg
	dec := json.NewDecoder(out)
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("go list: %v", err)
	}
	return pkgs
}

func TestOnlyAllowedPackagesUseCgo(t *testing.T) {
	var bad []string
	for _, p := range packages(t) {
		rel := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")
		if len(p.CgoFiles) > 0 && !cgoAllowed[rel] {
			bad = append(bad, rel)
		}
	}
	sort.Strings(bad)
	if len(bad) > 0 {
		t.Fatalf("packages using cgo outside the allow-list: %v", bad)
	}
}

func TestImportsPointDown(t *testing.T) {
	for _, p := range packages(t) {
		rel := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")
		from, ranked := rankOf(rel)
		if !ranked {
			continue
		}
		for _, imp := range p.Imports {
			if !strings.HasPrefix(imp, module+"/") {
				continue
			}
			irel := strings.TrimPrefix(imp, module+"/")
			to, ok := rankOf(irel)
			if !ok {
				continue
			}
			if to > from {
				t.Errorf("%s imports %s: imports must point down the layers", rel, irel)
			}
			if strings.HasPrefix(irel, "metrics") && !strings.HasPrefix(rel, "metrics") && from < 5 {
				t.Errorf("%s imports metrics: only hados, cgo and cmd may", rel)
			}
		}
	}
}
