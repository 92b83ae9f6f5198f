/*
 * soft_sort.c — HADOS_OP_SORT and HADOS_OP_MERGE (hados_relational.h).
 *
 * SORT orders rows [first, end) by the keys. Narrow keys go through the
 * normalised-key LSD radix sort (soft_sort_radix.c); runs of rows whose
 * normalised keys tie because a string key's prefix is not the whole
 * story are then ordered by the comparator (stable merge sort). Keys wider
 * than SORT_MAX_RADIX_KEY bytes sort by the comparator alone. With a limit
 * k much smaller than the range, a bounded max-heap of the k best rows
 * replaces the full sort (TopN). MERGE merges two sorted runs of row
 * numbers with the comparator, A's rows first on ties.
 *
 * A bounded SORT (arg[3]) keeps only the rows between two rows of the
 * total order (keys, then row number): it normalises its rows a chunk at
 * a time, keeps the records inside the bounds (normalised keys compared
 * first, the comparator only on equal ones) and radix sorts those. The
 * host runs one per core over every row, each with its own range of the
 * order, and places the outputs one after the other: no MERGE.
 *
 * Ties on every key are broken by row number wherever the algorithm is not
 * stable by construction, so every path yields the same stable order.
 * Scratch memory is engine-internal (large radix scratch a block of the
 * device heap when it has room, else host memory), freed before the op
 * ends.
 */
#include <stdlib.h>
#include <string.h>

#include "soft_relational.h"
#include "soft_sort_internal.h"

#define WHO_SORT "sort"
#define WHO_MERGE "merge"

/* ---------------------------------------------------------------- comparator */
static inline int cmp_u(uint64_t a, uint64_t b) { return (a > b) - (a < b); }

static int cmp_value(const soft_col *c, uint64_t a, uint64_t b) {
  const uint64_t e = c->c.offset;
  switch (c->c.vtype) {
    case HADOS_VT_BOOL:
      return rel_bit(c->data, e + a) - rel_bit(c->data, e + b);
    case HADOS_VT_I32: {
      int32_t x, y;
      memcpy(&x, c->data + (e + a) * 4, 4);
      memcpy(&y, c->data + (e + b) * 4, 4);
      return (x > y) - (x < y);
    }
    case HADOS_VT_I64: {
      int64_t x, y;
      memcpy(&x, c->data + (e + a) * 8, 8);
      memcpy(&y, c->data + (e + b) * 8, 8);
      return (x > y) - (x < y);
    }
    case HADOS_VT_F64: {
      double x, y;
      memcpy(&x, c->data + (e + a) * 8, 8);
      memcpy(&y, c->data + (e + b) * 8, 8);
      int nx = x != x, ny = y != y;
      if (nx || ny) return nx - ny; /* NaN is greatest; NaN = NaN */
      return (x > y) - (x < y);     /* -0.0 == 0.0 */
    }
    case HADOS_VT_I128: {
      uint64_t xl, xh, yl, yh;
      memcpy(&xl, c->data + (e + a) * 16, 8);
      memcpy(&xh, c->data + (e + a) * 16 + 8, 8);
      memcpy(&yl, c->data + (e + b) * 16, 8);
      memcpy(&yh, c->data + (e + b) * 16 + 8, 8);
      if (xh != yh) return ((int64_t)xh > (int64_t)yh) - ((int64_t)xh < (int64_t)yh);
      return cmp_u(xl, yl);
    }
    default: {
      uint32_t la, lb;
      const uint8_t *sa = rel_str(c, a, &la), *sb = rel_str(c, b, &lb);
      if (la >= 8 && lb >= 8) { /* most strings differ in their first 8 bytes */
        uint64_t x, y;
        memcpy(&x, sa, 8);
        memcpy(&y, sb, 8);
        if (x != y) return cmp_u(__builtin_bswap64(x), __builtin_bswap64(y));
      }
      int r = memcmp(sa, sb, la < lb ? la : lb);
      if (r) return r < 0 ? -1 : 1;
      return (la > lb) - (la < lb);
    }
  }
}

