package duckdbh

import (
	"strings"
	"testing"
)

func TestOpenThreads(t *testing.T) {
	for _, n := range []int{1, 2} {
		db := openDB(t, n)
		if db.Threads() != n {
			t.Errorf("Open(%d).Threads() = %d", n, db.Threads())
		}
	}
	if db := openDB(t, 0); db.Threads() < 1 {
		t.Errorf("Open(0).Threads() = %d, want DuckDB's default >= 1", db.Threads())
	}
	if _, err := Open(-1); err == nil || !strings.Contains(err.Error(), "threads must be >= 0") {
		t.Errorf("Open(-1) error = %v", err)
	}
}

func TestVersion(t *testing.T) {
	v, err := openDB(t, 1).Version()
	if err != nil || !strings.HasPrefix(v, "v1.") {
		t.Fatalf("Version() = %q, %v, want v1.x", v, err)
	}
	t.Logf("DuckDB %s", v)
}

func TestCloseTwiceAndUseAfterClose(t *testing.T) {
	db, err := Open(1)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if _, _, err := db.QueryRows("SELECT 1"); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("QueryRows after Close error = %v", err)
	}
	if err := db.Exec("SELECT 1"); err == nil {
		t.Error("Exec after Close succeeded")
	}
}

func TestTimeErrors(t *testing.T) {
	db := openDB(t, 1)
	if _, _, _, err := db.Time("SELECT 1", 0); err == nil || !strings.Contains(err.Error(), "runs must be >= 1") {
		t.Errorf("Time(runs 0) error = %v", err)
	}
	_, _, _, err := db.Time("SELECT * FROM no_such_table", 1)
	if err == nil || !strings.Contains(err.Error(), "no_such_table") {
		t.Errorf("Time(bad query) error = %v, want one quoting the query", err)
	}
}

func TestTimeQ6(t *testing.T) {
	best, median, rows, err := tpchDB(t).Time(TPCHQuery(6), 3)
	if err != nil {
		t.Fatal(err)
	}
	if best <= 0 || best > median {
		t.Errorf("best %v, median %v", best, median)
	}
	if len(rows) != 1 {
		t.Errorf("Q6 rows %v", rows)
	}
}

func TestAbbreviate(t *testing.T) {
	if got := abbreviate("select\n\t1"); got != `"select 1"` {
		t.Errorf("abbreviate = %s", got)
	}
	if got := abbreviate(strings.Repeat("x ", 100)); len(got) != 82 || !strings.HasSuffix(got, `..."`) {
		t.Errorf("abbreviate(long) = %s (%d)", got, len(got))
	}
}
