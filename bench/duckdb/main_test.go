package duckdbh

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"

	"github.com/hados-io/hados/bench/tpchdata"
	"github.com/hados-io/hados/internal/tpchgen"
)

// testSpec is the data every test in this package queries: SF 0.01 keeps
// generation and loading around a second.
var testSpec = tpchdata.Spec{SF: 0.01, Schema: tpchgen.Standard, Seed: 0}

// testDataDir holds the generated tables; TestMain creates and removes it.
var testDataDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "duckdbh-tpch-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	testDataDir = dir
	code := m.Run()
	closeShared()
	os.RemoveAll(dir)
	os.Exit(code)
}

var shared struct {
	once sync.Once
	db   *DB
	err  error
}

// tpchDB returns a DB, shared by the package's tests and closed by
// TestMain, holding the SF 0.01 tables as DuckDB tables. Tests must not
// change it.
func tpchDB(t testing.TB) *DB {
	t.Helper()
	shared.once.Do(func() {
		if _, err := tpchdata.Ensure(context.Background(), testDataDir, testSpec, nil); err != nil {
			shared.err = err
			return
		}
		db, err := Open(1)
		if err != nil {
			shared.err = err
			return
		}
		if err := db.LoadParquetTables(testDataDir); err != nil {
			db.Close()
			shared.err = err
			return
		}
		shared.db = db
	})
	if shared.err != nil {
		t.Fatalf("prepare TPC-H SF %g: %v", testSpec.SF, shared.err)
	}
	return shared.db
}

func closeShared() {
	if shared.db != nil {
		shared.db.Close()
	}
}

// openDB opens a private DB closed at the end of the test.
func openDB(t testing.TB, threads int) *DB {
	t.Helper()
	db, err := Open(threads)
	if err != nil {
		t.Fatalf("Open(%d): %v", threads, err)
	}
	t.Cleanup(func() {
		if err := db.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return db
}
