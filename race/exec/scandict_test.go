package exec_test

import (
	"fmt"
	"testing"

	"github.com/hados-io/hados/race/exec"
)

// TestScanDicts runs builder queries with the scans handing the wholly
// dictionary-encoded string columns their filters test to the device
// pipelines as dictionaries and with every column dense: the rows must be
// the same. They cover string columns only compared (Q19's l_shipmode and
// l_shipinstruct, Q3's c_mktsegment, Q21's o_orderstatus), compared and
// then projected into a join and grouped on (Q12's l_shipmode, Q16's
// p_brand and p_type), a fused aggregation (Q1), columns carried to a
// join, an exchange and a sort (Q10's, Q18's), and isnotnull filters
// that hand batches on unchanged (isnotnull of required columns dropped);
// on one task and many, on a host-visible and a discrete device (the
// runtime checks every byte is returned).
func TestScanDicts(t *testing.T) {
	dir := warehouse(t)
	rt := runtime(t, "soft:memory=512MiB;soft:memory=512MiB,mode=discrete")
	for _, drop := range []bool{false, true} {
		for _, q := range []int{1, 3, 7, 10, 12, 14, 16, 17, 18, 19, 21, 22} {
			t.Run(fmt.Sprintf("q%d/dropnotnull=%t", q, drop), func(t *testing.T) {
				defer exec.SetDropRequiredNotNull(drop)()
				for _, env := range []exec.Env{
					{Runtime: rt, Warehouse: dir, Device: "0", Parallelism: 1},
					{Runtime: rt, Warehouse: dir, Device: "1", Parallelism: 3},
				} {
					restore := exec.SetScanDicts(false)
					dense, _ := runStats(t, env, q)
					restore()
					before := exec.ScanDictScans()
					dict, _ := runStats(t, env, q)
					if !sameRows(dense, dict) {
						t.Fatalf("Q%d on device %s: dictionaries %d rows, dense %d:\n%s", q, env.Device, len(dict), len(dense), firstDiff(dense, dict))
					}
					if exec.ScanDictScans() == before && (q == 3 || q == 12 || q == 19) {
						t.Errorf("Q%d on device %s: no scan handed on dictionaries", q, env.Device)
					}
				}
			})
		}
	}
}
