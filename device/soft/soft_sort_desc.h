/*
 * soft_sort_desc.h — decoding of the relational descriptors shared by the
 * soft device's sort, merge and gather ops (hados_sort, hados_gather):
 * header checks, column binding (soft_col_bind), and int32 row-number
 * arrays in device memory.
 *
 * Sort and merge compare rows anywhere in their columns, so their string
 * offsets are checked for every row when the descriptor is decoded. A
 * gather touches only the rows it gathers, and the host runs many gathers
 * over the same columns (one per output batch): checking every offset of
 * a 16M-row column for each 64K-row batch would cost more than the
 * gathers. So a gather's columns are bound by their last row (every
 * buffer still checked to lie inside device memory, the string bytes up to
 * the last offset) and each gathered string's offsets are checked as it
 * is read (rel_str_checked).
 */
#ifndef SOFT_SORT_DESC_H
#define SOFT_SORT_DESC_H

#include <stdint.h>
#include <string.h>

#include "hados_relational.h"
#include "soft_pipeline.h"

/* A decoded hados_sort or hados_gather. Owns cols and flags (malloc),
   released by rel_free. */
typedef struct rel_desc {
  uint64_t rows;    /* rows of every column */
  uint32_t n;       /* keys (sort) or columns (gather) */
  soft_col *cols;   /* n columns bound for rows [0, rows) */
  uint32_t *flags;  /* sort: HADOS_SKEY_* per key; gather: NULL */
  uint64_t *str_end; /* gather: per column, the string bytes bound (utf8 / large: the last offset); sort: NULL */
} rel_desc;

/* Decodes the descriptor at addr (len bytes): magic, version, size, count
   within [1, max], every column bound. sort selects hados_sort (keys with
   flags, every string offset checked) or hados_gather (columns, string
   offsets checked per row read: see rel_str_checked). who prefixes error
   messages. */
int rel_decode(soft_device *d, const char *who, uint64_t addr, uint64_t len, int sort, rel_desc *out);
void rel_free(rel_desc *r);

/* n int32 values at addr (4-byte aligned, inside device memory). */
int rel_i32s(soft_device *d, const char *who, const char *what, uint64_t addr, uint64_t n, int32_t **out);

/* Value of bit i of an Arrow bitmap. */
static inline int rel_bit(const uint8_t *bits, uint64_t i) { return (bits[i >> 3] >> (i & 7)) & 1; }

/* Whether row r (0-based, before the column's offset) of a bound column is valid. */
static inline int rel_valid(const soft_col *c, uint64_t r) { return c->all_valid || rel_bit(c->validity, c->c.offset + r); }

/* The bytes of string row r of a bound STR column (any of utf8, large, dict);
   r must be valid or its bytes may be garbage (never out of bounds for
   utf8/large; dict codes out of range give an empty string). */
static inline const uint8_t *rel_str(const soft_col *c, uint64_t r, uint32_t *len) {
  uint64_t e = c->c.offset + r;
  int64_t s0, s1;
  const uint8_t *base;
  if (c->c.flags & HADOS_COLF_DICT) {
    int32_t code;
    memcpy(&code, c->data + e * 4, 4);
    if (code < 0 || (uint64_t)code >= c->c.dict_length) {
      *len = 0;
      return c->dict_data;
    }
    int32_t a, b;
    memcpy(&a, c->dict_offsets + 4 * (uint64_t)code, 4);
    memcpy(&b, c->dict_offsets + 4 * (uint64_t)code + 4, 4);
    s0 = a, s1 = b, base = c->dict_data;
  } else if (c->width == 4) {
    int32_t a, b;
    memcpy(&a, c->offsets + e * 4, 4);
    memcpy(&b, c->offsets + e * 4 + 4, 4);
    s0 = a, s1 = b, base = c->data;
  } else {
    memcpy(&s0, c->offsets + e * 8, 8);
    memcpy(&s1, c->offsets + e * 8 + 8, 8);
    base = c->data;
  }
  *len = (uint32_t)(s1 - s0);
  return base + s0;
}

/* rel_str for a gather's column j (rel_decode with sort = 0) into *p and
   *len: 0 when row r's offsets are not 0 <= start <= end <= the bytes
   bound, else 1. (*p may be NULL for a column without string bytes.) */
static inline int rel_str_checked(const rel_desc *g, uint32_t j, uint64_t r, const uint8_t **p, uint32_t *len) {
  const soft_col *c = &g->cols[j];
  if (c->c.flags & HADOS_COLF_DICT) {
    *p = rel_str(c, r, len);
    return 1;
  }
  uint64_t e = c->c.offset + r;
  int64_t s0, s1;
  if (c->width == 4) {
    int32_t a, b;
    memcpy(&a, c->offsets + e * 4, 4);
    memcpy(&b, c->offsets + e * 4 + 4, 4);
    s0 = a, s1 = b;
  } else {
    memcpy(&s0, c->offsets + e * 8, 8);
    memcpy(&s1, c->offsets + e * 8 + 8, 8);
  }
  if (s0 < 0 || s1 < s0 || (uint64_t)s1 > g->str_end[j] || s1 - s0 > (int64_t)UINT32_MAX) return 0;
  *len = (uint32_t)(s1 - s0);
  *p = c->data + s0;
  return 1;
}

#endif
