package codectest

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// moduleRoot walks up from the working directory to the one holding go.mod.
func moduleRoot() (string, bool) {
	dir, err := os.Getwd()
	if err != nil {
		return "", false
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

// sharedDir locates /work/shared: $HADOS_SHARED, else ../shared beside the
// module root.
func sharedDir() (string, bool) {
	if d := os.Getenv("HADOS_SHARED"); d != "" {
		return d, true
	}
	root, ok := moduleRoot()
	if !ok {
		return "", false
	}
	d := filepath.Join(root, "..", "shared")
	if st, err := os.Stat(d); err != nil || !st.IsDir() {
		return "", false
	}
	return d, true
}

// sparkPlans returns up to limit bytes of Spark EXPLAIN output from the
// shared corpus (real, repetitive text), or nil when it is absent.
func sparkPlans(limit int) []byte {
	d, ok := sharedDir()
	if !ok {
		return nil
	}
	files, _ := filepath.Glob(filepath.Join(d, "spark-plans", "*", "*.explain.txt"))
	sort.Strings(files)
	var b bytes.Buffer
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil
		}
		b.Write(data)
		if b.Len() >= limit {
			break
		}
	}
	return b.Bytes()[:min(limit, b.Len())]
}

// moduleDir returns where a required module sits on disk (`go list -m`),
// or "" when that cannot be found.
func moduleDir(path string) string {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", path).Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// tomSawyer returns the English novel shipped in pierrec/lz4's testdata,
// or nil when the module is not on disk.
func tomSawyer() []byte {
	dir := moduleDir("github.com/pierrec/lz4/v4")
	if dir == "" {
		return nil
	}
	f, err := os.Open(filepath.Join(dir, "testdata", "Mark.Twain-Tom.Sawyer.txt.gz"))
	if err != nil {
		return nil
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		return nil
	}
	return data
}
