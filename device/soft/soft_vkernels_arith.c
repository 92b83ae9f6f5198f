/*
 * soft_vkernels_arith.c — integer, double and decimal arithmetic kernels.
 *
 * Integers wrap (computed in unsigned arithmetic, so no C undefined
 * behaviour); integer DIV and MOD by zero give null and MIN / -1 wraps as
 * Java's does. Decimal kernels work on unscaled values: the common shapes
 * (both inputs I64 with small scale factors, I64 x I64 products) stay in
 * 128-bit arithmetic, or in 64-bit lanes when a per-vector bound on the
 * inputs rules out overflow (I64 sums and differences into I64, I128 x I64
 * products whose 128-bit operand fits 64 bits; otherwise the whole vector
 * takes the exact path); anything that could overflow 128 bits takes an exact
 * 256-bit slow path (u256 below: magnitude and sign, schoolbook multiply,
 * shift-subtract divide). Rounding is HALF_UP; a result that does not fit
 * the destination storage becomes null.
 */
#include "soft_vkernels.h"

/* Exact fmod (remainder with the sign of x) without libm: shift-subtract on
   the significands, as the hardware-less C libraries do. */
static double vk_fmod(double x, double y) {
  uint64_t ux, uy, r;
  memcpy(&ux, &x, 8);
  memcpy(&uy, &y, 8);
  int ex = (int)(ux >> 52 & 0x7ff), ey = (int)(uy >> 52 & 0x7ff);
  uint64_t sx = ux & (1ull << 63), mx = ux & ((1ull << 52) - 1), my = uy & ((1ull << 52) - 1);
  if (x != x || y != y || ex == 0x7ff || (uy << 1) == 0) return (x * y) / (x * y); /* NaN */
  if (ey == 0x7ff) return x;                                                        /* y infinite */
  if ((ux << 1) <= (uy << 1)) return (ux << 1) == (uy << 1) ? 0 * x : x;
  if (ex == 0) {
    int s = __builtin_clzll(mx) - 11;
    mx <<= s;
    ex = 1 - s;
  } else {
    mx |= 1ull << 52;
  }
  if (ey == 0) {
    int s = __builtin_clzll(my) - 11;
    my <<= s;
    ey = 1 - s;
  } else {
    my |= 1ull << 52;
  }
  for (; ex > ey; ex--) {
    if (mx >= my) {
      if (mx == my) return 0 * x;
      mx -= my;
    }
    mx <<= 1;
  }
  if (mx >= my) {
    if (mx == my) return 0 * x;
    mx -= my;
  }
  int s = __builtin_clzll(mx) - 11;
  mx <<= s;
  ex -= s;
  r = ex > 0 ? (mx - (1ull << 52)) | ((uint64_t)ex << 52) : mx >> (1 - ex);
  r |= sx;
  double out;
  memcpy(&out, &r, 8);
  return out;
}

const i128 soft_pow10_i128[39] = {
    (i128)1LL,
    (i128)10LL,
    (i128)100LL,
    (i128)1000LL,
    (i128)10000LL,
    (i128)100000LL,
    (i128)1000000LL,
    (i128)10000000LL,
    (i128)100000000LL,
    (i128)1000000000LL,
    (i128)10000000000LL,
    (i128)100000000000LL,
    (i128)1000000000000LL,
    (i128)10000000000000LL,
    (i128)100000000000000LL,
    (i128)1000000000000000LL,
    (i128)10000000000000000LL,
    (i128)100000000000000000LL,
    (i128)1000000000000000000LL,
    (i128)1000000000000000000LL * 10,
    (i128)1000000000000000000LL * 100,
    (i128)1000000000000000000LL * 1000,
    (i128)1000000000000000000LL * 10000,
    (i128)1000000000000000000LL * 100000,
    (i128)1000000000000000000LL * 1000000,
    (i128)1000000000000000000LL * 10000000,
    (i128)1000000000000000000LL * 100000000,
    (i128)1000000000000000000LL * 1000000000,
    (i128)1000000000000000000LL * 10000000000LL,
    (i128)1000000000000000000LL * 100000000000LL,
    (i128)1000000000000000000LL * 1000000000000LL,
    (i128)1000000000000000000LL * 10000000000000LL,
    (i128)1000000000000000000LL * 100000000000000LL,
    (i128)1000000000000000000LL * 1000000000000000LL,
    (i128)1000000000000000000LL * 10000000000000000LL,
    (i128)1000000000000000000LL * 100000000000000000LL,
    (i128)1000000000000000000LL * 1000000000000000000LL,
    (i128)1000000000000000000LL * 1000000000000000000LL * 10,
    (i128)1000000000000000000LL * 1000000000000000000LL * 100,
};

