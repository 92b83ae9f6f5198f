/* abi.c — C shims where the header's types cannot be expressed by a Go
   export (const pointers). */
#include "hados.h"

int hdgo_init(int abi, char **keys, char **values, size_t n, hados_runtime **out);

int hados_init(int abi_version, const char *const *keys, const char *const *values, size_t n, hados_runtime **out) {
  return hdgo_init(abi_version, (char **)keys, (char **)values, n, out);
}
