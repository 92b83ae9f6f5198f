/*
 * soft_device.c — the software DPU as a hados driver: configuration, device
 * memory, the vtable.
 *
 * Configuration keys (HADOS_DEVICES "soft:key=value,..."):
 *   memory=SIZE        device memory (default: a quarter of available RAM,
 *                      at most 8 GiB, at least 64 MiB); SIZE takes B, KiB,
 *                      MiB, GiB, TiB (also K, M, G, T, KB, MB, GB)
 *   cores=N            engine cores (default 2)
 *   mode=host-visible|discrete (default host-visible)
 *   hugepages=auto|on|off  auto: try hugetlb pages, else advise THP
 *   lock=true|false    mlock device memory (default false)
 *   simd=auto|avx512|avx2|scalar  highest kernel ISA to dispatch to
 *   queue_depth=N      maximum queue depth (default 1024)
 *   spin_us=N          how long an idle engine core or poller spins before
 *                      it sleeps, in microseconds (default 50, 0..10000;
 *                      0 sleeps at once)
 *   pin=auto|off       auto: when the device has as many cores (2 or more)
 *                      as the CPUs the process may use, engine core i runs on
 *                      the i-th of them; off: the OS places them
 *   dma_error_rate=P, alloc_fail_rate=P, alloc_fail_after=N,
 *   hang_after=N, lost_after=N, seed=N   fault injection
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "soft.h"

#ifndef MAP_HUGETLB
#define MAP_HUGETLB 0x40000
#endif

static __thread char last_err[512];

int soft_fail(int status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(last_err, sizeof(last_err), fmt, ap);
  va_end(ap);
  return status;
}

const char *soft_last_error(void) { return last_err; }

/* ---------------------------------------------------------------- config */

static int parse_size(const char *v, uint64_t *out) {
  /* decimal digits with an optional fraction, then an optional unit: no
     signs, hex, exponents, inf or nan */
  size_t k = 0;
  int dots = 0;
  while (isdigit((unsigned char)v[k]) || (v[k] == '.' && !dots++)) k++;
  if (k == 0 || k > 32 || (k == 1 && v[0] == '.')) return -1;
  char num[33];
  memcpy(num, v, k);
  num[k] = 0;
  errno = 0;
  double x = strtod(num, NULL);
  if (errno || !(x >= 0)) return -1;
  const char *end = v + k;
  while (*end == ' ') end++;
  uint64_t mul = 1;
  if (!*end || !strcasecmp(end, "b")) mul = 1;
  else if (!strcasecmp(end, "k") || !strcasecmp(end, "kb") || !strcasecmp(end, "kib")) mul = 1ULL << 10;
  else if (!strcasecmp(end, "m") || !strcasecmp(end, "mb") || !strcasecmp(end, "mib")) mul = 1ULL << 20;
  else if (!strcasecmp(end, "g") || !strcasecmp(end, "gb") || !strcasecmp(end, "gib")) mul = 1ULL << 30;
  else if (!strcasecmp(end, "t") || !strcasecmp(end, "tb") || !strcasecmp(end, "tib")) mul = 1ULL << 40;
  else return -1;
  double bytes = x * (double)mul;
  if (!(bytes < 18446744073709551616.0)) return -1; /* does not fit 64 bits */
  *out = (uint64_t)bytes;
  return 0;
}

static int parse_uint(const char *v, uint64_t *out) {
  char *end;
  if (!*v || *v == '-') return -1;
  errno = 0;
  unsigned long long x = strtoull(v, &end, 10);
  if (*end || errno) return -1;
  *out = x;
  return 0;
}

static int parse_rate(const char *v, double *out) {
  char *end;
  errno = 0;
  double x = strtod(v, &end);
  if (end == v || *end || errno || !(x >= 0 && x <= 1)) return -1;
  *out = x;
  return 0;
}

typedef struct soft_config {
  uint64_t memory;
  uint64_t cores;
  uint32_t mode;
  int hugepages; /* -1 off, 0 auto, 1 on */
  int lock;
  uint32_t simd;
  uint64_t queue_depth;
  uint64_t spin_us;
  int pin;
  soft_faults faults;
} soft_config;

