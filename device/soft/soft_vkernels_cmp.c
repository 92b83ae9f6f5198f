/*
 * soft_vkernels_cmp.c — comparison, three-valued logic, null tests, IN,
 * FILTER and SELECT kernels.
 *
 * Comparisons follow Spark's ordering: for doubles NaN equals NaN and is
 * greater than every other value, -0.0 equals 0.0; strings compare as
 * unsigned bytes, then by length. A comparison with a constant left operand
 * is turned around (c < x is x > c) so every constant comparison runs the
 * register-versus-scalar loop, the hot path of filters. Those loops, FILTER
 * and SELECT are compiled for AVX-512, AVX2 and the baseline ISA.
 */
#include "soft_vkernels.h"

/* ---------------------------------------------------------------- comparison */
#define EQ_I(p, q) ((p) == (q))
#define LT_I(p, q) ((p) < (q))
#define EQ_F(p, q) (((p) == (q)) | (((p) != (p)) & ((q) != (q))))
#define LT_F(p, q) (((p) < (q)) | (((p) == (p)) & ((q) != (q))))

/* o[i] = A op B for the six comparison kernels; A and B are expressions in i. */
#define CMP_CASES(op, v, o, A, B, EQ, LT)                       \
  switch (op) {                                                 \
    case HADOS_K_EQ: VK_ROWS(v, o[i] = EQ(A, B)); break;        \
    case HADOS_K_NE: VK_ROWS(v, o[i] = !EQ(A, B)); break;       \
    case HADOS_K_LT: VK_ROWS(v, o[i] = LT(A, B)); break;        \
    case HADOS_K_LE: VK_ROWS(v, o[i] = !LT(B, A)); break;       \
    case HADOS_K_GT: VK_ROWS(v, o[i] = LT(B, A)); break;        \
    default: VK_ROWS(v, o[i] = !LT(A, B)); break;               \
  }

/* a op b where b is a register (RB) or the scalar cb (when const_b). */
#define CMP_TYPE(T, EQ, LT, cb)                                              \
  do {                                                                       \
    const T *x = (const T *)a->data;                                         \
    if (const_b) {                                                           \
      const T y = (cb);                                                      \
      CMP_CASES(op, v, o, x[i], y, EQ, LT);                                  \
    } else {                                                                 \
      const T *y = (const T *)b->data;                                       \
      CMP_CASES(op, v, o, x[i], y[i], EQ, LT);                               \
    }                                                                        \
  } while (0)

static uint32_t flip(uint32_t op) {
  switch (op) {
    case HADOS_K_LT: return HADOS_K_GT;
    case HADOS_K_LE: return HADOS_K_GE;
    case HADOS_K_GT: return HADOS_K_LT;
    case HADOS_K_GE: return HADOS_K_LE;
  }
  return op;
}

static inline int str_cmp(soft_str p, soft_str q) {
  uint32_t m = p.len < q.len ? p.len : q.len;
  int c = m ? memcmp(p.ptr, q.ptr, m) : 0;
  if (c) return c;
  return p.len < q.len ? -1 : p.len > q.len;
}
/* str_eq is str_cmp(p, q) == 0 without a memcmp call for the short values
   filters and IN lists meet most (flags, modes, codes): lengths first, then
   two overlapping loads per side that stay inside both values. */