/* ---------------------------------------------------------------- integer / double */
#define ARITH_LOOPS(T, UT, A, B)                                                \
  switch (op) {                                                                 \
    case HADOS_K_ADD: VK_ROWS(v, o[i] = (T)((UT)(A) + (UT)(B))); break;         \
    case HADOS_K_SUB: VK_ROWS(v, o[i] = (T)((UT)(A) - (UT)(B))); break;         \
    default: VK_ROWS(v, o[i] = (T)((UT)(A) * (UT)(B))); break;                  \
  }

#define ARITH_TYPE(T, UT, KV)                                                   \
  do {                                                                          \
    T *o = (T *)d->data;                                                        \
    const T *x = (const T *)k->a->data, *y = (const T *)k->b->data;             \
    if (k->kb) {                                                                \
      const T cy = (T)(k->kb->KV);                                              \
      ARITH_LOOPS(T, UT, x[i], cy);                                             \
    } else if (k->ka) {                                                         \
      const T cx = (T)(k->ka->KV);                                              \
      ARITH_LOOPS(T, UT, cx, y[i]);                                             \
    } else {                                                                    \
      ARITH_LOOPS(T, UT, x[i], y[i]);                                           \
    }                                                                           \
  } while (0)

VK_INLINE int arith_body(soft_kctx *k) {
  const soft_vec *v = k->v;
  uint32_t op = k->in->op;
  soft_reg *d = k->dst;
  vk_valid2(d, k->a, k->b, v);
  switch (k->in->vtype) {
    case HADOS_VT_I32: ARITH_TYPE(int32_t, uint32_t, i); break;
    case HADOS_VT_I64: ARITH_TYPE(int64_t, uint64_t, i); break;
    default: ARITH_TYPE(double, double, f); break;
  }
  return HADOS_OK;
}
VK_TARGETS(k_arith, arith_body)

#define DIVMOD_INT(T, UT, MIN)                                                      \
  do {                                                                              \
    const T *x = (const T *)k->a->data, *y = (const T *)k->b->data;                 \
    T *o = (T *)d->data;                                                            \
    VK_ROWS(v, {                                                                    \
      T p = x[i], q = y[i];                                                         \
      if (q == 0) {                                                                 \
        o[i] = 0;                                                                   \
        vk_set_null(d, v, i);                                                       \
      } else if (q == -1) {                                                         \
        o[i] = is_div ? (T)(0 - (UT)p) : 0;                                         \
      } else {                                                                      \
        o[i] = is_div ? p / q : p % q;                                              \
      }                                                                             \
    });                                                                             \
  } while (0)

static int k_divmod(soft_kctx *k) {
  const soft_vec *v = k->v;
  soft_reg *d = k->dst;
  int is_div = k->in->op == HADOS_K_DIV;
  vk_valid2(d, k->a, k->b, v);
  switch (k->in->vtype) {
    case HADOS_VT_I32: DIVMOD_INT(int32_t, uint32_t, INT32_MIN); break;
    case HADOS_VT_I64: DIVMOD_INT(int64_t, uint64_t, INT64_MIN); break;
    default: {
      const double *x = k->a->data, *y = k->b->data;
      double *o = d->data;
      int zero_null = k->in->p1 == 1;
      VK_ROWS(v, {
        double p = x[i], q = y[i];
        if (zero_null && q == 0) {
          o[i] = 0;
          vk_set_null(d, v, i);
        } else {
          o[i] = is_div ? p / q : vk_fmod(p, q);
        }
      });
    }
  }
  return HADOS_OK;
}

