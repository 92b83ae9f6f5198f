package duckdbh

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/hados-io/hados/internal/tpchgen"
)

// LoadParquetTables copies each table's Parquet files, dir/<table>/*.parquet,
// into a DuckDB table of the same name:
//
//	CREATE TABLE t AS SELECT * FROM read_parquet('dir/t/*.parquet')
//
// so later queries run over DuckDB's own storage. With no table names it
// loads the eight TPC-H tables. A table that already exists is an error, as
// is a table with no Parquet file.
func (db *DB) LoadParquetTables(dir string, tables ...string) error {
	return db.defineParquet(context.Background(), "TABLE", dir, tables)
}

// AttachParquetViews defines, for each table, a view of the same name over
// its Parquet files (CREATE VIEW t AS SELECT * FROM read_parquet(...)), so
// every query reads and decodes the files again. With no table names it
// attaches the eight TPC-H tables.
func (db *DB) AttachParquetViews(dir string, tables ...string) error {
	return db.defineParquet(context.Background(), "VIEW", dir, tables)
}

// defineParquet creates a TABLE or VIEW per table over its Parquet files.
func (db *DB) defineParquet(ctx context.Context, kind, dir string, tables []string) error {
	if len(tables) == 0 {
		tables = tpchgen.TableNames()
	}
	for _, t := range tables {
		stmt, err := parquetStatement(kind, dir, t)
		if err != nil {
			return err
		}
		if err := db.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("duckdbh: load table %q from %s: %w", t, dir, err)
		}
	}
	return nil
}

// parquetStatement builds the CREATE statement for one table after checking
// the name is a plain identifier and the table has at least one file.
func parquetStatement(kind, dir, table string) (string, error) {
	if !isIdentifier(table) {
		return "", fmt.Errorf("duckdbh: table name %q is not a plain SQL identifier ([A-Za-z_][A-Za-z0-9_]*)", table)
	}
	glob := filepath.Join(dir, table, "*.parquet")
	files, err := filepath.Glob(glob)
	if err != nil {
		return "", fmt.Errorf("duckdbh: table %q: bad path pattern %s: %w", table, glob, err)
	}
	if len(files) == 0 {
		return "", fmt.Errorf("duckdbh: table %q: no Parquet file matches %s", table, glob)
	}
	return fmt.Sprintf("CREATE %s %s AS SELECT * FROM read_parquet(%s)", kind, table, quoteString(glob)), nil
}

// isIdentifier reports whether s is a plain, unquoted SQL identifier.
func isIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_', r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z':
		case i > 0 && r >= '0' && r <= '9':
		default:
			return false
		}
	}
	return true
}

// quoteString renders s as a SQL string literal.
func quoteString(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}
