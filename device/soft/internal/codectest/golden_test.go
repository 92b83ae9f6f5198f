package codectest

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/golden from the current compressors")

// goldenInputs are the inputs whose compressed forms are pinned in
// testdata/golden/<name>.{in,lz4,snappy}.
var goldenInputs = []string{"empty", "one-byte", "zeros-13", "text-1k", "random-1k", "period-3", "period-17"}

// TestGolden pins the compressors' exact output (a change of matcher shows
// up as a reviewed diff, and the engine's output stays reproducible) and
// checks that the Go libraries decode every pinned block.
func TestGolden(t *testing.T) {
	byName := map[string][]byte{}
	for _, cs := range corpora() {
		byName[cs.name] = cs.data
	}
	dir := filepath.Join("testdata", "golden")
	for _, name := range goldenInputs {
		in, ok := byName[name]
		if !ok {
			t.Fatalf("golden input %q is not in corpora()", name)
		}
		inPath := filepath.Join(dir, name+".in")
		if *update {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(inPath, in, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		stored, err := os.ReadFile(inPath)
		if err != nil {
			t.Fatalf("%v (run with -update to create)", err)
		}
		if !bytes.Equal(stored, in) {
			t.Fatalf("%s: the generator no longer produces the stored input", inPath)
		}
		for _, c := range codecs {
			path := filepath.Join(dir, name+"."+c.name)
			got, err := c.compress(in)
			if err != nil {
				t.Fatal(err)
			}
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s: compressor output changed (%d bytes, golden %d); review and run with -update", path, len(got), len(want))
			}
			if dec, err := c.goDecompress(want, len(in)); err != nil || !bytes.Equal(dec, in) {
				t.Errorf("%s: Go library does not decode the golden block: %v", path, err)
			}
		}
	}
}

// TestSnappyReferenceBlock decodes the block that the C++ reference
// implementation made of a 16 KiB English text, shipped in golang/snappy's
// testdata (skipped when the module is not on disk).
func TestSnappyReferenceBlock(t *testing.T) {
	dir := moduleDir("github.com/golang/snappy")
	if dir == "" {
		t.Skip("golang/snappy module directory not found (go list -m failed)")
	}
	txt, err1 := os.ReadFile(filepath.Join(dir, "testdata", "Isaac.Newton-Opticks.txt"))
	raw, err2 := os.ReadFile(filepath.Join(dir, "testdata", "Isaac.Newton-Opticks.txt.rawsnappy"))
	if err1 != nil || err2 != nil {
		t.Skipf("reference files missing: %v %v", err1, err2)
	}
	got, err := SnappyDecompress(raw, len(txt))
	if err != nil || !bytes.Equal(got, txt) {
		t.Fatalf("C decoder on the C++ reference block: %v", err)
	}
}