static int k_neg(soft_kctx *k) {
  const soft_vec *v = k->v;
  soft_reg *d = k->dst;
  vk_valid1(d, k->a, v);
  switch (k->in->vtype) {
    case HADOS_VT_I32: {
      const int32_t *x = k->a->data;
      int32_t *o = d->data;
      VK_ROWS(v, o[i] = (int32_t)(0u - (uint32_t)x[i]));
      break;
    }
    case HADOS_VT_I64: {
      const int64_t *x = k->a->data;
      int64_t *o = d->data;
      VK_ROWS(v, o[i] = (int64_t)(0ull - (uint64_t)x[i]));
      break;
    }
    default: {
      const double *x = k->a->data;
      double *o = d->data;
      VK_ROWS(v, o[i] = -x[i]);
    }
  }
  return HADOS_OK;
}

/* ---------------------------------------------------------------- 256-bit */
typedef struct u256 {
  uint64_t w[4]; /* little-endian words */
} u256;

static u256 u256_of(u128 x) {
  u256 r = {{(uint64_t)x, (uint64_t)(x >> 64), 0, 0}};
  return r;
}

static int u256_is_zero(u256 a) { return !(a.w[0] | a.w[1] | a.w[2] | a.w[3]); }

static int u256_cmp(u256 a, u256 b) {
  for (int j = 3; j >= 0; j--)
    if (a.w[j] != b.w[j]) return a.w[j] < b.w[j] ? -1 : 1;
  return 0;
}

static u256 u256_sub(u256 a, u256 b) {
  u256 r;
  uint64_t borrow = 0;
  for (int j = 0; j < 4; j++) {
    u128 t = (u128)a.w[j] - b.w[j] - borrow;
    r.w[j] = (uint64_t)t;
    borrow = (uint64_t)(t >> 64) & 1;
  }
  return r;
}

static u256 u256_add1(u256 a) {
  for (int j = 0; j < 4; j++)
    if (++a.w[j]) break;
  return a;
}

/* a *= m; returns 1 on overflow of 256 bits. */
static int u256_mul_u64(u256 *a, uint64_t m) {
  u128 carry = 0;
  for (int j = 0; j < 4; j++) {
    u128 t = (u128)a->w[j] * m + carry;
    a->w[j] = (uint64_t)t;
    carry = t >> 64;
  }
  return carry != 0;
}

static u256 u256_mul128(u128 a, u128 b) {
  uint64_t x[2] = {(uint64_t)a, (uint64_t)(a >> 64)}, y[2] = {(uint64_t)b, (uint64_t)(b >> 64)};
  u256 r = {{0, 0, 0, 0}};
  for (int i = 0; i < 2; i++) {
    u128 carry = 0;
    for (int j = 0; j < 2; j++) {
      u128 t = (u128)x[i] * y[j] + r.w[i + j] + carry;
      r.w[i + j] = (uint64_t)t;
      carry = t >> 64;
    }
    r.w[i + 2] = (uint64_t)carry;
  }
  return r;
}

/* a *= 10^p; returns 1 on overflow. */
static int u256_mul_pow10(u256 *a, int p) {
  while (p > 0) {
    int s = p > 19 ? 19 : p;
    if (u256_mul_u64(a, (uint64_t)soft_pow10_i128[s])) return 1;
    p -= s;
  }
  return 0;
}

static int u256_bits(u256 a) {
  for (int j = 3; j >= 0; j--)
    if (a.w[j]) return 64 * j + 64 - __builtin_clzll(a.w[j]);
  return 0;
}

/* q = n / d, r = n % d (d != 0), by shift-subtract. */
static void u256_divmod(u256 n, u256 d, u256 *q, u256 *r) {
  u256 qq = {{0, 0, 0, 0}}, rr = {{0, 0, 0, 0}};
  for (int bit = u256_bits(n) - 1; bit >= 0; bit--) {
    for (int j = 3; j > 0; j--) rr.w[j] = (rr.w[j] << 1) | (rr.w[j - 1] >> 63);
    rr.w[0] = (rr.w[0] << 1) | ((n.w[bit / 64] >> (bit % 64)) & 1);
    if (u256_cmp(rr, d) >= 0) {
      rr = u256_sub(rr, d);
      qq.w[bit / 64] |= 1ULL << (bit % 64);
    }
  }
  *q = qq;
  *r = rr;
}

/* round_half_up(n / d) for magnitudes. */
static u256 u256_div_round(u256 n, u256 d) {
  u256 q, r;
  u256_divmod(n, d, &q, &r);
  /* r >= d - r  <=>  2r >= d */
  if (u256_cmp(r, u256_sub(d, r)) >= 0) q = u256_add1(q);
  return q;
}

