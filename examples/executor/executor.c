/* executor.c — a C program that plays a Spark executor driving hados
   through libhados.so:
     1. init (ExecutorPlugin.init) with spark.hados.* configuration: two
        soft DPUs, the warehouse of TPC-H tables, the FAIR scheduler;
     2. plans TPC-H Q6 (a plan JSON of race/planbuilder) and prints the
        offload decision, explain text and fallback reasons;
     3. runs 4 tasks of it on 4 pthreads, each holding half a device
        (spark.task.resource.dpu.amount=0.5) with a memory quota and a FAIR
        pool, reads each task's output ArrowArrayStream, prints its rows
        and task metrics JSON and checks the result;
     4. plans Q6 over rows the host produces (a LocalTableScan: hados reads
        them through an input ArrowArrayStream) and runs a task feeding
        them — or reports that this build cannot;
     5. shuts down (ExecutorPlugin.shutdown).
   Usage: executor WAREHOUSE Q6.json HOST-ROWS.json [EXPECTED-REVENUE [N]]
   With N, it then times N tasks of an empty stage (the host-rows plan over
   an empty stream): the per-call overhead. Prints "ok" at the end when
   every check passed. */
#include <pthread.h>
#include <stdint.h>
#include <time.h>

#include "hados.h"
#include "harness.h"
#include "arrow_rows.h"

enum { TASKS = 4 };

typedef struct {
  hados_plan *plan;
  int partition;
  const char *expected;
  int status;
  char *rows, *metrics; /* printed output and metrics JSON (free them) */
  double seconds;
} task_run;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* run_task is one Spark task: begin on its device, execute, read the
   output stream, take the metrics, end. */
static void *run_task(void *arg) {
  task_run *r = arg;
  double start = now();
  const char *devs[] = {r->partition % 2 ? "1" : "0"}; /* the "dpu" resource Spark assigned */
  hados_task *t = NULL;
  r->status = hados_task_begin(r->plan, 100 + r->partition, 1, r->partition, devs, 1, 0.5, 24u << 20,
                               r->partition % 2 ? "etl" : "adhoc", &t);
  if (r->status != HADOS_OK) {
    fprintf(stderr, "task %d: begin: %s\n", r->partition, hados_last_error());
    return NULL;
  }
  struct ArrowArrayStream out;
  r->status = hados_task_execute(t, &out);
  if (r->status == HADOS_OK) {
    size_t len = 0;
    FILE *f = open_memstream(&r->rows, &len);
    if (rows_print(f, &out) < 0) r->status = HADOS_ERR_INTERNAL;
    fclose(f);
    out.release(&out);
  } else {
    fprintf(stderr, "task %d: execute: %s\n", r->partition, hados_last_error());
  }
  hados_task_metrics(t, &r->metrics);
  int end = hados_task_end(&t);
  if (r->status == HADOS_OK) r->status = end;
  r->seconds = now() - start;
  return NULL;
}

static hados_plan *plan(hados_runtime *rt, const char *path, const char *const *k, const char *const *v, size_t n) {
  size_t len = 0;
  char *text = read_file(path, &len);
  CHECK(text != NULL, "reading %s", path);
  hados_plan *p = NULL;
  if (text && hados_plan_create(rt, text, len, k, v, n, &p) != HADOS_OK) p = NULL;
  CHECK(p != NULL, "planning %s", path);
  free(text);
  if (!p) return NULL;
  int offloaded = 0, executable = 0;
  char *explain = NULL, *fallbacks = NULL;
  hados_plan_decision(p, &offloaded, &executable);
  hados_plan_explain(p, &explain);
  hados_plan_fallbacks_json(p, &fallbacks);
  printf("== plan %s: offloaded %s, executable %s\n%s\nfallbacks: %s\n", path, offloaded ? "yes" : "no",
         executable ? "yes" : "no", explain, fallbacks);
  hados_free_string(explain);
  hados_free_string(fallbacks);
  return p;
}