static uint64_t default_memory(void) {
  long pages = sysconf(_SC_AVPHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
  uint64_t avail = (pages > 0 && psz > 0) ? (uint64_t)pages * (uint64_t)psz : (1ULL << 30);
  uint64_t m = avail / 4;
  if (m > (8ULL << 30)) m = 8ULL << 30;
  if (m < (64ULL << 20)) m = 64ULL << 20;
  return m & ~((1ULL << 20) - 1);
}

static int set_key(soft_config *c, const char *k, const char *v) {
  uint64_t u;
  if (!strcmp(k, "memory")) {
    if (parse_size(v, &c->memory) || c->memory == 0) return soft_fail(HADOS_E_INVALID, "soft: memory=%s: want a positive size such as 512MiB or 4GiB", v);
  } else if (!strcmp(k, "cores")) {
    if (parse_uint(v, &c->cores) || c->cores == 0 || c->cores > SOFT_MAX_CORES)
      return soft_fail(HADOS_E_INVALID, "soft: cores=%s: want an integer in [1, %u]", v, SOFT_MAX_CORES);
  } else if (!strcmp(k, "mode")) {
    if (!strcmp(v, "host-visible")) c->mode = HADOS_MODE_HOST_VISIBLE;
    else if (!strcmp(v, "discrete")) c->mode = HADOS_MODE_DISCRETE;
    else return soft_fail(HADOS_E_INVALID, "soft: mode=%s: want host-visible or discrete", v);
  } else if (!strcmp(k, "hugepages")) {
    if (!strcmp(v, "auto")) c->hugepages = 0;
    else if (!strcmp(v, "on") || !strcmp(v, "true")) c->hugepages = 1;
    else if (!strcmp(v, "off") || !strcmp(v, "false")) c->hugepages = -1;
    else return soft_fail(HADOS_E_INVALID, "soft: hugepages=%s: want auto, on or off", v);
  } else if (!strcmp(k, "lock")) {
    if (!strcmp(v, "true") || !strcmp(v, "on")) c->lock = 1;
    else if (!strcmp(v, "false") || !strcmp(v, "off")) c->lock = 0;
    else return soft_fail(HADOS_E_INVALID, "soft: lock=%s: want true or false", v);
  } else if (!strcmp(k, "simd")) {
    if (!strcmp(v, "auto") || !strcmp(v, "avx512")) c->simd = HADOS_SIMD_AVX512;
    else if (!strcmp(v, "avx2")) c->simd = HADOS_SIMD_AVX2;
    else if (!strcmp(v, "scalar")) c->simd = HADOS_SIMD_SCALAR;
    else return soft_fail(HADOS_E_INVALID, "soft: simd=%s: want auto, avx512, avx2 or scalar", v);
  } else if (!strcmp(k, "queue_depth")) {
    if (parse_uint(v, &c->queue_depth) || c->queue_depth == 0 || c->queue_depth > SOFT_MAX_DEPTH)
      return soft_fail(HADOS_E_INVALID, "soft: queue_depth=%s: want an integer in [1, %u]", v, SOFT_MAX_DEPTH);
  } else if (!strcmp(k, "spin_us")) {
    if (parse_uint(v, &c->spin_us) || c->spin_us > 10000)
      return soft_fail(HADOS_E_INVALID, "soft: spin_us=%s: want an integer in [0, 10000]", v);
  } else if (!strcmp(k, "pin")) {
    if (!strcmp(v, "auto") || !strcmp(v, "on")) c->pin = 1;
    else if (!strcmp(v, "off")) c->pin = 0;
    else return soft_fail(HADOS_E_INVALID, "soft: pin=%s: want auto or off", v);
  } else if (!strcmp(k, "dma_error_rate")) {
    if (parse_rate(v, &c->faults.dma_error_rate)) return soft_fail(HADOS_E_INVALID, "soft: dma_error_rate=%s: want a probability in [0, 1]", v);
  } else if (!strcmp(k, "alloc_fail_rate")) {
    if (parse_rate(v, &c->faults.alloc_fail_rate)) return soft_fail(HADOS_E_INVALID, "soft: alloc_fail_rate=%s: want a probability in [0, 1]", v);
  } else if (!strcmp(k, "alloc_fail_after") || !strcmp(k, "hang_after") || !strcmp(k, "lost_after") || !strcmp(k, "seed")) {
    if (parse_uint(v, &u) || (strcmp(k, "seed") && u > (uint64_t)INT64_MAX)) return soft_fail(HADOS_E_INVALID, "soft: %s=%s: want a non-negative integer", k, v);
    if (!strcmp(k, "alloc_fail_after")) c->faults.alloc_fail_after = (int64_t)u;
    else if (!strcmp(k, "hang_after")) c->faults.hang_after = (int64_t)u;
    else if (!strcmp(k, "lost_after")) c->faults.lost_after = (int64_t)u;
    else c->faults.seed = u;
  } else {
    return soft_fail(HADOS_E_INVALID,
                     "soft: unknown option %s (known: memory, cores, mode, hugepages, lock, simd, queue_depth, spin_us, pin, "
                     "dma_error_rate, alloc_fail_rate, alloc_fail_after, hang_after, lost_after, seed)",
                     k);
  }
  return HADOS_OK;
}

static int parse_config(const char *cfg, soft_config *c) {
  memset(c, 0, sizeof(*c));
  c->cores = 2;
  c->mode = HADOS_MODE_HOST_VISIBLE;
  c->simd = HADOS_SIMD_AVX512;
  c->queue_depth = 1024;
  c->spin_us = 50;
  c->pin = PIN_DEFAULT;
  c->faults.alloc_fail_after = c->faults.hang_after = c->faults.lost_after = -1;
  c->faults.seed = 42;
  if (!cfg) cfg = "";
  if (strlen(cfg) > 4096) return soft_fail(HADOS_E_INVALID, "soft: configuration string longer than 4096 bytes");
  char buf[4097];
  strcpy(buf, cfg);
  char *save = NULL;
  for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    while (isspace((unsigned char)*tok)) tok++;
    if (!*tok) continue;
    char *eq = strchr(tok, '=');
    if (!eq) return soft_fail(HADOS_E_INVALID, "soft: option %s: want key=value", tok);
    *eq = 0;
    char *k = tok, *v = eq + 1;
    for (char *e = eq - 1; e >= k && isspace((unsigned char)*e); e--) *e = 0;
    while (isspace((unsigned char)*v)) v++;
    for (char *e = v + strlen(v) - 1; e >= v && isspace((unsigned char)*e); e--) *e = 0;
    int st = set_key(c, k, v);
    if (st) return st;
  }
  if (!c->memory) c->memory = default_memory();
  return HADOS_OK;
}

