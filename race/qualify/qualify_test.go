package qualify

import (
	"github.com/hados-io/hados/internal/testkit"

	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hados-io/hados/race/rules"
)

func readSmall(t testing.TB) string {
	b, err := os.ReadFile("../rules/testdata/small.explain.txt")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func eventLog(t testing.TB, plans ...string) string {
	var b strings.Builder
	b.WriteString(`{"Event":"SparkListenerLogStart","Spark Version":"3.5.1"}` + "\n")
	for i, p := range plans {
		ev := map[string]any{"Event": "org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionStart",
			"executionId": i, "physicalPlanDescription": p}
		j, err := json.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(j)
		b.WriteByte('\n')
	}
	return b.String()
}

func TestReadEventLog(t *testing.T) {
	plan := readSmall(t)
	srcs, err := ReadEventLog("app.log", strings.NewReader(eventLog(t, plan, plan)))
	if err != nil {
		t.Fatal(err)
	}
	if len(srcs) != 2 || srcs[0].Name != "app.log#0" || srcs[1].Text != plan {
		t.Fatalf("sources %d: %+v", len(srcs), srcs)
	}
	// AQE updates replace the execution's plan.
	upd := `{"Event":"org.apache.spark.sql.execution.ui.SparkListenerSQLAdaptiveExecutionUpdate","executionId":0,"physicalPlanDescription":"== Physical Plan ==\nfinal"}`
	srcs, err = ReadEventLog("app.log", strings.NewReader(eventLog(t, plan)+upd+"\n"))
	if err != nil || len(srcs) != 1 || !strings.HasSuffix(srcs[0].Text, "final") {
		t.Fatalf("AQE update: %v %+v", err, srcs)
	}
	_, err = ReadEventLog("bad.log", strings.NewReader(`{"physicalPlanDescription": 3`+"\n"))
	if err == nil || !strings.Contains(err.Error(), "bad.log:1") {
		t.Errorf("malformed line: %v", err)
	}
}

func TestQualify(t *testing.T) {
	plan := readSmall(t)
	srcs := []Source{{Name: "small", Text: plan}, {Name: "broken", Text: "not a plan"}}
	o := rules.DefaultOptions()
	rep := Qualify(srcs, o)
	if rep.Total != 2 || rep.Errors != 1 || rep.Offloaded != 0 || rep.FullyOffloadable != 0 {
		t.Fatalf("report %+v", rep)
	}
	q := rep.Queries[0]
	if q.Operators == 0 || q.Supported != q.Operators-1 || len(q.Reasons) != 1 || q.Reasons[0].Subject != "FrobnicateExec" {
		t.Errorf("query %+v", q)
	}
	o.Whitelist = []string{"FrobnicateExec"}
	if rep := Qualify(srcs[:1], o); rep.Offloaded != 1 || rep.ExecutableToday != 0 {
		t.Errorf("whitelisted: %+v", rep)
	}
	var b bytes.Buffer
	if err := rep.WriteTable(&b, 5); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"QUERY", "small", "unsupported-operator (FrobnicateExec) x1", "queries 2: offloaded 0", "top fallback reasons"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
}

func TestReadDirectory(t *testing.T) {
	dir := t.TempDir()
	plan := readSmall(t)
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(dir, "q1.explain.txt"), []byte(plan), 0o644))
	must(os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("hello"), 0o644))
	must(os.MkdirAll(filepath.Join(dir, "logs"), 0o755))
	must(os.WriteFile(filepath.Join(dir, "logs", "app-1"), []byte(eventLog(t, plan)), 0o644))
	srcs, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(srcs) != 2 {
		t.Fatalf("sources %d: %+v", len(srcs), srcs)
	}
}

// TestCorpus qualifies both corpora: no errors, and no fallback for a
// type the importer could not infer once the catalog learned from the run
// types the partition columns. With -v it logs the figures of
// docs/COVERAGE.md, and what each plan alone (no catalog) would give.
func TestCorpus(t *testing.T) {
	dir := filepath.Join(testkit.SharedDir(t, "spark-plans"), "spark-plans")
	srcs, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	rep := Qualify(srcs, rules.DefaultOptions())
	if rep.Errors != 0 || rep.Total != 125 {
		t.Errorf("corpus: %d plans, %d errors", rep.Total, rep.Errors)
	}
	for _, rc := range rep.TopReasons {
		if rc.Reason == rules.ReasonDataType && rc.Subject == "unknown" {
			t.Errorf("%d fallbacks for an unknown data type remain", rc.Count)
		}
	}
	if !testing.Verbose() {
		return
	}
	for _, suite := range []string{"tpch", "tpcds"} {
		var part []Source
		for _, s := range srcs {
			if strings.Contains(s.Name, "/"+suite+"/") {
				part = append(part, s)
			}
		}
		var b bytes.Buffer
		if err := Qualify(part, rules.DefaultOptions()).WriteTable(&b, 20); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s:\n%s", suite, b.String())
		alone := Report{}
		all := map[ReasonCount]int{}
		for _, s := range part {
			q := One(s, rules.DefaultOptions())
			if q.Offloaded {
				alone.Offloaded++
			}
			for _, r := range q.Reasons {
				all[ReasonCount{Reason: r.Reason, Subject: r.Subject}] += r.Count
			}
		}
		var top []string
		for _, rc := range sorted(all)[:min(5, len(all))] {
			top = append(top, fmt.Sprintf("%s x%d", rc, rc.Count))
		}
		t.Logf("%s without the learned catalog: offloaded %d of %d; top reasons %s", suite, alone.Offloaded, len(part), strings.Join(top, ", "))
	}
}

func FuzzReadEventLog(f *testing.F) {
	f.Add(eventLog(f, "== Physical Plan ==\nScan (1)\n"))
	f.Add(`{"Event":"SparkListenerSQLExecutionStart","executionId":1,"physicalPlanDescription":"x"}`)
	f.Add("{\"physicalPlanDescription\": [1,2\n")
	f.Add("")
	f.Fuzz(func(t *testing.T, s string) {
		srcs, err := ReadEventLog("fuzz", strings.NewReader(s))
		if err != nil && !strings.Contains(err.Error(), "fuzz:") {
			t.Fatalf("error without position: %v", err)
		}
		for _, src := range srcs {
			One(src, rules.DefaultOptions()) // never panics
		}
	})
}
