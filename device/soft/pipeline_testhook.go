package soft

// Test hook for the pipeline interpreter's dictionary predicates
// (soft_pipeline.c, dict_preds): tests and benchmarks switch them off to
// compare with the kernels run on the rows as loaded. Nothing outside the
// package's tests calls it.

/*
#include "soft_pipeline.h"

static int hk_dict_preds(int on) {
  int was = __atomic_load_n(&soft_pipeline_dict_preds, __ATOMIC_RELAXED);
  __atomic_store_n(&soft_pipeline_dict_preds, on, __ATOMIC_RELAXED);
  return was;
}
*/
import "C"

// setDictPreds turns dictionary predicates on or off for the runs that
// start afterwards (process-wide) and returns the previous setting.
func setDictPreds(on bool) bool {
	v := C.int(0)
	if on {
		v = 1
	}
	return C.hk_dict_preds(v) != 0
}