static u128 mag128(i128 x) { return x < 0 ? (u128)0 - (u128)x : (u128)x; }

/* Signed magnitude to the storage of vtype; 0 if it does not fit. */
static int fit(u256 m, int neg, uint32_t vtype, i128 *out) {
  if (m.w[2] | m.w[3]) return 0;
  u128 x = (u128)m.w[0] | ((u128)m.w[1] << 64);
  u128 lim = vtype == HADOS_VT_I64 ? ((u128)1 << 63) : ((u128)1 << 127);
  if (x > lim - 1 + (u128)neg) return 0;
  *out = neg ? (i128)((u128)0 - x) : (i128)x;
  return 1;
}

static int fits_storage(i128 x, uint32_t vtype) { return vtype != HADOS_VT_I64 || (x >= INT64_MIN && x <= INT64_MAX); }

/* ---------------------------------------------------------------- decimal */
VK_INLINE i128 dec_get(const soft_reg *r, uint32_t vt, uint32_t i) {
  return vt == HADOS_VT_I64 ? (i128)((const int64_t *)r->data)[i] : ((const i128 *)r->data)[i];
}

/* Stores x into row i of dst, or makes the row null when x does not fit. */
VK_INLINE void dec_put(soft_reg *d, const soft_vec *v, uint32_t i, i128 x, int ok) {
  if (d->vtype == HADOS_VT_I64) {
    ok = ok && x >= INT64_MIN && x <= INT64_MAX;
    ((int64_t *)d->data)[i] = ok ? (int64_t)x : 0;
  } else {
    ((i128 *)d->data)[i] = ok ? x : 0;
  }
  if (!ok) vk_set_null(d, v, i);
}

/* Exact a * 10^sa + sign * b * 10^sb. */
static int dec_addsub_slow(i128 a, int sa, i128 b, int sb, int sub, uint32_t vt, i128 *out) {
  i128 x, y, r;
  if (sa > 38 || sb > 38) return 0;
  if (__builtin_mul_overflow(a, soft_pow10_i128[sa], &x) || __builtin_mul_overflow(b, soft_pow10_i128[sb], &y)) return 0;
  if (sub ? __builtin_sub_overflow(x, y, &r) : __builtin_add_overflow(x, y, &r)) return 0;
  *out = r;
  return fits_storage(r, vt);
}

/* Bound under which |x| * m < 2^62 (m = 10^s, s <= 18). */
VK_INLINE uint64_t narrow_lim(int64_t m) { return (uint64_t)(((int64_t)1 << 62) / m); }

/* x * ma + y * mb into an I64 destination in 64-bit lanes: rows run
   wrapping, vectorised, while a flag notes any input beyond the bound that
   rules out overflow (|x| * ma < 2^62 and |y| * mb < 2^62, so the sum fits);
   returns 0 — leaving the rows to the exact path — if one was. A constant
   operand is checked once. */
#define NARROW_ADD_LOOP(A, B)                                                                        \
  VK_ROWS(v, {                                                                                       \
    const int64_t a_ = (A), b_ = (B);                                                                \
    bad |= ((uint64_t)a_ + la > 2 * la) | ((uint64_t)b_ + lb > 2 * lb);                              \
    o[i] = (int64_t)((uint64_t)a_ * (uint64_t)ma + (uint64_t)b_ * (uint64_t)mb);                     \
  })
VK_INLINE int dec_addsub_narrow(soft_kctx *k, const int64_t *x, const int64_t *y, int64_t ma, int64_t mb, int64_t *o) {
  const soft_vec *v = k->v;
  const uint64_t la = narrow_lim(ma), lb = narrow_lim(mb < 0 ? -mb : mb);
  uint64_t bad = 0;
  if (k->ka) {
    const int64_t cx = k->ka->i;
    if ((uint64_t)cx + la > 2 * la) return 0;
    NARROW_ADD_LOOP(cx, y[i]);
  } else if (k->kb) {
    const int64_t cy = k->kb->i;
    if ((uint64_t)cy + lb > 2 * lb) return 0;
    NARROW_ADD_LOOP(x[i], cy);
  } else {
    NARROW_ADD_LOOP(x[i], y[i]);
  }
  return !bad;
}
#undef NARROW_ADD_LOOP

