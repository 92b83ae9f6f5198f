/* abi_misuse.c — drives libhados.so from C as a foreign host would: the
   lifecycle and every kind of misuse: NULL handles and pointers, forged and
   wrong-kind handles, double destroy, use after shutdown, streams released
   twice, calls out of order. Usage: abi_misuse [WAREHOUSE Q6.json
   HOST-ROWS.json] (the plan and task part needs the TPC-H tables). Prints
   "ok" and exits 0 when every check passed. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "hados.h"
#include "harness.h"
#include "arrow_rows.h"

static void plans_and_tasks(const char *warehouse, const char *q6_path, const char *rows_path);
static void metrics_endpoint(void);

int main(int argc, char **argv) {
  CHECK(hados_abi_version() == HADOS_ABI_VERSION, "abi version %d", hados_abi_version());

  const char *keys[] = {"spark.hados.devices", "spark.executor.memory"};
  const char *vals[] = {"soft:memory=32MiB;soft:memory=32MiB,mode=discrete", "4g"};
  hados_runtime *rt = NULL;
  int st = hados_init(HADOS_ABI_VERSION, keys, vals, 2, &rt);
  CHECK(st == HADOS_OK && rt != NULL, "init: %d", st);
  CHECK(strcmp(hados_last_error(), "") == 0, "last error after success");

  size_t n = 0;
  CHECK(hados_device_count(rt, &n) == HADOS_OK && n == 2, "device count %zu", n);
  char *json = NULL;
  CHECK(hados_devices_json(rt, &json) == HADOS_OK && contains(json, "\"mode\":\"discrete\""), "devices json: %s", json);
  hados_free_string(json);
  hados_free_string(NULL);

  /* misuse: NULL out-parameters and handles */
  CHECK(hados_device_count(rt, NULL) == HADOS_ERR_INVALID && contains(hados_last_error(), "out is NULL"), "NULL out");
  CHECK(hados_device_count(NULL, &n) == HADOS_ERR_INVALID && contains(hados_last_error(), "invalid or destroyed handle"), "NULL handle");
  CHECK(hados_device_count((hados_runtime *)(uintptr_t)0xdeadbeef, &n) == HADOS_ERR_INVALID, "forged handle");
  CHECK(hados_init(HADOS_ABI_VERSION, keys, vals, 2, NULL) == HADOS_ERR_INVALID, "init with NULL out");
  hados_runtime *rt3 = (hados_runtime *)1;
  CHECK(hados_init(HADOS_ABI_VERSION, NULL, NULL, 1, &rt3) == HADOS_ERR_INVALID && rt3 == NULL, "init with NULL keys");

  /* wrong ABI version */
  hados_runtime *rt2 = (hados_runtime *)1;
  CHECK(hados_init(HADOS_ABI_VERSION + 1, keys, vals, 0, &rt2) == HADOS_ERR_INVALID && rt2 == NULL &&
            contains(hados_last_error(), "ABI version 2"),
        "wrong ABI version");

  /* bad configuration */
  const char *badk[] = {"spark.hados.devcies"};
  const char *badv[] = {"soft"};
  CHECK(hados_init(HADOS_ABI_VERSION, badk, badv, 1, &rt2) == HADOS_ERR_INVALID &&
            contains(hados_last_error(), "unknown configuration key spark.hados.devcies"),
        "unknown key");
  const char *devk[] = {"spark.hados.devices"};
  const char *devv[] = {"plugin:/nonexistent.so"};
  CHECK(hados_init(HADOS_ABI_VERSION, devk, devv, 1, &rt2) != HADOS_OK && contains(hados_last_error(), "nonexistent.so"),
        "missing plugin");

  /* the metrics endpoint: off unless enabled; on, it answers GET /metrics */
  char *addr = NULL;
  CHECK(hados_metrics_address(rt, &addr) == HADOS_OK && strcmp(addr, "") == 0, "metrics off: %s", addr);
  hados_free_string(addr);
  metrics_endpoint();

  /* shutdown nulls the handle; a second shutdown and use after shutdown are errors */
  hados_runtime *stale = rt;
  CHECK(hados_shutdown(&rt) == HADOS_OK && rt == NULL, "shutdown");
  CHECK(hados_shutdown(&rt) == HADOS_ERR_INVALID, "double shutdown");
  CHECK(hados_shutdown(&stale) == HADOS_ERR_INVALID, "shutdown of a stale copy");
  CHECK(hados_device_count(stale, &n) == HADOS_ERR_INVALID, "use after shutdown");
  CHECK(hados_shutdown(NULL) == HADOS_ERR_INVALID, "shutdown(NULL)");

  /* default configuration: one software DPU */
  CHECK(hados_init(HADOS_ABI_VERSION, NULL, NULL, 0, &rt) == HADOS_OK, "init with defaults");
  CHECK(hados_device_count(rt, &n) == HADOS_OK && n == 1, "default device count %zu", n);
  CHECK(hados_shutdown(&rt) == HADOS_OK, "shutdown of defaults");

  if (argc == 4) plans_and_tasks(argv[1], argv[2], argv[3]);

  if (failures) {
    fprintf(stderr, "%d failures\n", failures);
    return 1;
  }
  printf("ok\n");
  return 0;
}

