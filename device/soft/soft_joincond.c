/*
 * soft_joincond.c — HADOS_OP_JOIN_COND: a join's extra condition (a
 * conjunction of comparisons between columns of the probe and build
 * sides) evaluated over candidate pairs of row numbers, reading each
 * operand in place (hados_joincond.h is the contract).
 *
 * The descriptor is decoded and every operand column bound over its side's
 * rows (soft_col_bind: every buffer inside device memory); the op's pair
 * range is checked (each probe row number within [0, probe_rows), each
 * build row number -1 or within [0, build_rows)) as it is evaluated, and a
 * bad row number fails the op with E_INVALID (what was written before it
 * is garbage then). One term, the common case, runs a loop of its own
 * value type and comparison; several run the general loop.
 */
#include <stdlib.h>
#include <string.h>

#include "hados_joincond.h"
#include "hados_relational.h"
#include "soft.h"
#include "soft_pipeline.h"

#define WHO "join condition"

typedef struct jc_term {
  uint32_t cmp, vtype;
  int a_build, b_build;
  soft_col a, b;
} jc_term;

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

typedef struct jc_range {
  const int32_t *probe, *build;
  uint8_t *out;
  uint64_t lo, hi, probe_rows, build_rows;
  int first_pass;
} jc_range;

static int jc_bad_row(const jc_range *r, uint64_t i) {
  return soft_fail(HADOS_E_INVALID, WHO ": pair %llu: rows (%d, %d) outside [0, %llu) x [-1, %llu)", (unsigned long long)i, r->probe[i],
                   r->build[i], (unsigned long long)r->probe_rows, (unsigned long long)r->build_rows);
}

/* The loop over the range's pairs, pass(t, pr, br) deciding each pair whose
   build row is not -1. */
#define JC_LOOP(PASS)                                                                        \
  do {                                                                                       \
    int64_t last = -1; /* the probe row of the last passing pair (first_pass) */            \
    for (uint64_t i = r->lo; i < r->hi; i++) {                                               \
      int32_t p = r->probe[i], b = r->build[i];                                              \
      if (p < 0 || (uint64_t)p >= r->probe_rows || b < -1 || (b >= 0 && (uint64_t)b >= r->build_rows)) \
        return jc_bad_row(r, i);                                                             \
      uint8_t ok = 0;                                                                        \
      if (b >= 0 && !(r->first_pass && p == last)) {                                         \
        ok = (uint8_t)(PASS);                                                                \
        if (ok) last = p;                                                                    \
      }                                                                                      \
      r->out[i] = ok;                                                                        \
      n += ok;                                                                               \
    }                                                                                        \
  } while (0)

/* One term of value type T read at the probe or build row: the comparison
   specialised (no null bitmaps when both operands are all valid). */
#define JC_ONE(T, CMPEXPR)                                                                     \
  do {                                                                                         \
    const T *xa = (const T *)(const void *)t->a.data + t->a.c.offset;                          \
    const T *xb = (const T *)(const void *)t->b.data + t->b.c.offset;                          \
    int va = t->a_build, vb = t->b_build;                                                      \
    if (t->a.all_valid && t->b.all_valid) {                                                    \
      JC_LOOP(({ T x = xa[va ? b : p], y = xb[vb ? b : p]; CMPEXPR; }));                       \
    } else {                                                                                   \
      JC_LOOP(({ uint64_t ra = (uint64_t)(va ? b : p), rb = (uint64_t)(vb ? b : p);             \
                 jc_valid(&t->a, ra) && jc_valid(&t->b, rb) && ({ T x = xa[ra], y = xb[rb]; CMPEXPR; }); })); \
    }                                                                                          \
  } while (0)

#define JC_CMPS(T)                                                  \
  switch (t->cmp) {                                                 \
    case HADOS_JCMP_EQ: JC_ONE(T, x == y); break;                   \
    case HADOS_JCMP_NE: JC_ONE(T, x != y); break;                   \
    case HADOS_JCMP_LT: JC_ONE(T, x < y); break;                    \
    case HADOS_JCMP_LE: JC_ONE(T, x <= y); break;                   \
    case HADOS_JCMP_GT: JC_ONE(T, x > y); break;                    \
    default: JC_ONE(T, x >= y); break;                              \
  }

static int jc_run(const jc_range *r, const jc_term *terms, uint32_t nt, uint64_t *passed) {
  uint64_t n = 0;
  const jc_term *t = &terms[0];
  if (nt == 1 && t->vtype == HADOS_VT_I64) {
    JC_CMPS(int64_t);
  } else if (nt == 1 && t->vtype == HADOS_VT_I32) {
    JC_CMPS(int32_t);
  } else {
    JC_LOOP(({
      int all = 1;
      for (uint32_t k = 0; k < nt && all; k++) all = jc_term_pass(&terms[k], (uint64_t)p, (uint64_t)b);
      all;
    }));
  }
  *passed = n;
  return HADOS_OK;
}