static inline int str_eq(soft_str p, soft_str q) {
  uint32_t n = p.len;
  if (n != q.len) return 0;
  if (n >= 8) {
    if (n > 32) return memcmp(p.ptr, q.ptr, n) == 0;
    uint64_t a0, a1, b0, b1;
    memcpy(&a0, p.ptr, 8);
    memcpy(&b0, q.ptr, 8);
    memcpy(&a1, p.ptr + n - 8, 8);
    memcpy(&b1, q.ptr + n - 8, 8);
    if (n <= 16 || (a0 ^ b0) | (a1 ^ b1)) return ((a0 ^ b0) | (a1 ^ b1)) == 0;
    memcpy(&a0, p.ptr + 8, 8); /* 17..32 bytes: the middle 16 */
    memcpy(&b0, q.ptr + 8, 8);
    memcpy(&a1, p.ptr + n - 16, 8);
    memcpy(&b1, q.ptr + n - 16, 8);
    return ((a0 ^ b0) | (a1 ^ b1)) == 0;
  }
  if (n >= 4) {
    uint32_t a0, a1, b0, b1;
    memcpy(&a0, p.ptr, 4);
    memcpy(&b0, q.ptr, 4);
    memcpy(&a1, p.ptr + n - 4, 4);
    memcpy(&b1, q.ptr + n - 4, 4);
    return ((a0 ^ b0) | (a1 ^ b1)) == 0;
  }
  if (n == 0) return 1;
  /* 1..3 bytes: positions 0, n/2 and n-1 cover them all */
  return p.ptr[0] == q.ptr[0] && p.ptr[n >> 1] == q.ptr[n >> 1] && p.ptr[n - 1] == q.ptr[n - 1];
}
#define EQ_S(p, q) str_eq(p, q)
#define LT_S(p, q) (str_cmp(p, q) < 0)

VK_INLINE int cmp_body(soft_kctx *k) {
  const soft_vec *v = k->v;
  uint32_t op = k->in->op;
  const soft_reg *a = k->a, *b = k->b;
  const soft_cval *kb = k->kb;
  if (k->ka && !k->kb) { /* constant on the left: turn the comparison around */
    a = k->b;
    b = k->a;
    kb = k->ka;
    op = flip(op);
  }
  soft_reg *d = k->dst;
  vk_valid2(d, a, b, v);
  uint8_t *o = d->data;
  int const_b = kb != NULL;
  switch (k->in->vtype) {
    case HADOS_VT_I32: CMP_TYPE(int32_t, EQ_I, LT_I, (int32_t)kb->i); break;
    case HADOS_VT_I64: CMP_TYPE(int64_t, EQ_I, LT_I, kb->i); break;
    case HADOS_VT_F64: CMP_TYPE(double, EQ_F, LT_F, kb->f); break;
    case HADOS_VT_I128: CMP_TYPE(i128, EQ_I, LT_I, kb->x); break;
    case HADOS_VT_BOOL: CMP_TYPE(uint8_t, EQ_I, LT_I, (uint8_t)kb->i); break;
    default: CMP_TYPE(soft_str, EQ_S, LT_S, kb->s); break;
  }
  return HADOS_OK;
}
VK_TARGETS(k_cmp, cmp_body)

/* ---------------------------------------------------------------- compare + FILTER */
/* Appends the selected rows r where PRED(x[r], y) (and r is valid). */
#define CF_ROWS(v, s, n, COND)                              \
  do {                                                      \
    const uint32_t m_ = (v)->sel ? (v)->sel_n : (v)->n;     \
    if ((v)->sel) {                                         \
      const uint16_t *in_ = (v)->sel;                       \
      for (uint32_t j_ = 0; j_ < m_; j_++) {                \
        uint32_t r = in_[j_];                               \
        s[n] = (uint16_t)r;                                 \
        n += (COND);                                        \
      }                                                     \
    } else {                                                \
      for (uint32_t r = 0; r < m_; r++) {                   \
        s[n] = (uint16_t)r;                                 \
        n += (COND);                                        \
      }                                                     \
    }                                                       \
  } while (0)

#define CF_CASES(op, VALID, X, Y, EQ, LT)                              \
  switch (op) {                                                        \
    case HADOS_K_EQ: CF_ROWS(v, s, n, (VALID) & EQ(X, Y)); break;      \
    case HADOS_K_NE: CF_ROWS(v, s, n, (VALID) & !EQ(X, Y)); break;     \
    case HADOS_K_LT: CF_ROWS(v, s, n, (VALID) & LT(X, Y)); break;      \
    case HADOS_K_LE: CF_ROWS(v, s, n, (VALID) & !LT(Y, X)); break;     \
    case HADOS_K_GT: CF_ROWS(v, s, n, (VALID) & LT(Y, X)); break;      \
    default: CF_ROWS(v, s, n, (VALID) & !LT(X, Y)); break;             \
  }

