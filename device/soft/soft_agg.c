/*
 * soft_agg.c — the software DPU's hash-aggregation state (HADOS_OP_AGG_* and
 * the SINK_AGG sink of a pipeline).
 *
 * What a state is. A state is the set of groups seen so far, each with its
 * key values and one aggregation buffer per aggregate of the spec (Spark's
 * buffers: sum[, isEmpty], count, min/max value, first value + valueSet).
 * Groups are numbered in first-seen order; every structure refers to a group
 * by that id, so emit and merge walk groups in first-seen order and their
 * output is deterministic for a deterministic input order.
 *
 * Records. A group is one row-wise record of rec_size bytes in a single
 * array that grows by doubling: its 64-bit hash, a null bitmask of its keys,
 * the key values and the accumulators, laid out by alignment (16-byte
 * values first, then 8, 4, 1) so every field is naturally aligned. One
 * record per group keeps a group's keys and buffers in one or two cache
 * lines: an update of a high-cardinality aggregation touches one record per
 * row instead of one line per column. String keys, and string MIN/MAX/FIRST
 * values, live in the state's byte arena (offset + length in the record);
 * the arena grows by doubling and is never compacted (a MIN/MAX value that
 * shrinks is rewritten in place, a longer one is appended).
 *
 * Two ways to find a group.
 *  - Perfect hashing: when the spec gives a domain (key_min, key_card) for
 *    every key, every key is I32, I64, BOOL or a string, and the product of
 *    (card + 1) is at most 65536, a key tuple maps to a dense index by mixed
 *    radix (value - min, or card for null), and an index array holds the
 *    group id (+1) of each slot. String keys arrive as views (dictionary
 *    columns are decoded by the interpreter), so each string key has a small
 *    domain dictionary that numbers its distinct strings in first-seen order
 *    (at most card of them), with a per-update pointer cache in front so a
 *    dictionary-encoded column costs one pointer compare per row. A value
 *    outside the domain (or a card+1-th distinct string) switches the state
 *    to hashing for good before anything of that vector is folded; the index
 *    can never be addressed out of bounds.
 *  - Hashing: an open-addressing table of 64-bit slots (high 32 bits of the
 *    hash as a tag, group id + 1 below), linear probing, power-of-two
 *    capacity, load at most one half, grown (4x while small, 2x beyond
 *    TABLE_QUAD slots, rebuilt from the records' stored hashes) when an
 *    insert would exceed it. An update hashes the key
 *    columns of the whole vector first, column by column (strings of at
 *    most 16 bytes as two exact words, one or two mixes), then looks rows
 *    up in passes: every row's candidate group (first slot whose tag
 *    matches), then each key column compared against the candidates'
 *    records in one tight loop per value type, then, row by row, the rows
 *    left over (new keys, tag collisions). Keys the state already holds
 *    (every row but a few with few groups) never leave the first passes,
 *    so low-cardinality keys without a domain hint cost a few ns per key
 *    column; the table changes only in the last pass. One I32 or I64 key
 *    (key1, the many-groups case: l_orderkey, l_partkey, o_custkey) has
 *    its own first passes (probe_key1): rows repeating the previous row's
 *    key take its group, the others are probed with the table line
 *    prefetched well ahead and their candidate records prefetched as soon
 *    as the slot is read, then compared in a pass of their own; new keys
 *    and new groups skip the generic kval code. In front of all
 *    that, a row memo (not for key1; raw key words: numbers, short strings' bytes, long
 *    strings' views; valid for one update) lets rows of few groups skip
 *    hashing and comparing entirely;
 *    it backs off when it stops hitting. In front of the memo, key codes
 *    (fast_codes: each key column's few distinct values numbered for the
 *    life of the state, a row's codes indexing its group id) group rows of
 *    up to four low-cardinality keys without hashing at all.
 *  - Runs mode (a hint of AGG_CREATE, for a partial aggregation whose input
 *    is clustered by its one I32/I64 key): every run of equal keys is a
 *    group of its own, appended without a hash or a table (see runs_rows).
 * Grouping normalises doubles (every NaN is one value, -0.0 is 0.0, as Spark
 * does) and treats null as one more value of each key column.
 *
 * Folding. After every selected row of a vector has its group id, each
 * aggregate folds its input column into the records in one loop specialised
 * for the aggregate kind and input type. Semantics are Spark's non-ANSI
 * ones: integer sums wrap; decimal sums are exact in 128 bits and become
 * null for good when they leave the range of the output storage type; MIN
 * and MAX order doubles with NaN largest and strings bytewise; FIRST keeps
 * the first value in input order (first non-null with IGNORE_NULLS); with
 * AGGF_MERGE the inputs are partial buffers and are combined as Spark's
 * merge expressions do. Merging two states folds the source's buffers the
 * same way, group by group in the source's first-seen order.
 *
 * Memory. Everything a state owns — the state itself, the records, the
 * table or index, the arena and the string dictionaries — is a block of the
 * device heap, so it shows in telemetry, and the total is held within the
 * byte budget given at create. A growth that would exceed the budget (or the
 * device memory) fails with HADOS_E_NOMEM naming the bytes; the update or
 * merge that needed it then has no effect at all: groups it inserted are
 * removed again (they are the newest ids, and slots were filled in id order,
 * so clearing their slots leaves every older probe chain intact) and string
 * space it needed for accumulators is reserved before any buffer changes.
 * The state is released only by soft_agg_free. A state is used by one engine
 * core at a time; merge reads its source without changing it.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "soft_pipeline.h"
#include "soft_keyhash.h"

typedef __int128 i128;

#define AI static inline __attribute__((always_inline))

#define AGG_MAGIC 0x31544147474148ULL /* "HAGGAT1" */
#define NO_REG 0xffffu
#define PERFECT_MAX 65536u
#define MAX_GROUPS 0xfffffff0ULL
#define ARENA_MAX 0xffffffffULL
#define PCACHE 64u
#define TABLE_MIN 1024u

/* Status bits of an accumulator (one byte per aggregate and group). */
#define ST_VALID 1u /* the value is non-null */
#define ST_SET 2u   /* a non-null input arrived (decimal SUM) / valueSet (FIRST) */
#define ST_OVF 4u   /* a decimal sum overflowed: null for the rest of the aggregation */

/* Accumulator kinds: how an input folds into a buffer. */
enum {
  A_COUNT_ROWS = 1, /* count(*) */
  A_COUNT,          /* count of non-null inputs */
  A_COUNT_MERGE,    /* sum of partial counts */
  A_SUM_INT,        /* I32/I64 -> I64, wrapping */
  A_SUM_F64,
  A_SUM_DEC,        /* I64/I128 -> I64/I128, exact, overflow -> null */
  A_SUM_DEC_MERGE,  /* partial (sum, isEmpty) */
  A_MIN,
  A_MAX,
  A_FIRST,
  A_FIRST_MERGE /* partial (value, valueSet) */
};

/* A device heap block owned by a state. */
typedef soft_block agg_block;

typedef struct agg_col {
  uint32_t kind;  /* A_* of an update */
  uint32_t mkind; /* A_* when folding another state's buffer */
  uint32_t in_vt; /* input value type */
  uint32_t st_vt; /* stored (output) value type */
  uint32_t voff;  /* value offset in the record */
  uint32_t soff;  /* status byte offset */
  uint32_t ignore_nulls;
  uint16_t arg, arg2;
} agg_col;

typedef struct dict_ent {
  uint32_t off, len; /* string bytes in the arena */
  uint64_t hash;
} dict_ent;

typedef struct key_col {
  uint32_t vt;
  uint32_t off; /* value offset in the record */
  int64_t min;
  uint64_t card, stride;
  /* string domain dictionary of perfect hashing: dict_ent[card], then
     uint32 slots[dict_mask + 1] holding code + 1 */
  agg_block dict;
  uint32_t dict_n, dict_mask;
} key_col;

/* A row memo entry: a key tuple's raw words (memo_words) and its group,
   valid in the update whose number is gen. */
#define MEMO_SLOTS 128u
#define MEMO_KEYS 4u
typedef struct memo_ent {
  uint64_t gen;
  uint32_t gid, pad;
  uint64_t w[2 * MEMO_KEYS];
} memo_ent;

/* A key code slot of the hash path's code tables (fast_codes): a key
   value's raw word and its code + 1 (0: empty). */
#define FAST_KEYS 4u
#define FAST_IDX_BITS 10u
#define FAST_GID1_BITS 12u /* FAST_KEYS keys of fast_bits + 1 bits: 9, 12, 12, 12 */
#define FAST_SLOTS 512u
typedef struct fast_slot {
  uint64_t w;
  uint32_t code1, pad;
} fast_slot;

#define FEW_CACHE 8u
#define DENSE_GROUPS 8u

typedef struct pcache_ent {
  const uint8_t *p;
  uint32_t len, code;
  uint64_t gen;
} pcache_ent;

struct soft_agg_state {
  uint64_t magic;
  soft_device *d;
  uint64_t budget, held;
  uint32_t n_keys, n_aggs, rec_size, perfect;
  uint32_t rows_only; /* no keys, and every aggregate is count(*) */
  uint32_t key1;      /* one key, I32 or I64: key1_* fast paths */
  /* runs mode (soft_agg_runs): a group per run of equal keys, no table;
     the last run's key and group carry over from update to update */
  uint32_t runs, run_have, run_null, run_gid;
  uint64_t run_key;
  key_col keys[16];
  agg_col aggs[64];
  agg_block self, recs, table, arena, pindex;
  uint64_t n_groups, cap_groups, arena_used, gen;
  /* per-update scratch */
  pcache_ent pcache[16][PCACHE];
  uint64_t hashes[HADOS_VECTOR_SIZE];
  uint32_t gids[HADOS_VECTOR_SIZE];
  uint32_t idx[HADOS_VECTOR_SIZE];
  uint16_t rows[HADOS_VECTOR_SIZE];
  /* rows partitioned by group for fold_few (partition_few), computed
     when an aggregate first needs them (part_done) */
  uint16_t prows[HADOS_VECTOR_SIZE];
  uint32_t pstart[64 + 1];
  uint32_t part_ok, part_done, part_m;
  /* per-group row counts of this update (cnt_ok: valid), from the
     partition or from few_dense's group masks */
  uint32_t cnt_ok;
  uint32_t few_cnt[64];
  /* few_dense's scratch: each vector row's group (0xff: not selected)
     and each group's row bitmask (64 rows a word); it borrows hashes for
     an I128 register's low words */
  uint8_t dgid[HADOS_VECTOR_SIZE];
  uint64_t dmask[DENSE_GROUPS][HADOS_VECTOR_SIZE / 64];
  /* fold_few's per-group sums of this update's last FEW_CACHE summed
     registers: entry c holds those of register data few_cache_data[c]
     (type few_cache_vt[c]); few_cache_n entries are valid */
  uint32_t few_cache_n, few_cache_next;
  uint32_t few_cache_vt[FEW_CACHE];
  const void *few_cache_data[FEW_CACHE];
  const uint8_t *few_cache_valid[FEW_CACHE]; /* NULL: all valid */
  i128 few_acc[FEW_CACHE][64];
  uint8_t few_any[FEW_CACHE][64];
  /* some selected valid input of entry c lies outside [-2^51, 2^51) (I64)
     or [-2^114, 2^114) (I128): the bound dec_sums_safe asks of it */
  uint8_t few_big[FEW_CACHE];
  /* key codes of the hash path (see fast_codes) */
  uint32_t fast_ok, fast_bits;
  uint32_t fast_n[FAST_KEYS], fast_null[FAST_KEYS];
  fast_slot fslots[FAST_SLOTS];
  uint32_t fast_gid[1u << FAST_IDX_BITS];
  /* per key, the code + 1 (0: not seen yet) of each one-byte string, for
     registers of one-byte strings (soft_reg.str1) */
  uint16_t fast_byte[FAST_KEYS][256];
  /* group id + 1 (0: not known here) of each tuple of those codes + 1
     (fast_bits + 1 bits each, key 0 highest): fast_str1_rows's one lookup
     a row; filled from fast_gid */
  uint32_t fast_gid1[1u << FAST_GID1_BITS];
  /* row memo of the hash path (see memo_rows) */
  uint32_t memo_ok, memo_skip;
  uint64_t memo_gen;
  memo_ent memo[MEMO_SLOTS];
};

/* ---------------------------------------------------------------- memory */

/* Releases a block of a live state. */
static void blk_drop(soft_agg_state *st, agg_block *b) {
  st->held -= b->bytes;
  soft_block_free(st->d, b);
}

/* Replaces block b by one of want bytes, keeping its first keep bytes and
   zeroing the rest; within the budget counted as the bytes held after. */
static int blk_resize_z(soft_agg_state *st, agg_block *b, uint64_t want, uint64_t keep, int zero, const char *what);
static int blk_resize(soft_agg_state *st, agg_block *b, uint64_t want, uint64_t keep, const char *what) {
  return blk_resize_z(st, b, want, keep, 1, what);
}

/* blk_resize; with zero 0 the bytes after keep are left as they are (the
   group records: new_group clears each record it appends, so the unused
   tail is never read, and not touching it spares the page faults). */
static int blk_resize_z(soft_agg_state *st, agg_block *b, uint64_t want, uint64_t keep, int zero, const char *what) {
  soft_device *d = st->d;
  uint64_t len = soft_round_align(want);
  uint64_t after = st->held - b->bytes + len;
  if (st->budget && after > st->budget)
    return soft_fail(HADOS_E_NOMEM,
                     "soft agg: growing the %s to %llu bytes needs %llu bytes of aggregation state, over the budget of %llu bytes",
                     what, (unsigned long long)len, (unsigned long long)after, (unsigned long long)st->budget);
  agg_block nb;
  int s = soft_block_alloc(d, &nb, len);
  if (s) return s;
  if (keep) memcpy(nb.p, b->p, keep);
  if (zero) memset(nb.p + keep, 0, len - keep);
  soft_block_free(d, b);
  *b = nb;
  st->held = after;
  return HADOS_OK;
}

/* Makes room for extra more arena bytes. */
static int arena_reserve(soft_agg_state *st, uint64_t extra) {
  if (st->arena_used + extra <= st->arena.bytes) return HADOS_OK;
  uint64_t want = st->arena_used + extra;
  if (want > ARENA_MAX)
    return soft_fail(HADOS_E_NOMEM, "soft agg: string arena would need %llu bytes, over its 4 GiB limit", (unsigned long long)want);
  uint64_t n = st->arena.bytes ? st->arena.bytes * 2 : 4096;
  while (n < want) n *= 2;
  if (n > ARENA_MAX) n = ARENA_MAX;
  return blk_resize(st, &st->arena, n, st->arena_used, "string arena");
}

static uint32_t arena_put(soft_agg_state *st, const uint8_t *p, uint32_t len) {
  uint32_t off = (uint32_t)st->arena_used;
  if (len) memcpy(st->arena.p + off, p, len);
  st->arena_used += len;
  return off;
}

static int grow_groups(soft_agg_state *st) {
  if (st->n_groups >= MAX_GROUPS) return soft_fail(HADOS_E_NOMEM, "soft agg: more than %llu groups", (unsigned long long)MAX_GROUPS);
  uint64_t cap = st->cap_groups * 2;
  int s = blk_resize_z(st, &st->recs, cap * st->rec_size, st->n_groups * st->rec_size, 0, "group records");
  if (!s) st->cap_groups = cap;
  return s;
}

/* ---------------------------------------------------------------- values */

/* An input to fold: a register row or another state's buffer. */
typedef struct fin {
  uint32_t valid, flag;
  i128 i;
  double f;
  const uint8_t *p;
  uint32_t len;
} fin;

/* A register's arrays, hoisted out of the row loops (stores into records
   through uint8_t pointers would otherwise make the compiler reload them). */
typedef struct reg_view {
  const void *data;
  const uint8_t *valid;
  uint32_t all_valid;
} reg_view;

static reg_view view_of(const soft_reg *r) {
  reg_view v = {NULL, NULL, 1};
  if (r) {
    v.data = r->data;
    v.valid = r->valid;
    v.all_valid = r->all_valid;
  }
  return v;
}

AI void kval_reg(const soft_reg *r, uint32_t vt, uint32_t row, kval *o) {
  o->lo = o->hi = 0;
  o->len = 0;
  o->p = NULL;
  o->null = !(r->all_valid || r->valid[row]);
  if (o->null) return;
  switch (vt) {
    case HADOS_VT_I32: o->lo = (uint32_t)((const int32_t *)r->data)[row]; break;
    case HADOS_VT_I64: o->lo = (uint64_t)((const int64_t *)r->data)[row]; break;
    case HADOS_VT_F64: o->lo = f64_key_bits(((const double *)r->data)[row]); break;
    case HADOS_VT_I128:
      memcpy(&o->lo, (const uint8_t *)r->data + 16 * (size_t)row, 8);
      memcpy(&o->hi, (const uint8_t *)r->data + 16 * (size_t)row + 8, 8);
      break;
    case HADOS_VT_BOOL: o->lo = ((const uint8_t *)r->data)[row] != 0; break;
    case HADOS_VT_STR: {
      const soft_str *s = (const soft_str *)r->data + row;
      o->p = s->ptr;
      o->len = s->len;
      break;
    }
  }
}

static uint16_t rec_nulls(const uint8_t *rec) {
  uint16_t m;
  memcpy(&m, rec + 8, 2);
  return m;
}

static void kval_rec(const soft_agg_state *st, const uint8_t *rec, uint32_t k, kval *o) {
  const key_col *kc = &st->keys[k];
  const uint8_t *v = rec + kc->off;
  o->lo = o->hi = 0;
  o->len = 0;
  o->p = NULL;
  o->null = (rec_nulls(rec) >> k) & 1;
  if (o->null) return;
  switch (kc->vt) {
    case HADOS_VT_I32: {
      uint32_t x;
      memcpy(&x, v, 4);
      o->lo = x;
      break;
    }
    case HADOS_VT_I64:
    case HADOS_VT_F64: memcpy(&o->lo, v, 8); break;
    case HADOS_VT_I128:
      memcpy(&o->lo, v, 8);
      memcpy(&o->hi, v + 8, 8);
      break;
    case HADOS_VT_BOOL: o->lo = *v; break;
    case HADOS_VT_STR: {
      uint32_t off;
      memcpy(&off, v, 4);
      memcpy(&o->len, v + 4, 4);
      o->p = st->arena.p + off;
      break;
    }
  }
}