int sort_cmp_rows(const sort_keys *k, int32_t a, int32_t b) {
  for (uint32_t j = 0; j < k->d.n; j++) {
    const soft_col *c = &k->d.cols[j];
    uint32_t f = k->d.flags[j];
    int r;
    if (!c->all_valid) {
      int va = rel_valid(c, (uint64_t)a), vb = rel_valid(c, (uint64_t)b);
      if (!va || !vb) {
        if (va == vb) continue;
        r = va ? 1 : -1; /* the null first */
        if (!(f & HADOS_SKEY_NULLS_FIRST)) r = -r;
        return r;
      }
    }
    r = cmp_value(c, (uint64_t)a, (uint64_t)b);
    if (r) return (f & HADOS_SKEY_DESC) ? -r : r;
  }
  return 0;
}

/* Comparator then row number: a total order. */
static inline int cmp_full(const sort_keys *k, int32_t a, int32_t b) {
  int r = sort_cmp_rows(k, a, b);
  return r ? r : (a > b) - (a < b);
}

/* ---------------------------------------------------------------- merge sort */
/* Stable merge sort of n row numbers by cmp_full; tmp holds n. */
static void msort(const sort_keys *k, int32_t *a, int32_t *tmp, uint64_t n) {
  if (n < 16) { /* insertion sort */
    for (uint64_t i = 1; i < n; i++) {
      int32_t x = a[i];
      uint64_t j = i;
      while (j > 0 && cmp_full(k, a[j - 1], x) > 0) {
        a[j] = a[j - 1];
        j--;
      }
      a[j] = x;
    }
    return;
  }
  uint64_t h = n / 2;
  msort(k, a, tmp, h);
  msort(k, a + h, tmp, n - h);
  if (cmp_full(k, a[h - 1], a[h]) <= 0) return;
  memcpy(tmp, a, h * 4);
  uint64_t i = 0, j = h, o = 0;
  while (i < h && j < n) a[o++] = cmp_full(k, a[j], tmp[i]) < 0 ? a[j++] : tmp[i++];
  while (i < h) a[o++] = tmp[i++];
}

/* ---------------------------------------------------------------- top k */
static void sift_down(const sort_keys *k, int32_t *h, uint64_t n, uint64_t i) {
  for (;;) {
    uint64_t l = 2 * i + 1, m = i;
    if (l < n && cmp_full(k, h[l], h[m]) > 0) m = l;
    if (l + 1 < n && cmp_full(k, h[l + 1], h[m]) > 0) m = l + 1;
    if (m == i) return;
    int32_t t = h[i];
    h[i] = h[m];
    h[m] = t;
    i = m;
  }
}

/* The lim best rows of [first, end) in order into out (lim <= end - first). */
static int top_k(const sort_keys *k, uint64_t first, uint64_t end, uint64_t lim, int32_t *out) {
  int32_t *h = malloc(lim * 4 * 2);
  if (!h) return soft_fail(HADOS_E_NOMEM, WHO_SORT ": top %llu rows: out of host memory", (unsigned long long)lim);
  for (uint64_t i = 0; i < lim; i++) h[i] = (int32_t)(first + i);
  for (uint64_t i = lim / 2; i-- > 0;) sift_down(k, h, lim, i);
  for (uint64_t r = first + lim; r < end; r++) {
    if (cmp_full(k, (int32_t)r, h[0]) < 0) {
      h[0] = (int32_t)r;
      sift_down(k, h, lim, 0);
    }
  }
  msort(k, h, h + lim, lim);
  memcpy(out, h, lim * 4);
  free(h);
  return HADOS_OK;
}

/* ---------------------------------------------------------------- full sort */
/* Scratch of at least this many bytes comes from the device heap when it
   has room: its pages stay mapped from one sort to the next (and are huge
   pages where the device has them), where a large malloc would map, fault
   and zero fresh pages every time. It is taken from the top of the heap,
   so sort after sort reuses the same pages (first fit would put it in
   whatever hole the blocks kept at the bottom leave, and fault fresh
   pages past them). Smaller scratch, or a full heap, uses malloc. */
#define SORT_HEAP_SCRATCH (4u << 20)

/* Allocates bytes of scratch into *p (from the heap into b, or malloc);
   0 when neither has room. Released by scratch_free. */
static int scratch_alloc(soft_device *d, soft_block *b, uint64_t bytes, uint8_t **p) {
  if (bytes >= SORT_HEAP_SCRATCH && soft_block_alloc_high(d, b, bytes) == HADOS_OK) {
    *p = b->p;
    return 1;
  }
  b->p = NULL;
  return (*p = malloc(bytes)) != NULL;
}

