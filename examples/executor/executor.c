/* executor.c — a C program that plays a Spark executor driving hados
   through libhados.so:
     1. init (ExecutorPlugin.init) with spark.hados.* configuration: two
        soft DPUs, the warehouse of TPC-H tables (Spark's test schema), the
        FAIR scheduler;
     2. plans a query from Spark's own EXPLAIN FORMATTED text and prints the
        offload decision, explain text, fallback reasons and its stages;
     3. runs it as Spark would, stage by stage (stages.h): each stage's
        tasks on 4 pthreads, each task holding half a device
        (spark.task.resource.dpu.amount=0.5) with a memory quota and a FAIR
        pool, its inputs fed as ArrowArrayStreams over the outputs of the
        stages it reads, shuffle_map outputs routed by partition id; then
        checks the rows against the expected file and against hados running
        the whole plan as one task;
     4. plans Q6 over rows the host produces (a LocalTableScan: hados reads
        them through an input ArrowArrayStream) and runs a task feeding
        them;
     5. shuts down (ExecutorPlugin.shutdown).
   Usage: executor WAREHOUSE SPARK-PLAN EXPECTED-ROWS HOST-ROWS.json [N]
   EXPECTED-ROWS is the result as rows_print prints it ("-" skips that
   check). With N, it then times N tasks of an empty stage (the host-rows
   plan over an empty stream): the per-call overhead. Prints "ok" at the
   end when every check passed. */
#include <pthread.h>
#include <stdint.h>
#include <time.h>

#include "hados.h"
#include "harness.h"
#include "arrow_rows.h"
#include "stages.h"

static double now(void) { return job_now(); }