/* ---------------------------------------------------------------- driver */

static int soft_open(const char *config, uint32_t index, hados_device **out) {
  if (!out) return soft_fail(HADOS_E_INVALID, "soft: open needs an output handle");
  *out = NULL;
  soft_config c;
  int st = parse_config(config, &c);
  if (st) return st;
  if (c.memory < 1ULL << 20) return soft_fail(HADOS_E_INVALID, "soft: memory=%llu bytes is below the 1 MiB minimum", (unsigned long long)c.memory);
  if (c.memory > SOFT_ADDR_STRIDE)
    return soft_fail(HADOS_E_INVALID, "soft: memory=%llu bytes is above the %llu-byte maximum of one device", (unsigned long long)c.memory,
                     (unsigned long long)SOFT_ADDR_STRIDE);
  if (index >= SOFT_MAX_DEVICES) return soft_fail(HADOS_E_INVALID, "soft: device index %u is above %u", index, SOFT_MAX_DEVICES - 1);
  uint64_t size = (c.memory + (2ULL << 20) - 1) & ~((2ULL << 20) - 1);

  soft_device *d = calloc(1, sizeof(*d));
  if (!d) return soft_fail(HADOS_E_NOMEM, "soft: out of host memory");
  d->index = index;
  d->spin_ns = c.spin_us * 1000;
  d->pin = c.pin;
  d->base = ((uint64_t)index + 1) * SOFT_ADDR_STRIDE; /* disjoint address ranges per device */
  d->size = size;
  d->mode = c.mode;
  d->ncores = (uint32_t)c.cores;
  d->max_depth = (uint32_t)c.queue_depth;
  d->faults = c.faults;
  d->rng = c.faults.seed ? c.faults.seed : 1;
  soft_kernels_select(&d->kern, c.simd);

  void *mem = MAP_FAILED;
  if (c.hugepages >= 0) {
    mem = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0); /* reserved up front: no SIGBUS later */
    if (mem != MAP_FAILED) d->hugepages = 2;
    else if (c.hugepages == 1) {
      free(d);
      return soft_fail(HADOS_E_NOMEM, "soft: hugepages=on but %llu bytes of hugetlb pages are not available (%s); use hugepages=auto",
                       (unsigned long long)size, strerror(errno));
    }
  }
  if (mem == MAP_FAILED) {
    mem = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (mem == MAP_FAILED) {
      int e = errno;
      free(d);
      return soft_fail(HADOS_E_NOMEM, "soft: cannot map %llu bytes of device memory: %s", (unsigned long long)size, strerror(e));
    }
#ifdef MADV_HUGEPAGE
    if (c.hugepages == 0 && madvise(mem, size, MADV_HUGEPAGE) == 0) d->hugepages = 1;
#endif
  }
  d->mem = mem;
  if (c.lock) {
    if (mlock(mem, size) != 0) {
      int e = errno;
      munmap(mem, size);
      free(d);
      return soft_fail(HADOS_E_NOMEM, "soft: lock=true but mlock of %llu bytes failed: %s", (unsigned long long)size, strerror(e));
    }
    d->locked = 1;
  }
  if ((st = soft_heap_init(&d->heap, size))) {
    munmap(mem, size);
    free(d);
    return st;
  }
  d->open_ns = soft_now_ns();
  if ((st = soft_queues_start(d))) {
    soft_heap_destroy(&d->heap);
    munmap(mem, size);
    free(d);
    return st;
  }
  *out = (hados_device *)d;
  return HADOS_OK;
}

