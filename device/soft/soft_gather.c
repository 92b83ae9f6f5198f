/*
 * soft_gather.c — HADOS_OP_GATHER: materialise rows of input columns by
 * row number into hados_project_out columns (hados_relational.h).
 *
 * Every row number is checked first (-1 or within [0, rows)); then string
 * columns are sized, each gathered string's offsets checked as it is
 * counted (the descriptor binds the columns by their last row only:
 * soft_sort_desc.h) (E_NOMEM with result = the largest byte count any one
 * string column needs when a column's capacity is short; nothing else is
 * written then); then each column is written in one pass of its own type:
 * fixed-width values (a null row's value is zero), BOOL bits, strings
 * (utf8, large or dictionary input; utf8 output). Output validity bitmaps
 * are written for every row; a column without one may only receive valid
 * rows (E_INVALID otherwise). Every output byte the caller exposes is
 * written (bitmaps in whole bytes, bits past the last row clear; a null
 * row's value zero; offsets and string bytes), so outputs may come from
 * unzeroed memory.
 */
#include <stdlib.h>
#include <string.h>

#include "soft_relational.h"
#include "soft_sort_desc.h"

#define WHO "gather"

/* Validity of every output row of column j; *nulls receives their count. */
static int gather_validity(const soft_col *c, soft_outcol *o, uint32_t j, const int32_t *rows, uint64_t n) {
  uint64_t nulls = 0;
  if (o->validity) {
    uint64_t i = 0;
    for (; i + 8 <= n; i += 8) { /* whole bytes */
      uint8_t b = 0;
      for (uint32_t k = 0; k < 8; k++) {
        int32_t r = rows[i + k];
        uint8_t v = r >= 0 && rel_valid(c, (uint64_t)r);
        b |= (uint8_t)(v << k);
      }
      o->validity[i >> 3] = b;
      nulls += 8 - (uint64_t)__builtin_popcount(b);
    }
    if (i < n) { /* the last, partial byte: written whole, bits past n clear (outputs may be unzeroed) */
      uint8_t b = 0;
      for (uint32_t k = 0; i + k < n; k++) {
        int32_t r = rows[i + k];
        uint8_t v = r >= 0 && rel_valid(c, (uint64_t)r);
        b |= (uint8_t)(v << k);
        nulls += !v;
      }
      o->validity[i >> 3] = b;
    }
    return HADOS_OK;
  }
  for (uint64_t i = 0; i < n; i++)
    if (rows[i] < 0 || !rel_valid(c, (uint64_t)rows[i]))
      return soft_fail(HADOS_E_INVALID, WHO ": project output column %u: row %llu is null and the column has no validity bitmap", j,
                       (unsigned long long)i);
  (void)nulls;
  return HADOS_OK;
}

/* Rows ahead of the current one whose string bytes a gather prefetches
   (their offsets: twice as far). */
#define GATHER_PF 12

/* Prefetches what locating row r's string reads: its offsets (a dictionary
   column: its code) and, for a nullable column, its validity byte. */
static inline void prefetch_str_offsets(const soft_col *c, int32_t r) {
  if (r < 0) return;
  const uint64_t e = c->c.offset + (uint64_t)r;
  if (!c->all_valid) __builtin_prefetch(c->validity + (e >> 3));
  if (c->c.flags & HADOS_COLF_DICT) __builtin_prefetch(c->data + e * 4);
  else __builtin_prefetch(c->offsets + e * c->width);
}

/* Prefetches the first bytes of row r's string (its offsets were checked
   by string_bytes before any is read here; a null row's garbage offsets
   only prefetch, which never faults). */
static inline void prefetch_str_bytes(const soft_col *c, int32_t r) {
  if (r < 0) return;
  uint32_t len;
  const uint8_t *s = rel_str(c, (uint64_t)r, &len);
  __builtin_prefetch(s);
  if (len > 32) __builtin_prefetch(s + 64);
}

/* Copies n bytes of a string: short ones by (overlapping) fixed-size
   moves inline instead of a libc call, reading and writing only [0, n). */
static inline void copy_str(uint8_t *d, const uint8_t *s, uint32_t n) {
  if (n >= 8 && n <= 32) {
    uint64_t a, b;
    if (n > 16) {
      uint64_t x, y;
      memcpy(&a, s, 8);
      memcpy(&x, s + 8, 8);
      memcpy(&y, s + n - 16, 8);
      memcpy(&b, s + n - 8, 8);
      memcpy(d, &a, 8);
      memcpy(d + 8, &x, 8);
      memcpy(d + n - 16, &y, 8);
      memcpy(d + n - 8, &b, 8);
      return;
    }
    memcpy(&a, s, 8);
    memcpy(&b, s + n - 8, 8);
    memcpy(d, &a, 8);
    memcpy(d + n - 8, &b, 8);
    return;
  }
  if (n >= 4 && n < 8) {
    uint32_t a, b;
    memcpy(&a, s, 4);
    memcpy(&b, s + n - 4, 4);
    memcpy(d, &a, 4);
    memcpy(d + n - 4, &b, 4);
    return;
  }
  if (n < 4) {
    for (uint32_t i = 0; i < n; i++) d[i] = s[i];
    return;
  }
  memcpy(d, s, n);
}

#define GATHER_FIXED(T)                                                         \
  do {                                                                          \
    const T *src = (const T *)(const void *)c->data + c->c.offset;              \
    T *dst = (T *)(void *)o->data;                                              \
    for (uint64_t i = 0; i < n; i++) {                                          \
      if (i + 16 < n && rows[i + 16] >= 0) __builtin_prefetch(src + rows[i + 16]); \
      int32_t r = rows[i];                                                      \
      T v;                                                                      \
      if (r >= 0) memcpy(&v, src + r, sizeof v);                                \
      else memset(&v, 0, sizeof v);                                             \
      memcpy(dst + i, &v, sizeof v);                                            \
    }                                                                           \
  } while (0)

