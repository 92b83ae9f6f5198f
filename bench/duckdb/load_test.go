package duckdbh

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestLoadParquetErrors(t *testing.T) {
	tpchDB(t) // makes sure testDataDir holds the tables
	empty := t.TempDir()
	tests := []struct {
		name    string
		dir     string
		table   string
		wantErr string
	}{
		{"missing table", testDataDir, "nosuchtable", `table "nosuchtable": no Parquet file matches`},
		{"empty dir", empty, "lineitem", `table "lineitem": no Parquet file matches ` + filepath.Join(empty, "lineitem", "*.parquet")},
		{"injection", testDataDir, "x; drop table y", "not a plain SQL identifier"},
		{"empty name", testDataDir, "", "not a plain SQL identifier"},
		{"digit first", testDataDir, "1t", "not a plain SQL identifier"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fresh := openDB(t, 1)
			err := fresh.LoadParquetTables(tt.dir, tt.table)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("LoadParquetTables(%q, %q) error = %v, want one containing %q", tt.dir, tt.table, err, tt.wantErr)
			}
		})
	}
}

func TestLoadTwiceFails(t *testing.T) {
	tpchDB(t)
	db := openDB(t, 1)
	if err := db.LoadParquetTables(testDataDir, "region"); err != nil {
		t.Fatal(err)
	}
	err := db.LoadParquetTables(testDataDir, "region")
	if err == nil || !strings.Contains(err.Error(), `load table "region"`) {
		t.Fatalf("second load error = %v, want one naming the table", err)
	}
}

// TestParquetViewsMatchTables: the same query over views on read_parquet
// and over DuckDB's tables gives the same answer.
func TestParquetViewsMatchTables(t *testing.T) {
	tables := tpchDB(t)
	views := openDB(t, 1)
	if err := views.AttachParquetViews(testDataDir); err != nil {
		t.Fatal(err)
	}
	for _, q := range []int{1, 6} {
		want, _, err := tables.QueryRows(TPCHQuery(q))
		if err != nil {
			t.Fatal(err)
		}
		got, _, err := views.QueryRows(TPCHQuery(q))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("Q%d over views = %v, over tables %v", q, got, want)
		}
	}
}

func TestQuoteString(t *testing.T) {
	if got, want := quoteString("/tmp/o'brien/x"), "'/tmp/o''brien/x'"; got != want {
		t.Fatalf("quoteString = %s, want %s", got, want)
	}
}

// TestLoadQuotedPath loads a table from a directory whose name holds a
// single quote.
func TestLoadQuotedPath(t *testing.T) {
	tpchDB(t)
	dir := filepath.Join(t.TempDir(), "o'brien")
	if err := os.MkdirAll(filepath.Join(dir, "region"), 0o755); err != nil {
		t.Fatal(err)
	}
	src, _ := filepath.Glob(filepath.Join(testDataDir, "region", "*.parquet"))
	data, err := os.ReadFile(src[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "region", "part-00000.parquet"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	db := openDB(t, 1)
	if err := db.LoadParquetTables(dir, "region"); err != nil {
		t.Fatal(err)
	}
	rows, _, err := db.QueryRows("SELECT count(*) FROM region")
	if err != nil || !reflect.DeepEqual(rows, [][]any{{int64(5)}}) {
		t.Fatalf("count(region) = %v, %v, want 5", rows, err)
	}
}
