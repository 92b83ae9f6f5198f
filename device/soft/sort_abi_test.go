package soft

import (
	"testing"

	"github.com/hados-io/hados/device"
)

// TestSortABILayout checks the Go encoders of hados_sort and hados_gather
// against the C compiler's layout.
func TestSortABILayout(t *testing.T) {
	want := map[string]int{
		"hados_sort":     device.SizeofRelHeader,
		"hados_gather":   device.SizeofRelHeader,
		"hados_sort_key": device.SizeofSortKey,
		"sort.keys":      device.SizeofRelHeader,
		"gather.cols":    device.SizeofRelHeader,
		"sort_key.flags": device.SizeofColumn,
	}
	got := sortABILayout()
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: C says %d, Go encodes %d", k, got[k], w)
		}
	}
}