VK_INLINE int dec_addsub_body(soft_kctx *k) {
  const soft_vec *v = k->v;
  const hados_insn *in = k->in;
  soft_reg *d = k->dst;
  int sa = (int)(in->imm & 0xff), sb = (int)(in->imm >> 8 & 0xff), sub = in->op == HADOS_K_DEC_SUB;
  uint32_t ta = (uint32_t)in->p2, tb = (uint32_t)in->p3;
  vk_valid2(d, k->a, k->b, v);
  if (ta == HADOS_VT_I64 && tb == HADOS_VT_I64 && sa <= 18 && sb <= 18) {
    /* |a| * 10^18 + |b| * 10^18 < 2^127: no intermediate overflow. */
    const int64_t *x = k->a->data, *y = k->b->data;
    const i128 ma = soft_pow10_i128[sa], mb = soft_pow10_i128[sb] * (sub ? -1 : 1);
    if (d->vtype == HADOS_VT_I128) {
      if (dec_addsub_narrow(k, x, y, (int64_t)ma, (int64_t)mb, vk_narrow_buf(d))) {
        vk_set_narrow(d); /* every row fits 64 bits: the register stays narrow */
      } else {
        i128 *o = d->data;
        VK_ROWS(v, o[i] = (i128)x[i] * ma + (i128)y[i] * mb);
      }
    } else if (sa == 0 && sb == 0) {
      int64_t *o = d->data;
      VK_ROWS(v, {
        int64_t r;
        int of = sub ? __builtin_sub_overflow(x[i], y[i], &r) : __builtin_add_overflow(x[i], y[i], &r);
        o[i] = r;
        if (of) dec_put(d, v, i, 0, 0);
      });
    } else if (!dec_addsub_narrow(k, x, y, (int64_t)ma, (int64_t)mb, d->data)) {
      VK_ROWS(v, dec_put(d, v, i, (i128)x[i] * ma + (i128)y[i] * mb, 1));
    }
    return HADOS_OK;
  }
  VK_ROWS(v, {
    i128 r = 0;
    int ok = dec_addsub_slow(dec_get(k->a, ta, i), sa, dec_get(k->b, tb, i), sb, sub, d->vtype, &r);
    dec_put(d, v, i, r, ok);
  });
  return HADOS_OK;
}
VK_TARGETS(k_dec_addsub, dec_addsub_body)

/* round_half_up(x / 10^p), p in [1, 38], 128-bit. */
static inline i128 div_pow10_round(i128 x, int p) {
  i128 m = soft_pow10_i128[p];
  i128 q = x / m, r = x % m;
  if (r < 0) r = -r;
  if (r * 2 >= m) q += x < 0 ? -1 : 1;
  return q;
}

/* round_half_up(a * b / 10^p) exactly. */
static int dec_mul_slow(i128 a, i128 b, int p, uint32_t vt, i128 *out) {
  int neg = (a < 0) != (b < 0);
  u256 m = u256_mul128(mag128(a), mag128(b));
  if (p > 76) m = u256_of(0);
  else if (p > 0) {
    u256 den = u256_of(1);
    u256_mul_pow10(&den, p);
    m = u256_div_round(m, den);
  }
  return fit(m, neg && !u256_is_zero(m), vt, out);
}

/* I128 x I64 -> I128 without rounding when every selected a fits 64 bits
   (as products of 64-bit decimals usually do): one 64 x 64 -> 128 multiply
   per row, which cannot overflow. Returns 0, writing nothing that matters,
   when some a is wider. */
VK_INLINE int dec_mul_narrow(soft_kctx *k) {
  const soft_vec *v = k->v;
  const i128 *x = k->a->data;
  const int64_t *y = k->b->data;
  i128 *o = k->dst->data;
  uint64_t bad = 0;
  VK_ROWS(v, {
    const i128 a = x[i];
    bad |= (uint64_t)(a >> 64) ^ (uint64_t)((int64_t)a >> 63);
  });
  if (bad) return 0;
  if (k->kb) {
    const int64_t c = k->kb->i;
    VK_ROWS(v, o[i] = (i128)(int64_t)x[i] * c);
  } else {
    VK_ROWS(v, o[i] = (i128)(int64_t)x[i] * y[i]);
  }
  return 1;
}

