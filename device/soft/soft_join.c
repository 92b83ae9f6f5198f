/*
 * soft_join.c — the software DPU's hash join ops: JOIN_BUILD, JOIN_PROBE
 * and JOIN_FREE (hados_relational.h is the contract).
 *
 * The table. A build hashes the build side's key columns and keeps one
 * slot per *distinct* key tuple in an open-addressing table (power-of-two
 * capacity, load at most 3/4, linear probing). A slot is 16 bytes: a word
 * w, the number of build rows with that key, and a reference to them: the
 * row itself when there is one (the common case of a join on a primary
 * key: a probe then touches one cache line), or the start of the tuple's
 * run in a row array where the rows of every duplicated key lie
 * contiguously in build input order (so a probe row's matches come out in
 * build input order, as the ABI asks).
 *
 * Two kinds of tables.
 *  - Direct: a single key of a fixed-width type of at most 8 bytes (I32,
 *    I64, F64, BOOL): w is the normalised key value itself, so a probe
 *    compares words and never reads the build columns. A null key of a
 *    null-safe key is one extra group kept beside the table.
 *  - Dense: a direct table whose keys are unique, not null-safe null, of
 *    an integer type (I32, I64) and fill a range at most DENSE_SPREAD times
 *    the build rows (the surrogate keys of a dimension table, a dense
 *    primary key): slots is then an array of one uint32 per key value of
 *    the range, the build row with that key or NO_SLOT: a perfect hash.
 *    A probe indexes it by key - min, no hashing, no comparison, and the
 *    array (4 bytes a value) is a fraction of a slot table's size, so more
 *    of it stays in cache. The build tries it first when the range allows
 *    and falls back to a slot table at the first duplicated key.
 *  - Hashed: any other keys (I128, strings — utf8, large_utf8 or
 *    dictionary —, several keys): w is the tuple's 64-bit hash, and a slot
 *    whose hash matches is confirmed by comparing the key values of its
 *    first build row, read from the build columns. The build columns must
 *    therefore stay alive and unchanged until JOIN_FREE (the ABI says so).
 * Doubles are normalised (one NaN, no -0.0); strings compare as bytes, so a
 * dictionary-encoded column joins with a plain one. A row with a null in a
 * key that is not null-safe never matches: the build leaves it out and a
 * probe finds nothing for it.
 *
 * Building. Rows are inserted in input order, each into the slot of its
 * key (claiming an empty one for a new key, whose reference is then its
 * first row). Afterwards, if some key has several rows, the row array is
 * filled: every duplicated key gets a run, and a pass over the rows in
 * reverse order fills each run from its end, so runs end up in input
 * order. Like a probe, the build hashes a block of rows and prefetches
 * their slots a block before inserting them, and the reverse pass
 * prefetches the slot of a row DUP_FILL_AHEAD rows on.
 *
 * A build over several cores. When the host asks for P parts (arg[1], a
 * power of two up to MAX_PARTS) and the build side is large enough, the
 * slot table is cut into P regions of consecutive slots: a key's region is
 * the top bits of its slot hash (region_of; its slot in the region is the
 * hash's low bits), and linear probing wraps around inside the region, so
 * the regions are independent tables. The JOIN_BUILD op then only
 * prepares the state (allocating it and the slots; a dense table is still
 * built there, whole); the host runs one more JOIN_BUILD per part (arg[2]
 * = the state, arg[3] = the part), all at once on different cores. Each
 * fills its own region unless another op took it, then every region no op
 * has taken yet (so an op that starts late, its core busy, leaves its
 * region to the others instead of holding the build up): it clears the
 * region and inserts the build rows whose keys fall in it (every region
 * reads every key; hashing is cheap next to an insert's cache miss). This
 * takes unique keys only: the first duplicated key (or a region past 7/8
 * full) stops every region, and the op that finishes the last region
 * reports result 0 instead of the state, telling the host to free it and
 * build on one core. Otherwise that op marks the state ready; a probe
 * refuses a state that is not. The insert order inside a region is input
 * order, so the table is the same whatever the cores' timing.
 *
 * The filter. A slot table (not a dense one) has a blocked Bloom filter
 * of its keys beside it: a power of two 64-bit words, at least one per 8
 * build rows (8 to 16 bits a key, so a 200k-row build's filter is 256 KiB
 * where its slots are 8 MiB); a key sets three bits of one word, all from
 * its slot hash (the word from the top bits, the bits from bits 17..34).
 * A probe row whose word lacks one of its bits has no match, for one load
 * of a word that stays in cache, with no slot load and no walk along a
 * run of occupied slots: most probe rows of a join on a filtered or small
 * build side miss (TPC-H's Q5, Q9, Q17), and at load 3/4 a miss walks
 * several slots with a branch each. A false positive (a few percent) only
 * costs the slot lookup it would have had anyway. The build sets a key's
 * bits when it inserts the key (its word prefetched with its slot); a
 * pass over the slots after the inserts, as before, took 40% of a 225k-row
 * build (twice the slots as keys, each a random write). The top bits of a
 * hash pick both its word and its region, so a region of a build over
 * several cores owns its words and needs no atomic or. A null-safe null
 * key is no entry of the filter: it is always looked up.
 *
 * Probing. A probe walks its row range in blocks of 32 through a pipeline
 * of three blocks: it reads block N+2's keys, hashes them and prefetches
 * their filter words; tests block N+1's rows against the filter (a
 * branch-free loop that keeps the candidates, the rows that may match)
 * and prefetches their slots; then looks block N's candidates up (so
 * filter words and slots have a block's work to arrive): it finds their
 * slots first, prefetching each duplicated key's run of build rows (and,
 * with a condition, the build operands of the first candidate), then
 * matches the rows (the candidates, or every row under UNMATCHED),
 * writing pairs until the output is full. When nearly every row passes
 * the filter (past 7 in 8 over at least 1024 rows), the op stops testing
 * it for the rest of its rows: the filter would only cost there. The cursor (next_row, next_match) in hados_join_out records
 * where it stopped, so the host runs the op again to continue; FIRST_MATCH
 * caps a row at one pair, UNMATCHED writes (row, -1) for rows without a
 * match. Probes only read the state, so any number may run at once on
 * different cores.
 *
 * A condition in the probe. With HADOS_PROBE_COND (semi, anti and
 * existence joins with a simple extra condition, hados_joincond.h's
 * terms) a build row is a match only when the condition passes for the
 * pair: the probe tests a row's candidates in build input order and stops
 * at the first that passes, writing that one pair (FIRST_MATCH is
 * required), or (row, -1) under UNMATCHED when none passes. No candidate
 * pair ever leaves the device, and a semi join's rows with many
 * candidates cost only up to their first passing one.
 *
 * Memory. The state, its slots, filter and row array, and the build's temporary
 * slot-of-row array are blocks of the device heap (they show in
 * telemetry). Their total (temporary included, as it is the peak) is
 * checked against the byte budget of the build before anything is
 * allocated: over it, the build fails with HADOS_E_NOMEM naming the sizes,
 * and its result is the bytes it needed. The state is released only by
 * JOIN_FREE.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "soft_joincond.h"
#include "soft_keyhash.h"
#include "soft_relational.h"

#define JOIN_STATE_MAGIC 0x3154534E4A4148ULL /* "HAJNST1" */
#define NO_SLOT 0xffffffffu
#define NULL_GROUP 0xfffffffeu /* slotof value of a null-safe null key (direct tables) */
#define MAX_BUILD_ROWS 0x7fffffffULL
#define PROBE_BLOCK 32u
#define MAX_PARTS 16u
#define PAR_MIN_ROWS 65536u /* smaller build sides are built on one core */
#define DUP_FILL_AHEAD 16u /* rows the run fill prefetches slots ahead */
#define DENSE_SPREAD 4u /* a dense table's key range may be up to this many times its rows */

