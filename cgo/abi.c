/* abi.c — C shims where the header's types cannot be expressed by a Go
   export (const pointers). */
#include "hados.h"

int hdgo_init(int abi, char **keys, char **values, size_t n, hados_runtime **out);
int hdgo_plan(hados_runtime *rt, char *plan, size_t len, char **keys, char **values, size_t n, hados_plan **out);
int hdgo_task_begin(hados_plan *p, int64_t id, int32_t stage, int32_t partition, char **devices, size_t n_devices,
                    double amount, uint64_t quota, char *pool, hados_task **out);

int hados_init(int abi_version, const char *const *keys, const char *const *values, size_t n, hados_runtime **out) {
  return hdgo_init(abi_version, (char **)keys, (char **)values, n, out);
}

int hados_plan_create(hados_runtime *rt, const char *plan, size_t len, const char *const *keys, const char *const *values,
               size_t n, hados_plan **out) {
  return hdgo_plan(rt, (char *)plan, len, (char **)keys, (char **)values, n, out);
}

int hados_task_begin(hados_plan *p, int64_t task_id, int32_t stage, int32_t partition, const char *const *devices,
                     size_t n_devices, double amount, uint64_t quota, const char *pool, hados_task **out) {
  return hdgo_task_begin(p, task_id, stage, partition, (char **)devices, n_devices, amount, quota, (char *)pool, out);
}