/* host_rows runs Q6 over rows the host produces: a deterministic
   lineitem-like table fed through an input stream, checked against the
   revenue computed here. */
static void host_rows(hados_runtime *rt, const char *path) {
  const char *k[] = {"spark.hados.whitelist"};
  const char *v[] = {"LocalTableScan"}; /* the host scan may fall back: the rest stays offloaded */
  hados_plan *p = plan(rt, path, k, v, 1);
  size_t inputs = 0;
  CHECK(p && hados_plan_input_count(p, &inputs) == HADOS_OK && inputs == 1, "host-rows inputs %zu", inputs);
  if (!p) return;

  enum { N = 1000 };
  static int64_t qty[N], price[N], disc[N], ship[N];
  static uint8_t nulls[N];
  int64_t revenue = 0; /* scale 4: price (2) × discount (2) */
  for (int i = 0; i < N; i++) {
    qty[i] = (i % 50 + 1) * 100;          /* 1.00 … 50.00 */
    price[i] = 100000 + i * 37;           /* 1000.00 … */
    disc[i] = i % 11;                     /* 0.00 … 0.10 */
    ship[i] = 8766 - 200 + (i % 800);     /* around 1994 */
    nulls[i] = i % 97 == 0;               /* some null quantities */
    if (!nulls[i] && ship[i] >= 8766 && ship[i] < 9131 && disc[i] >= 5 && disc[i] <= 7 && qty[i] < 2400)
      revenue += price[i] * disc[i];
  }
  rows_column cols[] = {{"l_quantity", "d:15,2", qty, NULL, nulls},
                        {"l_extendedprice", "d:15,2", price, NULL, NULL},
                        {"l_discount", "d:15,2", disc, NULL, NULL},
                        {"l_shipdate", "tdD", ship, NULL, NULL}};
  hados_task *t = NULL;
  CHECK(hados_task_begin(p, 200, 2, 0, NULL, 0, 0.5, 0, NULL, &t) == HADOS_OK, "begin host-rows task");
  struct ArrowArrayStream in, out;
  rows_stream(&in, cols, 4, N, 3, NULL); /* 3 batches of the same 1000 rows */
  CHECK(hados_task_set_input(t, 0, &in) == HADOS_OK && in.release == NULL, "set input");
  int st = hados_task_execute(t, &out);
  if (st == HADOS_OK) {
    char want[64];
    snprintf(want, sizeof want, "%lld.%04lld", (long long)(3 * revenue / 10000), (long long)(3 * revenue % 10000));
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    rows_print(f, &out);
    fclose(f);
    out.release(&out);
    printf("host-rows Q6:\n%s", text);
    CHECK(contains(text, want), "host-rows revenue: got %s, want %s", text, want);
    free(text);
  } else {
    /* the executor of this build cannot read host inputs yet: Spark would
       run this stage itself */
    printf("host-rows Q6 not executed (status %d): %s\n", st, hados_last_error());
    CHECK(st == HADOS_ERR_INVALID || st == HADOS_ERR_UNSUPPORTED, "host-rows status %d", st);
  }
  char *m = NULL;
  hados_task_metrics(t, &m);
  printf("metrics: %s\n", m);
  hados_free_string(m);
  CHECK(hados_task_end(&t) == HADOS_OK, "end host-rows task");
  hados_plan_destroy(&p);
}

/* overhead times tasks of the host-rows plan over an empty input stream
   (an empty stage): begin, set_input, execute, read the empty result,
   end; it prints the mean per task and of hados_task_execute alone. */