static int soft_close(hados_device *h) {
  soft_device *d = (soft_device *)h;
  if (!d) return soft_fail(HADOS_E_INVALID, "soft: close of a null device");
  soft_queues_stop(d);
  pthread_mutex_destroy(&d->mu);
  pthread_cond_destroy(&d->work_cv);
  if (d->locked) munlock(d->mem, d->size);
  munmap(d->mem, d->size);
  soft_heap_destroy(&d->heap);
  free(d);
  return HADOS_OK;
}

static int soft_info(hados_device *h, hados_device_info *out) {
  soft_device *d = (soft_device *)h;
  if (!d || !out) return soft_fail(HADOS_E_INVALID, "soft: info needs a device and an output");
  memset(out, 0, sizeof(*out));
  snprintf(out->name, sizeof(out->name), "hados software DPU");
  snprintf(out->driver, sizeof(out->driver), "soft");
  snprintf(out->version, sizeof(out->version), "1.0");
  out->memory_bytes = d->size;
  out->cores = d->ncores;
  out->mode = d->mode;
  out->simd = d->kern.simd;
  out->hugepages = d->hugepages;
  out->locked = d->locked;
  out->max_queue_depth = d->max_depth;
  out->alloc_align = SOFT_ALIGN;
  return HADOS_OK;
}

static int soft_telemetry(hados_device *h, hados_telemetry *t) {
  soft_device *d = (soft_device *)h;
  if (!d || !t) return soft_fail(HADOS_E_INVALID, "soft: telemetry needs a device and an output");
  memset(t, 0, sizeof(*t));
  pthread_mutex_lock(&d->heap.mu);
  t->mem_used_bytes = d->heap.used;
  t->mem_peak_bytes = d->heap.peak;
  pthread_mutex_unlock(&d->heap.mu);
  t->allocs = atomic_load(&d->allocs);
  t->frees = atomic_load(&d->frees);
  t->alloc_failures = atomic_load(&d->alloc_failures);
  t->bytes_h2d = atomic_load(&d->bytes_h2d);
  t->bytes_d2h = atomic_load(&d->bytes_d2h);
  t->bytes_d2d = atomic_load(&d->bytes_d2d);
  t->programs_submitted = atomic_load(&d->programs_submitted);
  t->programs_completed = atomic_load(&d->programs_completed);
  t->programs_failed = atomic_load(&d->programs_failed);
  t->ops_executed = atomic_load(&d->ops_executed);
  t->busy_ns = atomic_load(&d->busy_ns);
  t->uptime_ns = soft_now_ns() - d->open_ns;
  t->faults_injected = atomic_load(&d->faults_injected);
  pthread_mutex_lock(&d->mu);
  t->health = atomic_load(&d->lost) ? HADOS_HEALTH_LOST : d->hung ? HADOS_HEALTH_DEGRADED : HADOS_HEALTH_OK;
  t->queues_open = d->nqueues;
  t->queue_depth = d->pending;
  pthread_mutex_unlock(&d->mu);
  return HADOS_OK;
}