/* Where the key values of a group being looked up come from: a row of the
   key registers, or a record of another state (merge). */
typedef struct key_src {
  const soft_agg_state *st; /* with rec */
  const uint8_t *rec;
  const soft_reg *const *regs;
  uint32_t row;
} key_src;

static void kval_src(const soft_agg_state *st, const key_src *s, uint32_t k, kval *o) {
  if (s->rec)
    kval_rec(s->st, s->rec, k, o);
  else
    kval_reg(s->regs[k], st->keys[k].vt, s->row, o);
}

/* ---------------------------------------------------------------- hashing */

static uint64_t hash_src(const soft_agg_state *st, const key_src *s) {
  uint64_t h = 0;
  for (uint32_t k = 0; k < st->n_keys; k++) {
    kval x;
    kval_src(st, s, k, &x);
    h = hash_combine(h, hash_kval(&x, st->keys[k].vt));
  }
  return h;
}

/* Hashes the key columns of the vector's selected rows from.. into
   st->hashes. */
static void hash_rows(soft_agg_state *st, const soft_reg *const *keys, uint32_t m, uint32_t from) {
  uint64_t *hs = st->hashes;
  const uint16_t *rows = st->rows;
  memset(hs + from, 0, (m - from) * sizeof(uint64_t));
  for (uint32_t k = 0; k < st->n_keys; k++) {
    const soft_reg *r = keys[k];
    const reg_view rv = view_of(r);
    if (st->keys[k].vt == HADOS_VT_STR) { /* the common string key, without kval */
      const soft_str *sv = (const soft_str *)rv.data;
      for (uint32_t i = from; i < m; i++) {
        const uint32_t row = rows[i];
        uint64_t hk = HASH_NULL;
        if (rv.all_valid || rv.valid[row]) hk = hash_bytes(sv[row].ptr, sv[row].len);
        hs[i] = hash_combine(hs[i], hk);
      }
      continue;
    }
    if (st->keys[k].vt == HADOS_VT_I64 || st->keys[k].vt == HADOS_VT_I32) { /* hash_kval of an integer, inlined */
      const uint64_t c = fmix(0x2545f4914f6cdd1dULL);
      const int i64 = st->keys[k].vt == HADOS_VT_I64;
      for (uint32_t i = from; i < m; i++) {
        const uint32_t row = rows[i];
        const uint64_t x = i64 ? ((const uint64_t *)rv.data)[row] : ((const uint32_t *)rv.data)[row];
        const uint64_t hk = rv.all_valid || rv.valid[row] ? fmix(x ^ c) : HASH_NULL;
        hs[i] = hash_combine(hs[i], hk);
      }
      continue;
    }
#define HASH_LOOP(VT)                                 \
  for (uint32_t i = from; i < m; i++) {                  \
    kval x;                                           \
    kval_reg(r, VT, rows[i], &x);                     \
    hs[i] = hash_combine(hs[i], hash_kval(&x, VT));   \
  }                                                   \
  break;
    switch (st->keys[k].vt) {
      case HADOS_VT_I32: HASH_LOOP(HADOS_VT_I32)
      case HADOS_VT_I64: HASH_LOOP(HADOS_VT_I64)
      case HADOS_VT_F64: HASH_LOOP(HADOS_VT_F64)
      case HADOS_VT_I128: HASH_LOOP(HADOS_VT_I128)
      case HADOS_VT_BOOL: HASH_LOOP(HADOS_VT_BOOL)
    }
#undef HASH_LOOP
  }
}

/* ---------------------------------------------------------------- groups */

static uint8_t *rec_at(const soft_agg_state *st, uint64_t gid) { return st->recs.p + gid * st->rec_size; }

/* Key k of a register row as a record stores it, for one I32 or I64 key
   (st->key1): the value's bits, zero-extended; *null set for a null. */
AI uint64_t key1_reg(const soft_reg *r, uint32_t vt, uint32_t row, uint32_t *null) {
  *null = !(r->all_valid || r->valid[row]);
  if (*null) return 0;
  return vt == HADOS_VT_I64 ? ((const uint64_t *)r->data)[row] : ((const uint32_t *)r->data)[row];
}

AI uint64_t key1_rec(const soft_agg_state *st, const uint8_t *rec) {
  const uint8_t *v = rec + st->keys[0].off;
  if (st->keys[0].vt == HADOS_VT_I64) return *(const uint64_t *)v;
  return *(const uint32_t *)v;
}

static int keys_equal(const soft_agg_state *st, const uint8_t *rec, const key_src *s) {
  if (st->key1 && !s->rec) { /* one integer key of a register: no kval */
    uint32_t xnull;
    const uint64_t x = key1_reg(s->regs[0], st->keys[0].vt, s->row, &xnull);
    const uint32_t rnull = rec_nulls(rec) & 1;
    return rnull == xnull && (xnull || key1_rec(st, rec) == x);
  }
  for (uint32_t k = 0; k < st->n_keys; k++) {
    kval a, b;
    kval_rec(st, rec, k, &a);
    kval_src(st, s, k, &b);
    if (!kval_eq(&a, &b, st->keys[k].vt)) return 0;
  }
  return 1;
}

/* Appends a group with the source's keys; capacity only changes on error. */
static int new_group(soft_agg_state *st, const key_src *s, uint64_t hash, uint32_t *gid) {
  int e;
  if (st->n_groups == st->cap_groups && (e = grow_groups(st))) return e;
  if (st->key1 && !s->rec) { /* one integer key of a register: no kval */
    uint32_t xnull;
    const uint64_t x = key1_reg(s->regs[0], st->keys[0].vt, s->row, &xnull);
    uint8_t *rec = rec_at(st, st->n_groups);
    memset(rec, 0, st->rec_size);
    memcpy(rec, &hash, 8);
    const uint16_t nulls = (uint16_t)xnull;
    memcpy(rec + 8, &nulls, 2);
    uint8_t *v = rec + st->keys[0].off;
    if (st->keys[0].vt == HADOS_VT_I64)
      memcpy(v, &x, 8);
    else {
      const uint32_t x32 = (uint32_t)x;
      memcpy(v, &x32, 4);
    }
    *gid = (uint32_t)st->n_groups++;
    return HADOS_OK;
  }
  uint64_t strbytes = 0;
  kval kv[16];
  for (uint32_t k = 0; k < st->n_keys; k++) {
    kval_src(st, s, k, &kv[k]);
    strbytes += kv[k].len;
  }
  if (strbytes && (e = arena_reserve(st, strbytes))) return e;
  uint8_t *rec = rec_at(st, st->n_groups);
  memset(rec, 0, st->rec_size);
  memcpy(rec, &hash, 8);
  uint16_t nulls = 0;
  for (uint32_t k = 0; k < st->n_keys; k++) {
    const key_col *kc = &st->keys[k];
    uint8_t *v = rec + kc->off;
    if (kv[k].null) {
      nulls |= (uint16_t)(1u << k);
      continue;
    }
    switch (kc->vt) {
      case HADOS_VT_I32: {
        uint32_t x = (uint32_t)kv[k].lo;
        memcpy(v, &x, 4);
        break;
      }
      case HADOS_VT_I64:
      case HADOS_VT_F64: memcpy(v, &kv[k].lo, 8); break;
      case HADOS_VT_I128:
        memcpy(v, &kv[k].lo, 8);
        memcpy(v + 8, &kv[k].hi, 8);
        break;
      case HADOS_VT_BOOL: *v = (uint8_t)kv[k].lo; break;
      case HADOS_VT_STR: {
        uint32_t off = arena_put(st, kv[k].p, kv[k].len);
        memcpy(v, &off, 4);
        memcpy(v + 4, &kv[k].len, 4);
        break;
      }
    }
  }
  memcpy(rec + 8, &nulls, 2);
  *gid = (uint32_t)st->n_groups++;
  return HADOS_OK;
}

static void table_put(soft_agg_state *st, uint64_t hash, uint32_t gid) {
  uint64_t *tab = (uint64_t *)st->table.p;
  uint64_t mask = st->table.bytes / 8 - 1;
  uint64_t j = hash & mask;
  while (tab[j]) j = (j + 1) & mask;
  tab[j] = (hash >> 32 << 32) | ((uint64_t)gid + 1);
}

/* Rebuilds the table with cap slots (a power of two) from the records. */
static int table_build(soft_agg_state *st, uint64_t cap) {
  int e = blk_resize(st, &st->table, cap * 8, 0, "hash table");
  if (e) return e;
  enum { PF = 16 };
  const uint64_t *tab = (const uint64_t *)st->table.p;
  const uint64_t mask = cap - 1;
  for (uint64_t g = 0; g < st->n_groups; g++) {
    uint64_t h;
    if (g + PF < st->n_groups) { /* the slot a later record goes to */
      memcpy(&h, rec_at(st, g + PF), 8);
      __builtin_prefetch(&tab[h & mask], 1);
    }
    memcpy(&h, rec_at(st, g), 8);
    table_put(st, h, (uint32_t)g);
  }
  return HADOS_OK;
}

/* Grows the table before an insert would take its load over one half:
   4x while it stays within TABLE_QUAD slots (fewer rebuilds while a
   high-cardinality aggregation fills it), 2x beyond, or when 4x does not
   fit in the budget. */
#define TABLE_QUAD (1ULL << 18)
static int table_grow(soft_agg_state *st) {
  const uint64_t slots = st->table.bytes / 8;
  if (slots * 4 <= TABLE_QUAD) {
    const uint64_t held = st->held - st->table.bytes + soft_round_align(slots * 4 * 8);
    if (!st->budget || held <= st->budget) {
      int e = table_build(st, slots * 4);
      if (e != HADOS_E_NOMEM) return e;
    }
  }
  return table_build(st, slots * 2);
}

static int find_hash(soft_agg_state *st, const key_src *s, uint64_t hash, uint32_t *gid) {
  int e;
  if ((st->n_groups + 1) * 2 * 8 > st->table.bytes && (e = table_grow(st))) return e;
  uint64_t *tab = (uint64_t *)st->table.p;
  uint64_t mask = st->table.bytes / 8 - 1;
  uint64_t tag = hash >> 32;
  for (uint64_t j = hash & mask;; j = (j + 1) & mask) {
    uint64_t v = tab[j];
    if (!v) {
      if ((e = new_group(st, s, hash, gid))) return e;
      tab[j] = (tag << 32) | ((uint64_t)*gid + 1);
      return HADOS_OK;
    }
    if (v >> 32 == tag && keys_equal(st, rec_at(st, (uint32_t)v - 1), s)) {
      *gid = (uint32_t)v - 1;
      return HADOS_OK;
    }
  }
}

static int find_perfect(soft_agg_state *st, const key_src *s, uint32_t idx, uint32_t *gid) {
  uint32_t *pi = (uint32_t *)st->pindex.p;
  if (pi[idx]) {
    *gid = pi[idx] - 1;
    return HADOS_OK;
  }
  int e = new_group(st, s, 0, gid);
  if (!e) pi[idx] = *gid + 1;
  return e;
}

static void fast_setup(soft_agg_state *st);

/* Leaves perfect hashing for good: hashes every record into a new table
   and releases the index and the string dictionaries. */
static int switch_to_hash(soft_agg_state *st) {
  uint64_t cap = TABLE_MIN;
  while (cap < (st->n_groups + 1) * 4) cap *= 2;
  for (uint64_t g = 0; g < st->n_groups; g++) {
    key_src s = {.st = st, .rec = rec_at(st, g)};
    uint64_t h = hash_src(st, &s);
    memcpy(rec_at(st, g), &h, 8);
  }
  int e = table_build(st, cap);
  if (e) return e;
  blk_drop(st, &st->pindex);
  for (uint32_t k = 0; k < st->n_keys; k++) blk_drop(st, &st->keys[k].dict);
  st->perfect = 0;
  fast_setup(st);
  return HADOS_OK;
}

/* ---------------------------------------------------------------- perfect hashing: key codes */

static dict_ent *dict_ents(const key_col *kc) { return (dict_ent *)kc->dict.p; }
static uint32_t *dict_slots(const key_col *kc) { return (uint32_t *)(kc->dict.p + kc->card * sizeof(dict_ent)); }

/* Code of a string in key k's domain dictionary, adding it when new.
   Returns 1 when the domain is full (the value is outside it). */
static int dict_code(soft_agg_state *st, uint32_t k, const uint8_t *p, uint32_t len, uint64_t *code) {
  key_col *kc = &st->keys[k];
  uint64_t h = hash_bytes(p, len);
  uint32_t *slots = dict_slots(kc);
  for (uint32_t j = (uint32_t)h & kc->dict_mask;; j = (j + 1) & kc->dict_mask) {
    uint32_t c = slots[j];
    if (!c) {
      if (kc->dict_n == kc->card) return 1;
      int e = arena_reserve(st, len);
      if (e) return e;
      dict_ent *en = &dict_ents(kc)[kc->dict_n];
      en->off = arena_put(st, p, len);
      en->len = len;
      en->hash = h;
      slots[j] = ++kc->dict_n;
      *code = kc->dict_n - 1;
      return 0;
    }
    const dict_ent *en = &dict_ents(kc)[c - 1];
    if (en->hash == h && en->len == len && bytes_eq(st->arena.p + en->off, p, len)) {
      *code = c - 1;
      return 0;
    }
  }
}

/* Code of a key value in its domain (card for null); 1 when outside. */
static int key_code(soft_agg_state *st, uint32_t k, const kval *x, uint64_t *code) {
  const key_col *kc = &st->keys[k];
  if (x->null) {
    *code = kc->card;
    return 0;
  }
  int64_t v;
  switch (kc->vt) {
    case HADOS_VT_STR: return dict_code(st, k, x->p, x->len, code);
    case HADOS_VT_I32: v = (int32_t)(uint32_t)x->lo; break;
    default: v = (int64_t)x->lo; break;
  }
  if (v < kc->min) return 1;
  uint64_t c = (uint64_t)v - (uint64_t)kc->min;
  if (c >= kc->card) return 1;
  *code = c;
  return 0;
}

/* Dense index of a source's key tuple; 1 when outside the domain. */
static int src_index(soft_agg_state *st, const key_src *s, uint32_t *idx) {
  uint64_t sum = 0;
  for (uint32_t k = 0; k < st->n_keys; k++) {
    kval x;
    uint64_t c;
    kval_src(st, s, k, &x);
    int r = key_code(st, k, &x, &c);
    if (r) return r;
    sum += c * st->keys[k].stride;
  }
  *idx = (uint32_t)sum;
  return 0;
}

/* Dense indexes of the vector's rows into st->idx, column by column, with a
   pointer cache in front of string dictionaries. 1: a row is outside. */
static int rows_index(soft_agg_state *st, const soft_reg *const *keys, uint32_t m) {
  uint32_t *idx = st->idx;
  const uint16_t *rows = st->rows;
  const uint64_t gen = ++st->gen;
  memset(idx, 0, m * sizeof(uint32_t));
  for (uint32_t k = 0; k < st->n_keys; k++) {
    const key_col *kc = &st->keys[k];
    const reg_view r = view_of(keys[k]);
    const uint32_t stride = (uint32_t)kc->stride, card = (uint32_t)kc->card;
    if (kc->vt == HADOS_VT_STR) {
      pcache_ent *pc = st->pcache[k];
      const soft_str *sv = (const soft_str *)r.data;
      for (uint32_t i = 0; i < m; i++) {
        uint32_t row = rows[i];
        uint64_t c = card;
        if (r.all_valid || r.valid[row]) {
          const uint8_t *p = sv[row].ptr;
          uint32_t len = sv[row].len;
          pcache_ent *e = &pc[(((uintptr_t)p * 0x9e3779b97f4a7c15ULL) >> 58) ^ (len & (PCACHE - 1))];
          if (e->gen == gen && e->p == p && e->len == len) {
            c = e->code;
          } else {
            int rc = dict_code(st, k, p, len, &c);
            if (rc) return rc;
            *e = (pcache_ent){.p = p, .len = len, .code = (uint32_t)c, .gen = gen};
          }
        }
        idx[i] += (uint32_t)c * stride;
      }
      continue;
    }
    for (uint32_t i = 0; i < m; i++) {
      kval x;
      uint64_t c;
      kval_reg(keys[k], kc->vt, rows[i], &x);
      if (key_code(st, k, &x, &c)) return 1;
      idx[i] += (uint32_t)c * stride;
    }
  }
  return 0;
}

/* ---------------------------------------------------------------- undo */

typedef struct agg_snap {
  uint64_t n_groups, arena_used, run_key;
  uint32_t dict_n[16];
  uint32_t run_have, run_null, run_gid;
} agg_snap;

static void snap_take(const soft_agg_state *st, agg_snap *s) {
  s->n_groups = st->n_groups;
  s->run_key = st->run_key;
  s->run_have = st->run_have;
  s->run_null = st->run_null;
  s->run_gid = st->run_gid;
  s->arena_used = st->arena_used;
  for (uint32_t k = 0; k < st->n_keys; k++) s->dict_n[k] = st->keys[k].dict_n;
}

/* Removes the groups and dictionary strings added since the snapshot. Slots
   were filled in id order, so clearing those of newer ids leaves the probe
   chains of older ones intact. */
static void snap_restore(soft_agg_state *st, const agg_snap *s) {
  if (st->perfect) {
    uint32_t *pi = (uint32_t *)st->pindex.p;
    uint64_t n = st->pindex.bytes / 4;
    if (st->n_groups > s->n_groups)
      for (uint64_t i = 0; i < n; i++)
        if (pi[i] > s->n_groups) pi[i] = 0;
    for (uint32_t k = 0; k < st->n_keys; k++) {
      key_col *kc = &st->keys[k];
      if (!kc->dict.p || kc->dict_n == s->dict_n[k]) continue;
      uint32_t *slots = dict_slots(kc);
      for (uint32_t j = 0; j <= kc->dict_mask; j++)
        if (slots[j] > s->dict_n[k]) slots[j] = 0;
      kc->dict_n = s->dict_n[k];
    }
    st->gen++; /* the pointer cache may name removed codes */
  } else if (st->n_groups > s->n_groups) {
    uint64_t *tab = (uint64_t *)st->table.p;
    uint64_t n = st->table.bytes / 8;
    for (uint64_t i = 0; i < n; i++)
      if (tab[i] && (uint32_t)tab[i] > s->n_groups) tab[i] = 0;
    for (uint32_t i = 0; i < (1u << FAST_IDX_BITS); i++)
      if (st->fast_gid[i] > s->n_groups) st->fast_gid[i] = 0;
    for (uint32_t i = 0; i < (1u << FAST_GID1_BITS); i++)
      if (st->fast_gid1[i] > s->n_groups) st->fast_gid1[i] = 0;
  }
  st->n_groups = s->n_groups;
  st->run_key = s->run_key;
  st->run_have = s->run_have;
  st->run_null = s->run_null;
  st->run_gid = s->run_gid;
  st->arena_used = s->arena_used;
}

