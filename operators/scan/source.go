package scan

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// hiveNull is the directory value Hive and Spark write for a null partition value.
const hiveNull = "__HIVE_DEFAULT_PARTITION__"

// listDir returns the data files under a table directory (see TableFiles),
// its error naming the directory.
func listDir(dir string) ([]string, error) {
	files, err := TableFiles(dir)
	if err != nil {
		return nil, fmt.Errorf("scan: listing table directory %s: %w", dir, err)
	}
	return files, nil
}

// TableFiles returns the data files under a table directory in path order,
// skipping names Spark treats as hidden (leading "_" or ".", e.g. _SUCCESS,
// .crc files) and the directories that hold them. The error is the file
// system's, unwrapped.
func TableFiles(dir string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if path != dir && (strings.HasPrefix(name, "_") || strings.HasPrefix(name, ".")) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	return files, nil
}

// partitionDirs returns the col=value segments of a file's directory path
// (outermost first), values unescaped; base is the table directory ("" for
// a file list, where every segment of the path counts).
func partitionDirs(base, file string) (map[string]string, string, error) {
	dir := filepath.Dir(file)
	if base != "" {
		if rel, err := filepath.Rel(base, dir); err == nil {
			dir = rel
		}
	}
	out := map[string]string{}
	var key []string
	for _, seg := range strings.Split(filepath.ToSlash(dir), "/") {
		k, v, ok := strings.Cut(seg, "=")
		if !ok || k == "" {
			continue
		}
		uk, err := unescapePath(k)
		if err != nil {
			return nil, "", fmt.Errorf("partition directory %q: %w", seg, err)
		}
		uv, err := unescapePath(v)
		if err != nil {
			return nil, "", fmt.Errorf("partition directory %q: %w", seg, err)
		}
		out[uk] = uv
		key = append(key, seg)
	}
	return out, strings.Join(key, "/"), nil
}

// unescapePath undoes Hive's path escaping (%XX for special characters).
func unescapePath(s string) (string, error) {
	if !strings.Contains(s, "%") {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) {
			n, err := strconv.ParseUint(s[i+1:i+3], 16, 8)
			if err == nil {
				b.WriteByte(byte(n))
				i += 2
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String(), nil
}

func statFiles(files []string) error {
	for _, f := range files {
		st, err := os.Stat(f)
		if err != nil {
			return fileErr(f, -1, err)
		}
		if !st.Mode().IsRegular() {
			return fileErr(f, -1, fmt.Errorf("not a regular file"))
		}
	}
	return nil
}
