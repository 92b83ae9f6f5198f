/*
 * soft_queue.c — submission and completion queues and the engine cores.
 *
 * Programs from every queue of a device go to one FIFO work list; the
 * device's cores (threads) take programs from it in order and run each to
 * the end. A completion goes to the ring of the program's queue, which the
 * host drains with poll. A queue admits at most `depth` programs whose
 * completion has not been polled yet (E_BUSY beyond), so its ring never
 * overflows.
 *
 * Faults: once `hang_after` programs have started, cores stop taking work
 * (the device hangs; the host's watchdog must notice). Once `lost_after`
 * programs have started, the device is lost: every queued program completes
 * with E_LOST and every later call fails.
 */
#define _GNU_SOURCE /* CPU_SET, sched_getaffinity, pthread_setaffinity_np */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "soft.h"

uint64_t soft_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Posts a completion; d->mu held. */
static void post(soft_device *d, soft_work *w, int status, uint32_t failed_op, uint64_t start_ns, uint64_t end_ns) {
  soft_queue *q = w->q;
  hados_completion *c = &q->ring[(q->head + q->count) % q->depth];
  c->user_tag = w->tag;
  c->status = status;
  c->failed_op = failed_op;
  c->queued_ns = start_ns > w->submit_ns ? start_ns - w->submit_ns : 0;
  c->exec_ns = end_ns > start_ns ? end_ns - start_ns : 0;
  c->message[0] = 0;
  if (status != HADOS_OK) {
    const char *m = status == HADOS_E_CLOSED ? "queue closed before the program ran"
                    : status == HADOS_E_LOST ? "device lost"
                                             : soft_last_error();
    strncpy(c->message, m, sizeof(c->message) - 1);
    c->message[sizeof(c->message) - 1] = 0;
  }
  q->count++;
  d->pending--;
  if (status == HADOS_OK)
    atomic_fetch_add(&d->programs_completed, 1);
  else
    atomic_fetch_add(&d->programs_failed, 1);
  pthread_cond_broadcast(&q->cv);
  free(w->ops);
  free(w);
}

/* Completes every queued program with status; d->mu held. */
static void drain_locked(soft_device *d, soft_queue *only, int status) {
  soft_work **pp = &d->work_head;
  d->work_tail = NULL;
  while (*pp) {
    soft_work *w = *pp;
    if (!only || w->q == only) {
      *pp = w->next;
      uint64_t now = soft_now_ns();
      post(d, w, status, 0, now, now);
    } else {
      d->work_tail = w;
      pp = &w->next;
    }
  }
}

/* spin_until_set waits up to spin_ns (the device's spin_us), with mu released, for *word to
   become non-zero, and reports whether it did. A thread that sleeps on a
   condition variable costs tens of microseconds to wake on a virtual machine
   (its idle vCPU halts), and a device round trip chains three such wake-ups:
   the engine core's, the poller's and the submitter's. Engine cores spin
   here after each program and pollers while a program of theirs runs, so a
   record's next program usually finds them awake. The spin yields the CPU
   every few microseconds: on a machine with as many cores as threads the
   submitter's own work goes first. *word is written under mu; reading it
   unlocked only decides whether to take the lock and look. */
static int spin_until_set(pthread_mutex_t *mu, uint64_t spin_ns, const void *word, int pointer) {
  if (!spin_ns) return 0;
  pthread_mutex_unlock(mu);
  uint64_t until = soft_now_ns() + spin_ns;
  int set = 0;
  for (uint32_t i = 1;; i++) {
    set = pointer ? __atomic_load_n((void *const *)word, __ATOMIC_ACQUIRE) != NULL
                  : __atomic_load_n((const uint32_t *)word, __ATOMIC_ACQUIRE) != 0;
    if (set) break;
    __builtin_ia32_pause();
    if ((i & 255) == 0) {
      if (soft_now_ns() > until) break;
      sched_yield();
    }
  }
  pthread_mutex_lock(mu);
  return set;
}

/* pin_core runs the calling engine core on the idx-th CPU the process may
   use (pin=auto) when the device has as many engine cores as the process
   has CPUs, two or more (this project's 2-vCPU machine): two engine cores
   left to the OS can land on one vCPU of a small VM and stay there, a
   spinning poller or Go thread keeping the other vCPU from looking idle,
   and then run one after the other. With more CPUs than cores the OS
   places them (processes sharing a host would otherwise all pin to the
   same first CPUs); one core is left to the OS too, which can then move
   it away from the host's busy threads. Silently nothing when the
   affinity cannot be read or set. */
static void pin_core(const soft_device *d, uint32_t idx) {
  cpu_set_t allowed, one;
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) return;
  if (d->ncores < 2 || (uint32_t)CPU_COUNT(&allowed) != d->ncores) return;
  uint32_t seen = 0;
  for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
    if (!CPU_ISSET(cpu, &allowed)) continue;
    if (seen++ == idx) {
      CPU_ZERO(&one);
      CPU_SET(cpu, &one);
      pthread_setaffinity_np(pthread_self(), sizeof one, &one);
      return;
    }
  }
}

