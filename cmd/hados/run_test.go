package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunSparkTextEmptyRelation runs a Spark text plan whose leaf is an
// EmptyRelation: its untyped columns are typed from the warehouse's files,
// it is read as an empty input, and the global aggregation returns its
// one row.
func TestRunSparkTextEmptyRelation(t *testing.T) {
	dir := t.TempDir()
	if code, _, errs := cli(t, context.Background(), "gen", "tpch", "--sf", "0.01", "--out", dir, "--quiet", "--tables", "orders"); code != 0 {
		t.Fatal(errs)
	}
	code, out, errs := cli(t, context.Background(), "run", "../../race/exec/testdata/empty-relation.explain.txt",
		"--warehouse", dir, "--devices", "soft:memory=128MiB", "--format", "csv")
	if code != 0 || out != "n,total\n0,\n" {
		t.Fatalf("exit %d\n%q\n%s", code, out, errs)
	}
}

// TestRunMaxFailuresConfig: spark.hados.task.maxFailures sets how many
// attempts a failing task gets; --max-failures overrides it.
func TestRunMaxFailuresConfig(t *testing.T) {
	dir := t.TempDir()
	if code, _, errs := cli(t, context.Background(), "gen", "tpch", "--sf", "0.01", "--out", dir, "--quiet", "--tables", "lineitem"); code != 0 {
		t.Fatal(errs)
	}
	conf := filepath.Join(t.TempDir(), "hados.conf")
	if err := os.WriteFile(conf, []byte("spark.hados.task.maxFailures 2\nspark.hados.dma.retries 0\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	plan := "../../race/planbuilder/testdata/tpch/q6.json"
	bad := "soft:memory=128MiB,mode=discrete,dma_error_rate=1"
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "2 attempt"},
		{[]string{"--max-failures", "3"}, "3 attempt"},
	} {
		args := append([]string{"--config", conf, "run", plan, "--warehouse", dir, "--devices", bad}, tc.args...)
		code, _, errs := cli(t, context.Background(), args...)
		if code == 0 || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, want an error after %s(s): %s", tc.args, code, tc.want, errs)
		}
	}
}
