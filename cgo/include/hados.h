/*
 * hados.h — the C ABI of libhados.so (ABI version 1).
 *
 * A Spark executor plugin (through JNI or the Panama FFI) or any native
 * engine links libhados.so and drives hados through this header. The
 * lifecycle mirrors a Spark executor plugin's:
 *
 *   hados_init                      ExecutorPlugin.init
 *   hados_plan_create               a query stage's physical plan
 *   hados_task_begin                onTaskStart (stage, partition, resources)
 *   hados_task_set_input            rows a host operator feeds the stage
 *   hados_task_execute              the task's output as an ArrowArrayStream
 *   hados_task_metrics              task metrics for Spark's metrics system
 *   hados_task_end                  onTaskSucceeded / onTaskFailed
 *   hados_shutdown                  ExecutorPlugin.shutdown
 *
 * Conventions
 *   - Every function returns an int status: HADOS_OK (0) or a negative
 *     HADOS_ERR_*; results come back through out-parameters.
 *   - hados_last_error() returns the message of the calling thread's last
 *     failed call (valid until that thread's next call into hados).
 *   - Handles are opaque. Calls that end a handle's life take a pointer to
 *     the handle and set it to NULL, so a second call is a harmless error.
 *     A NULL, destroyed, forged or wrong-kind handle is HADOS_ERR_INVALID.
 *   - Strings returned through out-parameters are allocated by hados and
 *     must be freed with hados_free_string.
 *   - Data crosses only as the Arrow C Data and C Stream interfaces
 *     (https://arrow.apache.org/docs/format/CStreamInterface.html). Output
 *     buffers are C memory (malloc), never Go memory; they stay valid until
 *     released, also after hados_task_end and hados_shutdown. Release
 *     callbacks of everything hados exports are idempotent.
 *   - No call panics or aborts: misuse is an error status with a message.
 *
 * Threading
 *   Every function may be called from any thread, concurrently. One task
 *   handle is driven by one thread at a time, except hados_task_cancel and
 *   hados_task_metrics, which any thread may call while the task executes.
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
#define HADOS_ERR_INVALID (-1)     /* a bad argument, handle, configuration or plan; a call out of order */
#define HADOS_ERR_DEVICE (-2)      /* a device failed */
#define HADOS_ERR_INTERNAL (-3)    /* a bug in hados (an internal panic was caught) */
#define HADOS_ERR_UNSUPPORTED (-4) /* the plan cannot run on the device: run it on the host (Spark) */
#define HADOS_ERR_CANCELLED (-5)   /* the task was cancelled (hados_task_cancel, hados_shutdown) */
#define HADOS_ERR_MEMORY (-6)      /* the task's memory quota or the device's memory is exhausted */

/* ---- Arrow C Data and C Stream interfaces (the Arrow specification's
   definitions, guarded as the specification asks) ---- */
#ifndef ARROW_C_DATA_INTERFACE
#define ARROW_C_DATA_INTERFACE

#define ARROW_FLAG_DICTIONARY_ORDERED 1
#define ARROW_FLAG_NULLABLE 2
#define ARROW_FLAG_MAP_KEYS_SORTED 4

struct ArrowSchema {
  const char *format;
  const char *name;
  const char *metadata;
  int64_t flags;
  int64_t n_children;
  struct ArrowSchema **children;
  struct ArrowSchema *dictionary;
  void (*release)(struct ArrowSchema *);
  void *private_data;
};

struct ArrowArray {
  int64_t length;
  int64_t null_count;
  int64_t offset;
  int64_t n_buffers;
  int64_t n_children;
  const void **buffers;
  struct ArrowArray **children;
  struct ArrowArray *dictionary;
  void (*release)(struct ArrowArray *);
  void *private_data;
};
#endif /* ARROW_C_DATA_INTERFACE */

#ifndef ARROW_C_STREAM_INTERFACE
#define ARROW_C_STREAM_INTERFACE

struct ArrowArrayStream {
  int (*get_schema)(struct ArrowArrayStream *, struct ArrowSchema *out);
  int (*get_next)(struct ArrowArrayStream *, struct ArrowArray *out);
  const char *(*get_last_error)(struct ArrowArrayStream *);
  void (*release)(struct ArrowArrayStream *);
  void *private_data;
};
#endif /* ARROW_C_STREAM_INTERFACE */

typedef struct hados_runtime hados_runtime; /* opaque: an open hados (hados_init) */
typedef struct hados_plan hados_plan;       /* opaque: a converted plan (hados_plan_create) */
typedef struct hados_task hados_task;       /* opaque: a running task (hados_task_begin) */

/* ---- library and runtime ---- */

/* The ABI version this library implements (HADOS_ABI_VERSION it was built with). */
int hados_abi_version(void);