static void overhead(hados_runtime *rt, const char *path, int reps) {
  const char *k[] = {"spark.hados.whitelist"};
  const char *v[] = {"LocalTableScan"};
  size_t len = 0;
  char *text = read_file(path, &len);
  hados_plan *p = NULL;
  CHECK(text && hados_plan_create(rt, text, len, k, v, 1, &p) == HADOS_OK, "plan for overhead");
  free(text);
  rows_column cols[] = {{"l_quantity", "d:15,2", NULL, NULL, NULL},
                        {"l_extendedprice", "d:15,2", NULL, NULL, NULL},
                        {"l_discount", "d:15,2", NULL, NULL, NULL},
                        {"l_shipdate", "tdD", NULL, NULL, NULL}};
  double total = 0, exec = 0;
  for (int i = 0; i < reps && p; i++) {
    double t0 = now();
    hados_task *t = NULL;
    struct ArrowArrayStream in, out;
    int st = hados_task_begin(p, 0, 9, i, NULL, 0, 0.5, 0, NULL, &t);
    rows_stream(&in, cols, 4, 0, 0, NULL); /* no batches */
    if (st == HADOS_OK) st = hados_task_set_input(t, 0, &in);
    double t1 = now();
    if (st == HADOS_OK) st = hados_task_execute(t, &out);
    double t2 = now();
    if (st == HADOS_OK) {
      struct ArrowArray a;
      while (out.get_next(&out, &a) == 0 && a.release) a.release(&a);
      out.release(&out);
    }
    CHECK(st == HADOS_OK, "empty-stage task %d: %d", i, st);
    if (t) hados_task_end(&t);
    total += now() - t0, exec += t2 - t1;
  }
  if (reps > 0) printf("empty stage: %.1f us per task, %.1f us in hados_task_execute (mean of %d)\n",
                       total / reps * 1e6, exec / reps * 1e6, reps);
  hados_plan_destroy(&p);
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: executor WAREHOUSE Q6.json HOST-ROWS.json [EXPECTED-REVENUE [N]]\n");
    return 2;
  }
  const char *keys[] = {"spark.hados.devices", "spark.hados.warehouse", "spark.hados.scheduler.mode",
                        "spark.hados.scheduler.pools", "spark.hados.log.level"};
  const char *vals[] = {"soft:memory=64MiB;soft:memory=64MiB", argv[1], "FAIR", "etl:2:1,adhoc:1:0", "warn"};
  hados_runtime *rt = NULL;
  if (hados_init(HADOS_ABI_VERSION, keys, vals, 5, &rt) != HADOS_OK) {
    fprintf(stderr, "hados_init: %s\n", hados_last_error());
    return 1;
  }
  char *devices = NULL;
  hados_devices_json(rt, &devices);
  printf("devices: %s\n", devices);
  hados_free_string(devices);

  hados_plan *q6 = plan(rt, argv[2], NULL, NULL, 0);
  task_run runs[TASKS] = {0};
  pthread_t th[TASKS];
  for (int i = 0; i < TASKS && q6; i++) {
    runs[i] = (task_run){.plan = q6, .partition = i};
    pthread_create(&th[i], NULL, run_task, &runs[i]);
  }
  for (int i = 0; i < TASKS && q6; i++) {
    pthread_join(th[i], NULL);
    printf("-- task %d (%.1f ms): status %d\n%smetrics: %s\n", i, runs[i].seconds * 1e3, runs[i].status,
           runs[i].rows ? runs[i].rows : "", runs[i].metrics ? runs[i].metrics : "");
    CHECK(runs[i].status == HADOS_OK, "task %d", i);
    CHECK(argc < 5 || contains(runs[i].rows, argv[4]), "task %d: want revenue %s", i, argv[4]);
    CHECK(!runs[0].rows || !runs[i].rows || strcmp(runs[0].rows, runs[i].rows) == 0, "tasks 0 and %d differ", i);
  }
  for (int i = 0; i < TASKS; i++) {
    free(runs[i].rows);
    hados_free_string(runs[i].metrics);
  }
  hados_plan_destroy(&q6);

  host_rows(rt, argv[3]);
  overhead(rt, argv[3], argc > 5 ? atoi(argv[5]) : 0);

  CHECK(hados_shutdown(&rt) == HADOS_OK, "shutdown");
  if (failures) {
    fprintf(stderr, "%d failures\n", failures);
    return 1;
  }
  printf("ok\n");
  return 0;
}