/* ---------------------------------------------------------------- folding */

AI i128 int_get(const uint8_t *v, uint32_t vt) {
  switch (vt) {
    case HADOS_VT_I32: return *(const int32_t *)v;
    case HADOS_VT_I64: return *(const int64_t *)v;
    case HADOS_VT_BOOL: return *v;
    default: {
      i128 x;
      memcpy(&x, v, 16);
      return x;
    }
  }
}

AI void int_put(uint8_t *v, uint32_t vt, i128 x) {
  switch (vt) {
    case HADOS_VT_I32: *(int32_t *)v = (int32_t)x; break;
    case HADOS_VT_I64: *(int64_t *)v = (int64_t)x; break;
    case HADOS_VT_BOOL: *v = (uint8_t)x; break;
    default: memcpy(v, &x, 16); break;
  }
}

/* Loads row `row` of a register (value type vt; vt 0: validity only). */
AI void fin_reg(reg_view r, uint32_t vt, uint32_t row, fin *x) {
  x->valid = r.all_valid || r.valid[row];
  switch (vt) {
    case HADOS_VT_I32: x->i = ((const int32_t *)r.data)[row]; break;
    case HADOS_VT_I64: x->i = ((const int64_t *)r.data)[row]; break;
    case HADOS_VT_F64: x->f = ((const double *)r.data)[row]; break;
    case HADOS_VT_I128: memcpy(&x->i, (const uint8_t *)r.data + 16 * (size_t)row, 16); break;
    case HADOS_VT_BOOL: x->i = ((const uint8_t *)r.data)[row] != 0; break;
    case HADOS_VT_STR: {
      const soft_str *s = (const soft_str *)r.data + row;
      x->p = s->ptr;
      x->len = s->len;
      break;
    }
  }
}

/* The value stored at v with type svt. */
AI void acc_value(const soft_agg_state *st, uint32_t svt, const uint8_t *v, fin *x) {
  switch (svt) {
    case HADOS_VT_F64: memcpy(&x->f, v, 8); break;
    case HADOS_VT_STR: {
      uint32_t off;
      memcpy(&off, v, 4);
      memcpy(&x->len, v + 4, 4);
      x->p = st->arena.p + off;
      break;
    }
    default: x->i = int_get(v, svt); break;
  }
}

/* Aggregate a's buffer in rec as an input of its merge kind: valid = the
   value is non-null, flag = isEmpty (decimal SUM) or valueSet (FIRST). */
static void fin_acc(const soft_agg_state *st, const agg_col *a, const uint8_t *rec, fin *x) {
  uint8_t s = rec[a->soff];
  acc_value(st, a->st_vt, rec + a->voff, x);
  switch (a->kind) {
    case A_COUNT_ROWS:
    case A_COUNT:
    case A_COUNT_MERGE: x->valid = 1; x->flag = 0; break;
    case A_SUM_DEC:
    case A_SUM_DEC_MERGE: x->valid = !(s & ST_OVF); x->flag = !(s & ST_SET); break;
    default: x->valid = (s & ST_VALID) != 0; x->flag = (s & ST_SET) != 0; break;
  }
}

AI int fin_less(const fin *a, const fin *b, uint32_t vt) {
  switch (vt) {
    case HADOS_VT_F64:
      if (isnan(a->f)) return 0;
      if (isnan(b->f)) return 1;
      return a->f < b->f;
    case HADOS_VT_STR: {
      uint32_t n = a->len < b->len ? a->len : b->len;
      int c = n ? memcmp(a->p, b->p, n) : 0;
      return c < 0 || (c == 0 && a->len < b->len);
    }
    default: return a->i < b->i;
  }
}

/* Stores x at v (type svt); string space was reserved before. */
AI void acc_store(soft_agg_state *st, uint32_t svt, uint8_t *v, const fin *x) {
  switch (svt) {
    case HADOS_VT_F64: memcpy(v, &x->f, 8); break;
    case HADOS_VT_STR: {
      uint32_t off, cap;
      memcpy(&off, v, 4);
      memcpy(&cap, v + 8, 4);
      if (x->len <= cap) {
        if (x->len) memcpy(st->arena.p + off, x->p, x->len);
      } else {
        off = arena_put(st, x->p, x->len);
        cap = x->len;
      }
      memcpy(v, &off, 4);
      memcpy(v + 4, &x->len, 4);
      memcpy(v + 8, &cap, 4);
      break;
    }
    default: int_put(v, svt, x->i); break;
  }
}

AI void dec_add(uint8_t *v, uint8_t *s, uint32_t svt, i128 x) {
  i128 r;
  int ovf = __builtin_add_overflow(int_get(v, svt), x, &r);
  if (!ovf && svt == HADOS_VT_I64) ovf = r < INT64_MIN || r > INT64_MAX;
  if (ovf)
    *s |= ST_OVF;
  else
    int_put(v, svt, r);
}

/* Folds one input into a buffer: value at v (stored type svt), status
   byte at s. kind, vt (the input's type) and svt are constants in the
   specialised loops; ign is FIRST's IGNORE_NULLS. */
AI void fold(soft_agg_state *st, uint32_t kind, uint32_t vt, uint32_t svt, uint32_t ign, uint8_t *v, uint8_t *s,
             const fin *x) {
  switch (kind) {
    case A_COUNT_ROWS: *(int64_t *)v += 1; break;
    case A_COUNT: *(int64_t *)v += x->valid; break;
    case A_COUNT_MERGE:
      if (x->valid) *(int64_t *)v = (int64_t)((uint64_t) * (int64_t *)v + (uint64_t)(int64_t)x->i);
      break;
    case A_SUM_INT:
      if (x->valid) {
        *(uint64_t *)v += (uint64_t)(int64_t)x->i;
        *s |= ST_VALID;
      }
      break;
    case A_SUM_F64:
      if (x->valid) {
        *(double *)v += x->f;
        *s |= ST_VALID;
      }
      break;
    case A_SUM_DEC:
      if (x->valid) {
        *s |= ST_SET;
        if (!(*s & ST_OVF)) dec_add(v, s, svt, x->i);
      }
      break;
    case A_SUM_DEC_MERGE: /* x: the partial sum (valid = non-null), flag = its isEmpty */
      if (!x->flag) *s |= ST_SET;
      if (!x->valid) {
        if (!x->flag) *s |= ST_OVF;
      } else if (!(*s & ST_OVF)) {
        dec_add(v, s, svt, x->i);
      }
      break;
    case A_MIN:
    case A_MAX:
      if (x->valid) {
        if (*s & ST_VALID) {
          fin cur = {0};
          acc_value(st, svt, v, &cur);
          if (!(kind == A_MIN ? fin_less(x, &cur, vt) : fin_less(&cur, x, vt))) break;
        }
        acc_store(st, svt, v, x);
        *s |= ST_VALID;
      }
      break;
    case A_FIRST:
    case A_FIRST_MERGE:
      if (*s & ST_SET) break;
      if (kind == A_FIRST ? (x->valid || !ign) : x->flag) {
        if (x->valid) acc_store(st, svt, v, x);
        *s = (uint8_t)(ST_SET | (x->valid ? ST_VALID : 0));
      }
      break;
  }
}

/* ---------------------------------------------------------------- few groups
   With few groups (Q1 has four), folding row by row into records costs a
   record address, a status byte and an overflow check per row and
   aggregate. Counts and sums instead sum each group's rows of a vector
   (the rows partitioned by group once per update, partition_few) in
   registers and fold each group's sum into its record once; a register
   summed by two aggregates (sum(x) and avg(x)) is summed once. The result is
   exactly row-by-row folding: integer sums wrap the same way in any order,
   and a decimal sum takes this path only when bounds prove that no prefix of
   the vector's rows can overflow the buffer (the buffers' current values
   and the inputs' magnitudes are checked first), so overflow-to-null
   happens exactly when it would row by row. */
#define FEW_GROUPS 64u
#define FEW_INLINE static inline __attribute__((always_inline))

/* Whether every selected valid input of r (I64 or I128) lies in
   [-2^bits, 2^bits). */
static int inputs_within(reg_view r, uint32_t vt, const uint16_t *rows, uint32_t m, int bits) {
  uint64_t bad = 0;
  if (vt == HADOS_VT_I64) {
    const int64_t *x = r.data;
    for (uint32_t i = 0; i < m; i++) {
      uint32_t row = rows[i];
      uint64_t ok = r.all_valid || r.valid[row];
      bad |= ok & ((uint64_t)((x[row] >> bits) + 1) > 1);
    }
  } else if (bits < 64) {
    const i128 *x = r.data;
    for (uint32_t i = 0; i < m; i++) {
      uint32_t row = rows[i];
      uint64_t ok = r.all_valid || r.valid[row];
      bad |= ok & ((unsigned __int128)((x[row] >> bits) + 1) > 1);
    }
  } else { /* the high word alone decides */
    const uint8_t *x = r.data;
    const int hb = bits - 64;
    for (uint32_t i = 0; i < m; i++) {
      uint32_t row = rows[i];
      int64_t hi;
      memcpy(&hi, x + 16 * (size_t)row + 8, 8);
      uint64_t ok = r.all_valid || r.valid[row];
      bad |= ok & ((uint64_t)((hi >> hb) + 1) > 1);
    }
  }
  return !bad;
}

/* Whether the decimal sums of every group are small enough that adding
   m inputs below 2^in_bits in magnitude cannot leave the buffer's range. */
static int dec_sums_safe(const soft_agg_state *st, const agg_col *a, reg_view r, uint32_t m, int *fused) {
  /* I128 buffers: |sum| < 2^125 and |inputs| <= 2^114 (I64 inputs always)
     keep every prefix below 2^126; I64 buffers: |sum| < 2^62 and |inputs|
     < 2^51 keep it below 2^63 (2048 rows = 2^11). */
  int wide = a->st_vt == HADOS_VT_I128;
  const i128 lim = (i128)1 << (wide ? 125 : 62);
  for (uint64_t g = 0; g < st->n_groups; g++) {
    i128 sum = int_get(st->recs.p + g * st->rec_size + a->voff, a->st_vt);
    if (sum >= lim || sum <= -lim) return 0;
  }
  if (wide && a->in_vt == HADOS_VT_I64) return 1;
  /* the inputs' bound: checked by few_sum while it sums (fused = the shift
     of the word it tests), or here in a pass of its own */
  if (wide && a->in_vt == HADOS_VT_I128) {
    *fused = 114 - 64;
    return 1;
  }
  if (!wide && a->in_vt == HADOS_VT_I64) {
    *fused = 51;
    return 1;
  }
  return inputs_within(r, a->in_vt, st->rows, m, wide ? 114 : 51);
}

/* Partitions the update's rows by group (a counting sort of st->rows by
   st->gids into st->prows, group g's rows at [pstart[g], pstart[g + 1]))
   once per update, for fold_few: every aggregate then sums each group's
   rows into a register, with no store-to-load chain through a per-group
   array. The counting and the scatter cycle rows over four sets of
   counters so that a run of rows of one group does not wait on its own
   stores; a group's rows therefore come out in four interleaved runs,
   which integer sums do not mind. Sets st->part_ok when it applies. */
#define PART_WAYS 4u
static void partition_few(soft_agg_state *st, uint32_t m) {
  const uint64_t ng = st->n_groups;
  st->part_ok = 0;
  st->part_done = 1;
  if (ng > FEW_GROUPS || m < 4 * ng) return;
  if (ng == 1) { /* a global aggregate (or one group so far): the rows as they are */
    memcpy(st->prows, st->rows, m * sizeof(uint16_t));
    st->pstart[0] = 0;
    st->pstart[1] = m;
    st->few_cnt[0] = m;
    st->cnt_ok = 1;
    st->part_ok = 1;
    return;
  }
  uint32_t cnt[PART_WAYS][FEW_GROUPS];
  memset(cnt, 0, sizeof cnt);
  const uint32_t *gids = st->gids;
  const uint16_t *rows = st->rows;
  uint32_t i = 0;
  for (; i + PART_WAYS <= m; i += PART_WAYS)
    for (uint32_t q = 0; q < PART_WAYS; q++) cnt[q][gids[i + q]]++;
  for (uint32_t q = 0; i < m; i++, q++) cnt[q][gids[i]]++;
  uint32_t *ps = st->pstart, at = 0;
  for (uint64_t g = 0; g < ng; g++) {
    ps[g] = at;
    for (uint32_t q = 0; q < PART_WAYS; q++) {
      uint32_t c = cnt[q][g];
      cnt[q][g] = at; /* now the next slot of (q, g) */
      at += c;
    }
    st->few_cnt[g] = at - ps[g];
  }
  ps[ng] = at;
  st->cnt_ok = 1;
  uint16_t *pr = st->prows;
  for (i = 0; i + PART_WAYS <= m; i += PART_WAYS)
    for (uint32_t q = 0; q < PART_WAYS; q++) pr[cnt[q][gids[i + q]]++] = rows[i + q];
  for (uint32_t q = 0; i < m; i++, q++) pr[cnt[q][gids[i]]++] = rows[i];
  st->part_ok = 1;
}

/* Starts an update's few-group folding: nothing computed yet (the
   partition is made when an aggregate first needs it). */
static void few_begin(soft_agg_state *st, uint32_t m) {
  st->part_ok = 0;
  st->part_done = 0;
  st->part_m = m;
  st->cnt_ok = 0;
  st->few_cache_n = 0;
  st->few_cache_next = 0;
}

/* The partition of this update's rows, made on first use; whether it
   applies. */
static int part_ensure(soft_agg_state *st) {
  if (!st->part_done) partition_few(st, st->part_m);
  return st->part_ok;
}

/* A new few-cache entry for register r (type vt), the oldest going when
   all are taken. */
static uint32_t few_cache_new(soft_agg_state *st, reg_view r, uint32_t vt) {
  uint32_t c;
  if (st->few_cache_n < FEW_CACHE) {
    c = st->few_cache_n++;
  } else {
    c = st->few_cache_next;
    st->few_cache_next = (c + 1) % FEW_CACHE;
  }
  st->few_cache_data[c] = r.data;
  st->few_cache_vt[c] = vt;
  st->few_cache_valid[c] = r.all_valid ? NULL : r.valid;
  st->few_big[c] = 0;
  return c;
}

/* The few-cache entry of register r (type vt), or few_cache_n. */
static uint32_t few_cache_find(const soft_agg_state *st, reg_view r, uint32_t vt) {
  const uint8_t *rvalid = r.all_valid ? NULL : r.valid;
  uint32_t c = 0;
  while (c < st->few_cache_n && !(st->few_cache_data[c] == r.data && st->few_cache_vt[c] == vt && st->few_cache_valid[c] == rvalid))
    c++;
  return c;
}

/* Sums n rows (pr) of an I32 / I64 / I128 register into an i128 and says
   whether any was valid. The sums run in 64-bit words that cannot overflow
   for n <= HADOS_VECTOR_SIZE (2^11): an I64 value splits into its signed
   high and unsigned low 32 bits; an I128 value into its signed high word
   and the two 32-bit halves of its low word (exact while |high| < 2^52,
   which *badp reports otherwise). Invalid rows add zero (masked, no
   branch). *badp also gets whether a valid input lies outside the bound
   of few_big: [-2^51, 2^51) for I64, [-2^114, 2^114) for I128. */
FEW_INLINE void few_word(const void *data, uint32_t vt, uint32_t row, int64_t *hi, uint64_t *l1, uint64_t *l0) {
  if (vt == HADOS_VT_I32) {
    *hi = 0;
    *l1 = 0;
    *l0 = (uint64_t)(int64_t)((const int32_t *)data)[row];
  } else if (vt == HADOS_VT_I64) {
    int64_t x = ((const int64_t *)data)[row];
    *hi = 0;
    *l1 = (uint64_t)(x >> 32);
    *l0 = (uint32_t)x;
  } else {
    uint64_t w[2];
    memcpy(w, (const uint8_t *)data + 16 * (size_t)row, 16);
    *hi = (int64_t)w[1];
    *l1 = w[0] >> 32;
    *l0 = (uint32_t)w[0];
  }
}

static i128 few_sum(reg_view r, uint32_t vt, const uint16_t *pr, uint32_t n, uint8_t *any, uint64_t *badp) {
  int64_t h = 0;
  uint64_t s1 = 0, s0 = 0, nv = 0, bad = 0;
#define FEW_SUM_LOOP(VT, VALID)                                    \
  for (uint32_t j = 0; j < n; j++) {                               \
    const uint32_t row = pr[j];                                    \
    int64_t hi;                                                    \
    uint64_t l1, l0, mask = (VALID) ? 0 - (uint64_t)r.valid[row] : ~0ull; \
    few_word(r.data, VT, row, &hi, &l1, &l0);                      \
    if ((VT) != HADOS_VT_I32) { /* the bound of the input (I128: its high word) */ \
      const int64_t bw = (VT) == HADOS_VT_I128 ? hi : (int64_t)(l1 << 32 | l0); \
      bad |= mask & ((uint64_t)((bw >> ((VT) == HADOS_VT_I128 ? 50 : 51)) + 1) > 1); \
    }                                                              \
    h += (int64_t)((uint64_t)hi & mask);                           \
    s1 += l1 & mask;                                               \
    s0 += l0 & mask;                                               \
    nv += mask & 1;                                                \
  }
#define FEW_SUM_VT(VT)            \
  if (r.all_valid) {              \
    FEW_SUM_LOOP(VT, 0)           \
  } else {                        \
    FEW_SUM_LOOP(VT, 1)           \
  }
  if (vt == HADOS_VT_I32) {
    FEW_SUM_VT(HADOS_VT_I32)
  } else if (vt == HADOS_VT_I64) {
    FEW_SUM_VT(HADOS_VT_I64)
  } else {
    FEW_SUM_VT(HADOS_VT_I128)
  }
#undef FEW_SUM_VT
#undef FEW_SUM_LOOP
  *any = nv != 0;
  *badp |= bad;
  if (vt == HADOS_VT_I64) /* s1 holds the sign-extended high halves */
    return (i128)(int64_t)s1 * ((i128)1 << 32) + (i128)s0;
  if (vt == HADOS_VT_I32) return (i128)(int64_t)s0;
  return (i128)h * ((i128)1 << 64) + (i128)s1 * ((i128)1 << 32) + (i128)s0;
}