static int soft_alloc(hados_device *h, uint64_t size, uint64_t *out) {
  soft_device *d = (soft_device *)h;
  if (!d || !out) return soft_fail(HADOS_E_INVALID, "soft: alloc needs a device and an output");
  if (atomic_load(&d->lost)) return soft_fail(HADOS_E_LOST, "soft device %u: device lost", d->index);
  if (size == 0) return soft_fail(HADOS_E_INVALID, "soft device %u: allocation of 0 bytes", d->index);
  uint64_t n = atomic_fetch_add(&d->allocs, 1) + 1;
  int fail = d->faults.alloc_fail_after >= 0 && n > (uint64_t)d->faults.alloc_fail_after;
  if (!fail && d->faults.alloc_fail_rate > 0) {
    pthread_mutex_lock(&d->mu);
    fail = (double)(soft_rand(&d->rng) >> 11) / 9007199254740992.0 < d->faults.alloc_fail_rate;
    pthread_mutex_unlock(&d->mu);
  }
  if (fail) {
    atomic_fetch_sub(&d->allocs, 1);
    atomic_fetch_add(&d->alloc_failures, 1);
    atomic_fetch_add(&d->faults_injected, 1);
    return soft_fail(HADOS_E_NOMEM, "soft device %u: injected allocation failure (%llu bytes)", d->index, (unsigned long long)size);
  }
  uint64_t off;
  int st = soft_heap_alloc(&d->heap, size, &off);
  if (st) {
    atomic_fetch_sub(&d->allocs, 1);
    atomic_fetch_add(&d->alloc_failures, 1);
    return st;
  }
  *out = d->base + off;
  return HADOS_OK;
}

static int soft_free(hados_device *h, uint64_t addr) {
  soft_device *d = (soft_device *)h;
  if (!d) return soft_fail(HADOS_E_INVALID, "soft: free of a null device");
  if (addr < d->base || addr - d->base >= d->size || soft_heap_free(&d->heap, addr - d->base, NULL) != HADOS_OK)
    return soft_fail(HADOS_E_INVALID, "soft device %u: free of 0x%llx, which is not an allocated block (double free?)", d->index,
                     (unsigned long long)addr);
  atomic_fetch_add(&d->frees, 1);
  return HADOS_OK;
}

static int soft_map(hados_device *h, uint64_t addr, uint64_t size, void **out) {
  soft_device *d = (soft_device *)h;
  if (!d || !out) return soft_fail(HADOS_E_INVALID, "soft: map needs a device and an output");
  if (d->mode != HADOS_MODE_HOST_VISIBLE)
    return soft_fail(HADOS_E_NOTSUP, "soft device %u: memory is discrete; the host cannot map it (use DMA)", d->index);
  uint8_t *p;
  int st = soft_range(d, addr, size, &p);
  if (st) return st;
  *out = p;
  return HADOS_OK;
}

static int soft_qcreate(hados_device *h, uint32_t depth, hados_queue **out) {
  if (!h || !out) return soft_fail(HADOS_E_INVALID, "soft: queue_create needs a device and an output");
  return soft_queue_create((soft_device *)h, depth, (soft_queue **)out);
}

static int soft_qdestroy(hados_queue *q) {
  if (!q) return soft_fail(HADOS_E_INVALID, "soft: queue_destroy of a null queue");
  return soft_queue_destroy((soft_queue *)q);
}

static int soft_qsubmit(hados_queue *q, const hados_program *p) {
  if (!q) return soft_fail(HADOS_E_INVALID, "soft: submit to a null queue");
  return soft_submit((soft_queue *)q, p);
}

static int soft_qpoll(hados_queue *q, hados_completion *out, uint32_t max, uint32_t *n, uint64_t timeout_ns) {
  if (!q || !n) return soft_fail(HADOS_E_INVALID, "soft: poll needs a queue and a count");
  return soft_poll((soft_queue *)q, out, max, n, timeout_ns);
}

