/* bridge.h — C helpers of package cdev (see bridge.c). */
#ifndef HADOS_CDEV_BRIDGE_H
#define HADOS_CDEV_BRIDGE_H
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include "hados_driver.h"

int hdc_open(const hados_driver_vtable *vt, const char *cfg, uint32_t idx, hados_device **out, char *err, size_t n);
int hdc_close(const hados_driver_vtable *vt, hados_device *d, char *err, size_t n);
int hdc_info(const hados_driver_vtable *vt, hados_device *d, hados_device_info *o, char *err, size_t n);
int hdc_telemetry(const hados_driver_vtable *vt, hados_device *d, hados_telemetry *o, char *err, size_t n);
int hdc_alloc(const hados_driver_vtable *vt, hados_device *d, uint64_t size, uint64_t *o, char *err, size_t n);
int hdc_free(const hados_driver_vtable *vt, hados_device *d, uint64_t a, char *err, size_t n);
int hdc_map(const hados_driver_vtable *vt, hados_device *d, uint64_t a, uint64_t size, void **o, char *err, size_t n);
int hdc_qcreate(const hados_driver_vtable *vt, hados_device *d, uint32_t depth, hados_queue **o, char *err, size_t n);
int hdc_qdestroy(const hados_driver_vtable *vt, hados_queue *q, char *err, size_t n);
int hdc_submit(const hados_driver_vtable *vt, hados_queue *q, const hados_program *p, char *err, size_t n);
int hdc_poll(const hados_driver_vtable *vt, hados_queue *q, hados_completion *o, uint32_t max, uint32_t *cnt,
             uint64_t timeout_ns, char *err, size_t n);
int hdc_self_test(const hados_driver_vtable *vt, hados_device *d, char *msg, size_t mn, char *err, size_t n);

const char *hdc_check(const hados_driver_vtable *vt);
const hados_driver_vtable *hdc_call_entry(void *fn);
void *hdc_dlopen(const char *path, char *err, size_t n);
int hdc_has_entry(void *h);
const hados_driver_vtable *hdc_entry(void *h);
void hdc_dlclose(void *h);
#endif
