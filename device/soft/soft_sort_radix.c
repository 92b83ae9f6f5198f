/*
 * soft_sort_radix.c — normalised keys and the LSD radix sort of SORT.
 *
 * Every row becomes a record: its keys' normalised bytes, then its int32
 * row number. Normalised bytes compare as unsigned bytes (memcmp) in the
 * order the keys ask for: per nullable key a flag byte (nulls first: null
 * 0, value 1; nulls last: value 0, null 1), then the value big-endian with
 * the sign bit flipped (integers, decimals), doubles mapped to an ordered
 * integer (NaN canonical and greatest, -0.0 as 0.0), booleans as one byte,
 * strings as their first SORT_STR_PREFIX bytes padded with zeros; all
 * value bytes inverted for a descending key. A null's value bytes are
 * zero. The key stops after the first string key: rows whose normalised
 * keys are equal there are ordered by the comparator afterwards.
 *
 * The radix sort is a hybrid. Large ranges go most significant byte
 * first (MSD): one stable scatter by the first byte position that is not
 * the same in every record splits the records into up to 256 buckets,
 * each sorted on by the later bytes, recursively; once a bucket fits in a
 * core's cache (SORT_LEAF_BYTES) it is finished least significant byte
 * first (LSD): one pass counts every remaining byte position's histogram,
 * then a stable scatter per position from the last to the first, skipping
 * positions where every record has the same byte; tiny buckets use an
 * insertion sort. So a large sort streams through memory once or twice
 * instead of once per key byte. Every step is stable and the records start
 * in row order, so equal keys keep their input order.
 */
#include <stdlib.h>
#include <string.h>

#include "soft_sort_internal.h"

static uint32_t value_width(const soft_col *c) {
  switch (c->c.vtype) {
    case HADOS_VT_BOOL: return 1;
    case HADOS_VT_I32: return 4;
    case HADOS_VT_I64: case HADOS_VT_F64: return 8;
    case HADOS_VT_I128: return 16;
    default: return SORT_STR_PREFIX;
  }
}

void sort_norm_layout(sort_keys *k) {
  k->kw = 0;
  k->n_norm = 0;
  k->tiebreak = 0;
  for (uint32_t j = 0; j < k->d.n; j++) {
    const soft_col *c = &k->d.cols[j];
    k->kw += !c->all_valid + value_width(c);
    k->n_norm++;
    if (c->c.vtype == HADOS_VT_STR) {
      k->tiebreak = 1;
      break;
    }
  }
}

static inline void put_be64(uint8_t *p, uint64_t v) {
  v = __builtin_bswap64(v);
  memcpy(p, &v, 8);
}