#define CF_TYPE(T, EQ, LT, cy)                                                     \
  do {                                                                             \
    const T *x = (const T *)a->data;                                               \
    const T y = (cy);                                                              \
    if (a->all_valid) {                                                            \
      CF_CASES(op, 1, x[r], y, EQ, LT);                                            \
    } else {                                                                       \
      const uint8_t *va = a->valid;                                                \
      CF_CASES(op, (va[r] != 0), x[r], y, EQ, LT);                                 \
    }                                                                              \
  } while (0)

VK_INLINE int cmp_filter_body(soft_kctx *k) {
  const soft_vec *v = k->v;
  uint32_t op = k->in->op;
  const soft_reg *a = k->a;
  const soft_cval *kb = k->kb;
  if (!kb) { /* constant on the left */
    a = k->b;
    kb = k->ka;
    op = flip(op);
  }
  uint16_t *s = k->sel_out;
  uint32_t n = 0;
  if (!kb->is_null) {
    switch (k->in->vtype) {
      case HADOS_VT_I32: CF_TYPE(int32_t, EQ_I, LT_I, (int32_t)kb->i); break;
      case HADOS_VT_I64: CF_TYPE(int64_t, EQ_I, LT_I, kb->i); break;
      case HADOS_VT_F64: CF_TYPE(double, EQ_F, LT_F, kb->f); break;
      default: CF_TYPE(i128, EQ_I, LT_I, kb->x); break;
    }
  }
  k->vout->sel = s;
  k->vout->sel_n = n;
  return HADOS_OK;
}
VK_TARGETS(k_cmp_filter, cmp_filter_body)

soft_vkfn soft_vk_cmp_filter(uint32_t simd) { return VK_PICK(k_cmp_filter, simd); }

/* Equality by Spark's rules for a row of a against a constant. */
static int eq_const(const soft_reg *a, uint32_t i, const soft_cval *c) {
  switch (a->vtype) {
    case HADOS_VT_BOOL: return ((const uint8_t *)a->data)[i] == (uint8_t)c->i;
    case HADOS_VT_I32: return ((const int32_t *)a->data)[i] == (int32_t)c->i;
    case HADOS_VT_I64: return ((const int64_t *)a->data)[i] == c->i;
    case HADOS_VT_F64: {
      double x = ((const double *)a->data)[i], y = c->f;
      return EQ_F(x, y);
    }
    case HADOS_VT_I128: return ((const i128 *)a->data)[i] == c->x;
    default: return str_eq(((const soft_str *)a->data)[i], c->s);
  }
}

/* Row equality of two registers of the same type. */
static int eq_rows(const soft_reg *a, const soft_reg *b, uint32_t i) {
  switch (a->vtype) {
    case HADOS_VT_BOOL: return ((const uint8_t *)a->data)[i] == ((const uint8_t *)b->data)[i];
    case HADOS_VT_I32: return ((const int32_t *)a->data)[i] == ((const int32_t *)b->data)[i];
    case HADOS_VT_I64: return ((const int64_t *)a->data)[i] == ((const int64_t *)b->data)[i];
    case HADOS_VT_F64: {
      double x = ((const double *)a->data)[i], y = ((const double *)b->data)[i];
      return EQ_F(x, y);
    }
    case HADOS_VT_I128: return ((const i128 *)a->data)[i] == ((const i128 *)b->data)[i];
    default: return str_eq(((const soft_str *)a->data)[i], ((const soft_str *)b->data)[i]);
  }
}

static int k_eq_nullsafe(soft_kctx *k) {
  const soft_reg *a = k->a, *b = k->b;
  soft_reg *d = k->dst;
  uint8_t *o = d->data;
  /* d may share a's or b's validity bytes: read them before the write. */
  VK_ROWS(k->v, {
    uint8_t va = vk_valid_at(a, i), vb = vk_valid_at(b, i);
    o[i] = (va && vb) ? (uint8_t)eq_rows(a, b, i) : (uint8_t)(!va && !vb);
  });
  vk_all_valid(d);
  return HADOS_OK;
}

