/* stages.h — the host engine's side of running a plan stage by stage (see
   "stages" in hados.h), in plain C: what Spark's DAG scheduler, its task
   threads and its shuffle do when Spark drives hados one task of one stage
   at a time.

   job_run walks the plan's stages in their (dependency) order. Each
   stage's tasks, one per partition, run on a pool of pthreads; a task
   begins on a device (alternating "0" and "1", half a device each, with a
   memory quota), gets its inputs as ArrowArrayStreams over the outputs of
   the stages it reads, executes, and hands its output stream to the
   "shuffle": a shuffle_map task's batches are routed by the partition id
   in their first column to the reduce partition that will read them
   (a range exchange's rows, which carry no id, all go to partition 0: a
   valid, lopsided, range partitioning), every other stage's batches are
   kept whole for the stage that reads them.

   Ownership: the job owns every routed batch and each stage's output
   schema until job_free. An input stream lends them: get_next returns a
   shallow copy of a batch whose release callback only marks it released
   (consumers release a batch through its top-level struct), get_schema a
   copy of the schema's structs with borrowed strings (consumers may
   release its children one by one); so one batch can feed many tasks (a
   broadcast) and is freed once, by job_free, after every task that read
   it has ended.
   Header-only (static functions); include after hados.h and harness.h. */
#ifndef STAGES_H
#define STAGES_H

#include <pthread.h>
#include <stdatomic.h>

enum { JOB_THREADS = 4 };

typedef struct {
  struct ArrowArray *v;
  size_t n, cap;
} batch_list;

typedef struct {
  hados_stage info;
  hados_stage_input *inputs;
  struct ArrowSchema schema; /* its output's (release != NULL once set) */
  batch_list *parts;         /* shuffle_map: one per reduce partition; else one */
  int nparts;
  pthread_mutex_t mu;
} stage_out;

typedef struct {
  hados_plan *plan;
  stage_out *stages;
  size_t nstages;
  int64_t next_task_id;
  uint64_t quota;
  /* the stage running now and its next partition to start */
  stage_out *cur;
  atomic_int next_part;
  atomic_int failed;
  double exec_seconds; /* summed over tasks, hados_task_execute alone */
  pthread_mutex_t mu;
} job;

static inline void job_borrowed_array_release(struct ArrowArray *a) { a->release = NULL; }

/* A lent schema is a copy of the stored one's structs (consumers release
   children one by one, as arrow-go does) whose strings stay borrowed:
   its release frees the copied structs only. */
static inline void job_lent_schema_release(struct ArrowSchema *s) {
  for (int64_t i = 0; i < s->n_children; i++) {
    if (s->children[i]->release) s->children[i]->release(s->children[i]);
    free(s->children[i]);
  }
  free(s->children);
  if (s->dictionary) {
    if (s->dictionary->release) s->dictionary->release(s->dictionary);
    free(s->dictionary);
  }
  s->release = NULL;
}

static inline void job_lend_schema(const struct ArrowSchema *src, struct ArrowSchema *out) {
  *out = *src;
  out->private_data = NULL;
  out->release = job_lent_schema_release;
  out->children = src->n_children ? calloc(src->n_children, sizeof *out->children) : NULL;
  for (int64_t i = 0; i < src->n_children; i++) {
    out->children[i] = malloc(sizeof *out->children[i]);
    job_lend_schema(src->children[i], out->children[i]);
  }
  if (src->dictionary) {
    out->dictionary = malloc(sizeof *out->dictionary);
    job_lend_schema(src->dictionary, out->dictionary);
  }
}

/* ---- a lending input stream over one batch list ---- */

typedef struct {
  const stage_out *src;
  const batch_list *list;
  size_t next;
} lend_state;

static inline int lend_get_schema(struct ArrowArrayStream *s, struct ArrowSchema *out) {
  lend_state *st = s->private_data;
  job_lend_schema(&st->src->schema, out);
  return 0;
}

static inline int lend_get_next(struct ArrowArrayStream *s, struct ArrowArray *out) {
  lend_state *st = s->private_data;
  if (st->next >= st->list->n) {
    memset(out, 0, sizeof *out); /* the end */
    return 0;
  }
  *out = st->list->v[st->next++];
  out->release = job_borrowed_array_release;
  return 0;
}

static inline const char *lend_get_last_error(struct ArrowArrayStream *s) {
  (void)s;
  return NULL;
}

static inline void lend_release(struct ArrowArrayStream *s) {
  free(s->private_data);
  s->release = NULL;
}

static inline void lend_stream(struct ArrowArrayStream *out, const stage_out *src, const batch_list *list) {
  lend_state *st = calloc(1, sizeof *st);
  st->src = src;
  st->list = list;
  *out = (struct ArrowArrayStream){lend_get_schema, lend_get_next, lend_get_last_error, lend_release, st};
}

/* ---- the shuffle ---- */

static inline void batch_push(batch_list *l, struct ArrowArray *a) {
  if (l->n == l->cap) {
    l->cap = l->cap ? 2 * l->cap : 8;
    l->v = realloc(l->v, l->cap * sizeof *l->v);
  }
  l->v[l->n++] = *a;
  a->release = NULL; /* moved */
}

/* job_route takes over a task's output stream: its schema (the first one
   a stage sees) and its batches, routed by partition. */
