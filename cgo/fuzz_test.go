package main

import (
	"os"
	"testing"

	"github.com/hados-io/hados/hados"
)

// FuzzPlan feeds arbitrary plan text (Spark's EXPLAIN text or the plan
// IR's JSON) through hados_plan_create's body: it must return a plan or an
// error, never panic or hang.
func FuzzPlan(f *testing.F) {
	for _, path := range []string{q6Plan, hostRowsPlan, "../race/rules/testdata/small.explain.txt"} {
		b, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("== Physical Plan ==\n* Filter (1)\n"))
	f.Add([]byte(`{"version": 1, "root": {"id": 1, "op": "Filter"}}`))
	cfg := hados.DefaultConfig()
	cfg.Devices = "soft:memory=8MiB"
	rt, err := hados.Open(cfg, hados.Options{})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { rt.Close() })
	rs := &runtimeState{rt: rt}
	none := func(func(k, v string) error) error { return nil }
	f.Fuzz(func(t *testing.T, text []byte) {
		ps, err := newPlan(rs, text, none)
		if err == nil && (ps.res == nil || ps.explain == "" || ps.fallbacks == nil) {
			t.Errorf("a plan without its result, explain text or fallbacks")
		}
	})
}
