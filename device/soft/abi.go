package soft

/*
#include "hados_driver.h"
#include "hados_pipeline.h"
#include <stddef.h>
static size_t offsetof_key_vtypes(void) { return offsetof(hados_agg_spec, key_vtypes); }
static size_t offsetof_key_min(void) { return offsetof(hados_agg_spec, key_min); }
static size_t offsetof_key_card(void) { return offsetof(hados_agg_spec, key_card); }
static size_t offsetof_aggs(void) { return offsetof(hados_agg_spec, aggs); }
static size_t offsetof_imm(void) { return offsetof(hados_insn, imm); }
static size_t offsetof_strings_len(void) { return offsetof(hados_pipeline, strings_len); }
*/
import "C"

// abiLayout reports the C compiler's sizes and offsets of the ABI
// structures, so a test can check the Go encoders against them.
func abiLayout() map[string]int {
	return map[string]int{
		"hados_op":             C.sizeof_hados_op,
		"hados_completion":     C.sizeof_hados_completion,
		"hados_pipeline":       C.sizeof_hados_pipeline,
		"hados_column":         C.sizeof_hados_column,
		"hados_const":          C.sizeof_hados_const,
		"hados_insn":           C.sizeof_hados_insn,
		"hados_agg":            C.sizeof_hados_agg,
		"hados_agg_spec":       C.sizeof_hados_agg_spec,
		"hados_project_out":    C.sizeof_hados_project_out,
		"agg_spec.key_vtypes":  int(C.offsetof_key_vtypes()),
		"agg_spec.key_min":     int(C.offsetof_key_min()),
		"agg_spec.key_card":    int(C.offsetof_key_card()),
		"agg_spec.aggs":        int(C.offsetof_aggs()),
		"insn.imm":             int(C.offsetof_imm()),
		"pipeline.strings_len": int(C.offsetof_strings_len()),
	}
}