/* plan_file plans a file's text; NULL on failure. */
static hados_plan *plan_file(hados_runtime *rt, const char *path, const char *const *k, const char *const *v, size_t n) {
  size_t len = 0;
  char *text = read_file(path, &len);
  CHECK(text != NULL, "reading %s", path);
  hados_plan *p = NULL;
  int st = text ? hados_plan_create(rt, text, len, k, v, n, &p) : -1;
  CHECK(st == HADOS_OK && p, "planning %s: %d", path, st);
  free(text);
  return p;
}

static void plans_and_tasks(const char *warehouse, const char *q6_path, const char *rows_path) {
  const char *keys[] = {"spark.hados.devices", "spark.hados.warehouse"};
  const char *vals[] = {"soft:memory=64MiB", warehouse};
  hados_runtime *rt = NULL;
  CHECK(hados_init(HADOS_ABI_VERSION, keys, vals, 2, &rt) == HADOS_OK, "init");

  /* plans: bad text, bad keys, NULLs */
  hados_plan *p = (hados_plan *)1;
  const char *bad = "== Physical Plan ==\n* Filter (1)\n";
  CHECK(hados_plan_create(rt, bad, strlen(bad), NULL, NULL, 0, &p) == HADOS_ERR_INVALID && p == NULL &&
            contains(hados_last_error(), "plan:2: tree: operator (1) Filter has no details section"),
        "bad plan text");
  CHECK(hados_plan_create(rt, "{\"version\": 1, \"root\": ", 22, NULL, NULL, 0, &p) == HADOS_ERR_INVALID &&
            contains(hados_last_error(), "plan JSON"),
        "truncated plan JSON");
  CHECK(hados_plan_create(rt, NULL, 10, NULL, NULL, 0, &p) == HADOS_ERR_INVALID, "NULL plan");
  CHECK(hados_plan_create(rt, "x", 0, NULL, NULL, 0, &p) == HADOS_ERR_INVALID, "empty plan");
  CHECK(hados_plan_create(NULL, "x", 1, NULL, NULL, 0, &p) == HADOS_ERR_INVALID, "NULL runtime");
  CHECK(hados_plan_create(rt, "x", 1, NULL, NULL, 0, NULL) == HADOS_ERR_INVALID, "NULL out");
  const char *devk[] = {"spark.hados.devices"};
  const char *devv[] = {"soft"};
  size_t q6len = 0;
  char *q6 = read_file(q6_path, &q6len);
  CHECK(q6 && hados_plan_create(rt, q6, q6len, devk, devv, 1, &p) == HADOS_ERR_INVALID &&
            contains(hados_last_error(), "not a planner key"),
        "device key at plan time");
  free(q6);

  p = plan_file(rt, q6_path, NULL, NULL, 0);
  int off = -1, exe = -1;
  CHECK(hados_plan_decision(p, &off, &exe) == HADOS_OK && off == 1 && exe == 1, "q6 decision %d %d", off, exe);
  CHECK(hados_plan_decision(p, NULL, NULL) == HADOS_OK, "decision with NULL outs");
  char *s = NULL;
  CHECK(hados_plan_explain(p, &s) == HADOS_OK && contains(s, "DpuHashAggregate"), "explain: %s", s);
  hados_free_string(s);
  CHECK(hados_plan_fallbacks_json(p, &s) == HADOS_OK && s && strcmp(s, "[]") == 0, "fallbacks: %s", s);
  hados_free_string(s);
  CHECK(hados_plan_explain(p, NULL) == HADOS_ERR_INVALID, "explain NULL out");
  size_t n = 9;
  CHECK(hados_plan_input_count(p, &n) == HADOS_OK && n == 0, "q6 inputs %zu", n);

  /* wrong-kind handles */
  CHECK(hados_plan_explain((hados_plan *)rt, &s) == HADOS_ERR_INVALID &&
            contains(hados_last_error(), "a hados_runtime was passed where a hados_plan is expected"),
        "runtime as plan");
  CHECK(hados_device_count((hados_runtime *)p, &n) == HADOS_ERR_INVALID, "plan as runtime");

  /* tasks: bad specs */
  hados_task *t = (hados_task *)1;
  const char *dev0[] = {"0"}, *dev9[] = {"9"};
  CHECK(hados_task_begin(p, 1, 0, 0, dev9, 1, 0.5, 0, NULL, &t) == HADOS_ERR_INVALID && t == NULL &&
            contains(hados_last_error(), "9"),
        "unknown device");
  CHECK(hados_task_begin(p, 1, 0, 0, dev0, 1, 1.5, 0, NULL, &t) == HADOS_ERR_INVALID &&
            contains(hados_last_error(), "amount 1.5"),
        "amount 1.5");
  CHECK(hados_task_begin(p, 1, 0, 0, dev0, 1, 0.5, (uint64_t)1 << 40, NULL, &t) == HADOS_ERR_INVALID &&
            contains(hados_last_error(), "quota"),
        "quota above the device");
  CHECK(hados_task_begin(p, 1, 0, 0, NULL, 1, 0.5, 0, NULL, &t) == HADOS_ERR_INVALID, "NULL devices");
  CHECK(hados_task_begin(p, 1, -1, 0, dev0, 1, 0.5, 0, NULL, &t) == HADOS_ERR_INVALID, "negative stage");
  CHECK(hados_task_begin((hados_plan *)rt, 1, 0, 0, dev0, 1, 0.5, 0, NULL, &t) == HADOS_ERR_INVALID, "runtime as plan");

  /* stages: indexes out of range, NULL outs, a stage or partition that does not exist */
  size_t ns = 0;
  CHECK(hados_plan_stage_count(p, &ns) == HADOS_OK && ns >= 2, "q6 stages %zu", ns);
  CHECK(hados_plan_stage_count(p, NULL) == HADOS_ERR_INVALID, "stage count NULL out");
  hados_stage stg;
  hados_stage_input sin;
  struct ArrowArrayStream out0;
  CHECK(hados_plan_stage(p, ns, &stg) == HADOS_ERR_INVALID && contains(hados_last_error(), "stage index"),
        "stage index out of range");
  CHECK(hados_plan_stage(p, 0, NULL) == HADOS_ERR_INVALID, "stage NULL out");
  CHECK(hados_plan_stage(p, ns - 1, &stg) == HADOS_OK && stg.kind == HADOS_STAGE_RESULT && stg.n_inputs == 1,
        "the last stage is the result, reading one input");
  CHECK(hados_plan_stage_input(p, ns - 1, 0, &sin) == HADOS_OK && sin.stage > 0, "the result's input");
  CHECK(hados_plan_stage_input(p, ns - 1, 1, &sin) == HADOS_ERR_INVALID, "stage input out of range");
  CHECK(hados_plan_stage_input(p, ns - 1, 0, NULL) == HADOS_ERR_INVALID, "stage input NULL out");
  CHECK(hados_plan_stages_json(p, NULL) == HADOS_ERR_INVALID, "stages json NULL out");
  CHECK(hados_task_begin(p, 1, 99, 0, dev0, 1, 0.5, 0, NULL, &t) == HADOS_ERR_INVALID &&
            contains(hados_last_error(), "no stage 99"),
        "unknown stage");
  CHECK(hados_task_begin(p, 1, stg.id, stg.partitions, dev0, 1, 0.5, 0, NULL, &t) == HADOS_ERR_INVALID &&
            contains(hados_last_error(), "partitions 0.."),
        "partition out of range");
  CHECK(hados_task_begin(p, 1, stg.id, 0, dev0, 1, 0.5, 0, NULL, &t) == HADOS_OK, "begin the result stage");
  CHECK(hados_task_execute(t, &out0) == HADOS_ERR_INVALID && contains(hados_last_error(), "input 0 of 1 is not set"),
        "a stage task without its input");
  CHECK(hados_task_end(&t) == HADOS_OK, "end the stage task");

  /* a task: inputs out of range, execute, execute twice, streams released twice */
  CHECK(hados_task_begin(p, 7, 0, 0, dev0, 1, 0.5, 0, "etl", &t) == HADOS_OK && t, "begin");
  int released = 0;
  int64_t ints[] = {1, 2};
  rows_column cols[] = {{"k", "l", ints, NULL, NULL}};
  struct ArrowArrayStream in;
  rows_stream(&in, cols, 1, 2, 1, &released);
  CHECK(hados_task_set_input(t, 0, &in) == HADOS_ERR_INVALID && contains(hados_last_error(), "0 inputs") &&
            in.release != NULL,
        "input out of range");
  in.release(&in);
  CHECK(hados_task_set_input(t, 0, &in) == HADOS_ERR_INVALID, "released input stream");
  CHECK(hados_task_set_input(t, 0, NULL) == HADOS_ERR_INVALID, "NULL input stream");
  CHECK(hados_task_execute(t, NULL) == HADOS_ERR_INVALID, "execute NULL out");
  struct ArrowArrayStream out;
  CHECK(hados_task_execute(t, &out) == HADOS_OK && out.release, "execute");
  struct ArrowArrayStream again;
  CHECK(hados_task_execute(t, &again) == HADOS_ERR_INVALID && contains(hados_last_error(), "executes once") &&
            again.release == NULL,
        "execute twice: an error and a released stream");
  void (*rel)(struct ArrowArrayStream *) = out.release;
  struct ArrowArrayStream copy = out;
  struct ArrowSchema sch;
  CHECK(out.get_schema(&out, &sch) == 0 && sch.n_children == 1 && strcmp(sch.children[0]->name, "revenue") == 0, "schema");
  void (*srel)(struct ArrowSchema *) = sch.release;
  srel(&sch);
  srel(&sch); /* schema released twice */
  struct ArrowArray arr;
  CHECK(out.get_next(&out, &arr) == 0 && arr.release && arr.length == 1, "one batch");
  void (*arel)(struct ArrowArray *) = arr.release;
  arel(&arr);
  arel(&arr); /* array released twice */
  rel(&out);
  CHECK(out.release == NULL, "stream marked released");
  rel(&out);  /* stream released twice */
  rel(&copy); /* a stale copy released: its handle is gone */
  CHECK(copy.get_next(&copy, &arr) != 0, "get_next on a released copy");
  char *m = NULL;
  CHECK(hados_task_metrics(t, &m) == HADOS_OK && contains(m, "\"state\":\"succeeded\"") && contains(m, "\"rows_out\":1") &&
            contains(m, "\"pool\":\"etl\"") && contains(m, "\"task_id\":7"),
        "metrics: %s", m);
  hados_free_string(m);
  CHECK(hados_task_metrics(t, NULL) == HADOS_ERR_INVALID, "metrics NULL out");
  hados_task *stale = t;
  CHECK(hados_task_end(&t) == HADOS_OK && t == NULL, "end");
  CHECK(hados_task_end(&t) == HADOS_ERR_INVALID, "end twice");
  CHECK(hados_task_metrics(stale, &m) == HADOS_ERR_INVALID, "metrics after end");
  CHECK(hados_task_end(NULL) == HADOS_ERR_INVALID, "end(NULL)");

  /* a task ended without executing releases its stream input */
  hados_plan *rows = plan_file(rt, rows_path, (const char *const[]){"spark.hados.whitelist"},
                               (const char *const[]){"LocalTableScan"}, 1);
  CHECK(hados_plan_input_count(rows, &n) == HADOS_OK && n == 1, "host-rows inputs %zu", n);
  CHECK(hados_plan_decision(rows, &off, &exe) == HADOS_OK && off == 1 && exe == 1, "host-rows decision %d %d", off, exe);
  CHECK(hados_task_begin(rows, 0, 0, 0, NULL, 0, 0, 0, NULL, &t) == HADOS_OK, "begin host-rows");
  released = 0;
  rows_stream(&in, cols, 1, 2, 1, &released);
  CHECK(hados_task_set_input(t, 0, &in) == HADOS_OK && in.release == NULL, "input moved");
  rows_stream(&in, cols, 1, 2, 1, &released);
  CHECK(hados_task_set_input(t, 0, &in) == HADOS_ERR_INVALID && contains(hados_last_error(), "already set"), "input twice");
  in.release(&in);
  CHECK(released == 1, "refused input still the caller's");
  CHECK(hados_task_cancel(t) == HADOS_OK, "cancel");
  CHECK(hados_task_execute(t, &out) == HADOS_ERR_CANCELLED, "execute after cancel");
  CHECK(hados_task_end(&t) == HADOS_OK, "end host-rows");
  CHECK(released == 2, "the task released its input (%d)", released);

  /* destroy, use after destroy, use after shutdown */
  hados_plan *pstale = p;
  CHECK(hados_plan_destroy(&p) == HADOS_OK && p == NULL, "destroy");
  CHECK(hados_plan_destroy(&p) == HADOS_ERR_INVALID, "destroy twice");
  CHECK(hados_plan_destroy(&pstale) == HADOS_ERR_INVALID, "destroy a stale copy");
  CHECK(hados_task_begin(pstale, 1, 0, 0, NULL, 0, 0, 0, NULL, &t) == HADOS_ERR_INVALID, "begin on a destroyed plan");
  CHECK(hados_task_begin(rows, 0, 0, 0, NULL, 0, 0, 0, NULL, &t) == HADOS_OK, "a task left open");
  hados_task *open_task = t;
  hados_plan *open_plan = rows;
  CHECK(hados_shutdown(&rt) == HADOS_OK, "shutdown with an open task and plan");
  CHECK(hados_task_end(&open_task) == HADOS_ERR_INVALID, "task after shutdown");
  CHECK(hados_plan_explain(open_plan, &s) == HADOS_ERR_INVALID, "plan after shutdown");
  CHECK(hados_plan_destroy(&open_plan) == HADOS_ERR_INVALID, "destroy after shutdown");
}