/* Writes key j's normalised bytes at offset off of each record. */
static void norm_key(const soft_col *c, uint32_t flags, uint8_t *recs, uint32_t rs, uint32_t off, uint64_t first, uint64_t n) {
  const int nullable = !c->all_valid, nf = (flags & HADOS_SKEY_NULLS_FIRST) != 0;
  const uint64_t inv = (flags & HADOS_SKEY_DESC) ? ~0ull : 0;
  const uint32_t w = value_width(c);
  const uint64_t e0 = c->c.offset;
  for (uint64_t i = 0; i < n; i++) {
    uint64_t r = first + i;
    uint8_t *p = recs + i * rs + off;
    if (nullable) {
      int v = rel_valid(c, r);
      *p++ = (uint8_t)(v ? nf : !nf);
      if (!v) {
        memset(p, 0, w);
        continue;
      }
    }
    switch (c->c.vtype) {
      case HADOS_VT_BOOL:
        *p = (uint8_t)(rel_bit(c->data, e0 + r) ^ (uint8_t)inv);
        break;
      case HADOS_VT_I32: {
        uint32_t x;
        memcpy(&x, c->data + (e0 + r) * 4, 4);
        x = __builtin_bswap32((x ^ 0x80000000u) ^ (uint32_t)inv);
        memcpy(p, &x, 4);
        break;
      }
      case HADOS_VT_I64: {
        uint64_t x;
        memcpy(&x, c->data + (e0 + r) * 8, 8);
        put_be64(p, (x ^ (1ull << 63)) ^ inv);
        break;
      }
      case HADOS_VT_F64: {
        double f;
        uint64_t x;
        memcpy(&f, c->data + (e0 + r) * 8, 8);
        if (f != f) f = __builtin_nan("");
        else if (f == 0) f = 0.0;
        memcpy(&x, &f, 8);
        x = (x >> 63) ? ~x : x | (1ull << 63);
        put_be64(p, x ^ inv);
        break;
      }
      case HADOS_VT_I128: {
        uint64_t lo, hi;
        memcpy(&lo, c->data + (e0 + r) * 16, 8);
        memcpy(&hi, c->data + (e0 + r) * 16 + 8, 8);
        put_be64(p, (hi ^ (1ull << 63)) ^ inv);
        put_be64(p + 8, lo ^ inv);
        break;
      }
      default: {
        uint32_t len;
        const uint8_t *s = rel_str(c, r, &len);
        uint8_t b[SORT_STR_PREFIX] = {0};
        memcpy(b, s, len < SORT_STR_PREFIX ? len : SORT_STR_PREFIX);
        for (uint32_t x = 0; x < SORT_STR_PREFIX; x++) p[x] = b[x] ^ (uint8_t)inv;
      }
    }
  }
}

/* The stable scatter of one byte position, specialised for common record
   sizes so the copies are inlined. */
#define SCATTER_CASE(RS)                                              \
  case RS:                                                            \
    for (uint64_t i = 0; i < n; i++) {                                \
      const uint8_t *s = src + i * (RS);                              \
      memcpy(dst + (pos[s[b]]++) * (RS), s, (RS));                    \
    }                                                                 \
    break;

static void scatter(const uint8_t *src, uint8_t *dst, uint64_t n, uint32_t rs, uint32_t b, uint64_t *pos) {
  switch (rs) {
    SCATTER_CASE(5) SCATTER_CASE(6) SCATTER_CASE(8) SCATTER_CASE(9) SCATTER_CASE(12) SCATTER_CASE(13)
    SCATTER_CASE(16) SCATTER_CASE(17) SCATTER_CASE(20) SCATTER_CASE(21) SCATTER_CASE(22) SCATTER_CASE(24)
    SCATTER_CASE(28) SCATTER_CASE(30) SCATTER_CASE(32)
    default:
      for (uint64_t i = 0; i < n; i++) {
        const uint8_t *s = src + i * rs;
        memcpy(dst + (pos[s[b]]++) * rs, s, rs);
      }
  }
}

void sort_norm_rows(const sort_keys *k, uint64_t first, uint64_t n, uint8_t *recs, uint32_t rs) {
  uint32_t off = 0;
  for (uint32_t j = 0; j < k->n_norm; j++) {
    const soft_col *c = &k->d.cols[j];
    norm_key(c, k->d.flags[j], recs, rs, off, first, n);
    off += !c->all_valid + value_width(c);
  }
}

/* Records of a bucket below which a bucket is insertion sorted. */
#define SORT_TINY 24u
/* Bytes of records above which a range is split MSD rather than finished
   LSD (about a core's L2 cache). */
#define SORT_LEAF_BYTES (512u * 1024u)

/* Stable insertion sort of n records of x (bytes [b, kw) compared). */
static void insertion(uint8_t *x, uint64_t n, uint32_t rs, uint32_t b, uint32_t kw) {
  uint8_t t[SORT_MAX_RADIX_KEY + 4];
  for (uint64_t i = 1; i < n; i++) {
    uint64_t j = i;
    if (memcmp(x + (j - 1) * rs + b, x + j * rs + b, kw - b) <= 0) continue;
    memcpy(t, x + i * rs, rs);
    do {
      memcpy(x + j * rs, x + (j - 1) * rs, rs);
      j--;
    } while (j > 0 && memcmp(x + (j - 1) * rs + b, t + b, kw - b) > 0);
    memcpy(x + j * rs, t, rs);
  }
}

