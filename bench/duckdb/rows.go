package duckdbh

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// QueryRows runs a query and returns all its rows, normalised (see
// Normalize), with the result's column names. The returned slices belong to
// the caller.
func (db *DB) QueryRows(query string) ([][]any, []string, error) {
	return db.QueryRowsContext(context.Background(), query)
}

// QueryRowsContext is QueryRows with a context.
func (db *DB) QueryRowsContext(ctx context.Context, query string) ([][]any, []string, error) {
	raw, err := db.fetch(ctx, query)
	if err != nil {
		return nil, nil, err
	}
	rows, err := raw.normalize()
	if err != nil {
		return nil, nil, fmt.Errorf("duckdbh: query %s: %w", abbreviate(query), err)
	}
	return rows, raw.names, nil
}

// QueryRawContext runs query and returns every row as the driver scanned
// it, not normalised, with the result's column names and DuckDB type names
// (as database/sql's ColumnType.DatabaseTypeName spells them, e.g.
// "DECIMAL(15,2)"), for callers that convert the values their own way. The
// returned slices belong to the caller.
func (db *DB) QueryRawContext(ctx context.Context, query string) (rows [][]any, names, types []string, err error) {
	raw, err := db.fetch(ctx, query)
	if err != nil {
		return nil, nil, nil, err
	}
	return raw.rows, raw.names, raw.types, nil
}

// rawResult is a fully fetched result as the driver scanned it.
type rawResult struct {
	names []string
	types []string // DuckDB type names, one per column
	rows  [][]any
}

// fetch runs query and reads every row into memory without converting the
// values, so timing covers execution and transfer but not normalisation.
func (db *DB) fetch(ctx context.Context, query string) (*rawResult, error) {
	if db == nil || db.sql == nil {
		return nil, errClosed
	}
	rs, err := db.sql.QueryContext(ctx, query)
	if err != nil {
		return nil, fmt.Errorf("duckdbh: query %s: %w", abbreviate(query), err)
	}
	defer rs.Close()
	res, err := readAll(rs)
	if err != nil {
		return nil, fmt.Errorf("duckdbh: query %s: %w", abbreviate(query), err)
	}
	return res, nil
}

func readAll(rs *sql.Rows) (*rawResult, error) {
	cols, err := rs.ColumnTypes()
	if err != nil {
		return nil, fmt.Errorf("column types: %w", err)
	}
	res := &rawResult{names: make([]string, len(cols)), types: make([]string, len(cols))}
	for i, c := range cols {
		res.names[i], res.types[i] = c.Name(), c.DatabaseTypeName()
	}
	for rs.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rs.Scan(ptrs...); err != nil {
			return nil, fmt.Errorf("row %d: %w", len(res.rows)+1, err)
		}
		res.rows = append(res.rows, vals)
	}
	if err := rs.Err(); err != nil {
		return nil, fmt.Errorf("after row %d: %w", len(res.rows), err)
	}
	return res, nil
}

// normalize converts every value of r in place and returns the rows.
func (r *rawResult) normalize() ([][]any, error) {
	for i, row := range r.rows {
		for j, v := range row {
			n, err := Normalize(v, r.types[j])
			if err != nil {
				return nil, fmt.Errorf("row %d column %q: %w", i+1, r.names[j], err)
			}
			row[j] = n
		}
	}
	return r.rows, nil
}

// abbreviate shortens a SQL text to one line of at most 80 characters for
// error messages.
func abbreviate(query string) string {
	s := strings.Join(strings.Fields(query), " ")
	const max = 80
	if len(s) > max {
		s = s[:max-3] + "..."
	}
	return fmt.Sprintf("%q", s)
}