/* The calling thread's last error message ("" if none). */
const char *hados_last_error(void);

/* Opens hados (device discovery) with spark.hados.* configuration key/value
   pairs, as an executor plugin's init does; spark.hados.warehouse (the
   directory holding the tables, DIR/<table>/…) is the default of every
   plan's. spark.hados.metrics.enabled=true also serves Prometheus
   metrics on spark.hados.metrics.listen (loopback 127.0.0.1:9464 by
   default; port 0 picks one: see hados_metrics_address) until shutdown.
   abi_version must be HADOS_ABI_VERSION. *out receives the runtime
   handle. After hados_shutdown, hados_init may be called again. */
int hados_init(int abi_version, const char *const *keys, const char *const *values, size_t n,
               hados_runtime **out);

/* Number of devices the runtime opened. */
int hados_device_count(hados_runtime *rt, size_t *out);

/* JSON array describing the devices (address, driver, mode, memory…);
   free with hados_free_string. */
int hados_devices_json(hados_runtime *rt, char **out_json);

/* The address the metrics endpoint listens on ("" when it is off); free
   with hados_free_string. */
int hados_metrics_address(hados_runtime *rt, char **out_addr);

/* Frees a string returned by hados. NULL is ignored. */
void hados_free_string(char *s);

/* Closes the runtime and sets *rt to NULL. Tasks still open are cancelled:
   a hados_task_execute running on another thread returns
   HADOS_ERR_CANCELLED, shutdown waits for it, then ends every task and
   invalidates the runtime's plan and task handles (later calls with them
   are HADOS_ERR_INVALID). Then it stops DMA, returns all device memory
   and closes the devices; an error reports memory a task leaked. Streams
   already exported stay valid. */
int hados_shutdown(hados_runtime **rt);

/* ---- plans ---- */

/* Converts a Spark physical plan — EXPLAIN FORMATTED text, or the plan
   IR's JSON when it starts with '{' — of len bytes (no terminator needed).
   keys/values (n pairs, may be 0) override the runtime's planner
   configuration for this plan: spark.hados.enabled, spark.hados.strategy,
   spark.hados.whitelist, spark.hados.expression.<name>.enabled,
   spark.sql.ansi.enabled; and spark.hados.warehouse, spark.hados.plan.name.
   A plan that stays on the host is still a plan (see hados_plan_decision);
   a plan that does not parse is HADOS_ERR_INVALID naming the line and
   construct. A plan is immutable: tasks on many threads may share it. */
int hados_plan_create(hados_runtime *rt, const char *plan, size_t len, const char *const *keys,
               const char *const *values, size_t n, hados_plan **out);

/* The offload decision: *offloaded is 1 when some operator runs on the
   device; *executable is 1 when hados can execute the plan today, given
   its host inputs (no operator is only planned, and every operator that
   stays on the host feeds a host input). Tasks of a plan that is not
   offloaded are refused with HADOS_ERR_UNSUPPORTED: Spark runs it itself.
   Either pointer may be NULL. */
int hados_plan_decision(hados_plan *p, int *offloaded, int *executable);

/* The converted plan as `hados explain` prints it; free with hados_free_string. */
int hados_plan_explain(hados_plan *p, char **out_text);

/* The operators that stay on the host and why, as a JSON array of
   {"id","operator","support":{"ok","reason","detail"}}; free with hados_free_string. */
int hados_plan_fallbacks_json(hados_plan *p, char **out_json);

/* Number of host-row inputs the plan reads (RowToColumnar transitions whose
   child stays on the host, depth first, left to right): each task needs
   one hados_task_set_input per input. */
int hados_plan_input_count(hados_plan *p, size_t *out);

/* Destroys a plan handle and sets *p to NULL. Tasks begun from it keep
   running. */
int hados_plan_destroy(hados_plan **p);

/* ---- stages: when the host engine schedules tasks and shuffles ----

   A task begun with stage 0 runs the whole plan: hados splits it into
   stages at its exchanges and runs them itself. A host engine that does
   its own scheduling and shuffles (Spark) runs one task per partition of
   each stage instead, in dependency order, passing the stage's id to
   hados_task_begin and each producing stage's output as an input:
     - a shuffle input: the rows of reduce partition `partition` of the
       producing shuffle_map stage (all its map tasks' outputs);
     - a broadcast or gather input: every row of the producing stage;
     - a host input: rows a host operator produces.
   A shuffle_map task's output carries, when partition_ids is 1, the
   reduce partition of its rows as a first int32 column "__partition",
   every batch holding rows of one partition (Spark's partition ids:
   pmod(murmur3(keys, 42), n) for a hash exchange). A range exchange's
   bounds need every map task's keys first: its output has no ids and the
   host engine partitions it (Spark's RangePartitioner). The result
   stage's output is the query's. A scalar subquery a stage reads is run
   by the task itself. Stages are listed in dependency order: a stage's
   inputs come from stages listed before it. */
