/* abi_tasks.c — many tasks from many threads: 4 pthreads × 4 tasks of TPC-H
   Q6 sharing two soft devices at amount 0.5 with quotas and FAIR pools,
   each checking its result; then shutdown while tasks run (they are
   cancelled, shutdown waits and returns every byte), and init again.
   Usage: abi_tasks WAREHOUSE Q6.json EXPECTED-REVENUE. Prints "ok". */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <time.h>

#include "hados.h"
#include "harness.h"
#include "arrow_rows.h"

enum { THREADS = 4, TASKS = 4 }; /* two tasks per device at amount 0.5, as Spark schedules them */

static const char *expected;
static pthread_mutex_t fail_mu = PTHREAD_MUTEX_INITIALIZER;

/* run_task runs one task of p and returns its status; *text receives the
   printed output (free it) when it succeeded. */
static int run_task(hados_plan *p, int64_t id, int partition, char **text) {
  const char *devs[] = {partition % 2 ? "1" : "0"};
  hados_task *t = NULL;
  int st = hados_task_begin(p, id, 0, partition, devs, 1, 0.5, 16u << 20, partition % 2 ? "etl" : "adhoc", &t);
  if (st != HADOS_OK) return st;
  struct ArrowArrayStream out;
  st = hados_task_execute(t, &out);
  if (st == HADOS_OK) {
    size_t len = 0;
    FILE *f = open_memstream(text, &len);
    int64_t rows = rows_print(f, &out);
    fclose(f);
    out.release(&out);
    if (rows != 1) st = -100;
  }
  int end = hados_task_end(&t);
  return st != HADOS_OK ? st : end;
}

static void *worker(void *arg) {
  hados_plan *p = arg;
  static int64_t next_id = 1000;
  for (int i = 0; i < TASKS; i++) {
    int64_t id = __atomic_fetch_add(&next_id, 1, __ATOMIC_SEQ_CST);
    char *text = NULL;
    int st = run_task(p, id, (int)id, &text);
    pthread_mutex_lock(&fail_mu);
    CHECK(st == HADOS_OK && contains(text, expected), "task %lld: status %d, output %s", (long long)id, st, text);
    pthread_mutex_unlock(&fail_mu);
    free(text);
  }
  return NULL;
}

/* until_stopped runs tasks until one is refused (the runtime shut down). */
static void *until_stopped(void *arg) {
  hados_plan *p = arg;
  long *seen = calloc(8, sizeof *seen);
  for (int64_t id = 1;; id++) {
    char *text = NULL;
    int st = run_task(p, 0, (int)id, &text);
    free(text);
    if (st == HADOS_OK) seen[0]++;
    else if (st == HADOS_ERR_CANCELLED) seen[1]++;
    else if (st == HADOS_ERR_INVALID) { seen[2]++; break; }
    else { seen[3]++; fprintf(stderr, "unexpected status %d: %s\n", st, hados_last_error()); break; }
  }
  return seen;
}

static hados_plan *plan_q6(hados_runtime *rt, const char *path) {
  size_t len = 0;
  char *text = read_file(path, &len);
  hados_plan *p = NULL;
  CHECK(text && hados_plan_create(rt, text, len, NULL, NULL, 0, &p) == HADOS_OK, "plan %s", path);
  free(text);
  return p;
}

static hados_runtime *open_runtime(const char *warehouse) {
  const char *keys[] = {"spark.hados.devices", "spark.hados.warehouse", "spark.hados.scheduler.mode",
                        "spark.hados.scheduler.pools"};
  const char *vals[] = {"soft:memory=64MiB,cores=2;soft:memory=64MiB,cores=2", warehouse, "FAIR", "etl:2:1,adhoc:1:0"};
  hados_runtime *rt = NULL;
  CHECK(hados_init(HADOS_ABI_VERSION, keys, vals, 4, &rt) == HADOS_OK, "init");
  return rt;
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: abi_tasks WAREHOUSE Q6.json EXPECTED\n");
    return 2;
  }
  expected = argv[3];

  /* many threads, many tasks */
  hados_runtime *rt = open_runtime(argv[1]);
  hados_plan *p = plan_q6(rt, argv[2]);
  pthread_t th[THREADS];
  for (int i = 0; i < THREADS; i++) pthread_create(&th[i], NULL, worker, p);
  for (int i = 0; i < THREADS; i++) pthread_join(th[i], NULL);
  CHECK(hados_plan_destroy(&p) == HADOS_OK, "destroy");
  CHECK(hados_shutdown(&rt) == HADOS_OK, "shutdown after the tasks");

  /* shutdown with tasks running: they are cancelled or finish; shutdown
     waits for them and returns every byte; later calls are refused */
  rt = open_runtime(argv[1]);
  p = plan_q6(rt, argv[2]);
  for (int i = 0; i < 4; i++) pthread_create(&th[i], NULL, until_stopped, p);
  struct timespec pause = {0, 200 * 1000 * 1000};
  nanosleep(&pause, NULL);
  CHECK(hados_shutdown(&rt) == HADOS_OK, "shutdown with running tasks");
  long ok = 0, cancelled = 0;
  for (int i = 0; i < 4; i++) {
    long *seen = NULL;
    pthread_join(th[i], (void **)&seen);
    CHECK(seen[2] == 1 && seen[3] == 0, "thread %d ended on %ld refusals, %ld other errors", i, seen[2], seen[3]);
    ok += seen[0], cancelled += seen[1];
    free(seen);
  }
  printf("shutdown under load: %ld tasks succeeded, %ld cancelled\n", ok, cancelled);

  /* init again works */
  rt = open_runtime(argv[1]);
  p = plan_q6(rt, argv[2]);
  char *text = NULL;
  CHECK(run_task(p, 1, 0, &text) == HADOS_OK && contains(text, expected), "task after re-init: %s", text);
  free(text);
  CHECK(hados_shutdown(&rt) == HADOS_OK, "final shutdown (plan left to it)");

  if (failures) {
    fprintf(stderr, "%d failures\n", failures);
    return 1;
  }
  printf("ok\n");
  return 0;
}