/* Self-test: allocate, write patterns, copy, compare and checksum on one core
   synchronously, without queues, so that it also works on a busy device. */
static int soft_self_test(hados_device *h, char *msg, size_t msg_len) {
  soft_device *d = (soft_device *)h;
  if (!d) return soft_fail(HADOS_E_INVALID, "soft: self_test of a null device");
  const uint64_t n = 1 << 20;
  uint64_t a, b, r, oa, ob;
  uint64_t *rng = NULL; /* no injected faults */
  if (atomic_load(&d->lost)) return soft_fail(HADOS_E_LOST, "soft device %u: device lost", d->index);
  int st = soft_heap_alloc(&d->heap, n, &oa); /* straight from the heap: no injected allocation faults */
  if (st) return st;
  if ((st = soft_heap_alloc(&d->heap, n, &ob))) {
    soft_heap_free(&d->heap, oa, NULL);
    return st;
  }
  a = d->base + oa;
  b = d->base + ob;
  const char *failed = NULL;
  for (uint32_t kind = 0; kind <= HADOS_PATTERN_ADDRESS && !failed; kind++) {
    hados_op w = {.opcode = HADOS_OP_PATTERN_WRITE, .dst = a, .len = n, .arg = {kind, 7}};
    hados_op c = {.opcode = HADOS_OP_PATTERN_CHECK, .src = a, .len = n, .arg = {kind, 7}};
    if (soft_exec_op(d, &w, 0, &r, rng) || soft_exec_op(d, &c, 0, &r, rng)) failed = "pattern";
  }
  hados_op cp = {.opcode = HADOS_OP_COPY_D2D, .dst = b, .src = a, .len = n};
  hados_op cmp = {.opcode = HADOS_OP_COMPARE, .dst = b, .src = a, .len = n};
  if (!failed && (soft_exec_op(d, &cp, 0, &r, rng) || soft_exec_op(d, &cmp, 0, &r, rng))) failed = "copy/compare";
  uint64_t s1 = 0, s2 = 1;
  hados_op cs1 = {.opcode = HADOS_OP_CHECKSUM, .src = a, .len = n};
  hados_op cs2 = {.opcode = HADOS_OP_CHECKSUM, .src = b, .len = n};
  if (!failed && (soft_exec_op(d, &cs1, 0, &s1, rng) || soft_exec_op(d, &cs2, 0, &s2, rng) || s1 != s2)) failed = "checksum";
  soft_heap_free(&d->heap, oa, NULL);
  soft_heap_free(&d->heap, ob, NULL);
  if (failed) {
    if (msg && msg_len) snprintf(msg, msg_len, "self-test failed: %s", failed);
    return soft_fail(HADOS_E_MISMATCH, "soft device %u: self-test failed: %s", d->index, failed);
  }
  if (msg && msg_len)
    snprintf(msg, msg_len, "ok: patterns, copy, compare, checksum on %s kernels",
             d->kern.simd == HADOS_SIMD_AVX512 ? "avx512" : d->kern.simd == HADOS_SIMD_AVX2 ? "avx2" : "scalar");
  return HADOS_OK;
}

static const hados_driver_vtable soft_vtable = {
    .abi_version = HADOS_DRIVER_ABI_VERSION,
    .struct_size = sizeof(hados_driver_vtable),
    .name = "soft",
    .open = soft_open,
    .close = soft_close,
    .info = soft_info,
    .telemetry = soft_telemetry,
    .alloc = soft_alloc,
    .free = soft_free,
    .map = soft_map,
    .queue_create = soft_qcreate,
    .queue_destroy = soft_qdestroy,
    .submit = soft_qsubmit,
    .poll = soft_qpoll,
    .self_test = soft_self_test,
    .last_error = soft_last_error,
};

/* Built into hados, the entry has a private name; built as a plugin .so
   (-DHADOS_SOFT_PLUGIN), it is the standard entry symbol. */
#ifdef HADOS_SOFT_PLUGIN
__attribute__((visibility("default"))) const hados_driver_vtable *hados_driver_entry(void) { return &soft_vtable; }
#else
const hados_driver_vtable *hados_soft_driver_entry(void) { return &soft_vtable; }
#endif