/* ---- dense few-group sums (AVX-512)
   Q1 keeps ~98% of a vector's rows and has four groups. There, gathering
   each group's rows (the partition) costs more than reading every row of
   the vector once per group under a bitmask: few_dense gives each row of
   the vector its group (or none, unselected), makes one row bitmask per
   group (64 rows a word), and sums every I64 / I128 register that a SUM
   reads into per-group sums with masked 64-bit adds over contiguous rows,
   before any aggregate folds; fold_few then finds those sums in its
   cache. Exact: a register takes this path only when every selected valid
   input lies in [-2^51, 2^51) (an I128 one: its high word is the sign of
   its low word, which lies in that range), so 2048 of them add in 64 bits
   without overflow, and the bound fold_few asks of decimal inputs holds;
   a register with any other input is left to the partition path, which
   sums exactly and reports the bound. Unselected rows are read (a vector
   register holds n rows) but masked out. */
#define DENSE_TARGET __attribute__((target("avx512f,avx512dq,avx512bw,avx512vl")))
#include <immintrin.h>

/* Each group's row bitmask from st->dgid (nw words of 64 rows) and its row
   count. */
DENSE_TARGET static void dense_masks(soft_agg_state *st, uint32_t nw, uint32_t ng) {
  for (uint32_t g = 0; g < ng; g++) {
    const __m512i gv = _mm512_set1_epi8((char)g);
    uint32_t cnt = 0;
    for (uint32_t w = 0; w < nw; w++) {
      const uint64_t mk = _mm512_cmpeq_epi8_mask(_mm512_loadu_si512(st->dgid + 64 * (size_t)w), gv);
      st->dmask[g][w] = mk;
      cnt += (uint32_t)__builtin_popcountll(mk);
    }
    st->few_cnt[g] = cnt;
  }
  st->cnt_ok = 1;
}

/* Copies the low words of rows [0, n) of an I128 register to lo; whether
   every row set in sel (bits by row) holds a value whose high word is its
   low word's sign and whose low word lies in [-2^51, 2^51). */
DENSE_TARGET static int dense_narrow128(const uint8_t *x, uint32_t n, const uint64_t *sel, int64_t *lo) {
  const __m512i ilo = _mm512_set_epi64(14, 12, 10, 8, 6, 4, 2, 0), ihi = _mm512_set_epi64(15, 13, 11, 9, 7, 5, 3, 1);
  const __m512i off = _mm512_set1_epi64((int64_t)1 << 51), lim = _mm512_set1_epi64(((int64_t)1 << 52) - 1);
  __mmask8 bad = 0;
  uint32_t b = 0;
  const uint8_t *sb = (const uint8_t *)sel;
  for (; 8 * b + 8 <= n; b++) {
    const __m512i a = _mm512_loadu_si512(x + 128 * (size_t)b), c = _mm512_loadu_si512(x + 128 * (size_t)b + 64);
    const __m512i l = _mm512_permutex2var_epi64(a, ilo, c), h = _mm512_permutex2var_epi64(a, ihi, c);
    const __mmask8 k = sb[b];
    bad |= _mm512_mask_cmpneq_epi64_mask(k, h, _mm512_srai_epi64(l, 63));
    bad |= _mm512_mask_cmpgt_epu64_mask(k, _mm512_add_epi64(l, off), lim);
    _mm512_storeu_si512(lo + 8 * (size_t)b, l);
  }
  for (uint32_t i = 8 * b; i < n; i++) { /* the tail */
    int64_t w[2];
    memcpy(w, x + 16 * (size_t)i, 16);
    lo[i] = w[0];
    if (sb[b] >> (i & 7) & 1) bad |= (w[1] != w[0] >> 63) | ((uint64_t)w[0] + ((uint64_t)1 << 51) > ((uint64_t)1 << 52) - 1);
  }
  return bad == 0;
}

/* Whether every row set in sel of an I64 register lies in [-2^51, 2^51). */
DENSE_TARGET static int dense_bound64(const int64_t *x, uint32_t n, const uint64_t *sel) {
  const __m512i off = _mm512_set1_epi64((int64_t)1 << 51), lim = _mm512_set1_epi64(((int64_t)1 << 52) - 1);
  const uint8_t *sb = (const uint8_t *)sel;
  __mmask8 bad = 0;
  uint32_t b = 0;
  for (; 8 * b + 8 <= n; b++)
    bad |= _mm512_mask_cmpgt_epu64_mask(sb[b], _mm512_add_epi64(_mm512_loadu_si512(x + 8 * (size_t)b), off), lim);
  if (8 * b < n) {
    const __mmask8 t = (__mmask8)((1u << (n - 8 * b)) - 1);
    bad |= _mm512_mask_cmpgt_epu64_mask(sb[b] & t, _mm512_add_epi64(_mm512_maskz_loadu_epi64(t, x + 8 * (size_t)b), off), lim);
  }
  return bad == 0;
}

/* The sum of the rows [0, n) of x set in mask (bits by row), in 64 bits. */
DENSE_TARGET static int64_t dense_sum64(const int64_t *x, uint32_t n, const uint64_t *mask) {
  const uint8_t *mb = (const uint8_t *)mask;
  __m512i a0 = _mm512_setzero_si512(), a1 = _mm512_setzero_si512();
  uint32_t b = 0;
  for (; 8 * b + 16 <= n; b += 2) {
    a0 = _mm512_mask_add_epi64(a0, mb[b], a0, _mm512_loadu_si512(x + 8 * (size_t)b));
    a1 = _mm512_mask_add_epi64(a1, mb[b + 1], a1, _mm512_loadu_si512(x + 8 * (size_t)b + 8));
  }
  for (; 8 * b < n; b++) {
    const __mmask8 t = 8 * b + 8 <= n ? (__mmask8)0xff : (__mmask8)((1u << (n - 8 * b)) - 1);
    a0 = _mm512_mask_add_epi64(a0, mb[b] & t, a0, _mm512_maskz_loadu_epi64(t, x + 8 * (size_t)b));
  }
  return _mm512_reduce_add_epi64(_mm512_add_epi64(a0, a1));
}

/* The validity bits (by row) of rows [0, n), 64 rows a word. */
DENSE_TARGET static void dense_valid(const uint8_t *valid, uint32_t n, uint64_t *vm) {
  for (uint32_t w = 0; 64 * w < n; w++) {
    const uint32_t left = n - 64 * w;
    const __mmask64 t = left >= 64 ? ~(__mmask64)0 : (((__mmask64)1 << left) - 1);
    const __m512i x = _mm512_maskz_loadu_epi8(t, valid + 64 * (size_t)w);
    vm[w] = _mm512_test_epi8_mask(x, x);
  }
}

/* Sums up to four all-valid registers (I64, or I128 whose values fit
   their low word) per group in one pass over rows [0, n): each 8-row
   block's groups (st->dgid) are compared with every group once, and each
   register's 8 values (an I128's low words, its high words checked to be
   their sign) are added under those masks; bad[r] says whether a selected
   value of register r lies outside [-2^51, 2^51) (its sums are then not
   exact). R and NG are constants of each instance. */
static const uint8_t dense_spread[16] = {0x00, 0x03, 0x0c, 0x0f, 0x30, 0x33, 0x3c, 0x3f,
                                         0xc0, 0xc3, 0xcc, 0xcf, 0xf0, 0xf3, 0xfc, 0xff};
DENSE_TARGET static inline __attribute__((always_inline)) void dense_multi(const uint8_t *dgid, uint32_t n, const void *const *xs,
                                                                          const uint32_t *vts, const int R, const int NG,
                                                                          int64_t (*sums)[DENSE_GROUPS], uint8_t *bad) {
  const __m512i off = _mm512_set1_epi64((int64_t)1 << 51), lim = _mm512_set1_epi64(((int64_t)1 << 52) - 1);
  const __m512i ilo = _mm512_set_epi64(14, 12, 10, 8, 6, 4, 2, 0), ihi = _mm512_set_epi64(15, 13, 11, 9, 7, 5, 3, 1);
  const __m512i ngv = _mm512_set1_epi64(NG);
  __m512i acc[4][DENSE_GROUPS];
  __mmask8 badm[4] = {0, 0, 0, 0};
#pragma GCC unroll 4
  for (int r = 0; r < R; r++)
#pragma GCC unroll 8
    for (int g = 0; g < NG; g++) acc[r][g] = _mm512_setzero_si512();
  for (uint32_t r0 = 0; r0 < n; r0 += 8) {
    const __mmask8 t = r0 + 8 <= n ? (__mmask8)0xff : (__mmask8)((1u << (n - r0)) - 1);
    const __m512i gv = _mm512_cvtepu8_epi64(_mm_loadl_epi64((const __m128i *)(dgid + r0)));
    __mmask8 k[DENSE_GROUPS];
#pragma GCC unroll 8
    for (int g = 0; g < NG; g++) k[g] = _mm512_cmpeq_epi64_mask(gv, _mm512_set1_epi64(g));
    const __mmask8 ks = _mm512_cmplt_epu64_mask(gv, ngv);
#pragma GCC unroll 4
    for (int r = 0; r < R; r++) {
      __m512i x;
      if (vts[r] == HADOS_VT_I64) {
        x = _mm512_maskz_loadu_epi64(t, (const int64_t *)xs[r] + r0);
      } else {
        const int64_t *p = (const int64_t *)xs[r] + 2 * (size_t)r0;
        const __m512i a = _mm512_maskz_loadu_epi64(dense_spread[t & 15], p), c = _mm512_maskz_loadu_epi64(dense_spread[t >> 4], p + 8);
        x = _mm512_permutex2var_epi64(a, ilo, c);
        badm[r] |= _mm512_mask_cmpneq_epi64_mask(ks, _mm512_permutex2var_epi64(a, ihi, c), _mm512_srai_epi64(x, 63));
      }
      badm[r] |= _mm512_mask_cmpgt_epu64_mask(ks, _mm512_add_epi64(x, off), lim);
#pragma GCC unroll 8
      for (int g = 0; g < NG; g++) acc[r][g] = _mm512_mask_add_epi64(acc[r][g], k[g], acc[r][g], x);
    }
  }
#pragma GCC unroll 4
  for (int r = 0; r < R; r++) {
    bad[r] = badm[r] != 0;
#pragma GCC unroll 8
    for (int g = 0; g < NG; g++) sums[r][g] = _mm512_reduce_add_epi64(acc[r][g]);
  }
}

#define DENSE_MULTI_FN(NG, R)                                                                                         \
  DENSE_TARGET static void dense_multi_##NG##_##R(const uint8_t *dgid, uint32_t n, const void *const *xs, const uint32_t *vts, \
                                                  int64_t (*sums)[DENSE_GROUPS], uint8_t *bad) {                       \
    dense_multi(dgid, n, xs, vts, R, NG, sums, bad);                                                                  \
  }
#define DENSE_MULTI_NG4(NG) DENSE_MULTI_FN(NG, 1) DENSE_MULTI_FN(NG, 2) DENSE_MULTI_FN(NG, 3) DENSE_MULTI_FN(NG, 4)
#define DENSE_MULTI_NG2(NG) DENSE_MULTI_FN(NG, 1) DENSE_MULTI_FN(NG, 2)
DENSE_MULTI_NG4(1)
DENSE_MULTI_NG4(2)
DENSE_MULTI_NG4(3)
DENSE_MULTI_NG4(4)
DENSE_MULTI_NG2(5)
DENSE_MULTI_NG2(6)
DENSE_MULTI_NG2(7)
DENSE_MULTI_NG2(8)
typedef void (*dense_multi_fn)(const uint8_t *, uint32_t, const void *const *, const uint32_t *, int64_t (*)[DENSE_GROUPS], uint8_t *);
#define DENSE_ROW4(NG) {dense_multi_##NG##_1, dense_multi_##NG##_2, dense_multi_##NG##_3, dense_multi_##NG##_4}
#define DENSE_ROW2(NG) {dense_multi_##NG##_1, dense_multi_##NG##_2, NULL, NULL}
static const dense_multi_fn dense_multi_fns[DENSE_GROUPS][4] = {DENSE_ROW4(1), DENSE_ROW4(2), DENSE_ROW4(3), DENSE_ROW4(4),
                                                                DENSE_ROW2(5), DENSE_ROW2(6), DENSE_ROW2(7), DENSE_ROW2(8)};

/* Computes the per-group sums of every I64 / I128 register a SUM of this
   update reads, into the few cache, when the vector is dense enough and
   the groups few enough (see above). */
static void few_dense(soft_agg_state *st, const soft_reg *const *args, const soft_vec *v, uint32_t m) {
  const uint64_t ng = st->n_groups;
  const uint32_t n = v->n;
  if (st->d->kern.simd != HADOS_SIMD_AVX512 || !args || ng > DENSE_GROUPS || ng > FEW_GROUPS || m < 4 * ng || n > HADOS_VECTOR_SIZE ||
      4 * (uint64_t)m < 3 * (uint64_t)n)
    return;
  int want = 0;
  for (uint32_t j = 0; j < st->n_aggs; j++) {
    const agg_col *a = &st->aggs[j];
    want |= (a->kind == A_SUM_INT || a->kind == A_SUM_DEC) && (a->in_vt == HADOS_VT_I64 || a->in_vt == HADOS_VT_I128) && args[j];
  }
  if (!want) return;
  const uint32_t nw = (n + 63) / 64;
  memset(st->dgid, 0xff, 64 * (size_t)nw);
  if (v->sel)
    for (uint32_t i = 0; i < m; i++) st->dgid[st->rows[i]] = (uint8_t)st->gids[i];
  else
    for (uint32_t i = 0; i < m; i++) st->dgid[i] = (uint8_t)st->gids[i];
  dense_masks(st, nw, (uint32_t)ng);
  uint32_t distinct = 0;
  for (uint64_t g = 0; g < ng; g++) distinct += st->few_cnt[g];
  if (distinct != m) { /* a selection naming a row twice: leave it to the row paths */
    st->cnt_ok = 0;
    return;
  }
  uint64_t selw[HADOS_VECTOR_SIZE / 64], vm[HADOS_VECTOR_SIZE / 64], gm[HADOS_VECTOR_SIZE / 64];
  for (uint32_t w = 0; w < nw; w++) {
    uint64_t s = 0;
    for (uint64_t g = 0; g < ng; g++) s |= st->dmask[g][w];
    selw[w] = s;
  }
  int64_t *lo = (int64_t *)st->hashes;
  /* all-valid registers: up to four (two above four groups) at a time in
     one pass (dense_multi); registers with nulls: one pass per group */
  const uint32_t rmax = ng <= 4 ? 4 : 2;
  const void *mx[4];
  uint32_t mvt[4], dvt[4], mn = 0; /* mvt: the type the cache knows; dvt: the storage (I64 for a narrow I128) */
  reg_view mr[4];
  for (uint32_t j = 0; j <= st->n_aggs; j++) {
    const agg_col *a = j < st->n_aggs ? &st->aggs[j] : NULL;
    const int take = a && (a->kind == A_SUM_INT || a->kind == A_SUM_DEC) && (a->in_vt == HADOS_VT_I64 || a->in_vt == HADOS_VT_I128) && args[j] &&
                     args[j]->all_valid;
    if (take) {
      const reg_view r = view_of(args[j]);
      int dup = few_cache_find(st, r, a->in_vt) < st->few_cache_n;
      for (uint32_t q = 0; q < mn && !dup; q++) dup = mx[q] == r.data && mvt[q] == a->in_vt;
      if (!dup) {
        mr[mn] = r;
        mx[mn] = r.data;
        dvt[mn] = args[j]->narrow ? HADOS_VT_I64 : a->in_vt;
        mvt[mn++] = a->in_vt;
      }
    }
    if (mn && (mn == rmax || !a || st->few_cache_n + mn >= FEW_CACHE)) {
      int64_t sums[4][DENSE_GROUPS];
      uint8_t bad[4];
      dense_multi_fns[ng - 1][mn - 1](st->dgid, n, mx, dvt, sums, bad);
      for (uint32_t q = 0; q < mn; q++) {
        if (bad[q] || st->few_cache_n >= FEW_CACHE) continue;
        const uint32_t c = few_cache_new(st, mr[q], mvt[q]);
        for (uint64_t g = 0; g < ng; g++) {
          st->few_any[c][g] = st->few_cnt[g] != 0;
          st->few_acc[c][g] = sums[q][g];
        }
      }
      mn = 0;
    }
  }
  for (uint32_t j = 0; j < st->n_aggs && st->few_cache_n < FEW_CACHE; j++) {
    const agg_col *a = &st->aggs[j];
    if (!((a->kind == A_SUM_INT || a->kind == A_SUM_DEC) && (a->in_vt == HADOS_VT_I64 || a->in_vt == HADOS_VT_I128) && args[j])) continue;
    const reg_view r = view_of(args[j]);
    /* all-valid ones were summed above (or failed the bound) */
    if (r.all_valid || few_cache_find(st, r, a->in_vt) < st->few_cache_n) continue;
    dense_valid(r.valid, n, vm);
    for (uint32_t w = 0; w < nw; w++) vm[w] &= selw[w];
    const int64_t *x = r.data;
    if (a->in_vt == HADOS_VT_I128 && !args[j]->narrow) {
      if (!dense_narrow128(r.data, n, vm, lo)) continue;
      x = lo;
    } else if (!dense_bound64(x, n, vm)) {
      continue;
    }
    const uint32_t c = few_cache_new(st, r, a->in_vt);
    for (uint64_t g = 0; g < ng; g++) {
      uint64_t nv = 0;
      for (uint32_t w = 0; w < nw; w++) {
        gm[w] = st->dmask[g][w] & vm[w];
        nv |= gm[w];
      }
      st->few_any[c][g] = nv != 0;
      st->few_acc[c][g] = nv ? (i128)dense_sum64(x, n, gm) : 0;
    }
  }
}

