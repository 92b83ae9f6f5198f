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

#include "hados_relational.h"
#include "soft_joincond.h"

#define WHO "join condition"

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

/* The value of type T at row i of the column bytes base, loaded through
   memcpy: descriptors do not promise aligned data (a plain load on x86). */
#define JC_LOAD(T, base, i) ({ T v_; memcpy(&v_, (base) + (uint64_t)(i) * sizeof(T), sizeof(T)); v_; })

/* One term of value type T read at the probe or build row: the comparison
   specialised (no null bitmaps when both operands are all valid). */
#define JC_ONE(T, CMPEXPR)                                                                     \
  do {                                                                                         \
    const uint8_t *xa = (const uint8_t *)t->a.data + t->a.c.offset * sizeof(T);               \
    const uint8_t *xb = (const uint8_t *)t->b.data + t->b.c.offset * sizeof(T);               \
    int va = t->a_build, vb = t->b_build;                                                      \
    if (t->a.all_valid && t->b.all_valid) {                                                    \
      JC_LOOP(({ T x = JC_LOAD(T, xa, va ? b : p), y = JC_LOAD(T, xb, vb ? b : p); CMPEXPR; })); \
    } else {                                                                                   \
      JC_LOOP(({ uint64_t ra = (uint64_t)(va ? b : p), rb = (uint64_t)(vb ? b : p);             \
                 jc_valid(&t->a, ra) && jc_valid(&t->b, rb) && ({ T x = JC_LOAD(T, xa, ra), y = JC_LOAD(T, xb, rb); CMPEXPR; }); })); \
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
    JC_LOOP(jc_pair_pass(terms, nt, (uint64_t)p, (uint64_t)b));
  }
  *passed = n;
  return HADOS_OK;
}

int soft_joincond_decode(soft_device *d, const char *who, uint64_t addr, uint64_t len, hados_join_cond *hp, jc_term *terms) {
  uint8_t *p;
  int st;
  hados_join_cond h;
  const size_t hdr = offsetof(hados_join_cond, terms);
  if (len < hdr)
    return soft_fail(HADOS_E_INVALID, "%s: descriptor of %llu bytes, the header alone is %zu", who, (unsigned long long)len, hdr);
  if ((st = soft_range(d, addr, len, &p)))
    return soft_fail(st, "%s: descriptor [0x%llx, +%llu) is outside device memory", who, (unsigned long long)addr, (unsigned long long)len);
  if ((uintptr_t)p % 8) return soft_fail(HADOS_E_INVALID, "%s: descriptor at 0x%llx is not 8-byte aligned", who, (unsigned long long)addr);
  memcpy(&h, p, hdr);
  if (h.magic != HADOS_JOIN_COND_MAGIC) return soft_fail(HADOS_E_INVALID, "%s: bad magic 0x%08x (want 0x%08x)", who, h.magic, HADOS_JOIN_COND_MAGIC);
  if (h.version != HADOS_RELATIONAL_VERSION)
    return soft_fail(HADOS_E_INVALID, "%s: unsupported version %u (want %u)", who, h.version, HADOS_RELATIONAL_VERSION);
  if (h.n_terms < 1 || h.n_terms > HADOS_MAX_JOIN_COND_TERMS)
    return soft_fail(HADOS_E_INVALID, "%s: %u terms, want 1..%u", who, h.n_terms, HADOS_MAX_JOIN_COND_TERMS);
  uint64_t need = hdr + (uint64_t)h.n_terms * sizeof(hados_join_term);
  if (h.size < need || h.size > len)
    return soft_fail(HADOS_E_INVALID, "%s: size field %u outside [%llu, %llu] (%u terms; the op's length)", who, h.size,
                     (unsigned long long)need, (unsigned long long)len, h.n_terms);
  if (h.flags & ~HADOS_JCOND_FIRST_PASS) return soft_fail(HADOS_E_INVALID, "%s: unknown flags 0x%x", who, h.flags);
  if (h.pairs > INT32_MAX || h.probe_rows > INT32_MAX || h.build_rows > INT32_MAX)
    return soft_fail(HADOS_E_INVALID, "%s: %llu pairs over %llu probe and %llu build rows (row numbers are int32)", who, (unsigned long long)h.pairs,
                     (unsigned long long)h.probe_rows, (unsigned long long)h.build_rows);
  for (uint32_t k = 0; k < h.n_terms; k++) {
    hados_join_term e;
    memcpy(&e, p + hdr + k * sizeof e, sizeof e);
    jc_term *t = &terms[k];
    memset(t, 0, sizeof *t);
    if (e.cmp > HADOS_JCMP_GE) return soft_fail(HADOS_E_INVALID, "%s: term %u: unknown comparison %u", who, k, e.cmp);
    if (e.flags & ~(HADOS_JTERM_A_BUILD | HADOS_JTERM_B_BUILD)) return soft_fail(HADOS_E_INVALID, "%s: term %u: unknown flags 0x%x", who, k, e.flags);
    if (e.a.vtype != e.b.vtype)
      return soft_fail(HADOS_E_INVALID, "%s: term %u compares value types %u and %u (want the same)", who, k, e.a.vtype, e.b.vtype);
    switch (e.a.vtype) {
      case HADOS_VT_I32: case HADOS_VT_I64: case HADOS_VT_F64: case HADOS_VT_I128: break;
      default: return soft_fail(HADOS_E_INVALID, "%s: term %u: value type %u is not I32, I64, F64 or I128", who, k, e.a.vtype);
    }
    t->cmp = e.cmp;
    t->vtype = e.a.vtype;
    t->a_build = !!(e.flags & HADOS_JTERM_A_BUILD);
    t->b_build = !!(e.flags & HADOS_JTERM_B_BUILD);
    t->a.c = e.a;
    t->b.c = e.b;
    uint64_t ra = t->a_build ? h.build_rows : h.probe_rows, rb = t->b_build ? h.build_rows : h.probe_rows;
    if ((st = soft_col_bind(d, who, 2 * k, &t->a, 0, ra))) return st;
    if ((st = soft_col_bind(d, who, 2 * k + 1, &t->b, 0, rb))) return st;
  }
  *hp = h;
  return HADOS_OK;
}

int soft_joincond_op(soft_device *d, const hados_op *op, uint64_t len, uint64_t *result) {
  int st;
  hados_join_cond h;
  jc_term terms[HADOS_MAX_JOIN_COND_TERMS];
  *result = 0;
  if ((st = soft_joincond_decode(d, WHO, op->src, len, &h, terms))) return st;
  uint64_t lo = op->arg[0], hi = op->arg[1];
  if (lo > hi || hi > h.pairs)
    return soft_fail(HADOS_E_INVALID, WHO ": pair range [%llu, %llu) outside [0, %llu)", (unsigned long long)lo, (unsigned long long)hi,
                     (unsigned long long)h.pairs);
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