static void scratch_free(soft_device *d, soft_block *b, uint8_t *p) {
  if (b->p) soft_block_free(d, b);
  else free(p);
}

/* Whether two normalised keys of kw bytes are equal. */
static inline int keys_eq(const uint8_t *a, const uint8_t *b, uint32_t kw) {
  if (kw == 8) {
    uint64_t x, y;
    memcpy(&x, a, 8);
    memcpy(&y, b, 8);
    return x == y;
  }
  return memcmp(a, b, kw) == 0;
}

static int finish_radix(const sort_keys *k, const uint8_t *s, uint64_t n, uint64_t want, int32_t *out);

static int full_sort(soft_device *d, const sort_keys *k, uint64_t first, uint64_t n, uint64_t want, int32_t *out) {
  if (k->kw > SORT_MAX_RADIX_KEY) {
    int32_t *a = malloc(n * 8);
    if (!a) return soft_fail(HADOS_E_NOMEM, WHO_SORT ": %llu rows: out of host memory", (unsigned long long)n);
    for (uint64_t i = 0; i < n; i++) a[i] = (int32_t)(first + i);
    msort(k, a, a + n, n);
    memcpy(out, a, want * 4);
    free(a);
    return HADOS_OK;
  }
  const uint32_t rs = k->kw + 4;
  uint8_t *recs;
  soft_block blk = {0};
  if (!scratch_alloc(d, &blk, n * rs * 2 + 8, &recs))
    return soft_fail(HADOS_E_NOMEM, WHO_SORT ": %llu rows of %u-byte keys: out of host memory", (unsigned long long)n, k->kw);
  uint8_t *s = sort_radix(k, first, n, recs, recs + n * rs);
  int st = finish_radix(k, s, n, want, out);
  scratch_free(d, &blk, recs);
  return st;
}

/* Copies the first want rows of n sorted radix records s to out and, when
   a string key leaves ties, orders runs of equal normalised keys by the
   comparator. */
static int finish_radix(const sort_keys *k, const uint8_t *s, uint64_t n, uint64_t want, int32_t *out) {
  const uint32_t rs = k->kw + 4;
  for (uint64_t i = 0; i < want; i++) memcpy(&out[i], s + i * rs + k->kw, 4);
  int st = HADOS_OK;
  if (k->tiebreak) { /* order runs of equal normalised keys by the comparator */
    int32_t *tmp = NULL;
    for (uint64_t i = 0; i < want;) {
      uint64_t j = i + 1;
      while (j < n && keys_eq(s + i * rs, s + j * rs, k->kw)) j++;
      if (j - i > 1) {
        int32_t *run = out + i;
        int32_t *buf = NULL;
        if (j > want) { /* the run crosses the limit: sort all of it */
          if (!(buf = malloc((j - i) * 4))) {
            st = soft_fail(HADOS_E_NOMEM, WHO_SORT ": a run of %llu equal keys: out of host memory", (unsigned long long)(j - i));
            break;
          }
          for (uint64_t x = i; x < j; x++) memcpy(&buf[x - i], s + x * rs + k->kw, 4);
          run = buf;
        }
        int32_t *nt = realloc(tmp, (j - i) * 4);
        if (!nt) {
          free(buf);
          st = soft_fail(HADOS_E_NOMEM, WHO_SORT ": a run of %llu equal keys: out of host memory", (unsigned long long)(j - i));
          break;
        }
        tmp = nt;
        msort(k, run, tmp, j - i);
        if (buf) {
          memcpy(out + i, buf, (want - i) * 4);
          free(buf);
        }
      }
      i = j;
    }
    free(tmp);
  }
  return st;
}

/* memcmp of two normalised keys of kw bytes (sign only), inline for the
   common 8-byte key (a string key's prefix alone). */
static inline int keys_cmp(const uint8_t *a, const uint8_t *b, uint32_t kw) {
  if (kw == 8) {
    uint64_t x, y;
    memcpy(&x, a, 8);
    memcpy(&y, b, 8);
    return cmp_u(__builtin_bswap64(x), __builtin_bswap64(y));
  }
  return memcmp(a, b, kw);
}

/* Whether row r (its normalised record rec, when norm) lies in [lo, hi)
   of the total order by the keys, then the row number (-1: unbounded).
   The normalised keys decide unless they are equal. */
