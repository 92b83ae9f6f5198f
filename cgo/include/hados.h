/*
 * hados.h — the C ABI of libhados.so (ABI version 1).
 *
 * A Spark executor plugin (through JNI or the Panama FFI) or any native
 * engine links libhados.so and drives hados through this header.
 *
 * Conventions
 *   - Every function returns an int status: HADOS_OK (0) or a negative
 *     HADOS_ERR_*; results come back through out-parameters.
 *   - hados_last_error() returns the message of the calling thread's last
 *     failed call (valid until that thread's next call into hados).
 *   - Handles are opaque. hados_*_destroy-style calls take a pointer to the
 *     handle and set it to NULL, so a second call is a harmless error.
 *   - Strings returned through out-parameters are allocated by hados and
 *     must be freed with hados_free_string.
 *   - No call panics or aborts: misuse (NULL handles, a destroyed handle,
 *     a wrong ABI version) is an error status with a message.
 *
 * Threading
 *   Every function may be called from any thread, concurrently.
 */
#ifndef HADOS_H
#define HADOS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HADOS_ABI_VERSION 1

#define HADOS_OK 0
#define HADOS_ERR_INVALID (-1)  /* a bad argument, handle or configuration */
#define HADOS_ERR_DEVICE (-2)   /* a device failed */
#define HADOS_ERR_INTERNAL (-3) /* a bug in hados (an internal panic was caught) */

typedef struct hados_runtime hados_runtime; /* opaque */

/* The ABI version this library implements (HADOS_ABI_VERSION it was built with). */
int hados_abi_version(void);

/* The calling thread's last error message ("" if none). */
const char *hados_last_error(void);

/* Opens hados (device discovery) with spark.hados.* configuration key/value
   pairs, as an executor plugin's init does. abi_version must be
   HADOS_ABI_VERSION. *out receives the runtime handle. */
int hados_init(int abi_version, const char *const *keys, const char *const *values, size_t n,
               hados_runtime **out);

/* Number of devices the runtime opened. */
int hados_device_count(hados_runtime *rt, size_t *out);

/* JSON array describing the devices (address, driver, mode, memory…);
   free with hados_free_string. */
int hados_devices_json(hados_runtime *rt, char **out_json);

/* Frees a string returned by hados. NULL is ignored. */
void hados_free_string(char *s);

/* Closes the runtime: stops DMA, returns all device memory, closes the
   devices; sets *rt to NULL. */
int hados_shutdown(hados_runtime **rt);

#ifdef __cplusplus
}
#endif
#endif /* HADOS_H */
