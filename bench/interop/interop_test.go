package interop

import (
	"context"
	"fmt"

	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	duckdbh "github.com/hados-io/hados/bench/duckdb"
	"github.com/hados-io/hados/operators/scan"
	"github.com/hados-io/hados/operators/write"
)

const nRows = 300

func openDuckDB(t *testing.T) *duckdbh.DB {
	t.Helper()
	db, err := duckdbh.Open(1)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func quotePath(p string) string { return "'" + strings.ReplaceAll(p, "'", "''") + "'" }

// compare reports every cell where got differs from want.
func compare(t *testing.T, what string, got, want [][]string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d rows, want %d", what, len(got), len(want))
	}
	bad := 0
	for r := range want {
		for c := range want[r] {
			if got[r][c] != want[r][c] {
				if bad++; bad <= 20 {
					t.Errorf("%s: row %d column %s (%s): got %q, want %q", what, r, columns[c].name, columns[c].duckdb, got[r][c], want[r][c])
				}
			}
		}
	}
	if bad > 20 {
		t.Errorf("%s: %d cells differ in all", what, bad)
	}
}

// TestDuckDBWritesHadosReads: DuckDB's COPY … (FORMAT parquet), with its
// default and with other codecs and small row groups, read by
// operators/scan.
func TestDuckDBWritesHadosReads(t *testing.T) {
	want := rows(nRows)
	db := openDuckDB(t)
	var defs, vals []string
	for _, c := range columns {
		defs = append(defs, c.name+" "+c.duckdb)
	}
	if err := db.Exec("CREATE TABLE t (rn INTEGER, " + strings.Join(defs, ", ") + ")"); err != nil {
		t.Fatal(err)
	}
	for r, row := range want {
		lits := []string{fmt.Sprint(r)}
		for c, v := range row {
			lits = append(lits, sqlLiteral(columns[c], v))
		}
		vals = append(vals, "("+strings.Join(lits, ", ")+")")
	}
	if err := db.Exec("INSERT INTO t VALUES " + strings.Join(vals, ",\n")); err != nil {
		t.Fatal(err)
	}
	// What DuckDB holds must be the table itself before any file is involved.
	compare(t, "DuckDB table", duckRows(t, db, "SELECT * EXCLUDE (rn) FROM t ORDER BY rn"), want)

	cols := make([]scan.Column, len(columns))
	for i, c := range columns {
		cols[i] = scan.Column{Name: c.name, Type: c.typ, Nullable: true}
	}
	dir := t.TempDir()
	for _, opts := range []string{"", "COMPRESSION zstd, ROW_GROUP_SIZE 64", "COMPRESSION uncompressed, ROW_GROUP_SIZE 100"} {
		t.Run("copy("+opts+")", func(t *testing.T) {
			path := filepath.Join(dir, fmt.Sprintf("duck%d.parquet", len(opts)))
			stmt := "COPY (SELECT * EXCLUDE (rn) FROM t ORDER BY rn) TO " + quotePath(path) + " (FORMAT parquet"
			if opts != "" {
				stmt += ", " + opts
			}
			if err := db.Exec(stmt + ")"); err != nil {
				t.Fatal(err)
			}
			compare(t, "hados scan of DuckDB's file", hadosRows(t, path, cols), want)
		})
	}
}

// TestHadosWritesDuckDBReads: operators/write's files (each codec) read by
// DuckDB's read_parquet.
func TestHadosWritesDuckDBReads(t *testing.T) {
	want := rows(nRows)
	rec, err := record(memory.DefaultAllocator, want)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Release()
	db := openDuckDB(t)
	for _, codec := range []string{"snappy", "zstd", "lz4_raw", "none"} {
		t.Run(codec, func(t *testing.T) {
			dir := t.TempDir()
			w, err := write.NewWriter(context.Background(), write.Options{Dir: dir, Schema: rec.Schema(), Codec: codec,
				RowGroupRows: 128, TaskID: "interop"})
			if err != nil {
				t.Fatal(err)
			}
			if err := w.Write(rec); err != nil {
				t.Fatal(err)
			}
			res, err := w.Commit()
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Files) != 1 {
				t.Fatalf("%d files", len(res.Files))
			}
			path := res.Files[0].Path
			if !filepath.IsAbs(path) {
				path = filepath.Join(dir, path)
			}
			got := duckRows(t, db, "SELECT * FROM read_parquet("+quotePath(path)+")")
			compare(t, "DuckDB read_parquet of hados's file", got, want)
			// And hados reads its own file back identically.
			cols := make([]scan.Column, len(columns))
			for i, c := range columns {
				cols[i] = scan.Column{Name: c.name, Type: c.typ, Nullable: true}
			}
			compare(t, "hados scan of hados's file", hadosRows(t, path, cols), want)
		})
	}
}

// duckRows runs a query and returns its rows in canonical form.
func duckRows(t *testing.T, db *duckdbh.DB, query string) [][]string {
	t.Helper()
	raw, _, dbTypes, err := db.QueryRawContext(context.Background(), query)
	if err != nil {
		t.Fatal(err)
	}
	if len(dbTypes) != len(columns) {
		t.Fatalf("%d columns, want %d", len(dbTypes), len(columns))
	}
	var out [][]string
	for _, vals := range raw {
		row := make([]string, len(vals))
		for i, v := range vals {
			s, err := fromDuckDB(v, dbTypes[i], columns[i].typ)
			if err != nil {
				t.Fatalf("column %s: %v", columns[i].name, err)
			}
			row[i] = s
		}
		out = append(out, row)
	}
	return out
}

// hadosRows scans a file with operators/scan and returns its rows in
// canonical form.
func hadosRows(t *testing.T, path string, cols []scan.Column) [][]string {
	t.Helper()
	s, err := scan.Open(context.Background(), scan.Options{Files: []string{path}, Columns: cols, Alloc: memory.DefaultAllocator})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var out [][]string
	for {
		rec, err := s.Next()
		if err != nil {
			t.Fatal(err)
		}
		if rec == nil {
			break
		}
		for i := 0; i < int(rec.NumRows()); i++ {
			row := make([]string, rec.NumCols())
			for c := range row {
				if row[c], err = fromArrow(rec.Column(c), i); err != nil {
					t.Fatalf("column %s: %v", columns[c].name, err)
				}
			}
			out = append(out, row)
		}
		rec.Release()
	}
	return out
}
