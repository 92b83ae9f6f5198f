/*
 * soft_joincond.h — the software DPU's join condition (hados_joincond.h)
 * shared by HADOS_OP_JOIN_COND (soft_joincond.c, over pairs) and
 * HADOS_OP_JOIN_PROBE with HADOS_PROBE_COND (soft_join.c, over each probe
 * row's candidates as the probe finds them): the decoded terms and the
 * test of one pair.
 */
#ifndef SOFT_JOINCOND_H
#define SOFT_JOINCOND_H

#include <stdint.h>
#include <string.h>

#include "hados_joincond.h"
#include "soft.h"
#include "soft_pipeline.h"

/* One decoded term, its operands bound over their side's rows. */
typedef struct jc_term {
  uint32_t cmp, vtype;
  int a_build, b_build;
  soft_col a, b;
} jc_term;

/* Decodes and checks the hados_join_cond of len bytes at addr (who names
   the op in errors): the header into *h, the terms into terms (room for
   HADOS_MAX_JOIN_COND_TERMS), every operand column bound over all the
   rows of its side (h->probe_rows or h->build_rows). The pair fields are
   not looked at. */
int soft_joincond_decode(soft_device *d, const char *who, uint64_t addr, uint64_t len, hados_join_cond *h, jc_term *terms);

static inline int jc_bit(const uint8_t *bits, uint64_t i) { return (bits[i >> 3] >> (i & 7)) & 1; }
static inline int jc_valid(const soft_col *c, uint64_t r) { return c->all_valid || jc_bit(c->validity, c->c.offset + r); }

/* Spark's order of doubles: NaN = NaN above all, -0.0 = 0.0. */
static inline int jc_cmp_f64(double x, double y) {
  int xn = x != x, yn = y != y;
  if (xn || yn) return xn - yn;
  return (x > y) - (x < y);
}

/* -1, 0, 1: operand a at row ra against operand b at row rb (both valid). */
static inline int jc_compare(const jc_term *t, uint64_t ra, uint64_t rb) {
  const uint8_t *pa = t->a.data, *pb = t->b.data;
  uint64_t ea = t->a.c.offset + ra, eb = t->b.c.offset + rb;
  switch (t->vtype) {
    case HADOS_VT_I32: {
      int32_t x, y;
      memcpy(&x, pa + 4 * ea, 4);
      memcpy(&y, pb + 4 * eb, 4);
      return (x > y) - (x < y);
    }
    case HADOS_VT_I64: {
      int64_t x, y;
      memcpy(&x, pa + 8 * ea, 8);
      memcpy(&y, pb + 8 * eb, 8);
      return (x > y) - (x < y);
    }
    case HADOS_VT_F64: {
      double x, y;
      memcpy(&x, pa + 8 * ea, 8);
      memcpy(&y, pb + 8 * eb, 8);
      return jc_cmp_f64(x, y);
    }
    default: { /* I128: little-endian, signed */
      uint64_t xl, yl;
      int64_t xh, yh;
      memcpy(&xl, pa + 16 * ea, 8);
      memcpy(&xh, pa + 16 * ea + 8, 8);
      memcpy(&yl, pb + 16 * eb, 8);
      memcpy(&yh, pb + 16 * eb + 8, 8);
      if (xh != yh) return (xh > yh) - (xh < yh);
      return (xl > yl) - (xl < yl);
    }
  }
}

static inline int jc_test(uint32_t cmp, int c) {
  switch (cmp) {
    case HADOS_JCMP_EQ: return c == 0;
    case HADOS_JCMP_NE: return c != 0;
    case HADOS_JCMP_LT: return c < 0;
    case HADOS_JCMP_LE: return c <= 0;
    case HADOS_JCMP_GT: return c > 0;
    default: return c >= 0;
  }
}

/* Whether term t holds for the pair (pr, br): both operands valid and the
   comparison true. */
static inline int jc_term_pass(const jc_term *t, uint64_t pr, uint64_t br) {
  uint64_t ra = t->a_build ? br : pr, rb = t->b_build ? br : pr;
  if (!jc_valid(&t->a, ra) || !jc_valid(&t->b, rb)) return 0;
  return jc_test(t->cmp, jc_compare(t, ra, rb));
}

/* Whether every one of the nt terms holds for the pair (pr, br). */
static inline int jc_pair_pass(const jc_term *terms, uint32_t nt, uint64_t pr, uint64_t br) {
  for (uint32_t k = 0; k < nt; k++)
    if (!jc_term_pass(&terms[k], pr, br)) return 0;
  return 1;
}

/* Prefetches the build-side operands of the nt terms at build row br. */
static inline void jc_prefetch_build(const jc_term *terms, uint32_t nt, uint64_t br) {
  for (uint32_t k = 0; k < nt; k++) {
    const jc_term *t = &terms[k];
    if (t->a_build) __builtin_prefetch(t->a.data + (t->a.c.offset + br) * t->a.width);
    if (t->b_build) __builtin_prefetch(t->b.data + (t->b.c.offset + br) * t->b.width);
  }
}

#endif /* SOFT_JOINCOND_H */