int soft_joincond_op(soft_device *d, const hados_op *op, uint64_t len, uint64_t *result) {
  uint8_t *p;
  int st;
  hados_join_cond h;
  jc_term terms[HADOS_MAX_JOIN_COND_TERMS];
  const size_t hdr = offsetof(hados_join_cond, terms);
  *result = 0;
  if (len < hdr)
    return soft_fail(HADOS_E_INVALID, WHO ": descriptor of %llu bytes, the header alone is %zu", (unsigned long long)len, hdr);
  if ((st = soft_range(d, op->src, len, &p)))
    return soft_fail(st, WHO ": descriptor [0x%llx, +%llu) is outside device memory", (unsigned long long)op->src, (unsigned long long)len);
  if ((uintptr_t)p % 8) return soft_fail(HADOS_E_INVALID, WHO ": descriptor at 0x%llx is not 8-byte aligned", (unsigned long long)op->src);
  memcpy(&h, p, hdr);
  if (h.magic != HADOS_JOIN_COND_MAGIC) return soft_fail(HADOS_E_INVALID, WHO ": bad magic 0x%08x (want 0x%08x)", h.magic, HADOS_JOIN_COND_MAGIC);
  if (h.version != HADOS_RELATIONAL_VERSION)
    return soft_fail(HADOS_E_INVALID, WHO ": unsupported version %u (want %u)", h.version, HADOS_RELATIONAL_VERSION);
  if (h.n_terms < 1 || h.n_terms > HADOS_MAX_JOIN_COND_TERMS)
    return soft_fail(HADOS_E_INVALID, WHO ": %u terms, want 1..%u", h.n_terms, HADOS_MAX_JOIN_COND_TERMS);
  uint64_t need = hdr + (uint64_t)h.n_terms * sizeof(hados_join_term);
  if (h.size < need || h.size > len)
    return soft_fail(HADOS_E_INVALID, WHO ": size field %u outside [%llu, %llu] (%u terms; the op's length)", h.size,
                     (unsigned long long)need, (unsigned long long)len, h.n_terms);
  if (h.flags & ~HADOS_JCOND_FIRST_PASS) return soft_fail(HADOS_E_INVALID, WHO ": unknown flags 0x%x", h.flags);
  if (h.pairs > INT32_MAX || h.probe_rows > INT32_MAX || h.build_rows > INT32_MAX)
    return soft_fail(HADOS_E_INVALID, WHO ": %llu pairs over %llu probe and %llu build rows (row numbers are int32)", (unsigned long long)h.pairs,
                     (unsigned long long)h.probe_rows, (unsigned long long)h.build_rows);
  uint64_t lo = op->arg[0], hi = op->arg[1];
  if (lo > hi || hi > h.pairs)
    return soft_fail(HADOS_E_INVALID, WHO ": pair range [%llu, %llu) outside [0, %llu)", (unsigned long long)lo, (unsigned long long)hi,
                     (unsigned long long)h.pairs);
  for (uint32_t k = 0; k < h.n_terms; k++) {
    hados_join_term e;
    memcpy(&e, p + hdr + k * sizeof e, sizeof e);
    jc_term *t = &terms[k];
    memset(t, 0, sizeof *t);
    if (e.cmp > HADOS_JCMP_GE) return soft_fail(HADOS_E_INVALID, WHO ": term %u: unknown comparison %u", k, e.cmp);
    if (e.flags & ~(HADOS_JTERM_A_BUILD | HADOS_JTERM_B_BUILD)) return soft_fail(HADOS_E_INVALID, WHO ": term %u: unknown flags 0x%x", k, e.flags);
    if (e.a.vtype != e.b.vtype)
      return soft_fail(HADOS_E_INVALID, WHO ": term %u compares value types %u and %u (want the same)", k, e.a.vtype, e.b.vtype);
    switch (e.a.vtype) {
      case HADOS_VT_I32: case HADOS_VT_I64: case HADOS_VT_F64: case HADOS_VT_I128: break;
      default: return soft_fail(HADOS_E_INVALID, WHO ": term %u: value type %u is not I32, I64, F64 or I128", k, e.a.vtype);
    }
    t->cmp = e.cmp;
    t->vtype = e.a.vtype;
    t->a_build = !!(e.flags & HADOS_JTERM_A_BUILD);
    t->b_build = !!(e.flags & HADOS_JTERM_B_BUILD);
    t->a.c = e.a;
    t->b.c = e.b;
    uint64_t ra = t->a_build ? h.build_rows : h.probe_rows, rb = t->b_build ? h.build_rows : h.probe_rows;
    if ((st = soft_col_bind(d, WHO, 2 * k, &t->a, 0, ra))) return st;
    if ((st = soft_col_bind(d, WHO, 2 * k + 1, &t->b, 0, rb))) return st;
  }
  if (lo == hi) return HADOS_OK;
  jc_range r = {.lo = lo, .hi = hi, .probe_rows = h.probe_rows, .build_rows = h.build_rows, .first_pass = !!(h.flags & HADOS_JCOND_FIRST_PASS)};
  uint8_t *q;
  if ((st = soft_range(d, h.probe_idx, h.pairs * 4, &q))) return soft_fail(st, WHO ": probe row numbers outside device memory");
  if ((uintptr_t)q % 4) return soft_fail(HADOS_E_INVALID, WHO ": probe row numbers not 4-byte aligned");
  r.probe = (const int32_t *)(const void *)q;
  if ((st = soft_range(d, h.build_idx, h.pairs * 4, &q))) return soft_fail(st, WHO ": build row numbers outside device memory");
  if ((uintptr_t)q % 4) return soft_fail(HADOS_E_INVALID, WHO ": build row numbers not 4-byte aligned");
  r.build = (const int32_t *)(const void *)q;
  if ((st = soft_range(d, h.out, h.pairs, &r.out))) return soft_fail(st, WHO ": output outside device memory");
  return jc_run(&r, terms, h.n_terms, result);
}