static void *core_main(void *arg) {
  soft_device *d = arg;
  uint64_t rng;
  pthread_mutex_lock(&d->mu);
  if (d->pin) pin_core(d, d->pinned_next++);
  rng = d->faults.seed ^ (0x9E3779B97F4A7C15ULL * (uint64_t)(d->started_cores + 1));
  if (!rng) rng = 1;
  for (;;) {
    if (!d->closing && !d->hung && !d->work_head) spin_until_set(&d->mu, d->spin_ns, &d->work_head, 1);
    while (!d->closing && (d->hung || !d->work_head)) pthread_cond_wait(&d->work_cv, &d->mu);
    if (d->closing) break;
    soft_work *w = d->work_head;
    d->programs_started++;
    if (d->faults.hang_after >= 0 && d->programs_started > (uint64_t)d->faults.hang_after) {
      d->hung = 1;
      atomic_fetch_add(&d->faults_injected, 1);
      continue;
    }
    if (d->faults.lost_after >= 0 && d->programs_started > (uint64_t)d->faults.lost_after && !atomic_load(&d->lost)) {
      atomic_store(&d->lost, 1);
      atomic_fetch_add(&d->faults_injected, 1);
    }
    if (atomic_load(&d->lost)) {
      drain_locked(d, NULL, HADOS_E_LOST);
      continue;
    }
    d->work_head = w->next;
    if (!d->work_head) d->work_tail = NULL;
    pthread_mutex_unlock(&d->mu);

    uint64_t start = soft_now_ns(), prev = 0;
    int status = HADOS_OK;
    uint32_t i;
    for (i = 0; i < w->n_ops; i++) {
      uint64_t r = 0;
      status = soft_exec_op(d, &w->ops[i], prev, &r, &rng);
      if (w->results) w->results[i] = r;
      prev = r;
      if (status != HADOS_OK) break;
    }
    uint64_t end = soft_now_ns();
    atomic_fetch_add(&d->ops_executed, i < w->n_ops ? i + 1 : w->n_ops);
    atomic_fetch_add(&d->busy_ns, end - start);

    pthread_mutex_lock(&d->mu);
    post(d, w, status, status == HADOS_OK ? w->n_ops : i, start, end);
  }
  pthread_mutex_unlock(&d->mu);
  return NULL;
}

int soft_queues_start(soft_device *d) {
  pthread_condattr_t ca;
  pthread_condattr_init(&ca);
  pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
  pthread_cond_init(&d->work_cv, &ca);
  pthread_condattr_destroy(&ca);
  pthread_mutex_init(&d->mu, NULL);
  for (uint32_t i = 0; i < d->ncores; i++) {
    pthread_mutex_lock(&d->mu);
    int rc = pthread_create(&d->cores[i], NULL, core_main, d);
    if (rc == 0) d->started_cores++;
    pthread_mutex_unlock(&d->mu);
    if (rc != 0) {
      soft_queues_stop(d);
      return soft_fail(HADOS_E_NOMEM, "soft device %u: cannot start engine core %u: %s", d->index, i, strerror(rc));
    }
  }
  return HADOS_OK;
}

void soft_queues_stop(soft_device *d) {
  pthread_mutex_lock(&d->mu);
  d->closing = 1;
  pthread_cond_broadcast(&d->work_cv);
  pthread_mutex_unlock(&d->mu);
  for (uint32_t i = 0; i < d->started_cores; i++) pthread_join(d->cores[i], NULL);
  d->started_cores = 0;
  pthread_mutex_lock(&d->mu);
  drain_locked(d, NULL, HADOS_E_CLOSED);
  while (d->queues) {
    soft_queue *q = d->queues;
    d->queues = q->next;
    pthread_cond_destroy(&q->cv);
    free(q->ring);
    free(q);
  }
  pthread_mutex_unlock(&d->mu);
}

int soft_queue_create(soft_device *d, uint32_t depth, soft_queue **out) {
  if (depth == 0 || depth > d->max_depth)
    return soft_fail(HADOS_E_INVALID, "soft device %u: queue depth %u out of range [1, %u]", d->index, depth, d->max_depth);
  soft_queue *q = calloc(1, sizeof(*q));
  hados_completion *ring = calloc(depth, sizeof(*ring));
  if (!q || !ring) {
    free(q);
    free(ring);
    return soft_fail(HADOS_E_NOMEM, "soft device %u: out of host memory for a queue", d->index);
  }
  pthread_condattr_t ca;
  pthread_condattr_init(&ca);
  pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
  pthread_cond_init(&q->cv, &ca);
  pthread_condattr_destroy(&ca);
  q->dev = d;
  q->depth = depth;
  q->ring = ring;
  pthread_mutex_lock(&d->mu);
  q->next = d->queues;
  d->queues = q;
  d->nqueues++;
  pthread_mutex_unlock(&d->mu);
  *out = q;
  return HADOS_OK;
}

