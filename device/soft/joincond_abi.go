package soft

/*
#include "hados_joincond.h"
#include <stddef.h>
static size_t offsetof_join_cond_terms(void) { return offsetof(hados_join_cond, terms); }
static size_t offsetof_join_cond_out(void) { return offsetof(hados_join_cond, out); }
static size_t offsetof_join_term_b(void) { return offsetof(hados_join_term, b); }
*/
import "C"

// joinCondABILayout reports the C compiler's sizes and offsets of
// hados_join_cond and hados_join_term, so a test can check the Go encoder
// (device/joincond.go) against them.
func joinCondABILayout() map[string]int {
	return map[string]int{
		"hados_join_term": C.sizeof_hados_join_term,
		"join_cond.terms": int(C.offsetof_join_cond_terms()),
		"join_cond.out":   int(C.offsetof_join_cond_out()),
		"join_term.b":     int(C.offsetof_join_term_b()),
	}
}
