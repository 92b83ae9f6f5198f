/*
 * bridge.c — C helpers of package cdev.
 *
 * cgo cannot call C function pointers, so every vtable call goes through a
 * trampoline here. A driver's last error is thread-local, and a goroutine may
 * move to another thread between two cgo calls, so each trampoline copies
 * the message out within the same C call.
 */
#include "bridge.h"

#include <dlfcn.h>
#include <string.h>

static void hdc_err(const hados_driver_vtable *vt, int st, char *err, size_t n) {
  if (st == HADOS_OK || !err || !n) return;
  const char *m = vt->last_error ? vt->last_error() : NULL;
  if (!m) m = "";
  strncpy(err, m, n - 1);
  err[n - 1] = 0;
}

#define TRAMPOLINE(call)       \
  int st = call;               \
  hdc_err(vt, st, err, n);     \
  return st

int hdc_open(const hados_driver_vtable *vt, const char *cfg, uint32_t idx, hados_device **out, char *err, size_t n) {
  TRAMPOLINE(vt->open(cfg, idx, out));
}
int hdc_close(const hados_driver_vtable *vt, hados_device *d, char *err, size_t n) { TRAMPOLINE(vt->close(d)); }
int hdc_info(const hados_driver_vtable *vt, hados_device *d, hados_device_info *o, char *err, size_t n) {
  TRAMPOLINE(vt->info(d, o));
}
int hdc_telemetry(const hados_driver_vtable *vt, hados_device *d, hados_telemetry *o, char *err, size_t n) {
  TRAMPOLINE(vt->telemetry(d, o));
}
int hdc_alloc(const hados_driver_vtable *vt, hados_device *d, uint64_t size, uint64_t *o, char *err, size_t n) {
  TRAMPOLINE(vt->alloc(d, size, o));
}
int hdc_free(const hados_driver_vtable *vt, hados_device *d, uint64_t a, char *err, size_t n) { TRAMPOLINE(vt->free(d, a)); }
int hdc_map(const hados_driver_vtable *vt, hados_device *d, uint64_t a, uint64_t size, void **o, char *err, size_t n) {
  TRAMPOLINE(vt->map(d, a, size, o));
}
int hdc_qcreate(const hados_driver_vtable *vt, hados_device *d, uint32_t depth, hados_queue **o, char *err, size_t n) {
  TRAMPOLINE(vt->queue_create(d, depth, o));
}
int hdc_qdestroy(const hados_driver_vtable *vt, hados_queue *q, char *err, size_t n) { TRAMPOLINE(vt->queue_destroy(q)); }
int hdc_submit(const hados_driver_vtable *vt, hados_queue *q, const hados_program *p, char *err, size_t n) {
  TRAMPOLINE(vt->submit(q, p));
}
int hdc_poll(const hados_driver_vtable *vt, hados_queue *q, hados_completion *o, uint32_t max, uint32_t *cnt,
             uint64_t timeout_ns, char *err, size_t n) {
  int st = vt->poll(q, o, max, cnt, timeout_ns);
  if (st != HADOS_E_TIMEOUT) hdc_err(vt, st, err, n);
  return st;
}
int hdc_self_test(const hados_driver_vtable *vt, hados_device *d, char *msg, size_t mn, char *err, size_t n) {
  TRAMPOLINE(vt->self_test(d, msg, mn));
}

/* Returns NULL if the vtable is usable, else "abi", "size" or a description. */
const char *hdc_check(const hados_driver_vtable *vt) {
  if (!vt) return "the entry point returned no vtable";
  if (vt->abi_version != HADOS_DRIVER_ABI_VERSION) return "abi";
  if (vt->struct_size < sizeof(hados_driver_vtable)) return "size";
  if (!vt->open || !vt->close || !vt->info || !vt->telemetry || !vt->alloc || !vt->free || !vt->map ||
      !vt->queue_create || !vt->queue_destroy || !vt->submit || !vt->poll || !vt->self_test || !vt->last_error)
    return "the vtable lacks a required function";
  return NULL;
}

const hados_driver_vtable *hdc_call_entry(void *fn) { return ((hados_driver_entry_fn)fn)(); }

void *hdc_dlopen(const char *path, char *err, size_t n) {
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char *m = dlerror();
    strncpy(err, m ? m : "dlopen failed", n - 1);
    err[n - 1] = 0;
  }
  return h;
}
int hdc_has_entry(void *h) { return dlsym(h, HADOS_DRIVER_ENTRY_SYMBOL) != NULL; }
const hados_driver_vtable *hdc_entry(void *h) {
  hados_driver_entry_fn f = (hados_driver_entry_fn)dlsym(h, HADOS_DRIVER_ENTRY_SYMBOL);
  return f ? f() : NULL;
}
void hdc_dlclose(void *h) { dlclose(h); }
