package plan

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hados-io/hados/operators/types"
)

// importCorpus imports every corpus plan with the given options.
func importCorpus(t *testing.T, o ImportOptions) []*Plan {
	t.Helper()
	var plans []*Plan
	for _, f := range corpusFiles(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(filepath.Dir(f)) + "/" + filepath.Base(f)
		p, err := ImportSparkWith(name, strings.NewReader(string(data)), o)
		if err != nil {
			t.Fatalf("%v", err)
		}
		plans = append(plans, p)
	}
	return plans
}

// untypedScanColumns lists the scan output columns left untyped.
func untypedScanColumns(plans []*Plan) []string {
	var out []string
	for _, p := range plans {
		_ = p.Walk(func(n *Node) error {
			if n.Scan == nil {
				return nil
			}
			for _, a := range n.Output {
				if !a.Type.IsKnown() {
					out = append(out, p.Name+": "+n.Scan.Table+"."+a.String())
				}
			}
			return nil
		})
	}
	return out
}

// TestCorpusCatalog learns a catalog from the whole corpus and re-imports
// with it: every partition column of TPC-DS is then typed, and the types
// agree with what the plans that type them by a join say.
func TestCorpusCatalog(t *testing.T) {
	plans := importCorpus(t, ImportOptions{})
	before := untypedScanColumns(plans)
	cat := NewCatalog()
	for _, p := range plans {
		cat.Learn(p)
	}
	after := untypedScanColumns(importCorpus(t, ImportOptions{Catalog: cat}))
	t.Logf("untyped scan columns: %d alone, %d with a catalog learned from the corpus (%d tables)", len(before), len(after), len(cat.Tables()))
	for _, s := range after {
		t.Errorf("still untyped: %s", s)
	}
	// The date keys of the partitioned fact tables join d_date_sk (int).
	for _, tc := range [][2]string{{"store_sales", "ss_sold_date_sk"}, {"store_returns", "sr_returned_date_sk"},
		{"catalog_sales", "cs_sold_date_sk"}, {"catalog_returns", "cr_returned_date_sk"}, {"web_sales", "ws_sold_date_sk"},
		{"web_returns", "wr_returned_date_sk"}, {"inventory", "inv_date_sk"}} {
		if ty, ok := cat.Lookup("spark_catalog.default."+tc[0], tc[1]); !ok || ty != types.IntType {
			t.Errorf("%s.%s: %v %v, want int", tc[0], tc[1], ty, ok)
		}
	}
}