VK_INLINE uint64_t vk_abs64(int64_t x) { return x < 0 ? 0 - (uint64_t)x : (uint64_t)x; }
VK_INLINE int vk_bits(uint64_t x) { return x ? 64 - __builtin_clzll(x) : 0; }

/* I64 x I64 -> I128 (no rounding) in 64-bit lanes into the narrow storage:
   the products wrap while ORs of the magnitudes bound them; when
   |a| < 2^ba and |b| < 2^bb with ba + bb <= 63 every product fits 64 bits
   and the register becomes narrow (returns 1). Otherwise returns 0 and the
   caller takes the 128-bit path. */
VK_INLINE int dec_mul_narrow64(soft_kctx *k, const int64_t *x, const int64_t *y) {
  const soft_vec *v = k->v;
  int64_t *o = vk_narrow_buf(k->dst);
  uint64_t ox = 0, oy = 0;
  if (k->kb) {
    const int64_t c = k->kb->i;
    oy = vk_abs64(c);
    VK_ROWS(v, {
      ox |= vk_abs64(x[i]);
      o[i] = (int64_t)((uint64_t)x[i] * (uint64_t)c);
    });
  } else {
    VK_ROWS(v, {
      ox |= vk_abs64(x[i]);
      oy |= vk_abs64(y[i]);
      o[i] = (int64_t)((uint64_t)x[i] * (uint64_t)y[i]);
    });
  }
  if (vk_bits(ox) + vk_bits(oy) > 63) return 0;
  vk_set_narrow(k->dst);
  return 1;
}

VK_INLINE int dec_mul_body(soft_kctx *k) {
  const soft_vec *v = k->v;
  const hados_insn *in = k->in;
  soft_reg *d = k->dst;
  int p = in->p1;
  uint32_t ta = (uint32_t)in->p2, tb = (uint32_t)in->p3;
  vk_valid2(d, k->a, k->b, v);
  if (ta == HADOS_VT_I64 && tb == HADOS_VT_I64) {
    const int64_t *x = k->a->data, *y = k->b->data;
    if (p == 0 && d->vtype == HADOS_VT_I128) {
      if (dec_mul_narrow64(k, x, y)) return HADOS_OK;
      i128 *o = d->data;
      if (k->kb) {
        const i128 c = (i128)k->kb->i;
        VK_ROWS(v, o[i] = (i128)x[i] * c);
      } else {
        VK_ROWS(v, o[i] = (i128)x[i] * y[i]);
      }
    } else if (p == 0) {
      int64_t *o = d->data;
      VK_ROWS(v, {
        int64_t r;
        int of = __builtin_mul_overflow(x[i], y[i], &r);
        o[i] = r;
        if (of) dec_put(d, v, i, 0, 0);
      });
    } else if (p <= 38) {
      VK_ROWS(v, dec_put(d, v, i, div_pow10_round((i128)x[i] * y[i], p), 1));
    } else {
      VK_ROWS(v, dec_put(d, v, i, 0, 1)); /* |a * b| < 10^38 rounds to 0 */
    }
    return HADOS_OK;
  }
  if (p == 0 && ta == HADOS_VT_I128 && tb == HADOS_VT_I64 && d->vtype == HADOS_VT_I128 && dec_mul_narrow(k))
    return HADOS_OK;
  /* 128-bit operands: multiply with an overflow check and take the exact
     256-bit path only for the rows that need it */
  VK_ROWS(v, {
    i128 r = 0, prod;
    int ok;
    if (!__builtin_mul_overflow(dec_get(k->a, ta, i), dec_get(k->b, tb, i), &prod) && p <= 38) {
      r = p > 0 ? div_pow10_round(prod, p) : prod;
      ok = d->vtype == HADOS_VT_I128 || (r >= INT64_MIN && r <= INT64_MAX);
    } else {
      ok = dec_mul_slow(dec_get(k->a, ta, i), dec_get(k->b, tb, i), p, d->vtype, &r);
    }
    dec_put(d, v, i, r, ok);
  });
  return HADOS_OK;
}
VK_TARGETS(k_dec_mul, dec_mul_body)

