package soft

import (
	"testing"

	"github.com/hados-io/hados/device"
)

// TestJoinCondABILayout checks the Go encoder of hados_join_cond against
// the C compiler's layout.
func TestJoinCondABILayout(t *testing.T) {
	want := map[string]int{
		"hados_join_term": device.SizeofJoinTerm,
		"join_cond.terms": device.SizeofJoinCondHdr,
		"join_cond.out":   device.SizeofJoinCondHdr - 8,
		"join_term.b":     8 + device.SizeofColumn,
	}
	got := joinCondABILayout()
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: C says %d, Go encodes %d", k, got[k], w)
		}
	}
}
