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
 * LSD radix: one pass counts every byte position's histogram, then a
 * stable scatter per byte position from the last to the first, skipping
 * positions where every record has the same byte. Stability and the
 * initial row order make equal keys keep their input order.
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

uint8_t *sort_radix(const sort_keys *k, uint64_t first, uint64_t n, uint8_t *recs, uint8_t *tmp) {
  const uint32_t kw = k->kw, rs = kw + 4;
  sort_norm_rows(k, first, n, recs, rs);
  for (uint64_t i = 0; i < n; i++) {
    int32_t r = (int32_t)(first + i);
    memcpy(recs + i * rs + kw, &r, 4);
  }
  uint64_t(*cnt)[256] = calloc(kw, sizeof *cnt);
  if (!cnt) return NULL;
  for (uint64_t i = 0; i < n; i++) {
    const uint8_t *p = recs + i * rs;
    for (uint32_t b = 0; b < kw; b++) cnt[b][p[b]]++;
  }
  uint8_t *src = recs, *dst = tmp;
  for (uint32_t b = kw; b-- > 0;) {
    uint64_t *c = cnt[b], sum = 0;
    int skip = 0;
    for (uint32_t x = 0; x < 256; x++) {
      if (c[x] == n) skip = 1;
      uint64_t t = c[x];
      c[x] = sum;
      sum += t;
    }
    if (skip) continue;
    scatter(src, dst, n, rs, b, c);
    uint8_t *t = src;
    src = dst;
    dst = t;
  }
  free(cnt);
  return src;
}