/* ---------------------------------------------------------------- logic */
static int k_and_or(soft_kctx *k) {
  const soft_reg *a = k->a, *b = k->b;
  soft_reg *d = k->dst;
  const uint8_t *x = a->data, *y = b->data;
  uint8_t *o = d->data;
  int is_and = k->in->op == HADOS_K_AND;
  if (a->all_valid && b->all_valid) {
    if (is_and)
      VK_ROWS(k->v, o[i] = x[i] & y[i]);
    else
      VK_ROWS(k->v, o[i] = x[i] | y[i]);
    vk_all_valid(d);
    return HADOS_OK;
  }
  uint8_t *dv = d->valid;
  VK_ROWS(k->v, {
    uint8_t va = vk_valid_at(a, i), vb = vk_valid_at(b, i);
    uint8_t xa = x[i] != 0, yb = y[i] != 0;
    /* AND: a valid false (or b valid false) decides; OR: a valid true decides. */
    uint8_t decide = is_and ? ((va && !xa) || (vb && !yb)) : ((va && xa) || (vb && yb));
    if (decide) {
      o[i] = !is_and;
      dv[i] = 1;
    } else if (va && vb) {
      o[i] = is_and;
      dv[i] = 1;
    } else {
      o[i] = 0;
      dv[i] = 0;
    }
  });
  d->all_valid = 0;
  return HADOS_OK;
}

static int k_not(soft_kctx *k) {
  const uint8_t *x = k->a->data;
  uint8_t *o = k->dst->data;
  vk_valid1(k->dst, k->a, k->v);
  VK_ROWS(k->v, o[i] = !x[i]);
  return HADOS_OK;
}

static int k_is_null(soft_kctx *k) {
  const soft_reg *a = k->a;
  uint8_t *o = k->dst->data;
  uint8_t want_null = k->in->op == HADOS_K_IS_NULL;
  if (a->all_valid)
    VK_ROWS(k->v, o[i] = !want_null);
  else
    VK_ROWS(k->v, o[i] = want_null ? !a->valid[i] : a->valid[i] != 0);
  vk_all_valid(k->dst);
  return HADOS_OK;
}

/* a IN (constants p1 .. p1+p2-1): SQL's three-valued IN. */
static int k_in(soft_kctx *k) {
  const soft_reg *a = k->a;
  soft_reg *d = k->dst;
  const soft_cval *cs = k->consts + k->in->p1;
  uint32_t nc = (uint32_t)k->in->p2;
  int any_null = 0;
  for (uint32_t j = 0; j < nc; j++) any_null |= cs[j].is_null != 0;
  uint8_t *o = d->data;
  vk_valid1(d, a, k->v);
  if (a->vtype == HADOS_VT_STR && !any_null && nc <= 64) {
    /* strings: a row whose length no constant has misses at once */
    const soft_str *x = a->data;
    uint64_t lens = 0;
    for (uint32_t j = 0; j < nc; j++) lens |= 1ull << (cs[j].s.len < 63 ? cs[j].s.len : 63);
    VK_ROWS(k->v, {
      soft_str r = x[i];
      uint8_t hit = 0;
      if (vk_valid_at(a, i) && lens >> (r.len < 63 ? r.len : 63) & 1)
        for (uint32_t j = 0; j < nc && !hit; j++) hit = str_eq(r, cs[j].s);
      o[i] = hit; /* a null row's value is unread: its validity says null */
    });
    return HADOS_OK;
  }
  VK_ROWS(k->v, {
    if (!vk_valid_at(d, i)) continue;
    uint8_t hit = 0;
    for (uint32_t j = 0; j < nc && !hit; j++)
      if (!cs[j].is_null && eq_const(a, i, &cs[j])) hit = 1;
    o[i] = hit;
    if (!hit && any_null) vk_set_null(d, k->v, i);
  });
  return HADOS_OK;
}