/* A bound key column: host pointers into device memory. */
typedef struct jcol {
  uint32_t vt, flags;
  uint64_t off; /* Arrow offset of row 0 */
  const uint8_t *valid; /* NULL: every row is valid */
  const uint8_t *data, *offsets, *dict_data, *dict_offsets;
  uint64_t dict_len;
} jcol;

typedef struct jslot {
  uint64_t w;     /* direct: the key; hashed: the tuple's hash */
  uint32_t count; /* build rows with the key; 0 = empty slot */
  uint32_t ref;   /* count == 1: the row; else the start of its run in dup[] */
} jslot;

typedef soft_block jblock;

typedef struct join_state {
  uint64_t magic;
  soft_device *d;
  uint32_t n_keys, direct;
  uint32_t key_flags[HADOS_MAX_JOIN_KEYS];
  jcol keys[HADOS_MAX_JOIN_KEYS];
  uint64_t rows, mask, distinct;
  uint64_t rmask;         /* slots of a region - 1 (mask when one region) */
  uint32_t parts, shift;  /* regions, and slot index >> shift = region */
  uint32_t rshift;        /* a hash's region is (hash >> 1) >> rshift: its top bits (63: one region) */
  uint32_t claimed, taken, finished, stop, ready; /* parallel builds (atomics): ops seen, regions taken and done */
  uint32_t dense;       /* a dense table: slots holds a uint32 row per key value */
  uint64_t dmin, drange; /* dense tables: the keys are dmin + [0, drange) */
  jblock self, slots, dup;
  jblock filt;     /* slot tables: the key filter, filt.bytes / 8 words (see "The filter") */
  uint32_t fshift; /* a hash's word in the filter is hash >> fshift */
  jslot null_group; /* direct tables: the rows of a null-safe null key */
} join_state;

/* ---------------------------------------------------------------- memory */

static int blk_alloc(soft_device *d, jblock *b, uint64_t bytes, const char *what) {
  if (soft_block_alloc(d, b, bytes) != HADOS_OK)
    return soft_fail(HADOS_E_NOMEM, "join build: %s: %llu bytes: device memory exhausted", what,
                     (unsigned long long)soft_round_align(bytes ? bytes : 1));
  return HADOS_OK;
}

static void state_release(join_state *s) {
  soft_device *d = s->d;
  soft_block_free(d, &s->slots);
  soft_block_free(d, &s->dup);
  soft_block_free(d, &s->filt);
  s->magic = 0;
  jblock self = s->self;
  soft_block_free(d, &self);
}

/* ---------------------------------------------------------------- columns */

static const char *vt_name(uint32_t vt) {
  static const char *names[] = {"?", "BOOL", "I32", "I64", "F64", "I128", "STR"};
  return vt <= HADOS_VT_STR ? names[vt] : "?";
}

static int dev_ptr(soft_device *d, uint64_t addr, uint64_t len, const uint8_t **out, const char *side, uint32_t k,
                   const char *what) {
  static const uint8_t none[1];
  uint8_t *p;
  if (len == 0) { /* no bytes (strings all empty or null): any address, read nowhere */
    *out = none;
    return HADOS_OK;
  }
  if (soft_range(d, addr, len, &p) == HADOS_OK) {
    *out = p;
    return HADOS_OK;
  }
  return soft_fail(HADOS_E_FAULT, "join: %s key %u: %s [0x%llx, +%llu) is outside device memory", side, k, what,
                   (unsigned long long)addr, (unsigned long long)len);
}

static int32_t ld_i32(const uint8_t *p) {
  int32_t v;
  memcpy(&v, p, 4);
  return v;
}

static int64_t ld_i64(const uint8_t *p) {
  int64_t v;
  memcpy(&v, p, 8);
  return v;
}

static int bit_at(const uint8_t *bits, uint64_t i) { return (bits[i >> 3] >> (i & 7)) & 1; }

#define KBAD(FMT, ...) soft_fail(HADOS_E_INVALID, "join: %s key %u: " FMT, side, k, __VA_ARGS__)

/* Offsets [first, last] of a string buffer (width w): non-negative,
   non-decreasing, each string under 4 GiB; *end receives the last. */
static int check_offsets(const char *side, uint32_t k, const char *what, const uint8_t *offs, uint32_t w, uint64_t first,
                         uint64_t last, uint64_t *end) {
  int64_t prev = w == 4 ? ld_i32(offs + first * 4) : ld_i64(offs + first * 8);
  if (prev < 0) return KBAD("%s offset %llu is negative (%lld)", what, (unsigned long long)first, (long long)prev);
  for (uint64_t i = first + 1; i <= last; i++) {
    int64_t o = w == 4 ? ld_i32(offs + i * 4) : ld_i64(offs + i * 8);
    if (o < prev || o - prev > (int64_t)UINT32_MAX)
      return KBAD("%s offsets at entry %llu go from %lld to %lld", what, (unsigned long long)i, (long long)prev, (long long)o);
    prev = o;
  }
  *end = (uint64_t)prev;
  return HADOS_OK;
}

/* Binds key column k for rows [rb, re), checking everything a later read
   of those rows touches (so the hot loops need no checks). */