static inline int in_bounds(const sort_keys *k, int norm, const uint8_t *rec, int32_t r, const uint8_t *lorec, int32_t lo,
                            const uint8_t *hirec, int32_t hi) {
  if (lo >= 0) {
    int c = norm ? keys_cmp(rec, lorec, k->kw) : 0;
    if (c < 0) return 0;
    if (c == 0 && ((c = sort_cmp_rows(k, r, lo)) < 0 || (c == 0 && r < lo))) return 0;
  }
  if (hi >= 0) {
    int c = norm ? keys_cmp(rec, hirec, k->kw) : 0;
    if (c > 0) return 0;
    if (c == 0 && ((c = sort_cmp_rows(k, r, hi)) > 0 || (c == 0 && r >= hi))) return 0;
  }
  return 1;
}

/* Rows normalised and filtered per chunk by a bounded SORT. */
#define BOUND_CHUNK 4096u

/* SORT of the rows of [first, first + n) that lie in [lo, hi) (in_bounds):
   each core sorts one range of the order over every row, so the ranges
   need no MERGE. The rows are normalised a chunk at a time and the kept
   records compacted, in row order (the radix sort being stable, ties stay
   in row order). *kept receives the rows written to out. */
static int bounded_sort(soft_device *d, const sort_keys *k, uint64_t first, uint64_t n, int32_t lo, int32_t hi, int32_t *out,
                        uint64_t *kept) {
  uint64_t m = 0;
  if (k->kw > SORT_MAX_RADIX_KEY) {
    int32_t *a = malloc(n * 8 + 8);
    if (!a) return soft_fail(HADOS_E_NOMEM, WHO_SORT ": %llu rows: out of host memory", (unsigned long long)n);
    for (uint64_t i = 0; i < n; i++)
      if (in_bounds(k, 0, NULL, (int32_t)(first + i), NULL, lo, NULL, hi)) a[m++] = (int32_t)(first + i);
    msort(k, a, a + m, m);
    memcpy(out, a, m * 4);
    free(a);
    *kept = m;
    return HADOS_OK;
  }
  const uint32_t kw = k->kw, rs = kw + 4;
  uint8_t lorec[SORT_MAX_RADIX_KEY + 4], hirec[SORT_MAX_RADIX_KEY + 4];
  if (lo >= 0) sort_norm_rows(k, (uint64_t)lo, 1, lorec, rs);
  if (hi >= 0) sort_norm_rows(k, (uint64_t)hi, 1, hirec, rs);
  /* room for a fair share and some: a range holding more moves to host
     memory sized for every row */
  uint64_t cap = n / 2 + n / 8 + BOUND_CHUNK;
  if (cap > n) cap = n;
  soft_block blk = {0};
  uint8_t *recs, *big = NULL;
  if (!scratch_alloc(d, &blk, cap * rs * 2 + 8, &recs))
    return soft_fail(HADOS_E_NOMEM, WHO_SORT ": %llu rows of %u-byte keys: out of host memory", (unsigned long long)n, kw);
  for (uint64_t c = 0; c < n; c += BOUND_CHUNK) {
    const uint64_t cn = n - c < BOUND_CHUNK ? n - c : BOUND_CHUNK;
    if (m + cn > cap && !big) {
      if (!(big = malloc(n * rs * 2 + 8))) {
        scratch_free(d, &blk, recs);
        return soft_fail(HADOS_E_NOMEM, WHO_SORT ": %llu rows of %u-byte keys: out of host memory", (unsigned long long)n, kw);
      }
      memcpy(big, recs, m * rs);
      scratch_free(d, &blk, recs);
      recs = big;
      cap = n;
    }
    uint8_t *at = recs + m * rs;
    sort_norm_rows(k, first + c, cn, at, rs);
    for (uint64_t i = 0; i < cn; i++) {
      const int32_t r = (int32_t)(first + c + i);
      const uint8_t *rec = at + i * rs;
      if (!in_bounds(k, 1, rec, r, lorec, lo, hirec, hi)) continue;
      if (recs + m * rs != rec) {
        if (kw == 8) { /* load, then store: safe as the records overlap */
          uint64_t x;
          memcpy(&x, rec, 8);
          memcpy(recs + m * rs, &x, 8);
        } else {
          memmove(recs + m * rs, rec, kw);
        }
      }
      memcpy(recs + m * rs + kw, &r, 4);
      m++;
    }
  }
  uint8_t *tmp = recs + cap * rs;
  if (m) sort_radix_recs(recs, tmp, m, kw);
  int st = finish_radix(k, recs, m, m, out);
  if (big) free(big);
  else scratch_free(d, &blk, recs);
  if (!st) *kept = m;
  return st;
}