/* print_stream prints a stream's rows into a string (free it). */
static char *print_stream(struct ArrowArrayStream *s) {
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  int64_t n = rows_print(f, s);
  fclose(f);
  if (n < 0) {
    free(text);
    return NULL;
  }
  return text;
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
  CHECK(hados_task_begin(p, 200, 0, 0, NULL, 0, 0.5, 0, NULL, &t) == HADOS_OK, "begin host-rows task");
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

/* overhead times tasks of an empty stage: the host-rows plan's stage that
   reads the host input (filter, project, partial aggregate, partition
   ids) over an empty input stream — begin, set_input, execute, read the
   empty result, end — and the same plan as a whole-plan task (stage 0:
   hados's executor runs both stages and shuffles through files). It
   prints the mean per task and of hados_task_execute alone. */
static void overhead(hados_runtime *rt, const char *path, int reps) {
  const char *k[] = {"spark.hados.whitelist"};
  const char *v[] = {"LocalTableScan"};
  size_t len = 0;
  char *text = read_file(path, &len);
  hados_plan *p = NULL;
  CHECK(text && hados_plan_create(rt, text, len, k, v, 1, &p) == HADOS_OK, "plan for overhead");
  free(text);
  if (!p) return;
  int32_t host_stage = -1;
  size_t n = 0;
  hados_plan_stage_count(p, &n);
  for (size_t i = 0; i < n; i++) {
    hados_stage s;
    hados_stage_input in;
    if (hados_plan_stage(p, i, &s) == HADOS_OK && s.n_inputs == 1 && hados_plan_stage_input(p, i, 0, &in) == HADOS_OK &&
        in.kind == HADOS_INPUT_HOST)
      host_stage = s.id;
  }
  CHECK(host_stage > 0, "the host-rows plan has a stage reading the host input");
  rows_column cols[] = {{"l_quantity", "d:15,2", NULL, NULL, NULL},
                        {"l_extendedprice", "d:15,2", NULL, NULL, NULL},
                        {"l_discount", "d:15,2", NULL, NULL, NULL},
                        {"l_shipdate", "tdD", NULL, NULL, NULL}};
  for (int whole = 0; whole < 2 && host_stage > 0; whole++) {
    double total = 0, exec = 0;
    for (int i = 0; i < reps; i++) {
      double t0 = now();
      hados_task *t = NULL;
      struct ArrowArrayStream in, out;
      int st = hados_task_begin(p, 0, whole ? 0 : host_stage, 0, NULL, 0, 0.5, 0, NULL, &t);
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
    if (reps > 0)
      printf("empty %s: %.1f us per task, %.1f us in hados_task_execute (mean of %d)\n",
             whole ? "whole plan (2 stages, file shuffle)" : "stage", total / reps * 1e6, exec / reps * 1e6, reps);
  }
  hados_plan_destroy(&p);
}

/* spark_job runs Spark's plan stage by stage as Spark would, then as
   one whole-plan task, and checks both against the expected rows. */
static void spark_job(hados_runtime *rt, const char *path, const char *expected_path) {
  hados_plan *p = plan(rt, path, NULL, NULL, 0);
  if (!p) return;
  char *stages = NULL;
  CHECK(hados_plan_stages_json(p, &stages) == HADOS_OK, "stages of %s", path);
  printf("stages: %s\n", stages ? stages : "");
  hados_free_string(stages);

  job j;
  double t0 = now();
  int ok = job_run(&j, p, 24u << 20) == 0;
  double took = now() - t0;
  CHECK(ok, "running %s stage by stage", path);
  int tasks = 0;
  for (size_t i = 0; i < j.nstages; i++) {
    tasks += j.stages[i].info.partitions;
    printf("stage %d: kind %d, %d tasks, %d inputs\n", j.stages[i].info.id, j.stages[i].info.kind,
           j.stages[i].info.partitions, j.stages[i].info.n_inputs);
  }
  char *by_stages = NULL;
  if (ok) {
    struct ArrowArrayStream res;
    job_result(&j, &res);
    by_stages = print_stream(&res);
    res.release(&res);
  }
  printf("== %s by stages: %zu stages, %d tasks on %d threads, %.1f ms (%.1f ms in hados_task_execute)\n%s",
         path, j.nstages, tasks, JOB_THREADS, took * 1e3, j.exec_seconds * 1e3, by_stages ? by_stages : "");
  job_free(&j);

  /* the same plan as one task: hados runs its stages itself */
  char *whole = NULL;
  hados_task *t = NULL;
  struct ArrowArrayStream out;
  CHECK(hados_task_begin(p, 0, 0, 0, NULL, 0, 1, 0, NULL, &t) == HADOS_OK, "begin whole-plan task");
  if (t && hados_task_execute(t, &out) == HADOS_OK) {
    whole = print_stream(&out);
    out.release(&out);
  }
  CHECK(whole != NULL, "whole-plan task of %s", path);
  if (t) CHECK(hados_task_end(&t) == HADOS_OK, "end whole-plan task");
  CHECK(by_stages && whole && strcmp(by_stages, whole) == 0, "by stages:\n%s\nwhole plan:\n%s", by_stages, whole);

  if (strcmp(expected_path, "-") != 0) {
    size_t len = 0;
    char *want = read_file(expected_path, &len);
    CHECK(want != NULL, "reading %s", expected_path);
    CHECK(want && by_stages && strcmp(want, by_stages) == 0, "result differs from %s:\ngot:\n%s\nwant:\n%s",
          expected_path, by_stages, want);
    free(want);
  }
  free(by_stages);
  free(whole);
  hados_plan_destroy(&p);
}

int main(int argc, char **argv) {
  if (argc < 5) {
    fprintf(stderr, "usage: executor WAREHOUSE SPARK-PLAN EXPECTED-ROWS HOST-ROWS.json [N]\n");
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

  spark_job(rt, argv[2], argv[3]);
  host_rows(rt, argv[4]);
  overhead(rt, argv[4], argc > 5 ? atoi(argv[5]) : 0);

  CHECK(hados_shutdown(&rt) == HADOS_OK, "shutdown");
  if (failures) {
    fprintf(stderr, "%d failures\n", failures);
    return 1;
  }
  printf("ok\n");
  return 0;
}