static int bind_key(soft_device *d, const char *side, uint32_t k, const hados_column *c, uint64_t rows, uint64_t rb, uint64_t re,
                    jcol *o) {
  memset(o, 0, sizeof *o);
  if (c->vtype < HADOS_VT_BOOL || c->vtype > HADOS_VT_STR) return KBAD("unknown value type %u", c->vtype);
  if (c->flags & ~(HADOS_COLF_DICT | HADOS_COLF_LARGE)) return KBAD("unknown column flags 0x%x", c->flags);
  if (c->flags && c->vtype != HADOS_VT_STR) return KBAD("flags 0x%x on a %s column", c->flags, vt_name(c->vtype));
  if (c->flags == (HADOS_COLF_DICT | HADOS_COLF_LARGE)) return KBAD("flags 0x%x: a dictionary has int32 offsets", c->flags);
  if (c->length < rows) return KBAD("column of %llu rows, the descriptor says %llu", (unsigned long long)c->length, (unsigned long long)rows);
  if (c->offset > (1ull << 56) || c->length > (1ull << 56))
    return KBAD("offset %llu / length %llu too large", (unsigned long long)c->offset, (unsigned long long)c->length);
  o->vt = c->vtype;
  o->flags = c->flags;
  o->off = c->offset;
  if (rb == re) return HADOS_OK;
  uint64_t first = c->offset + rb, end = c->offset + re;
  int st;
  if (c->validity && c->null_count && (st = dev_ptr(d, c->validity, (end + 7) / 8, &o->valid, side, k, "validity bitmap"))) return st;
  switch (c->vtype) {
    case HADOS_VT_BOOL: return dev_ptr(d, c->data, (end + 7) / 8, &o->data, side, k, "values");
    case HADOS_VT_I32: return dev_ptr(d, c->data, end * 4, &o->data, side, k, "values");
    case HADOS_VT_I64:
    case HADOS_VT_F64: return dev_ptr(d, c->data, end * 8, &o->data, side, k, "values");
    case HADOS_VT_I128: return dev_ptr(d, c->data, end * 16, &o->data, side, k, "values");
  }
  uint64_t bytes = 0;
  if (c->flags & HADOS_COLF_DICT) {
    if (c->dict_length > INT32_MAX) return KBAD("dictionary of %llu entries", (unsigned long long)c->dict_length);
    if ((st = dev_ptr(d, c->data, end * 4, &o->data, side, k, "dictionary codes"))) return st;
    if ((st = dev_ptr(d, c->dict_offsets, (c->dict_length + 1) * 4, &o->dict_offsets, side, k, "dictionary offsets"))) return st;
    if ((st = check_offsets(side, k, "dictionary", o->dict_offsets, 4, 0, c->dict_length, &bytes))) return st;
    if ((st = dev_ptr(d, c->dict_data, bytes, &o->dict_data, side, k, "dictionary bytes"))) return st;
    o->dict_len = c->dict_length;
    for (uint64_t i = first; i < end; i++) {
      int32_t code = ld_i32(o->data + 4 * i);
      if ((code < 0 || (uint64_t)code >= o->dict_len) && !(o->valid && !bit_at(o->valid, i)))
        return KBAD("row %llu: dictionary code %d outside [0, %llu)", (unsigned long long)(i - c->offset), code,
                    (unsigned long long)o->dict_len);
    }
    return HADOS_OK;
  }
  uint32_t w = c->flags & HADOS_COLF_LARGE ? 8 : 4;
  if ((st = dev_ptr(d, c->offsets, (end + 1) * w, &o->offsets, side, k, "string offsets"))) return st;
  if ((st = check_offsets(side, k, "string", o->offsets, w, first, end, &bytes))) return st;
  return dev_ptr(d, c->data, bytes, &o->data, side, k, "string bytes");
}

/* The normalised value of a key at row (relative to the column start). */
static inline __attribute__((always_inline)) void key_at(const jcol *c, uint64_t row, kval *o) {
  uint64_t i = c->off + row;
  o->lo = o->hi = 0;
  o->len = 0;
  o->p = NULL;
  o->null = c->valid && !bit_at(c->valid, i);
  if (o->null) return;
  switch (c->vt) {
    case HADOS_VT_I32: o->lo = (uint32_t)ld_i32(c->data + 4 * i); break;
    case HADOS_VT_I64: o->lo = (uint64_t)ld_i64(c->data + 8 * i); break;
    case HADOS_VT_F64: {
      double x;
      memcpy(&x, c->data + 8 * i, 8);
      o->lo = f64_key_bits(x);
      break;
    }
    case HADOS_VT_I128:
      memcpy(&o->lo, c->data + 16 * i, 8);
      memcpy(&o->hi, c->data + 16 * i + 8, 8);
      break;
    case HADOS_VT_BOOL: o->lo = (uint64_t)bit_at(c->data, i); break;
    case HADOS_VT_STR:
      if (c->flags & HADOS_COLF_DICT) {
        int32_t code = ld_i32(c->data + 4 * i);
        int32_t s0 = ld_i32(c->dict_offsets + 4 * (uint64_t)code), s1 = ld_i32(c->dict_offsets + 4 * (uint64_t)code + 4);
        o->p = c->dict_data + s0;
        o->len = (uint32_t)(s1 - s0);
      } else if (c->flags & HADOS_COLF_LARGE) {
        int64_t s0 = ld_i64(c->offsets + 8 * i), s1 = ld_i64(c->offsets + 8 * i + 8);
        o->p = c->data + s0;
        o->len = (uint32_t)(s1 - s0);
      } else {
        int32_t s0 = ld_i32(c->offsets + 4 * i), s1 = ld_i32(c->offsets + 4 * i + 4);
        o->p = c->data + s0;
        o->len = (uint32_t)(s1 - s0);
      }
      break;
  }
}

/* ---------------------------------------------------------------- keys */

/* A row's key tuple: its hash (hashed tables) or word (direct tables).
   Returns 0 when the row has a null in a key that is not null-safe (it
   never matches), 2 for a null-safe null of a direct table, else 1. */
static inline __attribute__((always_inline)) int row_key(const join_state *s, const jcol *cols, uint64_t row, uint64_t *w) {
  if (s->direct) {
    kval x;
    key_at(&cols[0], row, &x);
    if (x.null) return s->key_flags[0] & HADOS_JKEY_NULL_SAFE ? 2 : 0;
    *w = x.lo;
    return 1;
  }
  uint64_t h = 0;
  for (uint32_t k = 0; k < s->n_keys; k++) {
    kval x;
    key_at(&cols[k], row, &x);
    if (x.null && !(s->key_flags[k] & HADOS_JKEY_NULL_SAFE)) return 0;
    h = hash_combine(h, hash_kval(&x, cols[k].vt));
  }
  *w = h;
  return 1;
}

static inline uint64_t slot_hash(const join_state *s, uint64_t w) { return s->direct ? fmix(w ^ 0x5bd1e9955bd1e995ULL) : w; }

/* The region of slot hash h (its top bits: 0 when one region) and its
   first slot: the region's slots start at region << shift, and h's low
   bits pick the slot in it (h & mask when one region). */
static inline uint64_t region_of(const join_state *s, uint64_t h) { return (h >> 1) >> s->rshift; }
static inline uint64_t slot_of(const join_state *s, uint64_t h) { return (region_of(s, h) << s->shift) | (h & s->rmask); }

/* The filter (see "The filter" at the top of the file): a key's word is
   its slot hash's top bits, its three bits in the word come from bits
   17..34 (below any word index's bits). */
#define FILTER_MIN_BITS 3u /* at least 8 words */
#define FILTER_MAX_BITS 40u

static inline uint32_t filter_bits(uint64_t rows) { /* log2 of the words: a power of two >= rows / 8 */
  uint32_t b = FILTER_MIN_BITS;
  while (b < FILTER_MAX_BITS && (1ull << b) * 8 < rows) b++;
  return b;
}

static inline uint64_t filter_mask(uint64_t h) {
  return (1ull << ((h >> 17) & 63)) | (1ull << ((h >> 23) & 63)) | (1ull << ((h >> 29) & 63));
}

/* Whether the key of slot hash h may be in the table: 0 means it is not. */
static inline int filter_has(const uint64_t *f, uint32_t shift, uint64_t h) {
  const uint64_t m = filter_mask(h);
  return (f[h >> shift] & m) == m;
}

/* Whether the row's keys equal those of build row b (hashed tables). */
static int keys_equal(const join_state *s, const jcol *cols, uint64_t row, uint64_t b) {
  for (uint32_t k = 0; k < s->n_keys; k++) {
    kval x, y;
    key_at(&cols[k], row, &x);
    key_at(&s->keys[k], b, &y);
    if (!kval_eq(&x, &y, cols[k].vt)) return 0;
  }
  return 1;
}

static inline uint32_t first_row(const join_state *s, const jslot *e) {
  return e->count == 1 ? e->ref : ((const uint32_t *)s->dup.p)[e->ref];
}

/* The slot of a key tuple (w from row_key, h = slot_hash(s, w), row for
   the hashed check), or NULL. During the build, ref is still every slot's first row. */