static inline int job_route(stage_out *s, struct ArrowArrayStream *out) {
  struct ArrowSchema schema;
  if (out->get_schema(out, &schema) != 0) return -1;
  pthread_mutex_lock(&s->mu);
  if (!s->schema.release) s->schema = schema;
  else schema.release(&schema);
  pthread_mutex_unlock(&s->mu);
  for (;;) {
    struct ArrowArray a;
    if (out->get_next(out, &a) != 0) return -1;
    if (!a.release) return 0;
    int p = 0;
    if (s->info.kind == HADOS_STAGE_SHUFFLE_MAP && s->info.partition_ids && a.length > 0) {
      const struct ArrowArray *ids = a.children[0];
      p = ((const int32_t *)ids->buffers[1])[ids->offset + a.offset];
    }
    if (p < 0 || p >= s->nparts) {
      a.release(&a);
      return -1;
    }
    pthread_mutex_lock(&s->mu);
    batch_push(&s->parts[p], &a);
    pthread_mutex_unlock(&s->mu);
  }
}

static inline stage_out *job_stage(job *j, int32_t id) {
  for (size_t i = 0; i < j->nstages; i++)
    if (j->stages[i].info.id == id) return &j->stages[i];
  return NULL;
}

/* ---- tasks ---- */

static inline double job_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* job_task runs partition p of the current stage: Spark's task. */
static inline int job_task(job *j, stage_out *s, int p) {
  const char *devs[] = {p % 2 ? "1" : "0"};
  pthread_mutex_lock(&j->mu);
  int64_t id = ++j->next_task_id;
  pthread_mutex_unlock(&j->mu);
  hados_task *t = NULL;
  int st = hados_task_begin(j->plan, id, s->info.id, p, devs, 1, 0.5, j->quota, p % 2 ? "etl" : "adhoc", &t);
  for (int32_t i = 0; st == HADOS_OK && i < s->info.n_inputs; i++) {
    stage_out *from = job_stage(j, s->inputs[i].stage);
    if (!from) {
      st = HADOS_ERR_INVALID;
      break;
    }
    struct ArrowArrayStream in;
    lend_stream(&in, from, &from->parts[s->inputs[i].kind == HADOS_INPUT_SHUFFLE ? p : 0]);
    st = hados_task_set_input(t, (size_t)i, &in);
    if (in.release) in.release(&in);
  }
  struct ArrowArrayStream out;
  double t0 = job_now();
  if (st == HADOS_OK) st = hados_task_execute(t, &out);
  double spent = job_now() - t0;
  if (st == HADOS_OK) {
    if (job_route(s, &out) != 0) st = HADOS_ERR_INTERNAL;
    out.release(&out);
  }
  if (st != HADOS_OK) fprintf(stderr, "stage %d partition %d: %s\n", s->info.id, p, hados_last_error());
  if (t) {
    int end = hados_task_end(&t);
    if (st == HADOS_OK) st = end;
  }
  pthread_mutex_lock(&j->mu);
  j->exec_seconds += spent;
  pthread_mutex_unlock(&j->mu);
  return st;
}

static inline void *job_worker(void *arg) {
  job *j = arg;
  for (;;) {
    int p = atomic_fetch_add(&j->next_part, 1);
    if (p >= j->cur->info.partitions || atomic_load(&j->failed)) return NULL;
    if (job_task(j, j->cur, p) != HADOS_OK) atomic_store(&j->failed, 1);
  }
}

/* job_free releases every batch and schema the job holds. */
static inline void job_free(job *j) {
  for (size_t i = 0; i < j->nstages; i++) {
    stage_out *s = &j->stages[i];
    for (int p = 0; p < s->nparts; p++) {
      for (size_t b = 0; b < s->parts[p].n; b++) s->parts[p].v[b].release(&s->parts[p].v[b]);
      free(s->parts[p].v);
    }
    free(s->parts);
    free(s->inputs);
    if (s->schema.release) s->schema.release(&s->schema);
    pthread_mutex_destroy(&s->mu);
  }
  free(j->stages);
  pthread_mutex_destroy(&j->mu);
  memset(j, 0, sizeof *j);
}

/* job_run runs every stage of plan p and leaves the outputs in *j (the
   caller reads the result stage's, the last, then calls job_free).
   Returns 0 when every task succeeded. */
static inline int job_run(job *j, hados_plan *p, uint64_t quota) {
  memset(j, 0, sizeof *j);
  pthread_mutex_init(&j->mu, NULL);
  j->plan = p;
  j->quota = quota;
  if (hados_plan_stage_count(p, &j->nstages) != HADOS_OK) return -1;
  j->stages = calloc(j->nstages, sizeof *j->stages);
  for (size_t i = 0; i < j->nstages; i++) {
    stage_out *s = &j->stages[i];
    pthread_mutex_init(&s->mu, NULL);
    if (hados_plan_stage(p, i, &s->info) != HADOS_OK) return -1;
    s->inputs = calloc(s->info.n_inputs + 1, sizeof *s->inputs);
    for (int32_t k = 0; k < s->info.n_inputs; k++)
      if (hados_plan_stage_input(p, i, (size_t)k, &s->inputs[k]) != HADOS_OK) return -1;
    s->nparts = s->info.kind == HADOS_STAGE_SHUFFLE_MAP ? s->info.shuffle_partitions : 1;
    s->parts = calloc(s->nparts, sizeof *s->parts);
  }
  for (size_t i = 0; i < j->nstages && !atomic_load(&j->failed); i++) {
    j->cur = &j->stages[i];
    atomic_store(&j->next_part, 0);
    pthread_t th[JOB_THREADS];
    for (int k = 0; k < JOB_THREADS; k++) pthread_create(&th[k], NULL, job_worker, j);
    for (int k = 0; k < JOB_THREADS; k++) pthread_join(th[k], NULL);
  }
  return atomic_load(&j->failed) ? -1 : 0;
}

/* job_result lends the result stage's output as a stream. */
static inline void job_result(job *j, struct ArrowArrayStream *out) {
  stage_out *s = &j->stages[j->nstages - 1];
  lend_stream(out, s, &s->parts[0]);
}

#endif /* STAGES_H */
