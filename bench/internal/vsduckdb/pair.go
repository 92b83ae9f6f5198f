package vsduckdb

import (
	"errors"
	"fmt"

	duckdbh "github.com/hados-io/hados/bench/duckdb"
)

// Pair is the two sides of one comparison with the same parallelism:
// DuckDB with Threads threads and hados with as many engine cores. The
// caller owns it and must Close it, which closes both (see Engine.Close).
type Pair struct {
	DB *duckdbh.DB
	*Engine
	Threads int
}

// OpenPair opens an in-memory DuckDB with threads threads and hados on a
// software DPU of deviceMemory (a size such as "4GiB") with threads engine
// cores.
func OpenPair(threads int, deviceMemory string) (*Pair, error) {
	db, err := duckdbh.Open(threads)
	if err != nil {
		return nil, fmt.Errorf("vsduckdb: open DuckDB: %w", err)
	}
	eng, err := Open(fmt.Sprintf("soft:memory=%s,cores=%d", deviceMemory, threads))
	if err != nil {
		db.Close()
		return nil, err
	}
	return &Pair{DB: db, Engine: eng, Threads: threads}, nil
}

// Close closes hados, then DuckDB.
func (p *Pair) Close() error {
	return errors.Join(p.Engine.Close(), p.DB.Close())
}