/* round_half_up(a * 10^p / b) (p may be negative: a / (b * 10^-p)). */
static int dec_div_one(i128 a, i128 b, int p, uint32_t vt, i128 *out) {
  if (b == 0 || p > 76 || p < -76) return 0;
  int neg = (a < 0) != (b < 0);
  u256 n = u256_of(mag128(a)), den = u256_of(mag128(b));
  if (p >= 0 ? u256_mul_pow10(&n, p) : u256_mul_pow10(&den, -p)) return 0;
  if (p >= 0 && n.w[2] == 0 && n.w[3] == 0 && den.w[1] == 0 && den.w[2] == 0 && den.w[3] == 0) {
    /* 128-by-64 bits: native division */
    u128 nn = (u128)n.w[0] | ((u128)n.w[1] << 64), dd = den.w[0];
    u128 q = nn / dd, r = nn % dd;
    if (r >= dd - r) q++;
    return fit(u256_of(q), neg && q != 0, vt, out);
  }
  u256 q = u256_div_round(n, den);
  return fit(q, neg && !u256_is_zero(q), vt, out);
}

/* (a * 10^sa) % (b * 10^sb), sign of the dividend. */
static int dec_mod_one(i128 a, int sa, i128 b, int sb, uint32_t vt, i128 *out) {
  if (b == 0) return 0;
  u256 n = u256_of(mag128(a)), den = u256_of(mag128(b)), q, r;
  if (u256_mul_pow10(&n, sa) || u256_mul_pow10(&den, sb)) return 0;
  u256_divmod(n, den, &q, &r);
  return fit(r, a < 0 && !u256_is_zero(r), vt, out);
}

static int k_dec_divmod(soft_kctx *k) {
  const soft_vec *v = k->v;
  const hados_insn *in = k->in;
  soft_reg *d = k->dst;
  uint32_t ta = (uint32_t)in->p2, tb = (uint32_t)in->p3;
  int sa = (int)(in->imm & 0xff), sb = (int)(in->imm >> 8 & 0xff);
  vk_valid2(d, k->a, k->b, v);
  VK_ROWS(v, {
    if (!vk_valid_at(d, i)) continue;
    i128 r = 0, x = dec_get(k->a, ta, i), y = dec_get(k->b, tb, i);
    int ok = in->op == HADOS_K_DEC_DIV ? dec_div_one(x, y, in->p1, d->vtype, &r) : dec_mod_one(x, sa, y, sb, d->vtype, &r);
    dec_put(d, v, i, r, ok);
  });
  return HADOS_OK;
}

static int k_dec_check(soft_kctx *k) {
  const soft_vec *v = k->v;
  soft_reg *d = k->dst;
  const i128 lim = soft_pow10_i128[k->in->p1] - 1;
  vk_valid1(d, k->a, v);
  if (d->vtype == HADOS_VT_I128 && k->in->p2 == HADOS_VT_I64) { /* a narrow operand (the interpreter says so in p2) */
    const int64_t *x = k->a->data;
    if (k->in->p1 >= 19) { /* every int64 fits: a copy, and the result stays narrow */
      int64_t *o = vk_narrow_buf(d);
      VK_ROWS(v, o[i] = x[i]);
      vk_set_narrow(d);
      return HADOS_OK;
    }
    i128 *o = d->data;
    VK_ROWS(v, {
      i128 y = x[i];
      o[i] = y;
      if (y > lim || y < -lim) vk_set_null(d, v, i);
    });
    return HADOS_OK;
  }
  if (d->vtype == HADOS_VT_I64) {
    const int64_t *x = k->a->data;
    int64_t *o = d->data;
    VK_ROWS(v, {
      int64_t y = x[i];
      o[i] = y;
      if (y > lim || y < -lim) vk_set_null(d, v, i);
    });
  } else {
    const i128 *x = k->a->data;
    i128 *o = d->data;
    VK_ROWS(v, {
      i128 y = x[i];
      o[i] = y;
      if (y > lim || y < -lim) vk_set_null(d, v, i);
    });
  }
  return HADOS_OK;
}

