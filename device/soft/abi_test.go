package soft

import (
	"testing"

	"github.com/hados-io/hados/device"
)

// TestABILayout checks the Go encoders' sizes and offsets against the C
// compiler's for the structures of hados_driver.h and hados_pipeline.h.
func TestABILayout(t *testing.T) {
	want := map[string]int{
		"hados_op":             64,
		"hados_completion":     144,
		"hados_pipeline":       device.SizeofPipelineHeader,
		"hados_column":         device.SizeofColumn,
		"hados_const":          device.SizeofConst,
		"hados_insn":           device.SizeofInsn,
		"hados_agg":            device.SizeofAgg,
		"hados_agg_spec":       device.SizeofAggSpec,
		"hados_project_out":    16,
		"agg_spec.key_vtypes":  40,
		"agg_spec.key_min":     104,
		"agg_spec.key_card":    232,
		"agg_spec.aggs":        360,
		"insn.imm":             24,
		"pipeline.strings_len": 56,
	}
	got := abiLayout()
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: C says %d, Go encodes %d", k, got[k], w)
		}
	}
}