static inline __attribute__((always_inline)) jslot *find(const join_state *s, const jcol *cols, uint64_t row, uint64_t w,
                                                          uint64_t h, int building) {
  jslot *t = (jslot *)s->slots.p;
  uint64_t i = slot_of(s, h);
  for (;; i = (i & ~s->rmask) | ((i + 1) & s->rmask)) { /* wraps inside the region */
    jslot *e = &t[i];
    if (!e->count) return building ? e : NULL;
    if (e->w != w) continue;
    if (s->direct || keys_equal(s, cols, row, building ? e->ref : first_row(s, e))) return e;
  }
}

/* ---------------------------------------------------------------- descriptor */

typedef struct join_desc {
  hados_join h;
  const hados_column *cols;
} join_desc;

static int read_desc(soft_device *d, uint64_t addr, uint64_t len, const char *side, join_desc *o) {
  uint8_t *p;
  int st;
  if (len < sizeof(hados_join)) return soft_fail(HADOS_E_INVALID, "join: %s descriptor of %llu bytes is shorter than its header (%zu)", side, (unsigned long long)len, sizeof(hados_join));
  if ((st = soft_range(d, addr, sizeof(hados_join), &p))) return st;
  memcpy(&o->h, p, sizeof o->h);
  const hados_join *h = &o->h;
  if (h->magic != HADOS_JOIN_MAGIC) return soft_fail(HADOS_E_INVALID, "join: %s descriptor: bad magic 0x%08x", side, h->magic);
  if (h->version != HADOS_RELATIONAL_VERSION) return soft_fail(HADOS_E_INVALID, "join: %s descriptor: version %u, want %u", side, h->version, HADOS_RELATIONAL_VERSION);
  if (h->n_keys < 1 || h->n_keys > HADOS_MAX_JOIN_KEYS) return soft_fail(HADOS_E_INVALID, "join: %s descriptor: %u keys (1..%u)", side, h->n_keys, HADOS_MAX_JOIN_KEYS);
  uint64_t want = sizeof(hados_join) + (uint64_t)h->n_keys * sizeof(hados_column);
  if (h->size != want || len < want)
    return soft_fail(HADOS_E_INVALID, "join: %s descriptor: size %u and op length %llu, want %llu for %u keys", side, h->size, (unsigned long long)len, (unsigned long long)want, h->n_keys);
  for (uint32_t k = 0; k < h->n_keys; k++)
    if (h->key_flags[k] & ~HADOS_JKEY_NULL_SAFE) return soft_fail(HADOS_E_INVALID, "join: %s key %u: unknown flags 0x%x", side, k, h->key_flags[k]);
  if ((st = soft_range(d, addr, want, &p))) return st;
  o->cols = (const hados_column *)(p + sizeof(hados_join));
  return HADOS_OK;
}

/* ---------------------------------------------------------------- build */

static uint64_t table_cap(uint64_t rows) {
  uint64_t cap = 16;
  while (cap < rows + rows / 3 + 1) cap <<= 1;
  return cap;
}

/* The signed value of a key word of a dense-capable table (I32 words are
   the int32's bits zero-extended). */
static inline int64_t dense_value(const join_state *s, uint64_t w) {
  return s->keys[0].vt == HADOS_VT_I32 ? (int64_t)(int32_t)(uint32_t)w : (int64_t)w;
}

/* Builds s as a dense table if its keys allow (see the top of the file):
   returns 1 when it did, 0 when s must be a slot table (nothing is left
   allocated then). */
static int try_dense(soft_device *d, join_state *s) {
  const uint32_t vt = s->keys[0].vt;
  if (!s->direct || (vt != HADOS_VT_I32 && vt != HADOS_VT_I64) || s->rows == 0) return 0;
  const int null_safe = (s->key_flags[0] & HADOS_JKEY_NULL_SAFE) != 0;
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  uint64_t n = 0;
  for (uint64_t r = 0; r < s->rows; r++) {
    kval x;
    key_at(&s->keys[0], r, &x);
    if (x.null) {
      if (null_safe) return 0; /* a null group: the slot table keeps it */
      continue;
    }
    const int64_t v = dense_value(s, x.lo);
    lo = v < lo ? v : lo;
    hi = v > hi ? v : hi;
    n++;
  }
  if (n == 0) return 0;
  const uint64_t diff = (uint64_t)hi - (uint64_t)lo; /* the range is diff + 1 */
  if (diff >= (uint64_t)DENSE_SPREAD * n || diff + 1 < n) return 0; /* too sparse, or duplicates for sure */
  jblock arr = {0};
  if (soft_block_alloc(d, &arr, (diff + 1) * 4) != HADOS_OK) return 0;
  uint32_t *a = (uint32_t *)arr.p;
  memset(a, 0xff, (diff + 1) * 4); /* NO_SLOT */
  for (uint64_t r = 0; r < s->rows; r++) {
    kval x;
    key_at(&s->keys[0], r, &x);
    if (x.null) continue;
    const uint64_t i = (uint64_t)dense_value(s, x.lo) - (uint64_t)lo;
    if (a[i] != NO_SLOT) { /* a duplicated key */
      soft_block_free(d, &arr);
      return 0;
    }
    a[i] = (uint32_t)r;
  }
  s->slots = arr;
  s->dense = 1;
  s->dmin = (uint64_t)lo;
  s->drange = diff + 1;
  s->distinct = n;
  return 1;
}

/* Keys of build rows [row, min(row + PROBE_BLOCK, rows)) into ws / kinds
   (row_key), their slots and filter words prefetched for writing: a block
   ahead of the inserts, as a probe does. */
static inline void build_block(const join_state *s, jslot *t, uint64_t row, uint64_t rows, uint64_t *ws, int *kinds) {
  if (row >= rows) return;
  const uint64_t m = rows - row < PROBE_BLOCK ? rows - row : PROBE_BLOCK;
  for (uint32_t i = 0; i < m; i++) {
    ws[i] = 0;
    kinds[i] = row_key(s, s->keys, row + i, &ws[i]);
    if (kinds[i] == 1) {
      const uint64_t h = slot_hash(s, ws[i]);
      __builtin_prefetch(&t[slot_of(s, h)], 1);
      __builtin_prefetch(&((uint64_t *)s->filt.p)[h >> s->fshift], 1);
    }
  }
}

