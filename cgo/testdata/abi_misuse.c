/* abi_misuse.c — drives libhados.so from C as a foreign host would: the
   lifecycle and every kind of misuse. Exits non-zero on the first failure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hados.h"

static int failures = 0;

#define CHECK(cond, ...)                      \
  do {                                        \
    if (!(cond)) {                            \
      fprintf(stderr, "FAIL line %d: ", __LINE__); \
      fprintf(stderr, __VA_ARGS__);           \
      fprintf(stderr, " (last error: %s)\n", hados_last_error()); \
      failures++;                             \
    }                                         \
  } while (0)

static int contains(const char *s, const char *sub) { return s && strstr(s, sub) != NULL; }

int main(void) {
  CHECK(hados_abi_version() == HADOS_ABI_VERSION, "abi version %d", hados_abi_version());

  const char *keys[] = {"spark.hados.devices", "spark.executor.memory"};
  const char *vals[] = {"soft:memory=32MiB;soft:memory=32MiB,mode=discrete", "4g"};
  hados_runtime *rt = NULL;
  int st = hados_init(HADOS_ABI_VERSION, keys, vals, 2, &rt);
  CHECK(st == HADOS_OK && rt != NULL, "init: %d", st);
  CHECK(strcmp(hados_last_error(), "") == 0, "last error after success");

  size_t n = 0;
  CHECK(hados_device_count(rt, &n) == HADOS_OK && n == 2, "device count %zu", n);
  char *json = NULL;
  CHECK(hados_devices_json(rt, &json) == HADOS_OK && contains(json, "\"mode\":\"discrete\""), "devices json: %s", json);
  hados_free_string(json);
  hados_free_string(NULL);

  /* misuse: NULL out-parameters and handles */
  CHECK(hados_device_count(rt, NULL) == HADOS_ERR_INVALID && contains(hados_last_error(), "out is NULL"), "NULL out");
  CHECK(hados_device_count(NULL, &n) == HADOS_ERR_INVALID && contains(hados_last_error(), "invalid or destroyed handle"), "NULL handle");
  CHECK(hados_device_count((hados_runtime *)(uintptr_t)0xdeadbeef, &n) == HADOS_ERR_INVALID, "forged handle");
  CHECK(hados_init(HADOS_ABI_VERSION, keys, vals, 2, NULL) == HADOS_ERR_INVALID, "init with NULL out");
  hados_runtime *rt3 = (hados_runtime *)1;
  CHECK(hados_init(HADOS_ABI_VERSION, NULL, NULL, 1, &rt3) == HADOS_ERR_INVALID && rt3 == NULL, "init with NULL keys");

  /* wrong ABI version */
  hados_runtime *rt2 = (hados_runtime *)1;
  CHECK(hados_init(HADOS_ABI_VERSION + 1, keys, vals, 0, &rt2) == HADOS_ERR_INVALID && rt2 == NULL &&
            contains(hados_last_error(), "ABI version 2"),
        "wrong ABI version");

  /* bad configuration */
  const char *badk[] = {"spark.hados.devcies"};
  const char *badv[] = {"soft"};
  CHECK(hados_init(HADOS_ABI_VERSION, badk, badv, 1, &rt2) == HADOS_ERR_INVALID &&
            contains(hados_last_error(), "unknown configuration key spark.hados.devcies"),
        "unknown key");
  const char *devk[] = {"spark.hados.devices"};
  const char *devv[] = {"plugin:/nonexistent.so"};
  CHECK(hados_init(HADOS_ABI_VERSION, devk, devv, 1, &rt2) != HADOS_OK && contains(hados_last_error(), "nonexistent.so"),
        "missing plugin");

  /* shutdown nulls the handle; a second shutdown and use after shutdown are errors */
  hados_runtime *stale = rt;
  CHECK(hados_shutdown(&rt) == HADOS_OK && rt == NULL, "shutdown");
  CHECK(hados_shutdown(&rt) == HADOS_ERR_INVALID, "double shutdown");
  CHECK(hados_shutdown(&stale) == HADOS_ERR_INVALID, "shutdown of a stale copy");
  CHECK(hados_device_count(stale, &n) == HADOS_ERR_INVALID, "use after shutdown");
  CHECK(hados_shutdown(NULL) == HADOS_ERR_INVALID, "shutdown(NULL)");

  /* default configuration: one software DPU */
  CHECK(hados_init(HADOS_ABI_VERSION, NULL, NULL, 0, &rt) == HADOS_OK, "init with defaults");
  CHECK(hados_device_count(rt, &n) == HADOS_OK && n == 1, "default device count %zu", n);
  CHECK(hados_shutdown(&rt) == HADOS_OK, "shutdown of defaults");

  if (failures) {
    fprintf(stderr, "%d failures\n", failures);
    return 1;
  }
  printf("ok\n");
  return 0;
}