static int sort_op(soft_device *d, const hados_op *op, uint64_t len, uint64_t *result) {
  sort_keys k;
  int st;
  if ((st = rel_decode(d, WHO_SORT, op->src, len, 1, &k.d))) return st;
  sort_norm_layout(&k);
  uint64_t first = op->arg[0], end = op->arg[1], lim = op->arg[2], bounds = op->arg[3];
  if (first > end || end > k.d.rows) {
    st = soft_fail(HADOS_E_INVALID, WHO_SORT ": row range [%llu, %llu) outside the %llu rows", (unsigned long long)first,
                   (unsigned long long)end, (unsigned long long)k.d.rows);
    goto out;
  }
  uint64_t n = end - first, want = lim && lim < n ? lim : n;
  int32_t *out = NULL;
  if ((st = rel_i32s(d, WHO_SORT, "output", op->dst, want, &out))) goto out;
  if (bounds) { /* HADOS_SORT_BOUNDS: only the rows of one range of the order */
    const uint32_t l = (uint32_t)bounds, h = (uint32_t)(bounds >> 32) & 0x7fffffffu;
    const int32_t lo = l == 0xffffffffu ? -1 : (int32_t)l, hi = h == 0x7fffffffu ? -1 : (int32_t)h;
    if (!(bounds >> 63) || lim || (l != 0xffffffffu && l >= k.d.rows) || (hi >= 0 && (uint64_t)hi >= k.d.rows)) {
      st = soft_fail(HADOS_E_INVALID, WHO_SORT ": bounds 0x%llx (want bit 63, bound rows below %llu, no limit)", (unsigned long long)bounds,
                     (unsigned long long)k.d.rows);
      goto out;
    }
    uint64_t kept = 0;
    if (n && !(st = bounded_sort(d, &k, first, n, lo, hi, out, &kept))) *result = kept;
    goto out;
  }
  if (want == 0) goto out;
  if (want * 8 < n) st = top_k(&k, first, end, want, out);
  else st = full_sort(d, &k, first, n, want, out);
  if (!st) *result = want;
out:
  rel_free(&k.d);
  return st;
}

/* ---------------------------------------------------------------- merge */
/* How far ahead MERGE prefetches the keys of the rows it will compare. */
#define MERGE_PREFETCH 12

/* The normalised key (kw <= 8 bytes) of one row as an integer that orders
   as the key does. */
static inline uint64_t key64(const sort_keys *k, int32_t r) {
  uint8_t b[8 + 4] = {0};
  sort_norm_rows(k, (uint64_t)r, 1, b, 12);
  uint64_t x;
  memcpy(&x, b, 8);
  return __builtin_bswap64(x);
}

/* Prefetches the key values of row r (a string key: its offsets). */
static inline void prefetch_row(const sort_keys *k, int32_t r) {
  for (uint32_t j = 0; j < k->d.n; j++) {
    const soft_col *c = &k->d.cols[j];
    uint64_t e = c->c.offset + (uint64_t)r;
    switch (c->c.vtype) {
      case HADOS_VT_BOOL: break;
      case HADOS_VT_I32: __builtin_prefetch(c->data + e * 4); break;
      case HADOS_VT_I64: case HADOS_VT_F64: __builtin_prefetch(c->data + e * 8); break;
      case HADOS_VT_I128: __builtin_prefetch(c->data + e * 16); break;
      default:
        if (c->offsets) __builtin_prefetch(c->offsets + e * c->width);
        else __builtin_prefetch(c->data + e * 4);
    }
  }
}

/* Prefetches the bytes of row r's first string key (its offsets were
   prefetched earlier by prefetch_row): the second stage for string keys. */
static inline void prefetch_str(const sort_keys *k, int32_t r) {
  for (uint32_t j = 0; j < k->d.n; j++) {
    const soft_col *c = &k->d.cols[j];
    if (c->c.vtype != HADOS_VT_STR) continue;
    if (rel_valid(c, (uint64_t)r)) {
      uint32_t len;
      __builtin_prefetch(rel_str(c, (uint64_t)r, &len));
    }
    return;
  }
}