static int join_build(soft_device *d, const hados_op *op, uint64_t len, uint64_t *result) {
  join_desc D;
  int st;
  if ((st = read_desc(d, op->src, len, "build", &D))) return st;
  uint64_t rows = D.h.rows;
  if (rows > MAX_BUILD_ROWS) return soft_fail(HADOS_E_INVALID, "join build: %llu rows exceed %llu", (unsigned long long)rows, MAX_BUILD_ROWS);
  uint8_t *cell;
  if ((st = soft_range(d, op->dst, 8, &cell))) return st;
  join_state tmp;
  memset(&tmp, 0, sizeof tmp);
  tmp.d = d;
  tmp.n_keys = D.h.n_keys;
  tmp.rows = rows;
  for (uint32_t k = 0; k < D.h.n_keys; k++) {
    hados_column c;
    memcpy(&c, D.cols + k, sizeof c);
    tmp.key_flags[k] = D.h.key_flags[k];
    if ((st = bind_key(d, "build", k, &c, rows, 0, rows, &tmp.keys[k]))) return st;
  }
  uint32_t vt0 = tmp.keys[0].vt;
  tmp.direct = tmp.n_keys == 1 && (vt0 == HADOS_VT_I32 || vt0 == HADOS_VT_I64 || vt0 == HADOS_VT_F64 || vt0 == HADOS_VT_BOOL);
  uint64_t parts = op->arg[1] ? op->arg[1] : 1;
  if (parts > MAX_PARTS || (parts & (parts - 1)))
    return soft_fail(HADOS_E_INVALID, "join build: %llu parts (a power of two up to %u)", (unsigned long long)parts, MAX_PARTS);
  if (rows < PAR_MIN_ROWS) parts = 1;
  uint64_t cap = table_cap(rows);
  tmp.mask = tmp.rmask = cap - 1;
  tmp.parts = 1;
  tmp.shift = (uint32_t)__builtin_ctzll(cap);
  tmp.rshift = 63;
  tmp.ready = 1;
  /* the peak: state + slots + slot of each row; the row array of
     duplicated keys (at most rows entries) comes after the temporary */
  const uint32_t fbits = filter_bits(rows);
  tmp.fshift = 64 - fbits;
  uint64_t b_self = soft_round_align(sizeof(join_state)), b_slots = soft_round_align(cap * sizeof(jslot)), b_tmp = soft_round_align(rows * 4 + 4);
  uint64_t b_filt = soft_round_align(8ull << fbits);
  uint64_t need = b_self + b_slots + b_filt + b_tmp;
  if (op->arg[0] && need > op->arg[0]) {
    *result = need;
    return soft_fail(HADOS_E_NOMEM, "join build: %llu rows need %llu bytes (state %llu, slots %llu, scratch %llu) over the budget of %llu",
                     (unsigned long long)rows, (unsigned long long)need, (unsigned long long)b_self, (unsigned long long)(b_slots + b_filt),
                     (unsigned long long)b_tmp, (unsigned long long)op->arg[0]);
  }
  jblock self = {0}, scratch = {0};
  if ((st = blk_alloc(d, &self, sizeof(join_state), "state"))) return st;
  join_state *s = (join_state *)self.p;
  *s = tmp;
  s->self = self;
  if (try_dense(d, s)) { /* within the budget: 4 bytes a value, at most 16 a row */
    s->magic = JOIN_STATE_MAGIC;
    uint64_t addr = d->base + (uint64_t)(self.p - d->mem);
    memcpy(cell, &addr, 8);
    *result = addr;
    return HADOS_OK;
  }
  if ((st = blk_alloc(d, &s->filt, 8ull << fbits, "key filter"))) {
    state_release(s);
    *result = need;
    return st;
  }
  memset(s->filt.p, 0, 8ull << fbits);
  if (parts > 1) { /* the parts fill the slots: see the top of the file */
    if ((st = blk_alloc(d, &s->slots, cap * sizeof(jslot), "hash slots"))) {
      state_release(s);
      *result = need;
      return st;
    }
    s->parts = (uint32_t)parts;
    s->shift = (uint32_t)__builtin_ctzll(cap / parts);
    s->rmask = cap / parts - 1;
    s->rshift = 63 - (uint32_t)__builtin_ctzll(parts);
    s->ready = 0;
    s->magic = JOIN_STATE_MAGIC;
    uint64_t addr = d->base + (uint64_t)(self.p - d->mem);
    memcpy(cell, &addr, 8);
    *result = addr;
    return HADOS_OK;
  }
  if ((st = blk_alloc(d, &s->slots, cap * sizeof(jslot), "hash slots")) || (st = blk_alloc(d, &scratch, rows * 4 + 4, "slot of each row"))) {
    state_release(s);
    *result = need;
    return st;
  }
  memset(s->slots.p, 0, s->slots.bytes);
  uint32_t *slotof = (uint32_t *)scratch.p;
  jslot *t = (jslot *)s->slots.p;
  uint64_t *filt = (uint64_t *)s->filt.p;
  uint64_t dups = 0;
  uint64_t wsb[2][PROBE_BLOCK];
  int kindsb[2][PROBE_BLOCK];
  uint32_t cur = 1;
  build_block(s, t, 0, rows, wsb[0], kindsb[0]);
  for (uint64_t r = 0; r < rows; r++) {
    const uint32_t bi = (uint32_t)(r % PROBE_BLOCK);
    if (bi == 0) { /* this block's keys are ready: the next block's keys, and their slots prefetched */
      cur ^= 1;
      build_block(s, t, r + PROBE_BLOCK, rows, wsb[cur ^ 1], kindsb[cur ^ 1]);
    }
    const uint64_t w = wsb[cur][bi];
    const int kind = kindsb[cur][bi];
    if (kind == 0) {
      slotof[r] = NO_SLOT;
      continue;
    }
    const uint64_t h = slot_hash(s, w);
    jslot *e = kind == 2 ? &s->null_group : find(s, s->keys, r, w, h, 1);
    if (!e->count) {
      e->w = w;
      e->ref = (uint32_t)r;
      if (kind == 1) {
        s->distinct++;
        filt[h >> s->fshift] |= filter_mask(h);
      }
    } else if (e->count == 1) {
      dups += 2;
    } else {
      dups++;
    }
    e->count++;
    slotof[r] = kind == 2 ? NULL_GROUP : (uint32_t)(e - t);
  }
  if (dups) {
    uint64_t total = need + soft_round_align(dups * 4);
    if (op->arg[0] && total > op->arg[0]) {
      soft_block_free(d, &scratch);
      state_release(s);
      *result = total;
      return soft_fail(HADOS_E_NOMEM, "join build: %llu rows with %llu of duplicated keys need %llu bytes over the budget of %llu",
                       (unsigned long long)rows, (unsigned long long)dups, (unsigned long long)total, (unsigned long long)op->arg[0]);
    }
    if ((st = blk_alloc(d, &s->dup, dups * 4, "rows of duplicated keys"))) {
      soft_block_free(d, &scratch);
      state_release(s);
      *result = need + soft_round_align(dups * 4);
      return st;
    }
    /* runs: ref = the end of the key's run, filled backwards */
    uint64_t at = 0;
    for (uint64_t i = 0; i <= cap; i++) {
      jslot *e = i < cap ? &t[i] : &s->null_group;
      if (e->count > 1) {
        at += e->count;
        e->ref = (uint32_t)at;
      }
    }
    uint32_t *dup = (uint32_t *)s->dup.p;
    for (uint64_t r = rows; r-- > 0;) {
      if (r >= DUP_FILL_AHEAD) { /* the slot of a row a few steps on (a cache miss each when keys are spread) */
        const uint32_t ahead = slotof[r - DUP_FILL_AHEAD];
        if (ahead < NULL_GROUP) __builtin_prefetch(&t[ahead], 1);
      }
      uint32_t si = slotof[r];
      if (si == NO_SLOT) continue;
      jslot *e = si == NULL_GROUP ? &s->null_group : &t[si];
      if (e->count > 1) dup[--e->ref] = (uint32_t)r;
    }
  }
  soft_block_free(d, &scratch);
  s->magic = JOIN_STATE_MAGIC;
  uint64_t addr = d->base + (uint64_t)(self.p - d->mem);
  memcpy(cell, &addr, 8);
  *result = addr;
  return HADOS_OK;
}