/* An aggregate few_dense / fold_few sum (and whose narrow argument they
   may read as int64 storage). */
static int sum_kind(uint32_t kind) { return kind == A_SUM_INT || kind == A_SUM_DEC; }

/* Folds with per-group sums when it applies (see above); returns whether
   it did. */
static int fold_few(soft_agg_state *st, const agg_col *a, const soft_reg *r1, uint32_t m) {
  const uint64_t ng = st->n_groups;
  const uint32_t kind = a->kind;
  if (ng > FEW_GROUPS || m < 4 * ng) return 0;
  if (kind == A_SUM_F64 && ng == 1 && a->in_vt == HADOS_VT_F64) {
    /* one group: its rows in input order (partition_few keeps them so),
       added in a register in the same order as row by row, so the sum is
       the same to the bit */
    if (!part_ensure(st)) return 0;
    const reg_view r = view_of(r1);
    const double *x = r.data;
    const uint16_t *pr = st->prows;
    uint8_t *rec = st->recs.p, *v = rec + a->voff, *s = rec + a->soff;
    double acc;
    memcpy(&acc, v, 8);
    uint32_t nv = 0;
    if (r.all_valid) {
      for (uint32_t j = 0; j < m; j++) acc += x[pr[j]];
      nv = m;
    } else {
      for (uint32_t j = 0; j < m; j++) {
        const uint32_t row = pr[j];
        if (r.valid[row]) {
          acc += x[row];
          nv++;
        }
      }
    }
    if (nv) {
      memcpy(v, &acc, 8);
      *s |= ST_VALID;
    }
    return 1;
  }
  if (kind != A_COUNT_ROWS && kind != A_COUNT && kind != A_SUM_INT && kind != A_SUM_DEC) return 0;
  /* a narrow argument: only its sums few_dense left in the cache (into
     128-bit buffers, whose bound needs no pass over the inputs) */
  if (r1 && r1->narrow && (kind != A_SUM_DEC || a->st_vt != HADOS_VT_I128 || few_cache_find(st, view_of(r1), a->in_vt) == st->few_cache_n))
    return 0;
  if (kind != A_COUNT_ROWS && a->in_vt != HADOS_VT_I32 && a->in_vt != HADOS_VT_I64 && a->in_vt != HADOS_VT_I128) return 0;
  const reg_view r = view_of(r1);
  int hb = -1; /* >= 0: the inputs must lie within few_big's bound (see dec_sums_safe) */
  if (kind == A_SUM_DEC && !dec_sums_safe(st, a, r, m, &hb)) return 0;
  /* Q1 sums a column for sum() and again for avg(): the sums of the same
     register in this update are computed once (the cache holds the last
     FEW_CACHE registers' per-group results; few_dense may have filled it) */
  const int sums = kind == A_SUM_INT || kind == A_SUM_DEC;
  uint32_t c = 0;
  if (sums) {
    c = few_cache_find(st, r, a->in_vt);
    if (c == st->few_cache_n) {
      if (r1->narrow || !part_ensure(st)) return 0; /* few_sum reads 128-bit values */
      c = few_cache_new(st, r, a->in_vt);
      /* every group's sum before any buffer changes */
      uint64_t bad = 0;
      for (uint64_t g = 0; g < ng; g++)
        st->few_acc[c][g] = few_sum(r, a->in_vt, st->prows + st->pstart[g], st->pstart[g + 1] - st->pstart[g], &st->few_any[c][g], &bad);
      st->few_big[c] = bad != 0;
    }
    /* an input outside the bound leaves the vector to row-by-row folding */
    if (hb >= 0 && st->few_big[c]) return 0;
  } else if (kind == A_COUNT && !r.all_valid) {
    if (!part_ensure(st)) return 0;
  } else if (!st->cnt_ok && !part_ensure(st)) {
    return 0;
  }
  for (uint64_t g = 0; g < ng; g++) {
    i128 acc = 0;
    uint8_t any = 0;
    if (sums) {
      acc = st->few_acc[c][g];
      any = st->few_any[c][g];
    } else if (kind == A_COUNT_ROWS || r.all_valid) {
      acc = st->few_cnt[g];
    } else { /* A_COUNT of a register with nulls */
      const uint16_t *pr = st->prows + st->pstart[g];
      const uint32_t n = st->pstart[g + 1] - st->pstart[g];
      for (uint32_t j = 0; j < n; j++) acc += r.valid[pr[j]];
    }
    uint8_t *rec = st->recs.p + g * st->rec_size, *v = rec + a->voff, *s = rec + a->soff;
    switch (kind) {
      case A_COUNT_ROWS:
      case A_COUNT: *(int64_t *)v += (int64_t)acc; break;
      case A_SUM_INT:
        if (any) {
          *(uint64_t *)v += (uint64_t)acc;
          *s |= ST_VALID;
        }
        break;
      default: /* A_SUM_DEC */
        if (any) {
          *s |= ST_SET;
          if (!(*s & ST_OVF)) dec_add(v, s, a->st_vt, acc);
        }
        break;
    }
  }
  return 1;
}

/* Folds the vector's selected rows (group ids in st->gids) into aggregate a. */
static void fold_rows(soft_agg_state *st, const agg_col *a, const soft_reg *r1, const soft_reg *r2p, uint32_t m, const soft_vec *v) {
  const uint32_t *gids = st->gids;
  const uint16_t *rows = st->rows;
  uint8_t *const base = st->recs.p;
  const uint64_t rs = st->rec_size;
  const uint32_t voff = a->voff, soff = a->soff, ign = a->ignore_nulls;
  if (fold_few(st, a, r1, m)) return;
  if (r1 && r1->narrow) soft_reg_widen((soft_reg *)r1, v); /* the rows below read 128-bit values */
  const reg_view r = view_of(r1), r2 = view_of(r2p);
#define FOLD_LOOP(KIND, VT, SVT)                                                         \
  for (uint32_t i = 0; i < m; i++) {                                                     \
    uint32_t row = rows[i];                                                              \
    fin x = {0};                                                                         \
    x.valid = 1;                                                                         \
    if ((KIND) != A_COUNT_ROWS) fin_reg(r, VT, row, &x);                                 \
    if ((KIND) == A_SUM_DEC_MERGE)                                                       \
      x.flag = !(r2.all_valid || r2.valid[row]) || ((const uint8_t *)r2.data)[row];      \
    if ((KIND) == A_FIRST_MERGE)                                                         \
      x.flag = (r2.all_valid || r2.valid[row]) && ((const uint8_t *)r2.data)[row];       \
    uint8_t *rec = base + gids[i] * rs;                                                  \
    fold(st, KIND, VT, SVT, ign, rec + voff, rec + soff, &x);                            \
  }                                                                                      \
  return;
#define FOLD_SAME(KIND)                                              \
  switch (a->in_vt) {                                                \
    case HADOS_VT_I32: FOLD_LOOP(KIND, HADOS_VT_I32, HADOS_VT_I32)   \
    case HADOS_VT_I64: FOLD_LOOP(KIND, HADOS_VT_I64, HADOS_VT_I64)   \
    case HADOS_VT_F64: FOLD_LOOP(KIND, HADOS_VT_F64, HADOS_VT_F64)   \
    case HADOS_VT_I128: FOLD_LOOP(KIND, HADOS_VT_I128, HADOS_VT_I128) \
    case HADOS_VT_BOOL: FOLD_LOOP(KIND, HADOS_VT_BOOL, HADOS_VT_BOOL) \
    case HADOS_VT_STR: FOLD_LOOP(KIND, HADOS_VT_STR, HADOS_VT_STR)   \
  }                                                                  \
  return;
#define FOLD_DEC(KIND)                                                                      \
  if (a->in_vt == HADOS_VT_I64 && a->st_vt == HADOS_VT_I64) { FOLD_LOOP(KIND, HADOS_VT_I64, HADOS_VT_I64) } \
  if (a->in_vt == HADOS_VT_I64) { FOLD_LOOP(KIND, HADOS_VT_I64, HADOS_VT_I128) }             \
  if (a->st_vt == HADOS_VT_I64) { FOLD_LOOP(KIND, HADOS_VT_I128, HADOS_VT_I64) }             \
  FOLD_LOOP(KIND, HADOS_VT_I128, HADOS_VT_I128)
  switch (a->kind) {
    case A_COUNT_ROWS: FOLD_LOOP(A_COUNT_ROWS, 0, HADOS_VT_I64)
    case A_COUNT: FOLD_LOOP(A_COUNT, 0, HADOS_VT_I64)
    case A_COUNT_MERGE: FOLD_LOOP(A_COUNT_MERGE, HADOS_VT_I64, HADOS_VT_I64)
    case A_SUM_INT:
      if (a->in_vt == HADOS_VT_I32) { FOLD_LOOP(A_SUM_INT, HADOS_VT_I32, HADOS_VT_I64) }
      FOLD_LOOP(A_SUM_INT, HADOS_VT_I64, HADOS_VT_I64)
    case A_SUM_F64: FOLD_LOOP(A_SUM_F64, HADOS_VT_F64, HADOS_VT_F64)
    case A_SUM_DEC: FOLD_DEC(A_SUM_DEC)
    case A_SUM_DEC_MERGE: FOLD_DEC(A_SUM_DEC_MERGE)
    case A_MIN: FOLD_SAME(A_MIN)
    case A_MAX: FOLD_SAME(A_MAX)
    case A_FIRST: FOLD_SAME(A_FIRST)
    case A_FIRST_MERGE: FOLD_SAME(A_FIRST_MERGE)
  }
#undef FOLD_DEC
#undef FOLD_SAME
#undef FOLD_LOOP
}

static int is_str_value(const agg_col *a) { return a->st_vt == HADOS_VT_STR; }

/* ---------------------------------------------------------------- create / free */

static const char *vt_name(uint32_t vt) {
  static const char *names[] = {"?", "BOOL", "I32", "I64", "F64", "I128", "STR"};
  return vt <= HADOS_VT_STR ? names[vt] : "?";
}

static const char *func_name(uint32_t f) {
  static const char *names[] = {"?", "SUM", "COUNT", "MIN", "MAX", "FIRST"};
  return f <= HADOS_AGG_FIRST ? names[f] : "?";
}

static int vt_ok(uint32_t vt) { return vt >= HADOS_VT_BOOL && vt <= HADOS_VT_STR; }

/* Resolves and checks aggregate j of the spec. */
static int agg_resolve(const hados_agg *g, uint32_t j, agg_col *a) {
  memset(a, 0, sizeof(*a));
  a->arg = g->arg;
  a->arg2 = g->arg2;
  a->in_vt = g->in_vtype;
  a->st_vt = g->out_vtype;
  a->ignore_nulls = (g->flags & HADOS_AGGF_IGNORE_NULLS) != 0;
  int merge = (g->flags & HADOS_AGGF_MERGE) != 0;
  int dec = (g->flags & HADOS_AGGF_DECIMAL) != 0;
  const char *fn = func_name(g->func);
#define BAD(...) return soft_fail(HADOS_E_INVALID, __VA_ARGS__)
  if (g->flags & ~(uint32_t)(HADOS_AGGF_DECIMAL | HADOS_AGGF_IGNORE_NULLS | HADOS_AGGF_MERGE))
    BAD("soft agg: aggregate %u (%s): unknown flags 0x%x", j, fn, g->flags);
  if (!(g->func == HADOS_AGG_COUNT && g->arg == NO_REG) && g->arg >= HADOS_MAX_REGISTERS)
    BAD("soft agg: aggregate %u (%s): input register %u out of range (max %u)", j, fn, g->arg, HADOS_MAX_REGISTERS - 1);
  if (g->arg != NO_REG && !vt_ok(g->in_vtype))
    BAD("soft agg: aggregate %u (%s): unknown input value type %u", j, fn, g->in_vtype);
  switch (g->func) {
    case HADOS_AGG_COUNT:
      if (g->out_vtype != HADOS_VT_I64) BAD("soft agg: aggregate %u (COUNT): output type %s, want I64", j, vt_name(g->out_vtype));
      if (merge) {
        if (g->arg == NO_REG || g->in_vtype != HADOS_VT_I64)
          BAD("soft agg: aggregate %u (COUNT, merge): the input must be an I64 register of partial counts", j);
        a->kind = A_COUNT_MERGE;
      } else {
        a->kind = g->arg == NO_REG ? A_COUNT_ROWS : A_COUNT;
      }
      a->mkind = A_COUNT_MERGE;
      break;
    case HADOS_AGG_SUM:
      if (dec) {
        if ((g->in_vtype != HADOS_VT_I64 && g->in_vtype != HADOS_VT_I128) ||
            (g->out_vtype != HADOS_VT_I64 && g->out_vtype != HADOS_VT_I128))
          BAD("soft agg: aggregate %u (SUM, decimal): %s -> %s; decimal sums take and give I64 or I128", j,
              vt_name(g->in_vtype), vt_name(g->out_vtype));
        if (merge && g->arg2 >= HADOS_MAX_REGISTERS)
          BAD("soft agg: aggregate %u (SUM, decimal merge): isEmpty register %u out of range", j, g->arg2);
        a->kind = merge ? A_SUM_DEC_MERGE : A_SUM_DEC;
        a->mkind = A_SUM_DEC_MERGE;
      } else if (g->in_vtype == HADOS_VT_F64) {
        if (g->out_vtype != HADOS_VT_F64) BAD("soft agg: aggregate %u (SUM): F64 input, output %s, want F64", j, vt_name(g->out_vtype));
        a->kind = a->mkind = A_SUM_F64;
      } else if (g->in_vtype == HADOS_VT_I32 || g->in_vtype == HADOS_VT_I64) {
        if (g->out_vtype != HADOS_VT_I64)
          BAD("soft agg: aggregate %u (SUM): integer input, output %s, want I64", j, vt_name(g->out_vtype));
        a->kind = a->mkind = A_SUM_INT;
      } else {
        BAD("soft agg: aggregate %u (SUM): input type %s is not summable (I128 needs AGGF_DECIMAL)", j, vt_name(g->in_vtype));
      }
      break;
    case HADOS_AGG_MIN:
    case HADOS_AGG_MAX:
    case HADOS_AGG_FIRST:
      if (g->out_vtype != g->in_vtype)
        BAD("soft agg: aggregate %u (%s): output type %s differs from input type %s", j, fn, vt_name(g->out_vtype), vt_name(g->in_vtype));
      if (g->func == HADOS_AGG_FIRST) {
        if (merge && g->arg2 >= HADOS_MAX_REGISTERS)
          BAD("soft agg: aggregate %u (FIRST, merge): valueSet register %u out of range", j, g->arg2);
        a->kind = merge ? A_FIRST_MERGE : A_FIRST;
        a->mkind = A_FIRST_MERGE;
      } else {
        a->kind = a->mkind = g->func == HADOS_AGG_MIN ? A_MIN : A_MAX;
      }
      break;
    default: BAD("soft agg: aggregate %u: unknown function %u", j, g->func);
  }
#undef BAD
  return HADOS_OK;
}

static uint32_t vt_width(uint32_t vt) {
  switch (vt) {
    case HADOS_VT_BOOL: return 1;
    case HADOS_VT_I32: return 4;
    case HADOS_VT_I128: return 16;
    default: return 8;
  }
}

/* Lays out the records: hash (8) + null mask (2) + padding, then fields by
   decreasing alignment. */
static void layout(soft_agg_state *st) {
  uint32_t off = 16, maxal = 8;
  for (uint32_t w = 16; w >= 1; w /= 2) {
    for (uint32_t k = 0; k < st->n_keys; k++)
      if (vt_width(st->keys[k].vt) == w) {
        st->keys[k].off = off;
        off += w;
      }
    for (uint32_t j = 0; j < st->n_aggs; j++) {
      agg_col *a = &st->aggs[j];
      uint32_t aw = a->st_vt == HADOS_VT_STR ? 16 : vt_width(a->st_vt);
      if (a->kind == A_COUNT_ROWS || a->kind == A_COUNT || a->kind == A_COUNT_MERGE) aw = 8;
      if (aw == w) {
        a->voff = off;
        off += w;
      }
    }
    if (w == 1)
      for (uint32_t j = 0; j < st->n_aggs; j++) st->aggs[j].soff = off++;
    if (w == 16 && off > 16) maxal = 16;
  }
  st->rec_size = (off + maxal - 1) & ~(maxal - 1);
}

/* Sets up perfect hashing when the spec's domains allow it. */
static int perfect_setup(soft_agg_state *st, const hados_agg_spec *spec) {
  if (st->n_keys == 0) return HADOS_OK;
  uint64_t size = 1;
  for (uint32_t k = 0; k < st->n_keys; k++) {
    uint32_t vt = st->keys[k].vt;
    uint64_t c = spec->key_card[k];
    if (c == 0 || c >= PERFECT_MAX || (vt != HADOS_VT_I32 && vt != HADOS_VT_I64 && vt != HADOS_VT_BOOL && vt != HADOS_VT_STR))
      return HADOS_OK;
    size *= c + 1;
    if (size > PERFECT_MAX) return HADOS_OK;
  }
  uint64_t stride = 1;
  for (uint32_t k = 0; k < st->n_keys; k++) {
    key_col *kc = &st->keys[k];
    kc->min = spec->key_min[k];
    kc->card = spec->key_card[k];
    kc->stride = stride;
    stride *= kc->card + 1;
  }
  int e = blk_resize(st, &st->pindex, size * 4, 0, "perfect-hash index");
  for (uint32_t k = 0; k < st->n_keys && !e; k++) {
    key_col *kc = &st->keys[k];
    if (kc->vt != HADOS_VT_STR) continue;
    uint32_t slots = 4;
    while (slots < kc->card * 2) slots *= 2;
    kc->dict_mask = slots - 1;
    e = blk_resize(st, &kc->dict, kc->card * sizeof(dict_ent) + (uint64_t)slots * 4, 0, "string key dictionary");
  }
  if (!e) st->perfect = 1;
  return e;
}