static int check_run(const char *what, const int32_t *run, uint64_t n, uint64_t rows) {
  for (uint64_t i = 0; i < n; i++)
    if (run[i] < 0 || (uint64_t)run[i] >= rows)
      return soft_fail(HADOS_E_INVALID, WHO_MERGE ": %s row number %d at %llu is outside [0, %llu)", what, run[i],
                       (unsigned long long)i, (unsigned long long)rows);
  return HADOS_OK;
}

static int merge_op(soft_device *d, const hados_op *op, uint64_t len, uint64_t *result) {
  sort_keys k;
  int32_t *a = NULL, *b = NULL, *out = NULL;
  uint64_t na = op->arg[1], nb = op->arg[3];
  int st;
  if ((st = rel_decode(d, WHO_MERGE, op->src, len, 1, &k.d))) return st;
  if ((st = rel_i32s(d, WHO_MERGE, "run A", op->arg[0], na, &a)) || (st = rel_i32s(d, WHO_MERGE, "run B", op->arg[2], nb, &b)) ||
      (st = rel_i32s(d, WHO_MERGE, "output", op->dst, na + nb, &out)) || (st = check_run("run A", a, na, k.d.rows)) ||
      (st = check_run("run B", b, nb, k.d.rows)))
    goto done;
  if ((a && out < a + na && a < out + na + nb) || (b && out < b + nb && b < out + na + nb)) {
    st = soft_fail(HADOS_E_INVALID, WHO_MERGE ": the output overlaps an input run");
    goto done;
  }
  sort_norm_layout(&k);
  uint64_t i = 0, j = 0, o = 0;
  if (k.kw <= 8 && !k.tiebreak && na && nb) { /* one narrow key: compare normalised integers */
    uint64_t ka = key64(&k, a[0]), kb = key64(&k, b[0]);
    for (;;) {
      if (i + MERGE_PREFETCH < na) prefetch_row(&k, a[i + MERGE_PREFETCH]);
      if (j + MERGE_PREFETCH < nb) prefetch_row(&k, b[j + MERGE_PREFETCH]);
      if (kb < ka) {
        out[o++] = b[j++];
        if (j == nb) break;
        kb = key64(&k, b[j]);
      } else {
        out[o++] = a[i++];
        if (i == na) break;
        ka = key64(&k, a[i]);
      }
    }
  } else if (k.kw <= 8 && na && nb) {
    /* a string key's 8-byte prefix (and the keys before it) decide most
       steps as integers; equal prefixes go to the comparator. Strings
       are prefetched in two stages: offsets, then bytes. */
    uint64_t ka = key64(&k, a[0]), kb = key64(&k, b[0]);
    for (;;) {
      if (i + 2 * MERGE_PREFETCH < na) prefetch_row(&k, a[i + 2 * MERGE_PREFETCH]);
      if (j + 2 * MERGE_PREFETCH < nb) prefetch_row(&k, b[j + 2 * MERGE_PREFETCH]);
      if (i + MERGE_PREFETCH < na) prefetch_str(&k, a[i + MERGE_PREFETCH]);
      if (j + MERGE_PREFETCH < nb) prefetch_str(&k, b[j + MERGE_PREFETCH]);
      if (kb < ka || (kb == ka && sort_cmp_rows(&k, b[j], a[i]) < 0)) {
        out[o++] = b[j++];
        if (j == nb) break;
        kb = key64(&k, b[j]);
      } else {
        out[o++] = a[i++];
        if (i == na) break;
        ka = key64(&k, a[i]);
      }
    }
  }
  while (i < na && j < nb) {
    if (i + MERGE_PREFETCH < na) prefetch_row(&k, a[i + MERGE_PREFETCH]);
    if (j + MERGE_PREFETCH < nb) prefetch_row(&k, b[j + MERGE_PREFETCH]);
    out[o++] = sort_cmp_rows(&k, b[j], a[i]) < 0 ? b[j++] : a[i++];
  }
  if (i < na) memcpy(out + o, a + i, (na - i) * 4), o += na - i;
  if (j < nb) memcpy(out + o, b + j, (nb - j) * 4), o += nb - j;
  *result = o;
done:
  rel_free(&k.d);
  return st;
}

int soft_sort_op(soft_device *d, const hados_op *op, uint64_t len, uint64_t *result) {
  *result = 0;
  return op->opcode == HADOS_OP_SORT ? sort_op(d, op, len, result) : merge_op(d, op, len, result);
}