static int state_at(soft_device *d, uint64_t addr, const char *what, join_state **out) {
  uint8_t *p;
  if (addr % 8 || soft_range(d, addr, sizeof(join_state), &p) != HADOS_OK)
    return soft_fail(HADOS_E_INVALID, "join %s: 0x%llx is not a join state", what, (unsigned long long)addr);
  join_state *s = (join_state *)p;
  uint64_t magic;
  memcpy(&magic, p, 8);
  if (magic != JOIN_STATE_MAGIC || s->d != d || s->self.p != p)
    return soft_fail(HADOS_E_INVALID, "join %s: 0x%llx is not a live join state", what, (unsigned long long)addr);
  *out = s;
  return HADOS_OK;
}

/* Fills region p of a build over several cores: clears its slots,
   inserts the rows whose keys fall in it (every row's key is read) and
   sets their filter bits (the region's own words: see "A build over
   several cores"). Stops every region at a duplicated key or a region
   past 7/8 full. */
static void build_region(join_state *s, uint64_t p) {
  jslot *t = (jslot *)s->slots.p;
  uint64_t *filt = (uint64_t *)s->filt.p;
  const uint64_t region = s->rmask + 1, limit = region - region / 8;
  memset(t + p * region, 0, region * sizeof(jslot));
  uint64_t distinct = 0;
  /* the region's rows of a block of rows, a block ahead of their inserts
     (as join_build's build_block): row, word, slot hash, kind */
  uint32_t rb[2][PROBE_BLOCK], nb[2] = {0, 0};
  uint64_t wb[2][PROBE_BLOCK], hb[2][PROBE_BLOCK];
  int kb[2][PROBE_BLOCK];
  uint32_t cur = 0;
  for (uint64_t r = 0; r < s->rows + PROBE_BLOCK; r += PROBE_BLOCK) {
    if (__atomic_load_n(&s->stop, __ATOMIC_RELAXED)) break;
    const uint32_t nx = cur ^ 1;
    nb[nx] = 0;
    if (r < s->rows) {
      const uint32_t m = (uint32_t)(s->rows - r < PROBE_BLOCK ? s->rows - r : PROBE_BLOCK);
      for (uint32_t i = 0; i < m; i++) {
        uint64_t w = 0;
        const int kind = row_key(s, s->keys, r + i, &w);
        if (kind == 0 || (kind == 2 && p != 0)) continue; /* the null group is region 0's */
        const uint64_t h = kind == 1 ? slot_hash(s, w) : 0;
        if (kind == 1) {
          if (region_of(s, h) != p) continue;
          __builtin_prefetch(&t[slot_of(s, h)], 1);
          __builtin_prefetch(&filt[h >> s->fshift], 1);
        }
        const uint32_t n = nb[nx]++;
        rb[nx][n] = (uint32_t)(r + i);
        wb[nx][n] = w;
        hb[nx][n] = h;
        kb[nx][n] = kind;
      }
    }
    for (uint32_t i = 0; i < nb[cur]; i++) { /* the previous block's rows */
      const uint64_t h = hb[cur][i];
      const int kind = kb[cur][i];
      jslot *e = kind == 2 ? &s->null_group : find(s, s->keys, rb[cur][i], wb[cur][i], h, 1);
      if (e->count || distinct >= limit) { /* a duplicated key, or the region too full */
        __atomic_store_n(&s->stop, 1, __ATOMIC_SEQ_CST);
        break;
      }
      e->w = wb[cur][i];
      e->ref = rb[cur][i];
      e->count = 1;
      if (kind == 1) {
        distinct++;
        filt[h >> s->fshift] |= filter_mask(h);
      }
    }
    cur = nx;
  }
  __atomic_fetch_add(&s->distinct, distinct, __ATOMIC_SEQ_CST);
}

/* One op of a build over several cores (see the top of the file): arg[2]
   = the state a JOIN_BUILD prepared, arg[3] = the part. It fills region
   arg[3] unless another op took it, then every region no op has taken
   yet; the op that finishes the last region makes the state ready (or
   reports 0: build on one core). */
static int join_build_part(soft_device *d, const hados_op *op, uint64_t *result) {
  join_state *s = NULL;
  int st;
  if ((st = state_at(d, op->arg[2], "build", &s))) return st;
  const uint64_t addr = op->arg[2];
  if (s->parts == 1) { /* built whole when prepared */
    *result = addr;
    return HADOS_OK;
  }
  const uint64_t p = op->arg[3];
  if (p >= s->parts) return soft_fail(HADOS_E_INVALID, "join build: part %llu of %u", (unsigned long long)p, s->parts);
  if (__atomic_fetch_or(&s->claimed, 1u << p, __ATOMIC_SEQ_CST) & (1u << p))
    return soft_fail(HADOS_E_INVALID, "join build: part %llu built twice", (unsigned long long)p);
  uint32_t done = 0;
  for (uint64_t k = 0; k < s->parts; k++) {
    const uint64_t q = (p + k) % s->parts; /* its own region first */
    if (__atomic_fetch_or(&s->taken, 1u << q, __ATOMIC_SEQ_CST) & (1u << q)) continue;
    build_region(s, q);
    done = __atomic_add_fetch(&s->finished, 1, __ATOMIC_SEQ_CST);
  }
  *result = addr;
  if (done < s->parts) return HADOS_OK; /* another op finishes the last region */
  if (__atomic_load_n(&s->stop, __ATOMIC_SEQ_CST)) { /* the host builds on one core instead */
    *result = 0;
    return HADOS_OK;
  }
  __atomic_store_n(&s->ready, 1, __ATOMIC_SEQ_CST);
  return HADOS_OK;
}

/* ---------------------------------------------------------------- probe */

/* A block of probe rows of a slot table on its way through the probe's
   pipeline: first its rows' keys (kind from row_key, word, slot hash),
   then its candidates, the rows that may have a match (a key the filter
   passes, or a null-safe null), in row order. */
typedef struct pblock {
  uint64_t r0;    /* the block's first row */
  uint32_t m, ns; /* rows, candidates */
  uint8_t ks[PROBE_BLOCK];                  /* by row: kind */
  uint64_t kw[PROBE_BLOCK], kh[PROBE_BLOCK]; /* by row: word, slot hash */
  uint8_t sel[PROBE_BLOCK], kinds[PROBE_BLOCK];
  uint64_t ws[PROBE_BLOCK], hs[PROBE_BLOCK]; /* by candidate */
} pblock;

/* Stage 1: the keys of probe rows [row, min(row + PROBE_BLOCK, end)) into
   b, their filter words prefetched (filt NULL: no filter); returns how
   many rows. */
static inline __attribute__((always_inline)) uint32_t probe_keys(const join_state *s, const jcol *cols, const uint64_t *filt,
                                                                 uint64_t row, uint64_t end, pblock *b) {
  b->r0 = row;
  b->m = b->ns = 0;
  if (row >= end) return 0;
  const uint32_t m = (uint32_t)(end - row < PROBE_BLOCK ? end - row : PROBE_BLOCK);
  const jcol *c = &cols[0];
  if (s->direct && !c->valid && (c->vt == HADOS_VT_I64 || c->vt == HADOS_VT_I32)) { /* row_key without its switch */
    const uint64_t at = c->off + row;
    for (uint32_t i = 0; i < m; i++) {
      const uint64_t w = c->vt == HADOS_VT_I64 ? (uint64_t)ld_i64(c->data + 8 * (at + i)) : (uint32_t)ld_i32(c->data + 4 * (at + i));
      b->ks[i] = 1;
      b->kw[i] = w;
      b->kh[i] = slot_hash(s, w);
      if (filt) __builtin_prefetch(&filt[b->kh[i] >> s->fshift]);
    }
    b->m = m;
    return m;
  }
  for (uint32_t i = 0; i < m; i++) {
    uint64_t w = 0;
    b->ks[i] = (uint8_t)row_key(s, cols, row + i, &w);
    b->kw[i] = w;
    b->kh[i] = slot_hash(s, w);
    if (filt) __builtin_prefetch(&filt[b->kh[i] >> s->fshift]);
  }
  b->m = m;
  return m;
}