static void state_release(soft_agg_state *st) {
  soft_device *d = st->d;
  soft_block_free(d, &st->recs);
  soft_block_free(d, &st->table);
  soft_block_free(d, &st->arena);
  soft_block_free(d, &st->pindex);
  for (uint32_t k = 0; k < st->n_keys; k++) soft_block_free(d, &st->keys[k].dict);
  st->magic = 0;
  agg_block self = st->self;
  soft_block_free(d, &self);
}

static uint32_t memo_usable(const soft_agg_state *st);

int soft_agg_create(soft_device *d, const hados_agg_spec *spec, uint64_t budget, soft_agg_state **out) {
  if (!d || !spec || !out) return soft_fail(HADOS_E_INVALID, "soft agg: create needs a device, a spec and an output");
  *out = NULL;
  if (spec->n_keys > 16) return soft_fail(HADOS_E_INVALID, "soft agg: %u keys, at most 16", spec->n_keys);
  if (spec->n_aggs > 64) return soft_fail(HADOS_E_INVALID, "soft agg: %u aggregates, at most 64", spec->n_aggs);
  for (uint32_t k = 0; k < spec->n_keys; k++) {
    if (spec->key_regs[k] >= HADOS_MAX_REGISTERS)
      return soft_fail(HADOS_E_INVALID, "soft agg: key %u: register %u out of range", k, spec->key_regs[k]);
    if (!vt_ok(spec->key_vtypes[k])) return soft_fail(HADOS_E_INVALID, "soft agg: key %u: unknown value type %u", k, spec->key_vtypes[k]);
  }
  agg_col aggs[64];
  for (uint32_t j = 0; j < spec->n_aggs; j++) {
    int e = agg_resolve(&spec->aggs[j], j, &aggs[j]);
    if (e) return e;
  }
  uint64_t len = soft_round_align(sizeof(soft_agg_state));
  if (budget && len > budget)
    return soft_fail(HADOS_E_NOMEM, "soft agg: the state needs %llu bytes, over the budget of %llu bytes", (unsigned long long)len,
                     (unsigned long long)budget);
  agg_block self;
  int e = soft_block_alloc(d, &self, len);
  if (e) return e;
  soft_agg_state *st = (soft_agg_state *)self.p;
  memset(st, 0, sizeof(*st));
  st->magic = AGG_MAGIC;
  st->d = d;
  st->budget = budget;
  st->self = self;
  st->held = self.bytes;
  st->n_keys = spec->n_keys;
  st->n_aggs = spec->n_aggs;
  for (uint32_t k = 0; k < st->n_keys; k++) st->keys[k].vt = spec->key_vtypes[k];
  memcpy(st->aggs, aggs, sizeof(agg_col) * st->n_aggs);
  layout(st);
  st->key1 = st->n_keys == 1 && (st->keys[0].vt == HADOS_VT_I32 || st->keys[0].vt == HADOS_VT_I64);
  st->memo_ok = memo_usable(st);
  e = perfect_setup(st, spec);
  if (!e) {
    st->cap_groups = st->n_keys == 0 ? 1 : st->perfect ? 64 : 256;
    e = blk_resize(st, &st->recs, st->cap_groups * st->rec_size, 0, "group records");
  }
  if (!e && !st->perfect && st->n_keys) e = blk_resize(st, &st->table, TABLE_MIN * 8, 0, "hash table");
  if (!e) fast_setup(st);
  if (!e && st->n_keys == 0) { /* the one global group */
    memset(st->recs.p, 0, st->rec_size);
    st->n_groups = 1;
    st->rows_only = 1;
    for (uint32_t j = 0; j < st->n_aggs; j++) st->rows_only &= st->aggs[j].kind == A_COUNT_ROWS;
  }
  if (e) {
    state_release(st);
    return e;
  }
  *out = st;
  return HADOS_OK;
}

void soft_agg_free(soft_agg_state *st) {
  if (st && st->magic == AGG_MAGIC) state_release(st);
}

uint64_t soft_agg_addr(soft_device *d, const soft_agg_state *st) { return d->base + (uint64_t)((const uint8_t *)st - d->mem); }

soft_agg_state *soft_agg_from_addr(soft_device *d, uint64_t addr) {
  if (!d || addr < d->base || addr - d->base >= d->size) return NULL;
  uint64_t off = addr - d->base, len;
  if (soft_heap_lookup(&d->heap, off, &len) || len < sizeof(soft_agg_state)) return NULL;
  soft_agg_state *st = (soft_agg_state *)(d->mem + off);
  return st->magic == AGG_MAGIC && st->d == d ? st : NULL;
}

/* ---------------------------------------------------------------- update */

static int check_reg(const soft_reg *r, uint32_t want, const char *what, uint32_t i) {
  if (!r) return soft_fail(HADOS_E_INVALID, "soft agg: update: %s %u has no register", what, i);
  if (r->vtype != want)
    return soft_fail(HADOS_E_INVALID, "soft agg: update: %s %u is %s, the spec says %s", what, i, vt_name(r->vtype), vt_name(want));
  return HADOS_OK;
}

static int update_check(const soft_agg_state *st, const soft_reg *const *keys, const soft_reg *const *args,
                        const soft_reg *const *args2, const soft_vec *v) {
  int e;
  if (v->n > HADOS_VECTOR_SIZE) return soft_fail(HADOS_E_INVALID, "soft agg: update: vector of %u rows, at most %u", v->n, HADOS_VECTOR_SIZE);
  if (v->sel) {
    if (v->sel_n > v->n) return soft_fail(HADOS_E_INVALID, "soft agg: update: %u selected rows of %u", v->sel_n, v->n);
    const uint16_t *sel = v->sel;
    const uint32_t sn = v->sel_n, n = v->n;
    uint32_t bad = 0;
    for (uint32_t i = 0; i < sn; i++) bad |= sel[i] >= n; /* branchless: vectorised */
    for (uint32_t i = 0; bad && i < sn; i++)
      if (sel[i] >= n) return soft_fail(HADOS_E_INVALID, "soft agg: update: selected row %u of a %u-row vector", sel[i], n);
  }
  for (uint32_t k = 0; k < st->n_keys; k++)
    if ((e = check_reg(keys ? keys[k] : NULL, st->keys[k].vt, "key", k))) return e;
  for (uint32_t j = 0; j < st->n_aggs; j++) {
    const agg_col *a = &st->aggs[j];
    if (a->kind == A_COUNT_ROWS) continue;
    if ((e = check_reg(args ? args[j] : NULL, a->in_vt, "aggregate input", j))) return e;
    if ((a->kind == A_SUM_DEC_MERGE || a->kind == A_FIRST_MERGE) &&
        (e = check_reg(args2 ? args2[j] : NULL, HADOS_VT_BOOL, "aggregate second input", j)))
      return e;
  }
  return HADOS_OK;
}

/* ---------------------------------------------------------------- hashing: vectorised lookup
 * An update looks its rows up in three passes over the vector, so each
 * inner loop does one kind of work on one column type: probe_rows finds
 * each row's candidate group (the first slot of its probe chain whose tag
 * matches), verify_key compares one key column of every candidate's row
 * with its record and drops the candidates that differ, and what is left
 * (rows of keys not in the table yet, and tag collisions) goes row by row
 * through find_hash. With few groups almost every row ends in the first
 * two passes; the table is not changed until the third.
 */
#define NO_GID 0xffffffffu

/* The group of the first slot in hash's chain whose tag matches (NO_GID
   when none does), its record prefetched for the key compare and the
   folds after; a tag collision is left to the caller's key check. */
static inline uint32_t tag_candidate(const uint64_t *tab, uint64_t mask, const uint8_t *base, uint64_t rs, uint64_t hash) {
  const uint64_t tag = hash >> 32;
  for (uint64_t j = hash & mask;; j = (j + 1) & mask) {
    const uint64_t v = tab[j];
    if (!v) return NO_GID;
    if (v >> 32 == tag) {
      const uint32_t g = (uint32_t)v - 1;
      const uint8_t *rp = base + g * rs;
      __builtin_prefetch(rp);
      __builtin_prefetch(rp + rs - 1);
      return g;
    }
  }
}

/* st->gids[i] = the candidate group of row i, or NO_GID when its chain
   reaches an empty slot first. The slot PF_SLOT rows ahead is prefetched,
   and a candidate's record is prefetched as soon as its slot is read, for
   verify_key and the folds that come after the whole vector is probed (no
   load waits on a record here). One integer key (st->key1) goes through
   probe_key1, which compares the key itself: verify_key is not needed. */
#define FOLLOW 0xfffffffeu
static void probe_key1(soft_agg_state *st, const soft_reg *key, uint32_t m, uint32_t from);
static void probe_rows(soft_agg_state *st, const soft_reg *key, uint32_t m, uint32_t from) {
  enum { PF_SLOT = 32 };
  if (st->key1 && key) {
    probe_key1(st, key, m, from);
    return;
  }
  const uint64_t *h = st->hashes;
  const uint64_t *tab = (const uint64_t *)st->table.p;
  const uint64_t mask = st->table.bytes / 8 - 1;
  uint32_t *gids = st->gids;
  uint8_t *const base = st->recs.p;
  const uint64_t rs = st->rec_size;
  for (uint32_t i = from; i < m && i < from + PF_SLOT; i++) __builtin_prefetch(&tab[h[i] & mask]);
  for (uint32_t i = from; i < m; i++) {
    if (i + PF_SLOT < m) __builtin_prefetch(&tab[h[i + PF_SLOT] & mask]);
    gids[i] = tag_candidate(tab, mask, base, rs, h[i]);
  }
}

/* probe_rows for one integer key. A row with the key of the row before it
   (a run: lineitem by l_orderkey) takes that row's group without a probe;
   the first rows of runs (all rows, for unclustered keys) are probed, the
   prefetch distances counted in them, so runs do not shorten them. */
static void probe_key1(soft_agg_state *st, const soft_reg *key, uint32_t m, uint32_t from) {
  enum { PF_SLOT = 64 };
  const uint64_t *h = st->hashes;
  const uint64_t *tab = (const uint64_t *)st->table.p;
  const uint64_t mask = st->table.bytes / 8 - 1;
  uint32_t *gids = st->gids, *lead = st->idx;
  uint8_t *const base = st->recs.p;
  const uint64_t rs = st->rec_size;
  const uint16_t *rows = st->rows;
  const reg_view r = view_of(key);
  const uint32_t off = st->keys[0].off, i64 = st->keys[0].vt == HADOS_VT_I64;
  uint32_t n = 0;
  uint64_t px = 0;
  uint32_t pnull = 2;
  for (uint32_t i = from; i < m; i++) {
    const uint32_t row = rows[i];
    const uint32_t xnull = !(r.all_valid || r.valid[row]);
    const uint64_t x = xnull ? 0 : i64 ? ((const uint64_t *)r.data)[row] : ((const uint32_t *)r.data)[row];
    const int same = xnull == pnull && x == px;
    gids[i] = FOLLOW;
    lead[n] = i;
    n += !same;
    px = x;
    pnull = xnull;
  }
  /* candidates: the first slot of the chain with the row's tag; its
     record is prefetched for the compare below and the folds after */
  for (uint32_t t = 0; t < n && t < PF_SLOT; t++) __builtin_prefetch(&tab[h[lead[t]] & mask]);
  for (uint32_t t = 0; t < n; t++) {
    if (t + PF_SLOT < n) __builtin_prefetch(&tab[h[lead[t + PF_SLOT]] & mask]);
    const uint32_t i = lead[t];
    gids[i] = tag_candidate(tab, mask, base, rs, h[i]);
  }
  /* a candidate with another key (a tag collision) is left to find_hash */
  for (uint32_t t = 0; t < n; t++) {
    const uint32_t i = lead[t], g = gids[i];
    if (g == NO_GID) continue;
    const uint32_t row = rows[i];
    const uint32_t xnull = !(r.all_valid || r.valid[row]);
    const uint64_t x = xnull ? 0 : i64 ? ((const uint64_t *)r.data)[row] : ((const uint32_t *)r.data)[row];
    const uint8_t *rec = base + g * rs;
    const uint64_t y = i64 ? *(const uint64_t *)(rec + off) : *(const uint32_t *)(rec + off);
    if ((rec_nulls(rec) & 1) != xnull || y != x) gids[i] = NO_GID;
  }
  for (uint32_t i = from + 1; i < m; i++)
    if (gids[i] == FOLLOW) gids[i] = gids[i - 1];
}

/* Compares key k of every candidate row with its candidate record; a row
   that differs gets NO_GID. Nulls equal nulls only; doubles compare their
   normalised bits, strings length then bytes. */
static void verify_key(soft_agg_state *st, uint32_t k, const soft_reg *reg, uint32_t m, uint32_t from) {
  const key_col *kc = &st->keys[k];
  const reg_view r = view_of(reg);
  const uint16_t *rows = st->rows;
  uint32_t *gids = st->gids;
  const uint8_t *const base = st->recs.p;
  const uint8_t *const arena = st->arena.p;
  const uint64_t rs = st->rec_size;
  const uint32_t off = kc->off;
#define VERIFY_LOOP(SAME)                                             \
  for (uint32_t i = from; i < m; i++) {                                  \
    if (gids[i] == NO_GID) continue;                                  \
    const uint32_t row = rows[i];                                     \
    const uint8_t *rec = base + gids[i] * rs;                         \
    const uint8_t *v = rec + off;                                     \
    const uint32_t rnull = (rec_nulls(rec) >> k) & 1;                 \
    const uint32_t xnull = !(r.all_valid || r.valid[row]);            \
    int same = rnull == xnull && (xnull || (SAME));                   \
    if (!same) gids[i] = NO_GID;                                      \
  }                                                                   \
  break;
  switch (kc->vt) {
    case HADOS_VT_I32: VERIFY_LOOP(*(const uint32_t *)v == ((const uint32_t *)r.data)[row])
    case HADOS_VT_I64: VERIFY_LOOP(*(const uint64_t *)v == ((const uint64_t *)r.data)[row])
    case HADOS_VT_F64: VERIFY_LOOP(*(const uint64_t *)v == f64_key_bits(((const double *)r.data)[row]))
    case HADOS_VT_I128: VERIFY_LOOP(memcmp(v, (const uint8_t *)r.data + 16 * (size_t)row, 16) == 0)
    case HADOS_VT_BOOL: VERIFY_LOOP(*v == (((const uint8_t *)r.data)[row] != 0))
    case HADOS_VT_STR:
      VERIFY_LOOP(((const uint32_t *)v)[1] == ((const soft_str *)r.data)[row].len &&
                  bytes_eq(arena + ((const uint32_t *)v)[0], ((const soft_str *)r.data)[row].ptr, ((const uint32_t *)v)[1]))
  }
#undef VERIFY_LOOP
}

/* ---------------------------------------------------------------- hashing: row memo
 * Before the vectorised lookup, an update of at most MEMO_KEYS keys (no
 * I128) tries a memo: a direct-mapped cache from a row's raw key words —
 * a number's bits, a short string's bytes, a longer string's view
 * (pointer, length), a null marker — to its group. Within one update the
 * bytes behind a view do not change, so equal raw words are equal keys
 * (the converse need not hold: -0.0 and 0.0, or equal long strings at two
 * addresses, take two entries for one group); the memo is valid for one
 * update only (gen). A hit costs no hashing and no key comparison: with
 * few groups almost every row hits. A miss looks the row up through
 * find_hash at once, so groups keep their first-seen order. When the hits
 * of the first rows fall under three quarters (many groups, or long
 * strings of a plain column, where every row has its own bytes), the rest
 * of the vector and the next MEMO_BACKOFF updates go straight to the
 * vectorised lookup.
 */
#define MEMO_CHECK 64u
#define MEMO_BACKOFF 16u

static uint32_t memo_usable(const soft_agg_state *st) {
  if (st->n_keys == 0 || st->n_keys > MEMO_KEYS) return 0;
  /* one integer key: more than the key codes' 256 values overflow the
     memo's slots, and probe_rows catches runs of one key itself */
  if (st->key1) return 0;
  for (uint32_t k = 0; k < st->n_keys; k++)
    if (st->keys[k].vt == HADOS_VT_I128) return 0;
  return 1;
}

/* Row row's raw words of key k (w[0], w[1]): a number's bits; a string of
   at most 8 bytes as its exact word and length (bit 33 set), a longer one
   as its view; a null as length 1 << 32. */
AI void memo_words(const soft_reg *r, uint32_t vt, uint32_t row, uint64_t *w) {
  if (!(r->all_valid || r->valid[row])) {
    w[0] = 0;
    w[1] = 1ULL << 32; /* no length or value word is this */
    return;
  }
  w[1] = 0;
  switch (vt) {
    case HADOS_VT_I32: w[0] = (uint32_t)((const int32_t *)r->data)[row]; break;
    case HADOS_VT_I64:
    case HADOS_VT_F64: memcpy(&w[0], (const uint8_t *)r->data + 8 * (size_t)row, 8); break;
    case HADOS_VT_BOOL: w[0] = ((const uint8_t *)r->data)[row] != 0; break;
    default: {
      const soft_str *sv = (const soft_str *)r->data + row;
      if (sv->len <= 8) { /* the bytes themselves: plain columns hit too */
        uint64_t hi;
        short_words(sv->ptr, sv->len, &w[0], &hi);
        w[1] = sv->len | 1ULL << 33;
      } else { /* the view */
        w[0] = (uintptr_t)sv->ptr;
        w[1] = sv->len;
      }
      break;
    }
  }
}

/* Groups rows 0.. of the vector through the memo; returns how many it did
   (all m, or fewer when the memo stopped paying or *err is set). */
