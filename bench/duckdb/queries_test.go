package duckdbh

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// TestQ1FourGroups: Q1 groups the lines shipped by 1998-09-02 into the four
// (returnflag, linestatus) groups AF, NF, NO, RF.
func TestQ1FourGroups(t *testing.T) {
	rows, cols, err := tpchDB(t).QueryRows(TPCHQuery(1))
	if err != nil {
		t.Fatal(err)
	}
	if len(cols) != 10 || cols[0] != "l_returnflag" || cols[9] != "count_order" {
		t.Fatalf("Q1 columns %v", cols)
	}
	var groups []string
	for _, r := range rows {
		groups = append(groups, r[0].(string)+r[1].(string))
		if _, ok := r[2].(string); !ok {
			t.Errorf("Q1 sum_qty is %T, want a decimal string", r[2])
		}
		if n, ok := r[9].(int64); !ok || n <= 0 {
			t.Errorf("Q1 count_order = %#v, want a positive int64", r[9])
		}
	}
	if got := strings.Join(groups, ","); got != "AF,NF,NO,RF" {
		t.Fatalf("Q1 groups %s, want AF,NF,NO,RF", got)
	}
}

// TestQ6OneRow: Q6 is a global sum, one row holding a positive revenue.
func TestQ6OneRow(t *testing.T) {
	rows, _, err := tpchDB(t).QueryRows(TPCHQuery(6))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || len(rows[0]) != 1 {
		t.Fatalf("Q6 returned %v, want one row of one column", rows)
	}
	rev, ok := rows[0][0].(string)
	if !ok || strings.HasPrefix(rev, "-") || rev == "0.0000" {
		t.Fatalf("Q6 revenue = %#v, want a positive decimal string", rows[0][0])
	}
}

// TestTPCHGolden runs the 22 queries over the SF 0.01 tables, times each,
// and compares the answers with testdata/tpch-sf0.01/qNN.txt, a reference
// for hados's own answers. Regenerate with -update after an intended
// change to the generator or the query texts.
func TestTPCHGolden(t *testing.T) {
	db := tpchDB(t)
	for n := 1; n <= TPCHQueries; n++ {
		t.Run(fmt.Sprintf("Q%d", n), func(t *testing.T) {
			m, err := db.Measure(t.Context(), TPCHQuery(n), 2)
			if err != nil {
				t.Fatal(err)
			}
			if m.Best <= 0 || m.Best > m.Median || len(m.Wall) != 2 {
				t.Errorf("timings best %v median %v runs %v", m.Best, m.Median, m.Wall)
			}
			if len(m.Rows) == 0 {
				t.Errorf("Q%d returned no rows at SF %g", n, testSpec.SF)
			}
			t.Logf("Q%d: %d rows, best %v", n, len(m.Rows), m.Best)
			checkGolden(t, filepath.Join("testdata", "tpch-sf0.01", fmt.Sprintf("q%02d.txt", n)), renderRows(m.Columns, m.Rows))
		})
	}
}

// renderRows prints a result as tab-separated text, floats with 12
// significant digits so the text does not depend on the last bits of a sum.
func renderRows(cols []string, rows [][]any) string {
	var b strings.Builder
	b.WriteString(strings.Join(cols, "\t"))
	b.WriteByte('\n')
	for _, r := range rows {
		for i, v := range r {
			if i > 0 {
				b.WriteByte('\t')
			}
			switch x := v.(type) {
			case nil:
				b.WriteString("NULL")
			case float64:
				b.WriteString(strconv.FormatFloat(x, 'g', 12, 64))
			case time.Time:
				b.WriteString(x.Format(time.RFC3339Nano))
			default:
				fmt.Fprint(&b, x)
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func checkGolden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden file (run with -update to create it): %v", err)
	}
	if got != string(want) {
		t.Errorf("result differs from %s (run with -update if the change is intended)\n got:\n%.2000s\nwant:\n%.2000s", path, got, want)
	}
}