int soft_queue_destroy(soft_queue *q) {
  soft_device *d = q->dev;
  pthread_mutex_lock(&d->mu);
  q->closed = 1;
  drain_locked(d, q, HADOS_E_CLOSED); /* programs not yet started */
  /* wait for programs of this queue still running on a core */
  while (q->inflight > q->count) pthread_cond_wait(&q->cv, &d->mu);
  soft_queue **pp = &d->queues;
  while (*pp && *pp != q) pp = &(*pp)->next;
  if (*pp) *pp = q->next;
  d->nqueues--;
  pthread_cond_broadcast(&q->cv);
  pthread_mutex_unlock(&d->mu);
  pthread_cond_destroy(&q->cv);
  free(q->ring);
  free(q);
  return HADOS_OK;
}

int soft_submit(soft_queue *q, const hados_program *prog) {
  soft_device *d = q->dev;
  if (!prog || (prog->n_ops && !prog->ops)) return soft_fail(HADOS_E_INVALID, "soft: submit of a null program");
  if (prog->n_ops > 1u << 20) return soft_fail(HADOS_E_INVALID, "soft: program of %u ops is too long", prog->n_ops);
  if (atomic_load(&d->lost)) return soft_fail(HADOS_E_LOST, "soft device %u: device lost", d->index);
  for (uint32_t i = 0; i < prog->n_ops; i++)
    if (prog->ops[i].opcode >= HADOS_OP__COUNT)
      return soft_fail(HADOS_E_INVALID, "soft: op %u has unknown opcode %u", i, prog->ops[i].opcode);
  soft_work *w = calloc(1, sizeof(*w));
  hados_op *ops = prog->n_ops ? malloc(sizeof(hados_op) * prog->n_ops) : NULL;
  if (!w || (prog->n_ops && !ops)) {
    free(w);
    free(ops);
    return soft_fail(HADOS_E_NOMEM, "soft: out of host memory for a program");
  }
  if (prog->n_ops) memcpy(ops, prog->ops, sizeof(hados_op) * prog->n_ops);
  w->q = q;
  w->ops = ops;
  w->n_ops = prog->n_ops;
  w->tag = prog->user_tag;
  w->results = prog->results;
  w->submit_ns = soft_now_ns();

  pthread_mutex_lock(&d->mu);
  if (q->closed || d->closing) {
    pthread_mutex_unlock(&d->mu);
    free(ops);
    free(w);
    return soft_fail(HADOS_E_CLOSED, "soft: submit to a closed queue");
  }
  if (q->inflight >= q->depth) {
    pthread_mutex_unlock(&d->mu);
    free(ops);
    free(w);
    return soft_fail(HADOS_E_BUSY, "soft: queue full (depth %u)", q->depth);
  }
  q->inflight++;
  d->pending++;
  if (d->work_tail)
    d->work_tail->next = w;
  else
    d->work_head = w;
  d->work_tail = w;
  atomic_fetch_add(&d->programs_submitted, 1);
  pthread_cond_signal(&d->work_cv);
  if (q->poller_asleep && d->spin_ns) pthread_cond_broadcast(&q->cv); /* it spins while this runs */
  pthread_mutex_unlock(&d->mu);
  return HADOS_OK;
}

int soft_poll(soft_queue *q, hados_completion *out, uint32_t max, uint32_t *n, uint64_t timeout_ns) {
  soft_device *d = q->dev;
  *n = 0;
  if (max == 0 || !out) return soft_fail(HADOS_E_INVALID, "soft: poll needs room for at least one completion");
  pthread_mutex_lock(&d->mu);
  if (q->count == 0 && timeout_ns > 0) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    uint64_t ns = (uint64_t)ts.tv_nsec + timeout_ns % 1000000000ULL;
    ts.tv_sec += (time_t)(timeout_ns / 1000000000ULL + ns / 1000000000ULL);
    ts.tv_nsec = (long)(ns % 1000000000ULL);
    /* Spin while a program of this queue runs; sleep when none does or the
       spin ran out. A submit wakes a sleeping poll, so the wake-up overlaps
       the program's run instead of following its completion. */
    int spin = 1;
    while (q->count == 0 && !q->closed && !d->closing) {
      if (spin && q->inflight > 0) {
        spin = 0;
        if (spin_until_set(&d->mu, d->spin_ns, &q->count, 0)) continue;
      }
      q->poller_asleep = 1;
      int rc = pthread_cond_timedwait(&q->cv, &d->mu, &ts);
      q->poller_asleep = 0;
      if (rc == ETIMEDOUT) break;
      spin = 1;
    }
  }
  uint32_t k = 0;
  while (k < max && q->count > 0) {
    out[k++] = q->ring[q->head];
    q->head = (q->head + 1) % q->depth;
    q->count--;
    q->inflight--;
  }
  pthread_mutex_unlock(&d->mu);
  *n = k;
  return k ? HADOS_OK : HADOS_E_TIMEOUT;
}