/* Stage 2: b's candidates (filt NULL: every row with a key), their slots
   prefetched. Branch-free up to the prefetches: a row is kept by
   advancing the candidate count over it. */
static inline __attribute__((always_inline)) void probe_select(const join_state *s, const jslot *t, const uint64_t *filt, pblock *b) {
  uint32_t ns = 0;
  for (uint32_t i = 0; i < b->m; i++) {
    const uint32_t k = b->ks[i];
    uint32_t keep = k != 0;
    if (filt) keep = (k == 2) | ((k == 1) & filter_has(filt, s->fshift, b->kh[i])); /* kh is a valid word index for any key */
    b->sel[ns] = (uint8_t)i;
    b->kinds[ns] = (uint8_t)k;
    b->ws[ns] = b->kw[i];
    b->hs[ns] = b->kh[i];
    ns += keep;
  }
  for (uint32_t j = 0; j < ns; j++)
    if (b->kinds[j] == 1) __builtin_prefetch(&t[slot_of(s, b->hs[j])]);
  b->ns = ns;
}

/* Dense tables: the array index of probe rows [row, min(row + PROBE_BLOCK,
   end)) into ix (UINT64_MAX: a null or a key outside the range), their
   entries prefetched; returns how many rows. */
static inline uint32_t dense_block(const join_state *s, const jcol *c, const uint32_t *a, uint64_t row, uint64_t end,
                                   uint64_t *ix) {
  if (row >= end) return 0;
  const uint32_t m = (uint32_t)(end - row < PROBE_BLOCK ? end - row : PROBE_BLOCK);
  for (uint32_t i = 0; i < m; i++) {
    kval x;
    key_at(c, row + i, &x);
    const uint64_t j = (uint64_t)dense_value(s, x.lo) - s->dmin;
    ix[i] = !x.null && j < s->drange ? j : UINT64_MAX;
    if (ix[i] != UINT64_MAX) __builtin_prefetch(&a[j]);
  }
  return m;
}

/* The probe of a dense table (join_probe has checked everything): every
   key has at most one build row. Returns the pairs written; *rowp and
   *skipp are the cursor, as in join_probe. */
static uint64_t dense_probe(const join_state *s, const jcol *c, uint64_t *rowp, uint64_t end, uint64_t *skipp, uint64_t cap,
                            int unmatched, const jc_term *cterms, uint32_t nct, int32_t *out_p, int32_t *out_b) {
  const uint32_t *a = (const uint32_t *)s->slots.p;
  uint64_t n = 0, row = *rowp, skip = *skipp;
  uint64_t ixb[2][PROBE_BLOCK];
  uint32_t cur = 0, m = dense_block(s, c, a, row, end, ixb[0]);
  while (row < end && n < cap) {
    const uint32_t nm = dense_block(s, c, a, row + m, end, ixb[cur ^ 1]);
    const uint64_t *ix = ixb[cur];
    if (nct) /* the condition's build operands of this block's matches */
      for (uint32_t k = 0; k < m; k++)
        if (ix[k] != UINT64_MAX && a[ix[k]] != NO_SLOT) jc_prefetch_build(cterms, nct, a[ix[k]]);
    uint32_t i = 0;
    for (; i < m && n < cap; i++) {
      uint32_t b = ix[i] == UINT64_MAX ? NO_SLOT : a[ix[i]];
      if (nct && b != NO_SLOT && !jc_pair_pass(cterms, nct, row + i, b)) b = NO_SLOT;
      if (b == NO_SLOT) {
        if (unmatched) {
          out_p[n] = (int32_t)(row + i);
          out_b[n] = -1;
          n++;
        }
        continue;
      }
      if (!skip) {
        out_p[n] = (int32_t)(row + i);
        out_b[n] = (int32_t)b;
        n++;
      }
      skip = 0;
    }
    row += i;
    if (i < m) break; /* the output is full */
    cur ^= 1;
    m = nm;
  }
  *rowp = row;
  *skipp = skip;
  return n;
}

