/*
 * hados_driver.h — the C driver interface of hados devices (ABI version 1).
 *
 * A driver is a shared object (or code linked into hados) that exports one
 * symbol, HADOS_DRIVER_ENTRY_SYMBOL, returning a pointer to a static
 * hados_driver_vtable. hados checks abi_version and struct_size before it
 * calls anything else, so an old or foreign .so is refused with a clear error.
 *
 * Model
 *   device   an opened accelerator with its own memory, addressed by 64-bit
 *            device addresses (never host pointers), and engine cores.
 *   queue    a submission/completion queue pair. The host submits programs;
 *            the device executes each program on one engine core and posts
 *            one completion per program, in any order, carrying the
 *            program's user tag.
 *   program  an ordered list of ops (DMA copies and kernels). Ops of one
 *            program run in order; programs of one queue may run in
 *            parallel on different cores.
 *
 * Ownership
 *   - hados_driver_vtable is static and owned by the driver.
 *   - hados_device / hados_queue are opaque handles owned by the driver;
 *     the host releases them with close / queue_destroy exactly once.
 *   - submit copies the hados_program and its ops array: both may be freed
 *     when submit returns. Host memory named by ops (COPY_H2D source,
 *     COPY_D2H destination) and the results array must stay valid and
 *     unmoved until the program's completion has been polled.
 *   - Device memory from alloc is released with free; close releases all.
 *
 * Threading
 *   Every function may be called from any host thread. submit and poll on
 *   one queue may run concurrently with each other; calls on different
 *   queues and devices are independent. queue_destroy must not overlap any
 *   other call on that queue, and close any other call on that device or
 *   its queues (hados serialises them).
 *
 * Errors
 *   Functions return HADOS_OK (0) or a negative HADOS_E_* status. The
 *   driver keeps a human-readable message for the last error of the calling
 *   thread, returned by last_error (valid until the thread's next call).
 */
#ifndef HADOS_DRIVER_H
#define HADOS_DRIVER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HADOS_DRIVER_ABI_VERSION 1u
#define HADOS_DRIVER_ENTRY_SYMBOL "hados_driver_entry"

/* Status codes. */
#define HADOS_OK 0
#define HADOS_E_INVALID (-1)  /* bad argument or configuration */
#define HADOS_E_NOMEM (-2)    /* device memory exhausted (or injected failure) */
#define HADOS_E_NOTSUP (-3)   /* not supported, e.g. map in discrete mode */
#define HADOS_E_TIMEOUT (-4)  /* poll: nothing completed before the timeout */
#define HADOS_E_IO (-5)       /* a DMA descriptor failed; retrying may succeed */
#define HADOS_E_LOST (-6)     /* device lost: every later call fails */
#define HADOS_E_CLOSED (-7)   /* handle already closed */
#define HADOS_E_BUSY (-8)     /* queue full: poll, then submit again */
#define HADOS_E_FAULT (-9)    /* device address or length out of range */
#define HADOS_E_MISMATCH (-10) /* a compare op found a difference */

/* Memory modes. */
#define HADOS_MODE_HOST_VISIBLE 0u /* host may map device memory */
#define HADOS_MODE_DISCRETE 1u     /* every byte crosses DMA */

/* SIMD levels an engine dispatches to. */
#define HADOS_SIMD_SCALAR 0u
#define HADOS_SIMD_AVX2 1u
#define HADOS_SIMD_AVX512 2u

/* Health. */
#define HADOS_HEALTH_OK 0u
#define HADOS_HEALTH_DEGRADED 1u
#define HADOS_HEALTH_LOST 2u

typedef struct hados_device hados_device;
typedef struct hados_queue hados_queue;

typedef struct hados_device_info {
  char name[64];        /* e.g. "soft-dpu" */
  char driver[32];      /* driver name, e.g. "soft" */
  char version[32];     /* driver/firmware version string */
  uint64_t memory_bytes;
  uint32_t cores;       /* engine cores executing programs */
  uint32_t mode;        /* HADOS_MODE_* */
  uint32_t simd;        /* HADOS_SIMD_* the kernels dispatch to */
  uint32_t hugepages;   /* 0 none, 1 transparent (advised), 2 hugetlb */
  uint32_t locked;      /* 1 if device memory is mlocked */
  uint32_t max_queue_depth;
  uint64_t alloc_align; /* alignment of every allocation (>= 64) */
} hados_device_info;

typedef struct hados_telemetry {
  uint64_t mem_used_bytes;
  uint64_t mem_peak_bytes;
  uint64_t allocs;
  uint64_t frees;
  uint64_t alloc_failures;
  uint64_t bytes_h2d;
  uint64_t bytes_d2h;
  uint64_t bytes_d2d;
  uint64_t programs_submitted;
  uint64_t programs_completed;
  uint64_t programs_failed;
  uint64_t ops_executed;
  uint64_t busy_ns;        /* summed over cores */
  uint64_t uptime_ns;
  uint64_t faults_injected;
  uint32_t health;         /* HADOS_HEALTH_* */
  uint32_t queues_open;
  uint32_t queue_depth;    /* programs waiting or running, all queues */
  uint32_t reserved;
} hados_telemetry;

