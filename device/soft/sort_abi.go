package soft

/*
#include "hados_relational.h"
#include <stddef.h>
static size_t offsetof_sort_keys(void) { return offsetof(hados_sort, keys); }
static size_t offsetof_gather_cols(void) { return offsetof(hados_gather, cols); }
static size_t offsetof_sort_key_flags(void) { return offsetof(hados_sort_key, flags); }
*/
import "C"

// sortABILayout reports the C compiler's sizes and offsets of hados_sort
// and hados_gather, so a test can check the Go encoders (device/sort.go,
// device/gather.go) against them.
func sortABILayout() map[string]int {
	return map[string]int{
		"hados_sort":     C.sizeof_hados_sort,
		"hados_gather":   C.sizeof_hados_gather,
		"hados_sort_key": C.sizeof_hados_sort_key,
		"sort.keys":      int(C.offsetof_sort_keys()),
		"gather.cols":    int(C.offsetof_gather_cols()),
		"sort_key.flags": int(C.offsetof_sort_key_flags()),
	}
}