static void gather_values(const soft_col *c, soft_outcol *o, const int32_t *rows, uint64_t n) {
  switch (c->c.vtype) {
    case HADOS_VT_BOOL: /* whole bytes, bits past n clear (outputs may be unzeroed) */
      for (uint64_t i = 0; i < n; i += 8) {
        uint8_t b = 0;
        for (uint32_t k = 0; k < 8 && i + k < n; k++) {
          int32_t r = rows[i + k];
          b |= (uint8_t)((r >= 0 && rel_bit(c->data, c->c.offset + (uint64_t)r)) << k);
        }
        o->data[i >> 3] = b;
      }
      return;
    case HADOS_VT_I32: GATHER_FIXED(int32_t); return;
    case HADOS_VT_I64: case HADOS_VT_F64: GATHER_FIXED(int64_t); return;
    case HADOS_VT_I128: {
      typedef struct { uint64_t lo, hi; } u128p;
      GATHER_FIXED(u128p);
      return;
    }
    default: {
      /* rows come in sorted order, so every string is a cache miss:
         prefetch in two stages, the offsets (and validity) 2 * GATHER_PF
         rows ahead, the bytes GATHER_PF rows ahead */
      int32_t *offs = (int32_t *)(void *)o->offsets;
      uint64_t used = 0;
      offs[0] = 0;
      for (uint64_t i = 0; i < n; i++) {
        if (i + 2 * GATHER_PF < n) prefetch_str_offsets(c, rows[i + 2 * GATHER_PF]);
        if (i + GATHER_PF < n) prefetch_str_bytes(c, rows[i + GATHER_PF]);
        int32_t r = rows[i];
        if (r >= 0 && rel_valid(c, (uint64_t)r)) {
          uint32_t len;
          const uint8_t *s = rel_str(c, (uint64_t)r, &len);
          copy_str(o->data + used, s, len);
          used += len;
        }
        offs[i + 1] = (int32_t)used;
      }
      o->used = used;
    }
  }
}

/* String bytes the output column j needs for the rows (into *total),
   checking each valid row's offsets (rel_str_checked). */
static int string_bytes(const rel_desc *g, uint32_t j, const int32_t *rows, uint64_t n, uint64_t *total) {
  const soft_col *c = &g->cols[j];
  uint64_t t = 0;
  for (uint64_t i = 0; i < n; i++) {
    if (i + 2 * GATHER_PF < n) prefetch_str_offsets(c, rows[i + 2 * GATHER_PF]);
    int32_t r = rows[i];
    if (r < 0 || !rel_valid(c, (uint64_t)r)) continue;
    uint32_t len;
    const uint8_t *p;
    if (!rel_str_checked(g, j, (uint64_t)r, &p, &len))
      return soft_fail(HADOS_E_INVALID, WHO ": column %u: row %d has string offsets outside [0, %llu] or decreasing", j, r,
                       (unsigned long long)g->str_end[j]);
    t += len;
  }
  *total = t;
  return HADOS_OK;
}

int soft_gather_op(soft_device *d, const hados_op *op, uint64_t len, uint64_t *result) {
  rel_desc g;
  soft_outcol *outs = NULL;
  int32_t *rows = NULL;
  uint64_t n = op->arg[1], cap = 0;
  uint32_t vts[HADOS_MAX_COLUMNS];
  int st;
  *result = 0;
  if ((st = rel_decode(d, WHO, op->src, len, 0, &g))) return st;
  if ((st = rel_i32s(d, WHO, "row numbers", op->arg[0], n, &rows))) goto out;
  for (uint64_t i = 0; i < n; i++)
    if (rows[i] < -1 || (rows[i] >= 0 && (uint64_t)rows[i] >= g.rows)) {
      st = soft_fail(HADOS_E_INVALID, WHO ": row number %d at %llu is outside [0, %llu) (or -1 for nulls)", rows[i],
                     (unsigned long long)i, (unsigned long long)g.rows);
      goto out;
    }
  for (uint32_t j = 0; j < g.n; j++) vts[j] = g.cols[j].c.vtype;
  if ((st = soft_project_out_bind(d, WHO, op->arg[2], g.n, vts, &outs, &cap))) goto out;
  if (n > cap) {
    st = soft_fail(HADOS_E_INVALID, WHO ": %llu rows for an output of capacity %llu rows", (unsigned long long)n, (unsigned long long)cap);
    goto out;
  }
  uint64_t need = 0;
  int short_col = -1;
  for (uint32_t j = 0; j < g.n; j++) {
    if (vts[j] != HADOS_VT_STR) continue;
    uint64_t b = 0;
    if ((st = string_bytes(&g, j, rows, n, &b))) goto out;
    if (b > need) need = b;
    if (b > outs[j].c.capacity && short_col < 0) short_col = (int)j;
  }
  if (need > INT32_MAX) {
    st = soft_fail(HADOS_E_INVALID, WHO ": %llu string bytes exceed int32 offsets", (unsigned long long)need);
    goto out;
  }
  if (short_col >= 0) {
    *result = need;
    st = soft_fail(HADOS_E_NOMEM, WHO ": output column %d needs more than its %llu string bytes (%llu needed by the largest column)",
                   short_col, (unsigned long long)outs[short_col].c.capacity, (unsigned long long)need);
    goto out;
  }
  for (uint32_t j = 0; j < g.n && !st; j++) {
    if (!(st = gather_validity(&g.cols[j], &outs[j], j, rows, n))) gather_values(&g.cols[j], &outs[j], rows, n);
  }
  if (!st) *result = n;
out:
  free(outs);
  rel_free(&g);
  return st;
}