/* Ops. Fields not named by an op must be zero. */
enum hados_opcode {
  HADOS_OP_NOP = 0,
  HADOS_OP_COPY_H2D = 1,   /* dst: device addr, src: host ptr, len */
  HADOS_OP_COPY_D2H = 2,   /* dst: host ptr, src: device addr, len */
  HADOS_OP_COPY_D2D = 3,   /* dst, src: device addrs, len (may overlap) */
  HADOS_OP_FILL = 4,       /* dst, len; arg[0] = 64-bit pattern repeated */
  HADOS_OP_CHECKSUM = 5,   /* src, len; result = 64-bit checksum: 8 lanes h[j] = 0x9E3779B97F4A7C15*(j+1);
                              word i (little-endian): h[i%8] = (h[i%8] ^ w) * 0x100000001B3; the len%8 tail
                              bytes packed little-endian into one word folded into lane 0; result r = len,
                              then for each lane r = (r ^ h[j]) * 0x100000001B3 (Go: device.Checksum) */
  HADOS_OP_COMPARE = 6,    /* dst, src, len; result = first differing offset; status MISMATCH if any */
  HADOS_OP_PATTERN_WRITE = 7, /* dst, len (multiple of 8); arg[0] = pattern kind, arg[1] = seed */
  HADOS_OP_PATTERN_CHECK = 8, /* src, len; arg[0], arg[1] as written; result = first bad offset */
  HADOS_OP_COMPRESS = 9,   /* dst, src: device; len; arg[0] = codec, arg[1] = dst capacity; result = bytes written */
  HADOS_OP_DECOMPRESS = 10, /* dst, src: device; len = compressed bytes; arg[0] = codec, arg[1] = dst capacity; result = bytes written */
  HADOS_OP_SLEEP = 11,     /* arg[0] = nanoseconds (at most 60 s): occupy a core (queue and latency tests) */
  /* 12..16: the pipeline and aggregation ops of hados_pipeline.h */
  /* 17..22: the sort, gather and join ops of hados_relational.h */
  /* 23: the join condition op of hados_joincond.h */
  HADOS_OP__COUNT = 24
};

/* Op flags. */
#define HADOS_OPF_LEN_FROM_PREV 1u /* use the previous op's result as len; len is
                                      then the capacity it must not exceed */

/* Pattern kinds for PATTERN_WRITE / PATTERN_CHECK. */
#define HADOS_PATTERN_WALKING_ONES 0u
#define HADOS_PATTERN_RANDOM 1u          /* xorshift64 stream from arg[1] */
#define HADOS_PATTERN_ADDRESS 2u         /* each word holds its own device address */

/* Codecs for COMPRESS / DECOMPRESS (block formats). */
#define HADOS_CODEC_LZ4 1u
#define HADOS_CODEC_SNAPPY 2u

typedef struct hados_op {
  uint32_t opcode;  /* enum hados_opcode */
  uint32_t flags;   /* HADOS_OPF_* */
  uint64_t dst;
  uint64_t src;
  uint64_t len;
  uint64_t arg[4];
} hados_op;

typedef struct hados_program {
  const hados_op *ops;
  uint32_t n_ops;
  uint32_t flags;      /* reserved, 0 */
  uint64_t user_tag;   /* returned in the completion */
  uint64_t *results;   /* optional: n_ops slots, written before completion */
} hados_program;

typedef struct hados_completion {
  uint64_t user_tag;
  int32_t status;      /* HADOS_OK or HADOS_E_* of the first failing op */
  uint32_t failed_op;  /* index of that op (n_ops if none) */
  uint64_t queued_ns;  /* submit to start of execution */
  uint64_t exec_ns;    /* execution time */
  char message[112];   /* the failing op's error message, "" if none */
} hados_completion;

typedef struct hados_driver_vtable {
  uint32_t abi_version; /* HADOS_DRIVER_ABI_VERSION */
  uint32_t struct_size; /* sizeof(hados_driver_vtable) */
  const char *name;     /* driver name */

  /* Opens a device. config is "key=value,key=value" (driver-defined keys;
     unknown keys are an error). index is the device's global ordinal in
     the process (its address "0", "1", …): devices must not share device
     addresses. */
  int (*open)(const char *config, uint32_t index, hados_device **out);
  int (*close)(hados_device *dev);
  int (*info)(hados_device *dev, hados_device_info *out);
  int (*telemetry)(hados_device *dev, hados_telemetry *out);

  int (*alloc)(hados_device *dev, uint64_t size, uint64_t *out_addr);
  int (*free)(hados_device *dev, uint64_t addr);
  /* Host-visible mode only: a host pointer to [addr, addr+size). */
  int (*map)(hados_device *dev, uint64_t addr, uint64_t size, void **out);

  int (*queue_create)(hados_device *dev, uint32_t depth, hados_queue **out);
  int (*queue_destroy)(hados_queue *q); /* waits for running programs */
  int (*submit)(hados_queue *q, const hados_program *prog);
  /* Waits up to timeout_ns (0 = do not wait) for at least one completion;
     writes up to max into out and their count into *n. */
  int (*poll)(hados_queue *q, hados_completion *out, uint32_t max, uint32_t *n,
              uint64_t timeout_ns);

  /* Runs the driver's built-in self-test; writes a message into msg. */
  int (*self_test)(hados_device *dev, char *msg, size_t msg_len);
  /* Message of the calling thread's last error ("" if none). */
  const char *(*last_error)(void);
} hados_driver_vtable;

typedef const hados_driver_vtable *(*hados_driver_entry_fn)(void);

#ifdef __cplusplus
}
#endif
#endif /* HADOS_DRIVER_H */