static uint32_t memo_rows(soft_agg_state *st, const soft_reg *const *keys, uint32_t m, int *err) {
  *err = HADOS_OK;
  if (st->memo_skip) {
    st->memo_skip--;
    return 0;
  }
  const uint64_t gen = ++st->memo_gen;
  const uint32_t nk = st->n_keys;
  key_src s = {.regs = keys};
  uint32_t hits = 0, i;
  /* the previous row's words and group: runs of one key tuple (rows of
     one order in lineitem) skip the hash and the memo probe */
  uint64_t pw[2 * MEMO_KEYS] = {0};
  uint32_t pgid = 0, have_prev = 0;
  for (i = 0; i < m; i++) {
    if (i && (i & (MEMO_CHECK - 1)) == 0 && hits * 4 < i * 3) {
      st->memo_skip = MEMO_BACKOFF;
      break;
    }
    const uint32_t row = st->rows[i];
    uint64_t w[2 * MEMO_KEYS] = {0}, h = 0, same = 0;
    for (uint32_t k = 0; k < nk; k++) memo_words(keys[k], st->keys[k].vt, row, &w[2 * k]);
    for (uint32_t j = 0; j < 2 * MEMO_KEYS; j++) same |= pw[j] ^ w[j];
    if (have_prev && !same) {
      st->gids[i] = pgid;
      hits++;
      continue;
    }
    for (uint32_t k = 0; k < nk; k++) {
      h = (h ^ w[2 * k]) * 0x9e3779b97f4a7c15ULL;
      h = (h ^ w[2 * k + 1]) * 0xff51afd7ed558ccdULL;
    }
    memcpy(pw, w, sizeof w);
    have_prev = 1;
    memo_ent *me = &st->memo[h >> 57];
    uint64_t diff = me->gen ^ gen;
    for (uint32_t j = 0; j < 2 * MEMO_KEYS; j++) diff |= me->w[j] ^ w[j];
    if (!diff) {
      pgid = st->gids[i] = me->gid;
      hits++;
      continue;
    }
    s.row = row;
    if ((*err = find_hash(st, &s, hash_src(st, &s), &st->gids[i]))) return i;
    pgid = me->gid = st->gids[i];
    me->gen = gen;
    memcpy(me->w, w, sizeof(w));
  }
  return i;
}

/* ---------------------------------------------------------------- hashing: key codes
 * Before the memo, an update of one to FAST_KEYS keys (no I128) of few
 * distinct values tries key codes: each key column numbers its distinct
 * raw words (a number's bits, a string of at most 7 bytes packed with its
 * length; null has its own code) in first-seen order in a small
 * open-addressing table that lives as long as the state, and a row's codes
 * concatenated (fast_bits each, FAST_IDX_BITS in all) index a table of
 * group ids. Equal raw words are equal keys, so a row whose code tuple has
 * a group id needs no hashing and no key comparison; a tuple seen for the
 * first time is looked up (or inserted) through find_hash in row order, so
 * groups keep their first-seen order (two tuples may name one group: -0.0
 * and 0.0). A column with more distinct values than its codes hold, or a
 * longer string, turns the path off for good before any group changes
 * (the vector goes on through the memo and the vectorised lookup). A
 * register of one-byte strings laid out in row order (soft_reg.str1, a
 * plain string column such as Q1's flags) skips the views: each byte's
 * code is cached in a 256-entry table per key (fast_byte), filled through
 * the same code table so both ways give a value the same code.
 */
static void fast_setup(soft_agg_state *st) {
  static const uint32_t bits[FAST_KEYS + 1] = {0, 8, 5, 3, 2};
  st->fast_ok = 0;
  if (st->perfect || st->n_keys == 0 || st->n_keys > FAST_KEYS) return;
  for (uint32_t k = 0; k < st->n_keys; k++)
    if (st->keys[k].vt == HADOS_VT_I128) return;
  st->fast_bits = bits[st->n_keys];
  memset(st->fast_n, 0, sizeof st->fast_n);
  memset(st->fast_null, 0, sizeof st->fast_null);
  memset(st->fslots, 0, sizeof st->fslots);
  memset(st->fast_gid, 0, sizeof st->fast_gid);
  memset(st->fast_byte, 0, sizeof st->fast_byte);
  memset(st->fast_gid1, 0, sizeof st->fast_gid1);
  st->fast_ok = 1;
}

/* A string of at most 7 bytes as one word: its bytes (exact for its
   length) below bit 56, length + 1 above. */
AI uint64_t fast_str_word(const soft_str *sv) {
  uint32_t n = sv->len;
  const uint8_t *p = sv->ptr;
  uint64_t w;
  if (n >= 4) {
    uint32_t a, b;
    memcpy(&a, p, 4);
    memcpy(&b, p + n - 4, 4);
    w = a | (uint64_t)b << (8 * (n - 4));
  } else {
    w = n ? p[0] | (uint64_t)p[n / 2] << 8 | (uint64_t)p[n - 1] << 16 : 0;
  }
  return w | (uint64_t)(n + 1) << 56;
}

/* Stores key k's code counts back; returns ret. */
static inline int fast_store(soft_agg_state *st, uint32_t k, uint32_t n, uint32_t nullc, int ret) {
  st->fast_n[k] = n;
  st->fast_null[k] = nullc;
  return ret;
}

/* Numbers the selected rows' code tuples into st->idx; 0 when a column
   has too many distinct values or a long string (nothing else changed). */
static int fast_codes(soft_agg_state *st, const soft_reg *const *keys, uint32_t m) {
  uint32_t *idx = st->idx;
  const uint16_t *rows = st->rows;
  const uint32_t bits = st->fast_bits, cap = 1u << bits, smask = (2u << bits) - 1, hsh = 64 - (bits + 1);
  for (uint32_t k = 0; k < st->n_keys; k++) {
    const soft_reg *r = keys[k];
    fast_slot *tab = st->fslots + k * (2u << bits);
    /* locals, stored back below: the loop's stores may alias the state */
    uint32_t nk = st->fast_n[k], nullc = st->fast_null[k];
    const uint32_t sh = k ? bits : 0, all_valid = r->all_valid;
    const uint8_t *valid = r->valid;
#define FAST_LOOP(WORD, OK)                                                  \
  for (uint32_t i = 0; i < m; i++) {                                         \
    const uint32_t row = rows[i];                                            \
    uint32_t code;                                                           \
    if (!(all_valid || valid[row])) {                                        \
      if (!nullc) {                                                          \
        if (nk == cap) return fast_store(st, k, nk, nullc, 0);               \
        nullc = ++nk;                                                        \
      }                                                                      \
      code = nullc - 1;                                                      \
    } else {                                                                 \
      if (!(OK)) return fast_store(st, k, nk, nullc, 0);                     \
      const uint64_t w = (WORD);                                             \
      uint32_t j = (uint32_t)((w * 0x9e3779b97f4a7c15ULL) >> hsh);           \
      for (;; j = (j + 1) & smask) {                                         \
        if (tab[j].code1 && tab[j].w == w) break;                            \
        if (!tab[j].code1) {                                                 \
          if (nk == cap) return fast_store(st, k, nk, nullc, 0);             \
          tab[j].w = w;                                                      \
          tab[j].code1 = ++nk;                                               \
          break;                                                             \
        }                                                                    \
      }                                                                      \
      code = tab[j].code1 - 1;                                               \
    }                                                                        \
    idx[i] = (k ? idx[i] << sh : 0) | code;                                  \
  }                                                                          \
  break;
    switch (st->keys[k].vt) {
      case HADOS_VT_STR: {
        const soft_str *sv = (const soft_str *)r->data;
        if (r->str1) { /* one-byte strings, row i's byte at b[i]: a byte's code is cached */
          const uint8_t *b = sv[0].ptr;
          uint16_t *bc = st->fast_byte[k];
          for (uint32_t i = 0; i < m; i++) {
            const uint32_t row = rows[i];
            uint32_t code;
            if (!(all_valid || valid[row])) {
              if (!nullc) {
                if (nk == cap) return fast_store(st, k, nk, nullc, 0);
                nullc = ++nk;
              }
              code = nullc - 1;
            } else {
              const uint32_t x = b[row];
              uint32_t c1 = bc[x];
              if (__builtin_expect(!c1, 0)) { /* the word fast_str_word gives a one-byte string */
                const uint64_t w = (uint64_t)x * 0x10101u | 2ull << 56;
                uint32_t j = (uint32_t)((w * 0x9e3779b97f4a7c15ULL) >> hsh);
                for (;; j = (j + 1) & smask) {
                  if (tab[j].code1 && tab[j].w == w) break;
                  if (!tab[j].code1) {
                    if (nk == cap) return fast_store(st, k, nk, nullc, 0);
                    tab[j].w = w;
                    tab[j].code1 = ++nk;
                    break;
                  }
                }
                c1 = tab[j].code1;
                bc[x] = (uint16_t)c1;
              }
              code = c1 - 1;
            }
            idx[i] = (k ? idx[i] << sh : 0) | code;
          }
          break;
        }
        FAST_LOOP(fast_str_word(&sv[row]), sv[row].len <= 7)
      }
      case HADOS_VT_I32: {
        const int32_t *x = (const int32_t *)r->data;
        FAST_LOOP((uint32_t)x[row], 1)
      }
      case HADOS_VT_I64:
      case HADOS_VT_F64: {
        const uint64_t *x = (const uint64_t *)r->data;
        FAST_LOOP(x[row], 1)
      }
      case HADOS_VT_BOOL: {
        const uint8_t *x = (const uint8_t *)r->data;
        FAST_LOOP(x[row] != 0, 1)
      }
      default: return 0;
    }
#undef FAST_LOOP
    fast_store(st, k, nk, nullc, 1);
  }
  return 1;
}

/* Q1's case in one pass: every key a register of one-byte strings
   (soft_reg.str1) without nulls, every byte's code and every tuple's group
   known from earlier vectors. A row's group is then one table lookup per
   key (the byte's code + 1) and one of the tuple of those (fast_gid1,
   where a tuple with an unseen byte, code + 1 = 0, is never filled), with
   no code array in between; a tuple missing there is filled from
   fast_gid. Returns 0, having changed nothing but scratch (st->gids) and
   fast_gid1's cache of fast_gid, when a row needs the general path
   (fast_codes then fast_rows, which give the same groups). */
static int fast_str1_rows(soft_agg_state *st, const soft_reg *const *keys, uint32_t m) {
  const uint32_t nk = st->n_keys, bits = st->fast_bits, w = bits + 1;
  const uint8_t *b[FAST_KEYS];
  const uint16_t *bc[FAST_KEYS];
  for (uint32_t k = 0; k < nk; k++) {
    const soft_reg *r = keys[k];
    if (st->keys[k].vt != HADOS_VT_STR || !r->str1 || !r->all_valid) return 0;
    b[k] = ((const soft_str *)r->data)[0].ptr;
    bc[k] = st->fast_byte[k];
  }
  const uint32_t *fg = st->fast_gid;
  uint32_t *g1 = st->fast_gid1;
  const uint16_t *rows = st->rows;
  uint32_t *gids = st->gids;
#define STR1_LOOP(NK)                                                     \
  for (uint32_t i = 0; i < m; i++) {                                      \
    const uint32_t row = rows[i];                                         \
    uint32_t t = 0;                                                       \
    for (uint32_t k = 0; k < (NK); k++) t = t << w | bc[k][b[k][row]];    \
    uint32_t g = g1[t];                                                   \
    if (__builtin_expect(!g, 0)) { /* from fast_gid, or the general path */ \
      uint32_t c = 0;                                                     \
      for (uint32_t k = 0; k < (NK); k++) {                               \
        const uint32_t c1 = (t >> (w * ((NK) - 1 - k))) & ((1u << w) - 1); \
        if (!c1) return 0;                                                \
        c = c << bits | (c1 - 1);                                         \
      }                                                                   \
      if (!(g = fg[c])) return 0;                                         \
      g1[t] = g;                                                          \
    }                                                                     \
    gids[i] = g - 1;                                                      \
  }
  switch (nk) {
    case 1: STR1_LOOP(1) break;
    case 2: STR1_LOOP(2) break;
    case 3: STR1_LOOP(3) break;
    default: STR1_LOOP(4) break;
  }
#undef STR1_LOOP
  return 1;
}

/* Groups the selected rows by their code tuples (st->idx). */
static int fast_rows(soft_agg_state *st, const soft_reg *const *keys, uint32_t m) {
  key_src s = {.regs = keys};
  const uint32_t *idx = st->idx;
  uint32_t *fg = st->fast_gid;
  for (uint32_t i = 0; i < m; i++) {
    uint32_t t = fg[idx[i]];
    if (t) {
      st->gids[i] = t - 1;
      continue;
    }
    s.row = st->rows[i];
    int e = find_hash(st, &s, hash_src(st, &s), &st->gids[i]);
    if (e) return e;
    fg[idx[i]] = st->gids[i] + 1;
  }
  return HADOS_OK;
}

/* ---------------------------------------------------------------- runs mode
 * A partial aggregation whose input is clustered by its one integer key
 * (lineitem by l_orderkey) finds no key again after its run: its hash
 * table only costs. In runs mode (soft_agg_runs, set at AGG_CREATE) every
 * run of equal keys (a run may span updates) is a group of its own,
 * appended without hashing; a key met again after another key starts
 * another group, which the downstream merge of the partial buffers adds
 * up. Its records hold no hash (a merge from such a state hashes them), and
 * a merge into such a state (soft_agg_merge) first hashes them into a
 * table and leaves runs mode.
 */
void soft_agg_runs(soft_agg_state *st) {
  if (st && st->magic == AGG_MAGIC && st->key1 && !st->perfect && st->n_groups == 0) st->runs = 1;
}

/* Leaves runs mode: hashes every record into a table. */
static int leave_runs(soft_agg_state *st) {
  for (uint64_t g = 0; g < st->n_groups; g++) {
    uint8_t *rec = rec_at(st, g);
    const key_src s = {.st = st, .rec = rec};
    const uint64_t h = hash_src(st, &s);
    memcpy(rec, &h, 8);
  }
  uint64_t cap = TABLE_MIN;
  while (cap < (st->n_groups + 1) * 4) cap *= 2;
  int e = table_build(st, cap);
  if (!e) st->runs = 0;
  return e;
}

/* The groups of the selected rows in runs mode. */
static int runs_rows(soft_agg_state *st, const soft_reg *const *keys, uint32_t m) {
  const soft_reg *r = keys[0];
  const uint32_t vt = st->keys[0].vt;
  const uint16_t *rows = st->rows;
  uint32_t *gids = st->gids;
  key_src s = {.regs = keys};
  uint32_t have = st->run_have, pnull = st->run_null, g = st->run_gid;
  uint64_t px = st->run_key;
  for (uint32_t i = 0; i < m; i++) {
    uint32_t xnull;
    const uint32_t row = rows[i];
    const uint64_t x = key1_reg(r, vt, row, &xnull);
    if (__builtin_expect(!have || xnull != pnull || x != px, 0)) {
      s.row = row;
      int e = new_group(st, &s, 0, &g); /* no hash: leave_runs and merges compute it */
      if (e) return e;
      have = 1;
      pnull = xnull;
      px = x;
    }
    gids[i] = g;
  }
  st->run_have = have;
  st->run_null = pnull;
  st->run_gid = g;
  st->run_key = px;
  return HADOS_OK;
}

/* Finds (or inserts) the group of every selected row into st->gids. */
static int assign_groups(soft_agg_state *st, const soft_reg *const *keys, uint32_t m, const soft_vec *v) {
  int e;
  key_src s = {.regs = keys};
  if (st->n_keys == 0) {
    memset(st->gids, 0, m * sizeof(uint32_t));
    return HADOS_OK;
  }
  if (st->runs) return runs_rows(st, keys, m);
  if (st->fast_ok && fast_str1_rows(st, keys, m)) return HADOS_OK;
  /* every other path reads the keys' views (soft_reg.str1_lazy: written
     here, which is why the registers, though const, must be writable) */
  for (uint32_t k = 0; k < st->n_keys; k++) soft_reg_views((soft_reg *)keys[k], v);
  if (st->perfect) {
    e = rows_index(st, keys, m);
    if (e < 0) return e;
    if (e == 0) {
      for (uint32_t i = 0; i < m; i++) {
        s.row = st->rows[i];
        if ((e = find_perfect(st, &s, st->idx[i], &st->gids[i]))) return e;
      }
      return HADOS_OK;
    }
    if ((e = switch_to_hash(st))) return e;
  }
  if (st->fast_ok) {
    if (fast_codes(st, keys, m)) return fast_rows(st, keys, m);
    st->fast_ok = 0;
  }
  uint32_t from = 0;
  if (st->memo_ok) {
    from = memo_rows(st, keys, m, &e);
    if (e) return e;
  }
  if (from == m) return HADOS_OK;
  hash_rows(st, keys, m, from);
  probe_rows(st, keys[0], m, from);
  if (!st->key1)
    for (uint32_t k = 0; k < st->n_keys; k++) verify_key(st, k, keys[k], m, from);
  /* The rest, in row order: new keys (inserted in first-seen order; a
     later row of the same new key finds it) and tag collisions. */
  const uint64_t *h = st->hashes;
  for (uint32_t i = from; i < m; i++) {
    if (st->gids[i] != NO_GID) continue;
    s.row = st->rows[i];
    if (st->key1 && i > from) { /* a run of one new key: the previous row inserted it */
      uint32_t an, bn;
      const uint64_t a = key1_reg(keys[0], st->keys[0].vt, st->rows[i - 1], &an);
      const uint64_t b = key1_reg(keys[0], st->keys[0].vt, s.row, &bn);
      if (an == bn && a == b) {
        st->gids[i] = st->gids[i - 1];
        continue;
      }
    }
    if ((e = find_hash(st, &s, h[i], &st->gids[i]))) return e;
  }
  return HADOS_OK;
}