/* LSD radix of n records of x on bytes [b, kw), y as scratch; the sorted
   records end in x when in_x is set, else in y. */
static void lsd(uint8_t *x, uint8_t *y, uint64_t n, uint32_t rs, uint32_t b, uint32_t kw, int in_x) {
  uint32_t cnt[SORT_MAX_RADIX_KEY][256];
  uint64_t pos[256];
  const uint32_t nb = kw - b;
  memset(cnt, 0, nb * sizeof cnt[0]);
  for (uint64_t i = 0; i < n; i++) {
    const uint8_t *p = x + i * rs + b;
    for (uint32_t j = 0; j < nb; j++) cnt[j][p[j]]++;
  }
  uint8_t *src = x, *dst = y;
  for (uint32_t j = nb; j-- > 0;) {
    uint64_t sum = 0;
    int skip = 0;
    for (uint32_t v = 0; v < 256; v++) {
      if (cnt[j][v] == n) skip = 1;
      pos[v] = sum;
      sum += cnt[j][v];
    }
    if (skip) continue;
    scatter(src, dst, n, rs, b + j, pos);
    uint8_t *t = src;
    src = dst;
    dst = t;
  }
  if ((src == x) != in_x) memcpy(dst, src, n * rs);
}

/* The first byte position in [b, kw) where some record of x differs from
   the first one; kw when every record has the same bytes there. */
static uint32_t first_diff(const uint8_t *x, uint64_t n, uint32_t rs, uint32_t b, uint32_t kw) {
  uint32_t lim = kw;
  for (uint64_t i = 1; i < n && lim > b; i++) {
    const uint8_t *p = x + i * rs;
    for (uint32_t j = b; j < lim; j++)
      if (p[j] != x[j]) {
        lim = j;
        break;
      }
  }
  return lim;
}

/* Sorts the n records of x on bytes [b, kw), y (as large) as scratch; the
   records end in x when in_x is set, else in y. */
static void msd(uint8_t *x, uint8_t *y, uint64_t n, uint32_t rs, uint32_t b, uint32_t kw, int in_x) {
  if (n <= SORT_TINY || b >= kw) {
    if (b < kw) insertion(x, n, rs, b, kw);
    if (!in_x) memcpy(y, x, n * rs);
    return;
  }
  if (n * rs <= SORT_LEAF_BYTES) {
    lsd(x, y, n, rs, b, kw, in_x);
    return;
  }
  if ((b = first_diff(x, n, rs, b, kw)) == kw) {
    if (!in_x) memcpy(y, x, n * rs);
    return;
  }
  uint64_t cnt[256] = {0}, pos[256];
  for (uint64_t i = 0; i < n; i++) cnt[x[i * rs + b]]++;
  uint64_t sum = 0;
  for (uint32_t v = 0; v < 256; v++) {
    pos[v] = sum;
    sum += cnt[v];
  }
  scatter(x, y, n, rs, b, pos);
  uint64_t at = 0;
  for (uint32_t v = 0; v < 256; v++) {
    if (cnt[v]) msd(y + at * rs, x + at * rs, cnt[v], rs, b + 1, kw, !in_x);
    at += cnt[v];
  }
}

uint8_t *sort_radix(const sort_keys *k, uint64_t first, uint64_t n, uint8_t *recs, uint8_t *tmp) {
  const uint32_t kw = k->kw, rs = kw + 4;
  sort_norm_rows(k, first, n, recs, rs);
  for (uint64_t i = 0; i < n; i++) {
    int32_t r = (int32_t)(first + i);
    memcpy(recs + i * rs + kw, &r, 4);
  }
  msd(recs, tmp, n, rs, 0, kw, 1);
  return recs;
}

void sort_radix_recs(uint8_t *recs, uint8_t *tmp, uint64_t n, uint32_t kw) { msd(recs, tmp, n, kw + 4, 0, kw, 1); }
