/*
 * soft.h — internals of the software DPU engine (not part of any ABI).
 *
 * The engine is a device in the sense of hados_driver.h: a memory region the
 * host addresses with device addresses, engine cores (threads) executing
 * submitted programs in FIFO order, and queues whose completions the host
 * polls. Everything here is private to the engine's translation units.
 */
#ifndef HADOS_SOFT_H
#define HADOS_SOFT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "hados_driver.h"

#define SOFT_ALIGN 64u
#define SOFT_MAX_CORES 64u
#ifndef PIN_DEFAULT
#define PIN_DEFAULT 1 /* pin= when not given: 1 auto, 0 off */
#endif
#define SOFT_MAX_DEPTH 65536u
#define SOFT_ADDR_STRIDE (1ULL << 44) /* device N's memory starts at (N+1) * stride; also its maximum size */
#define SOFT_MAX_DEVICES 4096u
#define SOFT_MAX_SLEEP_NS 60000000000ULL /* OP_SLEEP longer than a minute is refused */

/* ---------------------------------------------------------------- errors */
int soft_fail(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
const char *soft_last_error(void);

/* ---------------------------------------------------------------- memory */
typedef struct soft_extent {
  uint64_t off, len;
  struct soft_extent *next;
} soft_extent;

typedef struct soft_heap {
  pthread_mutex_t mu;
  soft_extent *free_list;  /* sorted by offset, coalesced */
  uint64_t *keys, *vals;   /* open addressing: offset+1 -> length */
  uint64_t cap, count;
  uint64_t used, peak;
} soft_heap;

int soft_heap_init(soft_heap *h, uint64_t size);
void soft_heap_destroy(soft_heap *h);
int soft_heap_alloc(soft_heap *h, uint64_t size, uint64_t *off);
/* As soft_heap_alloc, from the top of the heap (the highest free extent
   that fits): for short-lived scratch, which then reuses the same, already
   faulted-in pages op after op instead of landing in holes that
   long-lived blocks at the bottom leave (and faulting fresh pages). */
int soft_heap_alloc_high(soft_heap *h, uint64_t size, uint64_t *off);
int soft_heap_free(soft_heap *h, uint64_t off, uint64_t *len);
int soft_heap_lookup(soft_heap *h, uint64_t off, uint64_t *len);

/* ---------------------------------------------------------------- faults */
typedef struct soft_faults {
  double dma_error_rate;  /* probability that a copy op fails with E_IO */
  double alloc_fail_rate; /* probability that an alloc fails with E_NOMEM */
  int64_t alloc_fail_after; /* allocations after this many fail (-1 off) */
  int64_t hang_after;     /* programs after this many never run (-1 off) */
  int64_t lost_after;     /* programs after this many find the device lost (-1 off) */
  uint64_t seed;
} soft_faults;

/* ---------------------------------------------------------------- queues */
typedef struct soft_work {
  struct soft_queue *q;
  hados_op *ops;
  uint32_t n_ops;
  uint64_t tag;
  uint64_t *results;
  uint64_t submit_ns;
  struct soft_work *next;
} soft_work;

typedef struct soft_queue {
  struct soft_device *dev;
  uint32_t depth;
  uint32_t inflight;        /* submitted, completion not yet polled */
  hados_completion *ring;   /* completions ready, capacity depth */
  uint32_t head, count;
  int closed;
  int poller_asleep;        /* a poll waits on cv: a submit wakes it (see soft_poll) */
  pthread_cond_t cv;        /* signalled when a completion is posted */
  struct soft_queue *next;  /* device's list of queues */
} soft_queue;

/* ---------------------------------------------------------------- kernels */
typedef struct soft_kernels {
  uint32_t simd;
  void (*fill)(uint64_t *dst, uint64_t words, uint64_t pattern);
  uint64_t (*checksum)(const uint8_t *p, uint64_t len);
  void (*pattern_write)(uint64_t *dst, uint64_t words, uint32_t kind, uint64_t seed, uint64_t base);
  uint64_t (*pattern_check)(const uint64_t *src, uint64_t words, uint32_t kind, uint64_t seed, uint64_t base);
} soft_kernels;

void soft_kernels_select(soft_kernels *k, uint32_t max_simd);
uint32_t soft_simd_detect(void);

/* ---------------------------------------------------------------- device */
typedef struct soft_device {
  uint32_t index;
  uint64_t base;            /* device address of offset 0 */
  uint8_t *mem;
  uint64_t size;
  uint32_t mode;
  uint32_t hugepages, locked;
  uint32_t ncores;
  uint32_t max_depth;
  uint64_t spin_ns;         /* idle engine cores and pollers spin this long before sleeping */
  int pin;                  /* engine cores pinned to the process's CPUs (pin=auto) */
  uint32_t pinned_next;     /* the next engine core's index among them (under mu) */
  soft_heap heap;
  soft_kernels kern;
  soft_faults faults;

  pthread_mutex_t mu;       /* guards the work list, queues, counters below */
  pthread_cond_t work_cv;
  soft_work *work_head, *work_tail;
  uint32_t pending;         /* queued or running programs, all queues */
  soft_queue *queues;
  uint32_t nqueues;
  int closing;
  int hung;
  atomic_int lost;
  pthread_t cores[SOFT_MAX_CORES];
  uint32_t started_cores;

  /* fault RNG and counters (under mu unless atomic) */
  uint64_t rng;
  uint64_t programs_started;
  _Atomic uint64_t allocs, frees, alloc_failures, faults_injected;
  _Atomic uint64_t bytes_h2d, bytes_d2h, bytes_d2d;
  _Atomic uint64_t programs_submitted, programs_completed, programs_failed;
  _Atomic uint64_t ops_executed, busy_ns;
  uint64_t open_ns;
} soft_device;

/* A block of device memory held by an engine structure (an aggregation
   state, a join table): p in the device's memory, bytes as allocated
   (rounded up to SOFT_ALIGN). Its owner frees it with soft_block_free. */
typedef struct soft_block {
  uint8_t *p;
  uint64_t bytes;
} soft_block;

static inline uint64_t soft_round_align(uint64_t n) { return (n + SOFT_ALIGN - 1) & ~(uint64_t)(SOFT_ALIGN - 1); }
/* Allocates max(bytes, 1) rounded to SOFT_ALIGN from the device heap into
   b (counted in the device's allocations); E_NOMEM without a message when
   the heap is exhausted (callers say what they were allocating). */
int soft_block_alloc(soft_device *d, soft_block *b, uint64_t bytes);
/* As soft_block_alloc, from the top of the heap (soft_heap_alloc_high). */
int soft_block_alloc_high(soft_device *d, soft_block *b, uint64_t bytes);
/* Frees b (idempotent: a block without memory is ignored) and clears it. */
void soft_block_free(soft_device *d, soft_block *b);

uint64_t soft_now_ns(void);
int soft_queues_start(soft_device *d);
void soft_queues_stop(soft_device *d);
int soft_queue_create(soft_device *d, uint32_t depth, soft_queue **out);
int soft_queue_destroy(soft_queue *q);
int soft_submit(soft_queue *q, const hados_program *prog);
int soft_poll(soft_queue *q, hados_completion *out, uint32_t max, uint32_t *n, uint64_t timeout_ns);

/* Executes one op; returns a status and writes the op's result. */
int soft_exec_op(soft_device *d, const hados_op *op, uint64_t prev_result, uint64_t *result, uint64_t *rng);
int soft_range(soft_device *d, uint64_t addr, uint64_t len, uint8_t **out);
uint64_t soft_rand(uint64_t *state);

#endif