/* ---------------------------------------------------------------- FILTER */
VK_INLINE int filter_body(soft_kctx *k) {
  const soft_vec *v = k->v;
  const soft_reg *a = k->a;
  const uint8_t *x = a->data;
  uint16_t *s = k->sel_out;
  uint32_t n = 0;
  const uint32_t m = v->sel ? v->sel_n : v->n;
  if (a->all_valid) {
    if (v->sel) {
      const uint16_t *in = v->sel;
      for (uint32_t j = 0; j < m; j++) {
        uint16_t r = in[j];
        s[n] = r;
        n += x[r] != 0;
      }
    } else {
      for (uint32_t r = 0; r < m; r++) {
        s[n] = (uint16_t)r;
        n += x[r] != 0;
      }
    }
  } else {
    const uint8_t *va = a->valid;
    VK_ROWS(v, {
      s[n] = (uint16_t)i;
      n += (x[i] != 0) & (va[i] != 0);
    });
  }
  k->vout->sel = s;
  k->vout->sel_n = n;
  return HADOS_OK;
}
VK_TARGETS(k_filter, filter_body)

/* ---------------------------------------------------------------- SELECT */
/* One pass per row (dst may share storage with a, b or c: each row is read
   before it is written). */
#define SELECT_TYPE(T)                                                            \
  do {                                                                            \
    const T *x = (const T *)a->data, *y = (const T *)b->data;                     \
    T *o = (T *)d->data;                                                          \
    if (a->all_valid && b->all_valid && c->all_valid) {                           \
      VK_ROWS(v, o[i] = cv[i] ? x[i] : y[i]);                                     \
      d->all_valid = 1;                                                           \
    } else {                                                                      \
      uint8_t *dv = d->valid;                                                     \
      VK_ROWS(v, {                                                                \
        uint8_t take = cv[i] && vk_valid_at(c, i);                                \
        uint8_t ok = take ? vk_valid_at(a, i) : vk_valid_at(b, i);                \
        o[i] = take ? x[i] : y[i];                                                \
        dv[i] = ok;                                                               \
      });                                                                         \
      d->all_valid = 0;                                                           \
    }                                                                             \
  } while (0)

VK_INLINE int select_body(soft_kctx *k) {
  const soft_vec *v = k->v;
  const soft_reg *a = k->a, *b = k->b, *c = k->c;
  soft_reg *d = k->dst;
  const uint8_t *cv = c->data;
  switch (k->in->vtype) {
    case HADOS_VT_BOOL: SELECT_TYPE(uint8_t); break;
    case HADOS_VT_I32: SELECT_TYPE(int32_t); break;
    case HADOS_VT_I64: SELECT_TYPE(int64_t); break;
    case HADOS_VT_F64: SELECT_TYPE(double); break;
    case HADOS_VT_I128: SELECT_TYPE(i128); break;
    default: SELECT_TYPE(soft_str); break;
  }
  return HADOS_OK;
}
VK_TARGETS(k_select, select_body)

void soft_vk_register_cmp(soft_vkfn *fn, uint32_t simd) {
  for (uint32_t op = HADOS_K_EQ; op <= HADOS_K_GE; op++) fn[op] = VK_PICK(k_cmp, simd);
  fn[HADOS_K_EQ_NULLSAFE] = k_eq_nullsafe;
  fn[HADOS_K_AND] = k_and_or;
  fn[HADOS_K_OR] = k_and_or;
  fn[HADOS_K_NOT] = k_not;
  fn[HADOS_K_IS_NULL] = k_is_null;
  fn[HADOS_K_IS_NOT_NULL] = k_is_null;
  fn[HADOS_K_IN] = k_in;
  fn[HADOS_K_FILTER] = VK_PICK(k_filter, simd);
  fn[HADOS_K_SELECT] = VK_PICK(k_select, simd);
}
