package tpchgen

import (
	"github.com/hados-io/hados/internal/testkit"

	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

func checkGolden(t *testing.T, name, got string) {
	testkit.Golden(t, filepath.Join("testdata", name), got, *update)
}

func TestSchemaGolden(t *testing.T) {
	var b strings.Builder
	for _, s := range []Schema{Standard, SparkTest} {
		fmt.Fprintf(&b, "# %s\n", s)
		for _, def := range Tables() {
			b.WriteString(def.String(s) + "\n")
		}
	}
	checkGolden(t, "schema.golden", b.String())
}

// sharedDir finds ../shared beside the module root, or $HADOS_SHARED.
func sharedDir(t *testing.T) string {
	t.Helper()
	if d := os.Getenv("HADOS_SHARED"); d != "" {
		return d
	}
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, "..", "shared")
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Skip("no go.mod above the test directory; cannot locate ../shared")
		}
		dir = parent
	}
}

// TestSparkTestSchemaMatchesPlans compares the spark-test schema with the
// schema Spark's approved TPC-H plans were made against.
func TestSparkTestSchemaMatchesPlans(t *testing.T) {
	path := filepath.Join(sharedDir(t), "spark-plans", "tpch", "schema.txt")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Skipf("Spark plan schema not available (%v); set HADOS_SHARED to the shared folder", err)
	}
	var want []string
	for _, l := range strings.Split(string(data), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			want = append(want, l)
		}
	}
	var got []string
	for _, def := range Tables() {
		got = append(got, def.String(SparkTest))
	}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("spark-test schema differs from %s:\ngot  %q\nwant %q", path, got, want)
	}
}

// TestSampleRowsGolden pins the first rows of every table at seed 7, so any
// change to the generated values is deliberate.
func TestSampleRowsGolden(t *testing.T) {
	d := testData(t)
	var b strings.Builder
	for _, def := range Tables() {
		tb := d[def.Name]
		fmt.Fprintf(&b, "# %s (%d rows)\n", def.Name, tb.rows)
		for r := 0; r < 3; r++ {
			for i, c := range def.Columns {
				if i > 0 {
					b.WriteString("|")
				}
				switch v := tb.cols[c.Name].(type) {
				case []string:
					b.WriteString(v[r])
				case []int32:
					if c.kind == kindDate {
						b.Write(appendDate(nil, v[r]))
					} else {
						fmt.Fprint(&b, v[r])
					}
				case []int64:
					if c.kind == kindMoney {
						fmt.Fprintf(&b, "%.2f", float64(v[r])/100)
					} else {
						fmt.Fprint(&b, v[r])
					}
				}
			}
			b.WriteString("\n")
		}
	}
	checkGolden(t, "sample-sf0.01-seed7.golden", b.String())
}

func TestParseSchema(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Schema
		ok   bool
	}{
		{"", Standard, true}, {"standard", Standard, true}, {"Spark-Test", SparkTest, true},
		{"spark_test", SparkTest, true}, {"sparky", 0, false}, {"decimal", 0, false},
	} {
		got, err := ParseSchema(c.in)
		if (err == nil) != c.ok || (c.ok && got != c.want) {
			t.Errorf("ParseSchema(%q) = %v, %v", c.in, got, err)
		}
		if c.ok {
			if back, _ := ParseSchema(got.String()); back != got {
				t.Errorf("%v does not round-trip through String", got)
			}
		}
	}
}