int soft_agg_update(soft_agg_state *st, const soft_reg *const *keys, const soft_reg *const *args,
                    const soft_reg *const *args2, const soft_vec *v) {
  if (!st || st->magic != AGG_MAGIC || !v) return soft_fail(HADOS_E_INVALID, "soft agg: update of an invalid state");
  int e = update_check(st, keys, args, args2, v);
  if (e) return e;
  uint32_t m = v->sel ? v->sel_n : v->n;
  if (m == 0) return HADOS_OK;
  if (st->rows_only) return soft_agg_add_rows(st, m); /* count(*)s of a global aggregate: the number of rows is all they need */
  if (v->sel)
    memcpy(st->rows, v->sel, m * sizeof(uint16_t));
  else
    for (uint32_t i = 0; i < m; i++) st->rows[i] = (uint16_t)i;

  for (uint32_t j = 0; j < st->n_aggs; j++) { /* values read as views (soft_reg.str1_lazy) */
    if (args && args[j]) soft_reg_views((soft_reg *)args[j], v);
    if (args2 && args2[j]) soft_reg_views((soft_reg *)args2[j], v);
  }
  agg_snap snap;
  snap_take(st, &snap);
  e = assign_groups(st, keys, m, v);
  if (!e) { /* string values may need arena space: reserve the worst case */
    uint64_t need = 0;
    for (uint32_t j = 0; j < st->n_aggs; j++) {
      if (!is_str_value(&st->aggs[j])) continue;
      const soft_reg *r = args[j];
      const soft_str *sv = (const soft_str *)r->data;
      for (uint32_t i = 0; i < m; i++)
        if (r->all_valid || r->valid[st->rows[i]]) need += sv[st->rows[i]].len;
    }
    if (need) e = arena_reserve(st, need);
  }
  if (e) {
    snap_restore(st, &snap);
    return e;
  }
  /* narrow arguments (soft_reg.narrow, int64 storage of I128 values):
     the few-group sums of SUMs read them as they are (few_dense, then
     fold_few finds their sums in its cache); any other reader gets them
     widened in place first */
  for (uint32_t j = 0; args && j < st->n_aggs; j++)
    if (args[j] && args[j]->narrow && !sum_kind(st->aggs[j].kind)) soft_reg_widen((soft_reg *)args[j], v);
  few_begin(st, m);
  few_dense(st, args, v, m);
  for (uint32_t j = 0; args && j < st->n_aggs; j++)
    if (args[j] && args[j]->narrow && few_cache_find(st, view_of(args[j]), st->aggs[j].in_vt) == st->few_cache_n)
      soft_reg_widen((soft_reg *)args[j], v);
  for (uint32_t j = 0; j < st->n_aggs; j++)
    fold_rows(st, &st->aggs[j], args ? args[j] : NULL, args2 ? args2[j] : NULL, m, v);
  return HADOS_OK;
}

int soft_agg_rows_only(const soft_agg_state *st) { return st && st->magic == AGG_MAGIC && st->rows_only; }

int soft_agg_add_rows(soft_agg_state *st, uint64_t n) {
  if (!soft_agg_rows_only(st)) return soft_fail(HADOS_E_INVALID, "soft agg: row count added to a state that is not count(*)-only");
  for (uint32_t j = 0; j < st->n_aggs; j++) *(int64_t *)(st->recs.p + st->aggs[j].voff) += (int64_t)n;
  return HADOS_OK;
}

/* ---------------------------------------------------------------- merge */

static int same_spec(const soft_agg_state *a, const soft_agg_state *b) {
  if (a->n_keys != b->n_keys || a->n_aggs != b->n_aggs) return 0;
  for (uint32_t k = 0; k < a->n_keys; k++)
    if (a->keys[k].vt != b->keys[k].vt) return 0;
  for (uint32_t j = 0; j < a->n_aggs; j++)
    if (a->aggs[j].mkind != b->aggs[j].mkind || a->aggs[j].st_vt != b->aggs[j].st_vt ||
        a->aggs[j].ignore_nulls != b->aggs[j].ignore_nulls)
      return 0;
  return 1;
}

/* Maps src's groups to dst's (inserting new ones) into map. */
static int merge_groups(soft_agg_state *dst, const soft_agg_state *src, uint32_t *map) {
  int e;
  for (uint64_t g = 0; g < src->n_groups; g++) {
    key_src s = {.st = src, .rec = rec_at(src, g)};
    if (dst->n_keys == 0) {
      map[g] = 0;
      continue;
    }
    if (dst->perfect) {
      uint32_t idx;
      e = src_index(dst, &s, &idx);
      if (e < 0) return e;
      if (e == 0) {
        if ((e = find_perfect(dst, &s, idx, &map[g]))) return e;
        continue;
      }
      if ((e = switch_to_hash(dst))) return e;
    }
    uint64_t h;
    if (src->perfect || src->runs) /* records without their hash */
      h = hash_src(dst, &s);
    else
      memcpy(&h, s.rec, 8);
    if ((e = find_hash(dst, &s, h, &map[g]))) return e;
  }
  return HADOS_OK;
}

int soft_agg_merge(soft_agg_state *dst, const soft_agg_state *src) {
  if (!dst || !src || dst->magic != AGG_MAGIC || src->magic != AGG_MAGIC)
    return soft_fail(HADOS_E_INVALID, "soft agg: merge of an invalid state");
  if (dst == src) return soft_fail(HADOS_E_INVALID, "soft agg: merge of a state into itself");
  if (!same_spec(dst, src)) return soft_fail(HADOS_E_INVALID, "soft agg: merge of states with different specs");
  if (src->n_groups == 0) return HADOS_OK;
  if (dst->runs) {
    int e = leave_runs(dst);
    if (e) return e;
  }
  uint32_t *map = malloc(src->n_groups * sizeof(uint32_t));
  if (!map) return soft_fail(HADOS_E_NOMEM, "soft agg: merge: no host memory for %llu group ids", (unsigned long long)src->n_groups);
  agg_snap snap;
  snap_take(dst, &snap);
  int e = merge_groups(dst, src, map);
  if (!e) {
    uint64_t need = 0;
    for (uint32_t j = 0; j < src->n_aggs; j++) {
      const agg_col *a = &src->aggs[j];
      if (!is_str_value(a)) continue;
      for (uint64_t g = 0; g < src->n_groups; g++) {
        fin x = {0};
        fin_acc(src, a, rec_at(src, g), &x);
        if (x.valid) need += x.len;
      }
    }
    if (need) e = arena_reserve(dst, need);
  }
  if (e) {
    snap_restore(dst, &snap);
    free(map);
    return e;
  }
  for (uint64_t g = 0; g < src->n_groups; g++) {
    const uint8_t *srec = rec_at(src, g);
    uint8_t *drec = rec_at(dst, map[g]);
    for (uint32_t j = 0; j < dst->n_aggs; j++) {
      const agg_col *a = &dst->aggs[j];
      fin x = {0};
      fin_acc(src, &src->aggs[j], srec, &x);
      fold(dst, a->mkind, a->st_vt, a->st_vt, a->ignore_nulls, drec + a->voff, drec + a->soff, &x);
    }
  }
  free(map);
  return HADOS_OK;
}

/* ---------------------------------------------------------------- emit */

/* What output column c holds. */
typedef struct out_src {
  uint32_t key;  /* 1: key idx; 0: aggregate idx */
  uint32_t idx;
  uint32_t flag; /* aggregate's BOOL column (isEmpty / valueSet) */
  uint32_t vt;
} out_src;

static uint32_t out_layout(const soft_agg_state *st, out_src *o) {
  uint32_t n = 0;
  for (uint32_t k = 0; k < st->n_keys; k++) o[n++] = (out_src){1, k, 0, st->keys[k].vt};
  for (uint32_t j = 0; j < st->n_aggs; j++) {
    const agg_col *a = &st->aggs[j];
    o[n++] = (out_src){0, j, 0, a->st_vt};
    if (a->mkind == A_SUM_DEC_MERGE || a->mkind == A_FIRST_MERGE) o[n++] = (out_src){0, j, 1, HADOS_VT_BOOL};
  }
  return n;
}

/* The value of output column o for group rec. */
static void out_value(const soft_agg_state *st, const out_src *o, const uint8_t *rec, fin *x) {
  if (o->key) {
    kval k;
    kval_rec(st, rec, o->idx, &k);
    x->valid = !k.null;
    x->p = k.p;
    x->len = k.len;
    switch (o->vt) {
      case HADOS_VT_I32: x->i = (int32_t)(uint32_t)k.lo; break;
      case HADOS_VT_F64: memcpy(&x->f, &k.lo, 8); break;
      case HADOS_VT_I128: x->i = (i128)(((unsigned __int128)k.hi << 64) | k.lo); break;
      default: x->i = (int64_t)k.lo; break;
    }
    return;
  }
  fin_acc(st, &st->aggs[o->idx], rec, x);
  if (o->flag) {
    x->i = x->flag;
    x->valid = 1;
  }
}

/* An output column's buffers, resolved once for the whole emit. */
typedef struct emit_dst {
  uint8_t *valid, *data, *offs;
  int large;
  uint64_t pos; /* string bytes written so far */
} emit_dst;

static int emit_open(soft_device *d, const soft_agg_state *st, const hados_column *col, const out_src *o, emit_dst *w) {
  uint64_t n = st->n_groups;
  int e;
  memset(w, 0, sizeof *w);
  w->large = (col->flags & HADOS_COLF_LARGE) != 0;
  if (n == 0 && o->vt != HADOS_VT_STR) return HADOS_OK; /* nothing to write; buffers may be absent */
  if (n && col->validity && (e = soft_range(d, col->validity, (n + 7) / 8, &w->valid))) return e;
  if (o->vt == HADOS_VT_STR) {
    if ((e = soft_range(d, col->offsets, (n + 1) * (w->large ? 8 : 4), &w->offs)) ||
        (col->capacity && (e = soft_range(d, col->data, col->capacity, &w->data))))
      return e;
  } else {
    uint64_t bytes = o->vt == HADOS_VT_BOOL ? (n + 7) / 8 : n * vt_width(o->vt);
    if ((e = soft_range(d, col->data, bytes, &w->data))) return e;
  }
  if (w->valid) memset(w->valid, 0, (n + 7) / 8);
  if (o->vt == HADOS_VT_BOOL) memset(w->data, 0, (n + 7) / 8);
  return HADOS_OK;
}

/* emit_rows of a key column: the values copied from the records as they
   store them (a string from the arena in one memcpy), the type switch
   outside the loop; a null writes zeros (a string: no bytes). */
static int emit_key_rows(const soft_agg_state *st, uint32_t c, const out_src *o, emit_dst *w, uint64_t g0, uint64_t g1) {
  uint8_t *const valid = w->valid, *const data = w->data, *const offs = w->offs;
  const uint8_t *const base = st->recs.p, *const arena = st->arena.p;
  const uint64_t rs = st->rec_size;
  const uint32_t k = o->idx, off = st->keys[k].off;
  for (uint64_t g = g0; g < g1; g++) /* validity first: a null without a bitmap writes nothing */
    if ((rec_nulls(base + g * rs) >> k) & 1) {
      if (!valid)
        return soft_fail(HADOS_E_INVALID, "soft agg: emit: output column %u has no validity bitmap but group %llu is null", c,
                         (unsigned long long)g);
    } else if (valid)
      valid[g / 8] |= (uint8_t)(1u << (g % 8));
#define KEY_LOOP(W)                                        \
  for (uint64_t g = g0; g < g1; g++) {                     \
    const uint8_t *rec = base + g * rs;                    \
    if ((rec_nulls(rec) >> k) & 1)                         \
      memset(data + (W) * g, 0, (W));                      \
    else                                                   \
      memcpy(data + (W) * g, rec + off, (W));              \
  }                                                        \
  break;
  switch (o->vt) {
    case HADOS_VT_I32: KEY_LOOP(4)
    case HADOS_VT_I64:
    case HADOS_VT_F64: KEY_LOOP(8)
    case HADOS_VT_I128: KEY_LOOP(16)
    case HADOS_VT_BOOL:
      for (uint64_t g = g0; g < g1; g++) {
        const uint8_t *rec = base + g * rs;
        if (!((rec_nulls(rec) >> k) & 1) && rec[off]) data[g / 8] |= (uint8_t)(1u << (g % 8));
      }
      break;
    case HADOS_VT_STR: {
      uint64_t pos = w->pos;
      for (uint64_t g = g0; g < g1; g++) {
        const uint8_t *rec = base + g * rs;
        if (w->large) {
          const int64_t p = (int64_t)pos;
          memcpy(offs + 8 * g, &p, 8);
        } else {
          const int32_t p = (int32_t)pos;
          memcpy(offs + 4 * g, &p, 4);
        }
        if ((rec_nulls(rec) >> k) & 1) continue;
        uint32_t so, sl;
        memcpy(&so, rec + off, 4);
        memcpy(&sl, rec + off + 4, 4);
        memcpy(data + pos, arena + so, sl);
        pos += sl;
      }
      w->pos = pos;
      break;
    }
  }
#undef KEY_LOOP
  return HADOS_OK;
}

/* The string bytes key k of the groups emits. */
static uint64_t key_str_bytes(const soft_agg_state *st, uint32_t k) {
  const uint8_t *const base = st->recs.p;
  const uint64_t rs = st->rec_size;
  const uint32_t off = st->keys[k].off;
  uint64_t bytes = 0;
  for (uint64_t g = 0; g < st->n_groups; g++) {
    const uint8_t *rec = base + g * rs;
    uint32_t sl;
    memcpy(&sl, rec + off + 4, 4);
    if (!((rec_nulls(rec) >> k) & 1)) bytes += sl;
  }
  return bytes;
}

/* Writes groups g0..g1 of output column c. */
static int emit_rows(const soft_agg_state *st, uint32_t c, const out_src *o, emit_dst *w, uint64_t g0, uint64_t g1) {
  if (o->key) return emit_key_rows(st, c, o, w, g0, g1);
  uint8_t *const valid = w->valid, *const data = w->data, *const offs = w->offs;
  const int large = w->large;
  uint64_t pos = w->pos;
  for (uint64_t g = g0; g < g1; g++) {
    fin x = {0};
    out_value(st, o, rec_at(st, g), &x);
    if (x.valid && valid) valid[g / 8] |= (uint8_t)(1u << (g % 8));
    if (!x.valid && !valid)
      return soft_fail(HADOS_E_INVALID, "soft agg: emit: output column %u has no validity bitmap but group %llu is null", c,
                       (unsigned long long)g);
    switch (o->vt) {
      case HADOS_VT_BOOL:
        if (x.valid && x.i) data[g / 8] |= (uint8_t)(1u << (g % 8));
        break;
      case HADOS_VT_I32: {
        int32_t v = x.valid ? (int32_t)x.i : 0;
        memcpy(data + 4 * g, &v, 4);
        break;
      }
      case HADOS_VT_I64: {
        int64_t v = x.valid ? (int64_t)x.i : 0;
        memcpy(data + 8 * g, &v, 8);
        break;
      }
      case HADOS_VT_F64: {
        double v = x.valid ? x.f : 0;
        memcpy(data + 8 * g, &v, 8);
        break;
      }
      case HADOS_VT_I128: {
        i128 v = x.valid ? x.i : 0;
        memcpy(data + 16 * g, &v, 16);
        break;
      }
      case HADOS_VT_STR: {
        if (large) {
          int64_t p = (int64_t)pos;
          memcpy(offs + 8 * g, &p, 8);
        } else {
          int32_t p = (int32_t)pos;
          memcpy(offs + 4 * g, &p, 4);
        }
        if (x.valid && x.len) {
          memcpy(data + pos, x.p, x.len);
          pos += x.len;
        }
        break;
      }
    }
  }
  w->pos = pos;
  return HADOS_OK;
}

static void emit_close(const soft_agg_state *st, const out_src *o, emit_dst *w) {
  if (o->vt != HADOS_VT_STR) return;
  const uint64_t n = st->n_groups;
  if (w->large) {
    int64_t p = (int64_t)w->pos;
    memcpy(w->offs + 8 * n, &p, 8);
  } else {
    int32_t p = (int32_t)w->pos;
    memcpy(w->offs + 4 * n, &p, 4);
  }
}

int soft_agg_emit(soft_device *d, const soft_agg_state *st, const hados_agg_out *out, uint64_t *n) {
  if (!d || !st || st->magic != AGG_MAGIC || !out || !n) return soft_fail(HADOS_E_INVALID, "soft agg: emit of an invalid state");
  *n = 0;
  out_src os[16 + 128];
  uint32_t nc = out_layout(st, os);
  if (out->n_cols != nc)
    return soft_fail(HADOS_E_INVALID, "soft agg: emit: %llu output columns, the spec gives %u (keys, then buffers)",
                     (unsigned long long)out->n_cols, nc);
  for (uint32_t c = 0; c < nc; c++) {
    const hados_column *col = &out->cols[c];
    if (col->vtype != os[c].vt)
      return soft_fail(HADOS_E_INVALID, "soft agg: emit: output column %u is %s, the state gives %s", c, vt_name(col->vtype),
                       vt_name(os[c].vt));
    if (col->offset || (col->flags & HADOS_COLF_DICT) || (col->flags & HADOS_COLF_LARGE && os[c].vt != HADOS_VT_STR))
      return soft_fail(HADOS_E_INVALID, "soft agg: emit: output column %u must have offset 0 and no DICT flag", c);
  }
  if (out->capacity_rows < st->n_groups) {
    *n = st->n_groups;
    return soft_fail(HADOS_E_NOMEM, "soft agg: emit: %llu groups, capacity %llu rows", (unsigned long long)st->n_groups,
                     (unsigned long long)out->capacity_rows);
  }
  for (uint32_t c = 0; c < nc; c++) { /* string bytes first: nothing written when short */
    if (os[c].vt != HADOS_VT_STR) continue;
    uint64_t bytes = 0;
    if (os[c].key)
      bytes = key_str_bytes(st, os[c].idx);
    else
      for (uint64_t g = 0; g < st->n_groups; g++) {
        fin x = {0};
        out_value(st, &os[c], rec_at(st, g), &x);
        if (x.valid) bytes += x.len;
      }
    const hados_column *col = &out->cols[c];
    if (bytes > col->capacity || (!(col->flags & HADOS_COLF_LARGE) && bytes > INT32_MAX)) {
      *n = st->n_groups;
      return soft_fail(HADOS_E_NOMEM, "soft agg: emit: string column %u needs %llu bytes for %llu groups, capacity %llu bytes", c,
                       (unsigned long long)bytes, (unsigned long long)st->n_groups, (unsigned long long)col->capacity);
    }
  }
  /* Blocks of EMIT_BLOCK groups, every column of a block before the next:
     the block's records are read from memory once, not once per column. */
  enum { EMIT_BLOCK = 512 };
  emit_dst ws[16 + 128];
  for (uint32_t c = 0; c < nc; c++) {
    int e = emit_open(d, st, &out->cols[c], &os[c], &ws[c]);
    if (e) return e;
  }
  for (uint64_t g0 = 0; g0 < st->n_groups; g0 += EMIT_BLOCK) {
    const uint64_t g1 = g0 + EMIT_BLOCK < st->n_groups ? g0 + EMIT_BLOCK : st->n_groups;
    for (uint32_t c = 0; c < nc; c++) {
      int e = emit_rows(st, c, &os[c], &ws[c], g0, g1);
      if (e) return e;
    }
  }
  for (uint32_t c = 0; c < nc; c++) emit_close(st, &os[c], &ws[c]);
  *n = st->n_groups;
  return HADOS_OK;
}