/* spark.hados.metrics.enabled serves /metrics on the listen address (port
   0: a free one, read back with hados_metrics_address) until shutdown. */
static void metrics_endpoint(void) {
  const char *k[] = {"spark.hados.devices", "spark.hados.metrics.enabled", "spark.hados.metrics.listen"};
  const char *v[] = {"soft:memory=16MiB", "true", "127.0.0.1:0"};
  hados_runtime *rt = NULL;
  CHECK(hados_init(HADOS_ABI_VERSION, k, v, 3, &rt) == HADOS_OK, "init with metrics: %s", hados_last_error());
  char *addr = NULL;
  CHECK(hados_metrics_address(rt, &addr) == HADOS_OK && strncmp(addr, "127.0.0.1:", 10) == 0, "metrics address %s", addr);
  int port = atoi(addr + 10);
  hados_free_string(addr);
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in sa = {0};
  sa.sin_family = AF_INET;
  sa.sin_port = htons((uint16_t)port);
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  CHECK(fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0, "connect to metrics port %d", port);
  const char *req = "GET /metrics HTTP/1.0\r\nHost: localhost\r\n\r\n";
  CHECK(write(fd, req, strlen(req)) == (ssize_t)strlen(req), "send request");
  static char resp[1 << 20];
  size_t got = 0;
  ssize_t r;
  while (got < sizeof resp - 1 && (r = read(fd, resp + got, sizeof resp - 1 - got)) > 0) got += (size_t)r;
  resp[got] = 0;
  close(fd);
  CHECK(contains(resp, "200 OK") && contains(resp, "hados_device_memory"), "metrics response: %.200s", resp);
  const char *bad[] = {"spark.hados.metrics.enabled"};
  const char *badv[] = {"maybe"};
  hados_runtime *rt2 = NULL;
  CHECK(hados_init(HADOS_ABI_VERSION, bad, badv, 1, &rt2) == HADOS_ERR_INVALID &&
            contains(hados_last_error(), "spark.hados.metrics.enabled"),
        "bad metrics flag");
  CHECK(hados_shutdown(&rt) == HADOS_OK, "shutdown with metrics: %s", hados_last_error());
}
