package safepath

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tree builds, under a temporary directory:
//
//	outside/secret                 a file beyond the root
//	root/tables/lineitem/part-0    an ordinary table
//	root/inner -> tables           a link staying inside
//	root/tables/up -> ..           a link to the root itself
//	root/escape -> ../outside      a link leading out
//	root/tables/abs -> /etc        an absolute link leading out
//	root/dangling -> ../nowhere    a link to nothing
//	root/file                      a plain file
func tree(t testing.TB) (base string, r Root) {
	t.Helper()
	base = t.TempDir()
	mk := func(p string) {
		if err := os.MkdirAll(filepath.Join(base, p), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p string) {
		if err := os.WriteFile(filepath.Join(base, p), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target, p string) {
		if err := os.Symlink(target, filepath.Join(base, p)); err != nil {
			t.Skipf("symbolic links unavailable: %v", err)
		}
	}
	mk("outside")
	write("outside/secret")
	mk("root/tables/lineitem")
	write("root/tables/lineitem/part-0")
	write("root/file")
	link("tables", "root/inner")
	link("..", "root/tables/up")
	link("../outside", "root/escape")
	link("/etc", "root/tables/abs")
	link("../nowhere", "root/dangling")
	r, err := New(filepath.Join(base, "root"))
	if err != nil {
		t.Fatal(err)
	}
	return base, r
}

func TestResolve(t *testing.T) {
	_, r := tree(t)
	root := r.Dir()
	for _, tc := range []struct {
		rel  string
		want string // relative to the root; "" when refused
		err  error  // the sentinel when refused (nil: any error)
	}{
		{rel: ".", want: "."},
		{rel: "tables/lineitem", want: "tables/lineitem"},
		{rel: "tables/lineitem/part-0", want: "tables/lineitem/part-0"},
		{rel: "./tables//lineitem/", want: "tables/lineitem"},
		{rel: "tables/../tables/lineitem", want: "tables/lineitem"},
		{rel: "new/dir/out.parquet", want: "new/dir/out.parquet"},
		{rel: "tables/new.parquet", want: "tables/new.parquet"},
		{rel: "inner/lineitem", want: "tables/lineitem"},
		{rel: "inner/up/file", want: "file"},
		{rel: "tables/up", want: "."},
		{rel: "..x", want: "..x"},
		{rel: "a..b/c", want: "a..b/c"},

		{rel: "", err: ErrInvalid},
		{rel: "tables/\x00x", err: ErrInvalid},
		{rel: "/etc/passwd", err: ErrAbsolute},
		{rel: "/", err: ErrAbsolute},
		{rel: "//etc", err: ErrAbsolute},
		{rel: "../../etc/passwd", err: ErrEscape},
		{rel: "..", err: ErrEscape},
		{rel: "../root/file", err: ErrEscape},
		{rel: "tables/../../outside/secret", err: ErrEscape},
		{rel: "escape", err: ErrEscape},
		{rel: "escape/secret", err: ErrEscape},
		{rel: "escape/new-file", err: ErrEscape},
		{rel: "inner/abs/passwd", err: ErrEscape},
		{rel: "tables/abs", err: ErrEscape},
		{rel: "inner/up/escape/secret", err: ErrEscape},
		{rel: "dangling", err: ErrEscape},
		{rel: "dangling/x", err: ErrEscape},
		{rel: "file/below", err: nil}, // not a directory
	} {
		got, err := r.Resolve(tc.rel)
		if tc.want != "" {
			if err != nil {
				t.Errorf("Resolve(%q): %v", tc.rel, err)
				continue
			}
			if want := filepath.Join(root, tc.want); got != want {
				t.Errorf("Resolve(%q) = %q, want %q", tc.rel, got, want)
			}
			continue
		}
		if err == nil {
			t.Errorf("Resolve(%q) = %q, want an error", tc.rel, got)
			continue
		}
		if tc.err != nil && !errors.Is(err, tc.err) {
			t.Errorf("Resolve(%q): %v, want errors.Is %v", tc.rel, err, tc.err)
		}
		var pe *Error
		if !errors.As(err, &pe) || pe.Path != tc.rel || pe.Root != root {
			t.Errorf("Resolve(%q): %v is not an *Error naming the path and the root", tc.rel, err)
		}
		if msg := err.Error(); !strings.Contains(msg, root) {
			t.Errorf("Resolve(%q): message %q does not name the root", tc.rel, msg)
		}
	}
}

func TestNew(t *testing.T) {
	base, r := tree(t)
	// a root reached through a link is the link's target
	if err := os.Symlink(filepath.Join(base, "root"), filepath.Join(base, "via")); err != nil {
		t.Fatal(err)
	}
	via, err := New(filepath.Join(base, "via"))
	if err != nil {
		t.Fatal(err)
	}
	if via.Dir() != r.Dir() {
		t.Errorf("New(via).Dir() = %q, want %q", via.Dir(), r.Dir())
	}
	if got, err := via.Resolve("tables"); err != nil || got != filepath.Join(r.Dir(), "tables") {
		t.Errorf("via.Resolve(tables) = %q, %v", got, err)
	}
	for _, dir := range []string{"", filepath.Join(base, "missing"), filepath.Join(base, "root", "file"), "a\x00b"} {
		if _, err := New(dir); err == nil {
			t.Errorf("New(%q) succeeded", dir)
		} else if !strings.Contains(err.Error(), "root") {
			t.Errorf("New(%q): %v does not say it is about the root", dir, err)
		}
	}
	// relative roots are taken from the working directory
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	rel, err := New(".")
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := filepath.EvalSymlinks(wd); rel.Dir() != want {
		t.Errorf("New(.).Dir() = %q, want %q", rel.Dir(), want)
	}
}

func TestZeroRoot(t *testing.T) {
	var r Root
	if _, err := r.Resolve("x"); err == nil {
		t.Fatal("the zero Root resolved a name")
	}
}

// FuzzResolve: whatever the name, Resolve does not panic, and what it
// accepts is inside the root once every link along it is evaluated.
func FuzzResolve(f *testing.F) {
	for _, s := range []string{".", "tables/lineitem", "../../etc/passwd", "/etc/passwd", "escape/secret",
		"inner/up/escape", "dangling", "a/../../b", "tables/up/up/up", "x\x00y", ""} {
		f.Add(s)
	}
	_, r := tree(f)
	f.Fuzz(func(t *testing.T, rel string) {
		got, err := r.Resolve(rel)
		if err != nil {
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("Resolve(%q): %v is not an *Error", rel, err)
			}
			return
		}
		if !filepath.IsAbs(got) || !within(r.Dir(), got) {
			t.Fatalf("Resolve(%q) = %q, outside %q", rel, got, r.Dir())
		}
		if real, err := evalExisting(got); err != nil || !within(r.Dir(), real) {
			t.Fatalf("Resolve(%q) = %q, which really is %q (%v), outside %q", rel, got, real, err, r.Dir())
		}
	})
}

// evalExisting evaluates the links of the longest existing prefix of p.
func evalExisting(p string) (string, error) {
	rest := ""
	for {
		real, err := filepath.EvalSymlinks(p)
		if err == nil {
			return filepath.Join(real, rest), nil
		}
		if !errors.Is(err, os.ErrNotExist) {
			return "", err
		}
		parent := filepath.Dir(p)
		if parent == p {
			return "", err
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = parent
	}
}
