package duckdbh

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/duckdb/duckdb-go/v2"
)

// DB is an in-memory DuckDB database reached through database/sql.
//
// The DB owns the database and all its tables; Close releases them. The
// zero value is not usable: create one with Open.
type DB struct {
	sql       *sql.DB
	connector *duckdb.Connector
	threads   int
}

// Open creates an empty in-memory DuckDB and sets its worker thread count
// (SET threads=N). threads 0 keeps DuckDB's default (one per core); a
// negative count is an error. The caller must Close the DB.
func Open(threads int) (*DB, error) {
	if threads < 0 {
		return nil, fmt.Errorf("duckdbh: threads must be >= 0, got %d", threads)
	}
	connector, err := duckdb.NewConnector("", nil)
	if err != nil {
		return nil, fmt.Errorf("duckdbh: open in-memory DuckDB: %w", err)
	}
	db := &DB{sql: sql.OpenDB(connector), connector: connector}
	if threads > 0 {
		if err := db.Exec(fmt.Sprintf("SET threads = %d", threads)); err != nil {
			return nil, errors.Join(err, db.Close())
		}
	}
	var n int64
	if err := db.sql.QueryRow("SELECT current_setting('threads')").Scan(&n); err != nil {
		return nil, errors.Join(fmt.Errorf("duckdbh: read threads setting: %w", err), db.Close())
	}
	db.threads = int(n)
	return db, nil
}

// Close releases the database and everything loaded into it. Calling Close
// more than once is safe.
func (db *DB) Close() error {
	if db == nil || db.sql == nil {
		return nil
	}
	err := db.sql.Close()
	if cerr := db.connector.Close(); cerr != nil && err == nil {
		err = cerr
	}
	db.sql, db.connector = nil, nil
	return err
}

// Threads reports DuckDB's worker thread count (the threads setting).
func (db *DB) Threads() int { return db.threads }

// SQL exposes the underlying database/sql handle for callers that need more
// than this package offers. It is owned by db and closed by db.Close.
func (db *DB) SQL() *sql.DB { return db.sql }

// Version returns DuckDB's version string, e.g. "v1.4.5".
func (db *DB) Version() (string, error) {
	var v string
	if err := db.sql.QueryRow("SELECT version()").Scan(&v); err != nil {
		return "", fmt.Errorf("duckdbh: version: %w", err)
	}
	return v, nil
}

// Exec runs a statement that returns no rows.
func (db *DB) Exec(stmt string) error {
	return db.ExecContext(context.Background(), stmt)
}

// ExecContext is Exec with a context.
func (db *DB) ExecContext(ctx context.Context, stmt string) error {
	if db == nil || db.sql == nil {
		return errClosed
	}
	if _, err := db.sql.ExecContext(ctx, stmt); err != nil {
		return fmt.Errorf("duckdbh: exec %s: %w", abbreviate(stmt), err)
	}
	return nil
}

var errClosed = errors.New("duckdbh: database is closed")