enum {
  HADOS_STAGE_SHUFFLE_MAP = 1, /* ends at an Exchange */
  HADOS_STAGE_BROADCAST = 2,   /* ends at a BroadcastExchange */
  HADOS_STAGE_GATHER = 3,      /* the local form of a TopN or limit; its consumer has one task */
  HADOS_STAGE_RESULT = 4       /* the query's result */
};
enum { HADOS_INPUT_SHUFFLE = 1, HADOS_INPUT_BROADCAST = 2, HADOS_INPUT_GATHER = 3, HADOS_INPUT_HOST = 4 };

typedef struct hados_stage {
  int32_t id;                 /* the stage argument of hados_task_begin (1, 2, …) */
  int32_t kind;               /* HADOS_STAGE_* */
  int32_t partitions;         /* its tasks: partitions 0 … partitions-1 */
  int32_t n_inputs;           /* the hados_task_set_input calls each of its tasks needs */
  int32_t shuffle_partitions; /* a shuffle_map stage's reduce partitions; else 0 */
  int32_t partition_ids;      /* 1: a shuffle_map output's first column is "__partition" */
} hados_stage;

typedef struct hados_stage_input {
  int32_t kind;  /* HADOS_INPUT_* */
  int32_t stage; /* the producing stage's id; 0 for a host input */
} hados_stage_input;

/* Number of stages of plan p (which must be executable). Counting a scan's
   partitions lists its table's files in the warehouse. */
int hados_plan_stage_count(hados_plan *p, size_t *out);

/* Stage i (0 ≤ i < hados_plan_stage_count, dependency order) and its
   input j (0 ≤ j < n_inputs, the order of hados_task_set_input). */
int hados_plan_stage(hados_plan *p, size_t i, hados_stage *out);
int hados_plan_stage_input(hados_plan *p, size_t i, size_t j, hados_stage_input *out);

/* The stages as JSON, for a JVM plugin: [{"id","kind","name","deps",
   "inputs":[{"kind","stage","name"}],"partitions","shuffle":{"mode",
   "partitions","keys","partition_ids"},"output":[{"name","type"}]}];
   free with hados_free_string. */
int hados_plan_stages_json(hados_plan *p, char **out_json);

/* ---- tasks ---- */

/* Begins a task of plan p: Spark's task attempt id (0: hados assigns one);
   stage 0 for the whole plan (partition is then only a label), or a
   stage's id and one of its partitions (see "stages" above); the device
   addresses Spark's scheduler assigned
   (the "dpu" resource; n_devices 0 means device "0"); amount, the fraction
   of each device the task holds (spark.task.resource.dpu.amount; 0 means
   1); quota, the task's device memory in bytes per device (0: amount × the
   device's memory); pool, the FAIR scheduler pool (NULL or "": default).
   Errors name the bad stage, partition, address, amount or quota. */
int hados_task_begin(hados_plan *p, int64_t task_id, int32_t stage, int32_t partition,
                     const char *const *devices, size_t n_devices, double amount, uint64_t quota,
                     const char *pool, hados_task **out);

/* Hands the task its input i (0 ≤ i < hados_plan_input_count for the
   whole plan, < the stage's n_inputs for a stage): hados takes
   ownership of the stream (it is moved: *in is marked released) and
   releases it when the task ends. A released stream, an index out of
   range or an input set twice is HADOS_ERR_INVALID. */
int hados_task_set_input(hados_task *t, size_t i, struct ArrowArrayStream *in);

/* Executes the task and fills *out (which the caller provides, its content
   ignored) with its output stream; the caller releases it. Output buffers
   are C memory and outlive the task. A task executes once. Returns
   HADOS_ERR_CANCELLED when cancelled, HADOS_ERR_UNSUPPORTED when the plan
   is not executable, HADOS_ERR_MEMORY when the quota is exhausted. */
int hados_task_execute(hados_task *t, struct ArrowArrayStream *out);

/* Cancels the task (Spark's task kill): a running hados_task_execute
   returns HADOS_ERR_CANCELLED promptly; a later one is refused. Any thread. */
int hados_task_cancel(hados_task *t);

/* The task's metrics as JSON (task id, stage, partition, devices, amount,
   quota, pool, state, rows and bytes out, time, per-operator rows and
   batches, inputs' rows); free with hados_free_string. Any thread. */
int hados_task_metrics(hados_task *t, char **out_json);

/* Ends the task (releasing inputs not read and its device memory) and
   sets *t to NULL. Refused while hados_task_execute runs on another
   thread (cancel it and wait). An error reports memory the task leaked. */
int hados_task_end(hados_task **t);

#ifdef __cplusplus
}
#endif
#endif /* HADOS_H */