/* x * 10^p (p >= 0) or round_half_up(x / 10^-p), to vtype. */
int soft_dec_rescale(i128 x, int p, uint32_t vt, i128 *out) {
  if (p == 0) {
    *out = x;
    return fits_storage(x, vt);
  }
  if (p > 0) {
    i128 r;
    if (p <= 38 && !__builtin_mul_overflow(x, soft_pow10_i128[p], &r)) {
      *out = r;
      return fits_storage(r, vt);
    }
    return 0; /* |x| >= 1 times 10^39 overflows 128 bits; x == 0 took the branch above */
  }
  if (-p <= 38) {
    *out = div_pow10_round(x, -p);
    return fits_storage(*out, vt);
  }
  *out = 0; /* |x| < 2^127 < 0.5 * 10^39 */
  return 1;
}

VK_INLINE int dec_rescale_body(soft_kctx *k) {
  const soft_vec *v = k->v;
  soft_reg *d = k->dst;
  uint32_t ta = (uint32_t)k->in->p2;
  int p = k->in->p1;
  vk_valid1(d, k->a, v);
  if (ta == HADOS_VT_I64 && d->vtype == HADOS_VT_I128 && p >= 0 && p <= 18) {
    /* widening (and scaling up) a 64-bit value: |x| * 10^18 < 2^127, exact */
    const int64_t *x = k->a->data;
    const i128 m = soft_pow10_i128[p];
    /* narrow when every |x| * 10^p < 2^62 */
    const uint64_t lim = narrow_lim((int64_t)m);
    int64_t *n64 = vk_narrow_buf(d);
    uint64_t bad = 0;
    VK_ROWS(v, {
      bad |= (uint64_t)x[i] + lim > 2 * lim;
      n64[i] = (int64_t)((uint64_t)x[i] * (uint64_t)m);
    });
    if (!bad) {
      vk_set_narrow(d);
      return HADOS_OK;
    }
    i128 *o = d->data;
    VK_ROWS(v, o[i] = (i128)x[i] * m);
    return HADOS_OK;
  }
  if (ta == HADOS_VT_I128 && d->vtype == HADOS_VT_I64 && p == 0) {
    /* narrowing: Arrow stores every decimal in 16 bytes, registers of
       precision <= 18 hold 8 */
    const i128 *x = k->a->data;
    int64_t *o = d->data;
    uint64_t bad = 0;
    VK_ROWS(v, {
      o[i] = (int64_t)x[i];
      bad |= (i128)o[i] != x[i];
    });
    if (bad) /* rare: values beyond 64 bits become null */
      VK_ROWS(v, if ((i128)o[i] != x[i]) dec_put(d, v, i, 0, 0));
    return HADOS_OK;
  }
  if (ta == d->vtype && p >= 0 && p <= 18 && ta == HADOS_VT_I64) {
    const int64_t *x = k->a->data, m = (int64_t)soft_pow10_i128[p];
    int64_t *o = d->data;
    VK_ROWS(v, {
      if (__builtin_mul_overflow(x[i], m, &o[i])) dec_put(d, v, i, 0, 0);
    });
    return HADOS_OK;
  }
  VK_ROWS(v, {
    i128 r = 0;
    int ok = soft_dec_rescale(dec_get(k->a, ta, i), p, d->vtype, &r);
    dec_put(d, v, i, r, ok);
  });
  return HADOS_OK;
}
VK_TARGETS(k_dec_rescale, dec_rescale_body)

void soft_vk_register_arith(soft_vkfn *fn, uint32_t simd) {
  fn[HADOS_K_ADD] = VK_PICK(k_arith, simd);
  fn[HADOS_K_SUB] = VK_PICK(k_arith, simd);
  fn[HADOS_K_MUL] = VK_PICK(k_arith, simd);
  fn[HADOS_K_DIV] = k_divmod;
  fn[HADOS_K_MOD] = k_divmod;
  fn[HADOS_K_NEG] = k_neg;
  fn[HADOS_K_DEC_ADD] = VK_PICK(k_dec_addsub, simd);
  fn[HADOS_K_DEC_SUB] = VK_PICK(k_dec_addsub, simd);
  fn[HADOS_K_DEC_MUL] = VK_PICK(k_dec_mul, simd);
  fn[HADOS_K_DEC_DIV] = k_dec_divmod;
  fn[HADOS_K_DEC_MOD] = k_dec_divmod;
  fn[HADOS_K_DEC_CHECK] = k_dec_check;
  fn[HADOS_K_DEC_RESCALE] = VK_PICK(k_dec_rescale, simd);
}