static int join_probe(soft_device *d, const hados_op *op, uint64_t len, uint64_t *result) {
  join_state *s = NULL;
  join_desc D;
  int st;
  if ((st = state_at(d, op->arg[0], "probe", &s))) return st;
  if (!__atomic_load_n(&s->ready, __ATOMIC_SEQ_CST))
    return soft_fail(HADOS_E_INVALID, "join probe: 0x%llx is a join state whose build has not finished", (unsigned long long)op->arg[0]);
  if ((st = read_desc(d, op->src, len, "probe", &D))) return st;
  if (D.h.n_keys != s->n_keys) return soft_fail(HADOS_E_INVALID, "join probe: %u keys, the build has %u", D.h.n_keys, s->n_keys);
  uint8_t *op_out;
  if ((st = soft_range(d, op->arg[1], sizeof(hados_join_out), &op_out))) return st;
  hados_join_out o;
  memcpy(&o, op_out, sizeof o);
  if (o.flags & ~(HADOS_PROBE_FIRST_MATCH | HADOS_PROBE_UNMATCHED | HADOS_PROBE_COND))
    return soft_fail(HADOS_E_INVALID, "join probe: unknown flags 0x%x", o.flags);
  jc_term cterms[HADOS_MAX_JOIN_COND_TERMS];
  uint32_t nct = 0;
  if (o.flags & HADOS_PROBE_COND) {
    hados_join_cond ch;
    if (!(o.flags & HADOS_PROBE_FIRST_MATCH))
      return soft_fail(HADOS_E_INVALID, "join probe: a condition (flag COND) needs FIRST_MATCH");
    if ((st = soft_joincond_decode(d, "join probe: condition", op->arg[2], op->arg[3], &ch, cterms))) return st;
    if (ch.probe_rows != D.h.rows || ch.build_rows != s->rows)
      return soft_fail(HADOS_E_INVALID, "join probe: condition over %llu probe and %llu build rows, the probe has %llu and the build %llu",
                       (unsigned long long)ch.probe_rows, (unsigned long long)ch.build_rows, (unsigned long long)D.h.rows,
                       (unsigned long long)s->rows);
    nct = ch.n_terms;
  }
  if (o.end_row > D.h.rows || o.next_row > o.end_row)
    return soft_fail(HADOS_E_INVALID, "join probe: cursor at row %llu of [.., %llu) with %llu probe rows", (unsigned long long)o.next_row,
                     (unsigned long long)o.end_row, (unsigned long long)D.h.rows);
  if (o.end_row > MAX_BUILD_ROWS) return soft_fail(HADOS_E_INVALID, "join probe: %llu rows exceed %llu", (unsigned long long)o.end_row, MAX_BUILD_ROWS);
  if (o.capacity == 0 && o.next_row < o.end_row) return soft_fail(HADOS_E_INVALID, "join probe: output capacity 0");
  if (o.capacity > (1ull << 40)) return soft_fail(HADOS_E_INVALID, "join probe: output capacity %llu", (unsigned long long)o.capacity);
  uint8_t *pp, *bp;
  if ((st = soft_range(d, o.probe_rows, o.capacity * 4, &pp)) || (st = soft_range(d, o.build_rows, o.capacity * 4, &bp))) return st;
  jcol cols[HADOS_MAX_JOIN_KEYS];
  for (uint32_t k = 0; k < D.h.n_keys; k++) {
    hados_column c;
    memcpy(&c, D.cols + k, sizeof c);
    if (D.h.key_flags[k] != s->key_flags[k])
      return soft_fail(HADOS_E_INVALID, "join probe: key %u has flags 0x%x, the build 0x%x", k, D.h.key_flags[k], s->key_flags[k]);
    if (c.vtype != s->keys[k].vt)
      return soft_fail(HADOS_E_INVALID, "join probe: key %u is %s, the build's is %s", k, vt_name(c.vtype), vt_name(s->keys[k].vt));
    if ((st = bind_key(d, "probe", k, &c, D.h.rows, o.next_row, o.end_row, &cols[k]))) return st;
  }
  int32_t *out_p = (int32_t *)pp, *out_b = (int32_t *)bp;
  const uint32_t *dup = (const uint32_t *)s->dup.p;
  const jslot *t = (const jslot *)s->slots.p;
  const int first_only = o.flags & HADOS_PROBE_FIRST_MATCH, unmatched = (o.flags & HADOS_PROBE_UNMATCHED) != 0;
  uint64_t n = 0, cap = o.capacity, row = o.next_row, skip = o.next_match;
  /* a pipeline of three blocks: while block N is looked up and matched,
     block N+1's candidates are chosen (its filter words prefetched a
     block ago) and their slots prefetched, and block N+2's keys are
     read and their filter words prefetched */
  pblock bb[3];
  const uint64_t *filt = (const uint64_t *)s->filt.p;
  uint64_t seen = 0, passed = 0; /* rows and candidates of the filter's blocks */
  uint32_t cur = 0, m = 0;
  if (s->dense) {
    n = dense_probe(s, &cols[0], &row, o.end_row, &skip, cap, unmatched, cterms, nct, out_p, out_b);
  } else {
    m = probe_keys(s, cols, filt, row, o.end_row, &bb[0]);
    probe_select(s, t, filt, &bb[0]);
    probe_keys(s, cols, filt, row + m, o.end_row, &bb[1]);
  }
  while (!s->dense && row < o.end_row && n < cap) {
    const pblock *b = &bb[cur];
    pblock *b1 = &bb[cur == 2 ? 0 : cur + 1], *b2 = &bb[cur == 0 ? 2 : cur - 1];
    if (filt) { /* a filter that passes almost every row only costs: off for the rest of this op */
      seen += b->m;
      passed += b->ns;
      if (seen >= 1024 && passed * 8 > seen * 7) filt = NULL;
    }
    probe_select(s, t, filt, b1);
    probe_keys(s, cols, filt, b1->r0 + b1->m, o.end_row, b2);
    const uint32_t ns = b->ns;
    /* this block's candidates' slots (prefetched a block ago), then what
       matching them reads next prefetched: a duplicated key's run of
       build rows, and the condition's build operands at a single build
       row; a second pass prefetches the operands at each run's first row */
    const jslot *es[PROBE_BLOCK];
    for (uint32_t k = 0; k < ns; k++) {
      const jslot *e = NULL;
      if (b->kinds[k] == 1)
        e = find(s, cols, row + b->sel[k], b->ws[k], b->hs[k], 0);
      else if (s->null_group.count) /* kind 2 */
        e = &s->null_group;
      es[k] = e;
      if (e && e->count > 1)
        __builtin_prefetch(&dup[e->ref]);
      else if (e && nct)
        jc_prefetch_build(cterms, nct, e->ref);
    }
    if (nct)
      for (uint32_t k = 0; k < ns; k++)
        if (es[k] && es[k]->count > 1) jc_prefetch_build(cterms, nct, dup[es[k]->ref]);
    /* matching: every row under UNMATCHED (a row that is no candidate
       has no match), else the candidates only; stop is the row of the
       block where the output filled up (m: the block is done) */
    const uint32_t lim = unmatched ? m : ns;
    uint32_t stop = m, jn = 0;
    for (uint32_t x = 0; x < lim; x++) {
      const uint32_t i = unmatched ? x : b->sel[x];
      if (n >= cap) {
        stop = i;
        break;
      }
      const jslot *e;
      if (!unmatched)
        e = es[x];
      else if (jn < ns && b->sel[jn] == i)
        e = es[jn++];
      else
        e = NULL;
      const uint64_t r = row + i;
      uint32_t cnt = e ? e->count : 0;
      if (nct && cnt) { /* the first candidate the condition passes, as the only match */
        const uint32_t *rs = cnt == 1 ? &e->ref : dup + e->ref;
        uint32_t j = 0;
        while (j < cnt && !jc_pair_pass(cterms, nct, r, rs[j])) j++;
        if (j == cnt) {
          cnt = 0;
        } else {
          if (!skip) { /* n < cap: checked above */
            out_p[n] = (int32_t)r;
            out_b[n] = (int32_t)rs[j];
            n++;
          }
          skip = 0;
          continue;
        }
      }
      if (first_only && cnt > 1) cnt = 1;
      if (cnt == 0) {
        if (unmatched) {
          out_p[n] = (int32_t)r;
          out_b[n] = -1;
          n++;
        }
        continue;
      }
      if (e->count == 1) {
        if (!skip) {
          out_p[n] = (int32_t)r;
          out_b[n] = (int32_t)e->ref;
          n++;
        }
        skip = 0;
        continue;
      }
      uint64_t j = skip;
      for (; j < cnt && n < cap; j++, n++) {
        out_p[n] = (int32_t)r;
        out_b[n] = (int32_t)dup[e->ref + j];
      }
      if (j < cnt) { /* output full inside this row's matches */
        skip = j;
        stop = i;
        break;
      }
      skip = 0;
    }
    row += stop;
    if (stop < m) break; /* the output is full */
    cur = cur == 2 ? 0 : cur + 1;
    m = b1->m;
  }
  o.next_row = row;
  o.next_match = row < o.end_row ? skip : 0;
  memcpy(op_out + offsetof(hados_join_out, next_row), &o.next_row, 8);
  memcpy(op_out + offsetof(hados_join_out, next_match), &o.next_match, 8);
  *result = n;
  return HADOS_OK;
}

/* ---------------------------------------------------------------- dispatch */

int soft_join_op(soft_device *d, const hados_op *op, uint64_t len, uint64_t *result) {
  *result = 0;
  switch (op->opcode) {
    case HADOS_OP_JOIN_BUILD:
      return op->arg[2] ? join_build_part(d, op, result) : join_build(d, op, len, result);
    case HADOS_OP_JOIN_PROBE:
      return join_probe(d, op, len, result);
    case HADOS_OP_JOIN_FREE: {
      join_state *s = NULL;
      int st = state_at(d, op->src, "free", &s);
      if (st) return st;
      state_release(s);
      return HADOS_OK;
    }
  }
  return soft_fail(HADOS_E_INVALID, "soft: opcode %u is not a join op", op->opcode);
}
