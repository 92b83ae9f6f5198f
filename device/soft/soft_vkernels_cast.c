/*
 * soft_vkernels_cast.c — cast kernels.
 *
 * Numeric casts follow Spark's non-ANSI rules: I64 -> I32 wraps, double ->
 * integer truncates with NaN giving 0 and saturation at the limits, casts
 * into decimals make overflowing values null. String parsing trims leading
 * and trailing whitespace and control characters as UTF8String does; an
 * invalid string gives null. Decimals parsed from strings are exact (the
 * digits are rescaled and rounded HALF_UP on the first dropped digit); a
 * double becomes a decimal through its shortest round-trip decimal text,
 * as Spark's BigDecimal(double) does.
 *
 * Every operand type is the register's own (the interpreter has checked it
 * against the instruction's p2 where the header names one).
 */
#include <stdio.h>
#include <stdlib.h>

#define VK_NAN (__builtin_nan(""))
#define VK_INF (__builtin_inf())

#include "soft_vkernels.h"

/* ---------------------------------------------------------------- dates */
/* Days since 1970-01-01 of a proleptic Gregorian date (Hinnant's
   days_from_civil), and back. */
int64_t soft_days_from_civil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = (unsigned)(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + (int64_t)doe - 719468;
}

void soft_civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const unsigned doe = (unsigned)(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  *d = doy - (153 * mp + 2) / 5 + 1;
  *m = mp < 10 ? mp + 3 : mp - 9;
  *y = (int64_t)yoe + era * 400 + (*m <= 2);
}

static int is_leap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

static unsigned month_days(int64_t y, unsigned m) {
  static const unsigned md[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && is_leap(y) ? 29 : md[m - 1];
}

/* ---------------------------------------------------------------- parsing */
static int trim_byte(uint8_t c) { return c <= 0x20 || c == 0x7f; }

/* Trims whitespace and control characters from both ends. */
static soft_str trim(soft_str s) {
  while (s.len && trim_byte(s.ptr[0])) s.ptr++, s.len--;
  while (s.len && trim_byte(s.ptr[s.len - 1])) s.len--;
  return s;
}

/* Spark's string -> date: [+-]yyyy[-m[m][-d[d]]] then end, ' ' or 'T'
   (the rest ignored); year 4 to 7 digits. */
static int parse_date(soft_str s, int32_t *out) {
  s = trim(s);
  uint32_t j = 0;
  int neg = 0;
  if (j < s.len && (s.ptr[j] == '-' || s.ptr[j] == '+')) neg = s.ptr[j++] == '-';
  int64_t seg[3] = {0, 1, 1};
  int i = 0, digits = 0;
  int64_t cur = 0;
  for (; j < s.len; j++) {
    uint8_t c = s.ptr[j];
    if (c == ' ' || c == 'T') break;
    if (c == '-' && i < 2) {
      if (i == 0 ? (digits < 4 || digits > 7) : (digits < 1 || digits > 2)) return 0;
      seg[i++] = cur;
      cur = 0;
      digits = 0;
      continue;
    }
    if (c < '0' || c > '9') return 0;
    cur = cur * 10 + (c - '0');
    if (++digits > 7) return 0;
  }
  if (i == 0 ? (digits < 4 || digits > 7) : (digits < 1 || digits > 2)) return 0;
  if (j < s.len && i == 0 && digits == 0) return 0;
  seg[i] = cur;
  int64_t y = neg ? -seg[0] : seg[0];
  if (seg[1] < 1 || seg[1] > 12 || seg[2] < 1 || seg[2] > month_days(y, (unsigned)seg[1])) return 0;
  int64_t days = soft_days_from_civil(y, (unsigned)seg[1], (unsigned)seg[2]);
  if (days < INT32_MIN || days > INT32_MAX) return 0;
  *out = (int32_t)days;
  return 1;
}

/* Spark's string -> integer (UTF8String.toLong/toInt with allowDecimal):
   [+-][digits][.[digits]] with the fraction checked and truncated. As in
   Spark, no digit is required: ".", "+." and "-." are 0, while "", "+" and
   "-" (nothing but a sign) are invalid. */
static int parse_int(soft_str s, int64_t lo, int64_t hi, int64_t *out) {
  s = trim(s);
  if (s.len == 0) return 0;
  uint32_t j = 0;
  int neg = 0;
  if (s.ptr[0] == '-' || s.ptr[0] == '+') {
    if (s.len == 1) return 0;
    neg = s.ptr[j++] == '-';
  }
  u128 acc = 0;
  for (; j < s.len && s.ptr[j] >= '0' && s.ptr[j] <= '9'; j++) {
    acc = acc * 10 + (s.ptr[j] - '0');
    if (acc > ((u128)1 << 64)) return 0;
  }
  if (j < s.len && s.ptr[j] == '.') {
    j++;
    while (j < s.len && s.ptr[j] >= '0' && s.ptr[j] <= '9') j++;
  }
  if (j != s.len) return 0;
  i128 v = neg ? -(i128)acc : (i128)acc;
  if (v < lo || v > hi) return 0;
  *out = (int64_t)v;
  return 1;
}

static int ieq(soft_str s, const char *lit) {
  size_t n = strlen(lit);
  if (s.len != n) return 0;
  for (size_t i = 0; i < n; i++) {
    uint8_t c = s.ptr[i];
    if (c >= 'A' && c <= 'Z') c += 32;
    if (c != (uint8_t)lit[i]) return 0;
  }
  return 1;
}

/* Spark's string -> double (Java's Double.parseDouble plus the special
   literals inf, infinity and nan in any case, signed). */
static int parse_f64(soft_str s, double *out) {
  s = trim(s);
  soft_str t = s;
  int neg = 0;
  if (t.len && (t.ptr[0] == '+' || t.ptr[0] == '-')) neg = t.ptr[0] == '-', t.ptr++, t.len--;
  if (ieq(t, "inf") || ieq(t, "infinity")) {
    *out = neg ? -VK_INF : VK_INF;
    return 1;
  }
  if (ieq(s, "nan")) {
    *out = VK_NAN;
    return 1;
  }
  if (s.len && (s.ptr[s.len - 1] | 32) == 'd') s.len--;
  else if (s.len && (s.ptr[s.len - 1] | 32) == 'f') s.len--;
  if (s.len == 0 || s.len > 400) return 0;
  char buf[401];
  int digits = 0;
  for (uint32_t i = 0; i < s.len; i++) {
    uint8_t c = s.ptr[i];
    if (!((c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-')) return 0;
    digits += c >= '0' && c <= '9';
    buf[i] = (char)c;
  }
  buf[s.len] = 0;
  if (!digits) return 0;
  char *end;
  double d = strtod(buf, &end);
  if (end != buf + s.len) return 0;
  *out = d;
  return 1;
}

/* A decimal text [+-]digits[.digits][e[+-]digits] rounded HALF_UP to
   scale `scale`; 0 if invalid, not within precision `prec` or the storage. */
static int parse_dec(soft_str s, int scale, int prec, uint32_t vt, i128 *out) {
  s = trim(s);
  uint32_t j = 0;
  int neg = 0;
  if (j < s.len && (s.ptr[j] == '-' || s.ptr[j] == '+')) neg = s.ptr[j++] == '-';
  uint32_t d0 = j;
  uint8_t digs[128];
  int nd = 0, frac = 0, seen_dot = 0, any = 0;
  for (; j < s.len; j++) {
    uint8_t c = s.ptr[j];
    if (c == '.' && !seen_dot) {
      seen_dot = 1;
      continue;
    }
    if (c < '0' || c > '9') break;
    any = 1;
    if (nd == 0 && c == '0') { /* leading zero: no significant digit */
      if (seen_dot) frac++;
      continue;
    }
    if (nd == (int)sizeof(digs)) return 0;
    digs[nd++] = (uint8_t)(c - '0');
    if (seen_dot) frac++;
  }
  (void)d0;
  if (!any) return 0;
  int64_t exp = 0;
  if (j < s.len && (s.ptr[j] == 'e' || s.ptr[j] == 'E')) {
    int eneg = 0, ed = 0;
    j++;
    if (j < s.len && (s.ptr[j] == '-' || s.ptr[j] == '+')) eneg = s.ptr[j++] == '-';
    for (; j < s.len && s.ptr[j] >= '0' && s.ptr[j] <= '9'; j++, ed++)
      if (exp < 100000) exp = exp * 10 + (s.ptr[j] - '0');
    if (!ed) return 0;
    if (eneg) exp = -exp;
  }
  if (j != s.len) return 0;
  /* value = D * 10^(exp - frac); unscaled = D * 10^(exp - frac + scale) */
  int64_t shift = exp - frac + scale;
  int keep = nd;
  uint8_t round = 0;
  if (shift < 0) {
    if (-shift > nd) {
      keep = 0;
    } else {
      keep = nd + (int)shift;
      round = keep < nd && digs[keep] >= 5;
    }
    shift = 0;
  }
  if (keep > 38 || shift > 38) return nd == 0 ? (*out = 0, 1) : 0;
  i128 v = 0;
  for (int i = 0; i < keep; i++) v = v * 10 + digs[i];
  v += round;
  if (v != 0 && __builtin_mul_overflow(v, soft_pow10_i128[shift], &v)) return 0;
  if (prec > 0 && prec <= 38 && v >= soft_pow10_i128[prec]) return 0;
  if (neg) v = -v;
  if (vt == HADOS_VT_I64 && (v > INT64_MAX || v < INT64_MIN)) return 0;
  *out = v;
  return 1;
}

/* ---------------------------------------------------------------- kernels */
VK_INLINE void put_int(soft_reg *d, uint32_t i, int64_t x) {
  if (d->vtype == HADOS_VT_I32)
    ((int32_t *)d->data)[i] = (int32_t)x;
  else
    ((int64_t *)d->data)[i] = x;
}

VK_INLINE void put_dec(soft_reg *d, const soft_vec *v, uint32_t i, i128 x, int ok) {
  if (!ok) x = 0;
  if (d->vtype == HADOS_VT_I64)
    ((int64_t *)d->data)[i] = (int64_t)x;
  else
    ((i128 *)d->data)[i] = x;
  if (!ok) vk_set_null(d, v, i);
}

VK_INLINE i128 get_num(const soft_reg *r, uint32_t i) {
  switch (r->vtype) {
    case HADOS_VT_I32: return ((const int32_t *)r->data)[i];
    case HADOS_VT_I64: return ((const int64_t *)r->data)[i];
    default: return ((const i128 *)r->data)[i];
  }
}

/* Arena-allocated text view for row i; 0 when the arena is full. */
static int put_text(soft_kctx *k, uint32_t i, const char *txt, int n) {
  uint8_t *p = vk_arena(k->arena, (uint64_t)n);
  if (!p) return soft_fail(HADOS_E_NOMEM, "pipeline: instruction %u: string arena of %llu bytes full", k->index,
                           (unsigned long long)k->arena->cap);
  memcpy(p, txt, (size_t)n);
  soft_str *o = k->dst->data;
  o[i].ptr = p;
  o[i].len = (uint32_t)n;
  o[i].pad = 0;
  return HADOS_OK;
}

/* 10^p as the nearest double (literals: the compiler rounds them exactly). */
static double pow10d(int p) {
  static const double t[39] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11, 1e12,
                               1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22, 1e23, 1e24, 1e25,
                               1e26, 1e27, 1e28, 1e29, 1e30, 1e31, 1e32, 1e33, 1e34, 1e35, 1e36, 1e37, 1e38};
  return t[p];
}

static int k_cast(soft_kctx *k) {
  const soft_vec *v = k->v;
  const hados_insn *in = k->in;
  const soft_reg *a = k->a;
  soft_reg *d = k->dst;
  vk_valid1(d, a, v);
  switch (in->op) {
    case HADOS_K_CAST_I32_I64: {
      const int32_t *x = a->data;
      int64_t *o = d->data;
      VK_ROWS(v, o[i] = x[i]);
      break;
    }
    case HADOS_K_CAST_I64_I32: {
      const int64_t *x = a->data;
      int32_t *o = d->data;
      VK_ROWS(v, o[i] = (int32_t)(uint32_t)(uint64_t)x[i]);
      break;
    }
    case HADOS_K_CAST_TO_F64: { /* I128 only: I32 / I64 run in k_cast_f64 */
      double *o = d->data;
      double div = pow10d(in->p1);
      if (in->p1 == 0)
        VK_ROWS(v, o[i] = (double)get_num(a, i));
      else
        VK_ROWS(v, o[i] = (double)get_num(a, i) / div);
      break;
    }
    case HADOS_K_CAST_F64_TO_DEC: {
      const double *x = a->data;
      VK_ROWS(v, {
        i128 r = 0;
        int ok = 0;
        double f = x[i];
        if (vk_valid_at(d, i) && __builtin_isfinite(f)) {
          char buf[40];
          for (int p = 15; p <= 17; p++) { /* shortest text that reads back as f */
            snprintf(buf, sizeof buf, "%.*e", p - 1, f);
            if (strtod(buf, NULL) == f) break;
          }
          soft_str t = {(const uint8_t *)buf, (uint32_t)strlen(buf), 0};
          ok = parse_dec(t, in->p1, in->p3, d->vtype, &r);
        }
        put_dec(d, v, i, r, ok);
      });
      break;
    }
    case HADOS_K_CAST_DEC_TO_INT: {
      int64_t lo = d->vtype == HADOS_VT_I32 ? INT32_MIN : INT64_MIN, hi = d->vtype == HADOS_VT_I32 ? INT32_MAX : INT64_MAX;
      VK_ROWS(v, {
        i128 x = get_num(a, i);
        x = in->p1 > 38 ? 0 : x / soft_pow10_i128[in->p1];
        put_int(d, i, x < lo || x > hi ? 0 : (int64_t)x);
        if (x < lo || x > hi) vk_set_null(d, v, i);
      });
      break;
    }
    case HADOS_K_CAST_INT_TO_DEC:
      if (d->vtype == HADOS_VT_I128 && in->p1 >= 0 && in->p1 <= 18) {
        /* |x| < 2^63 and 10^18 < 2^60: the product fits 128 bits, exact */
        const i128 m = soft_pow10_i128[in->p1];
        i128 *o = d->data;
        if (a->vtype == HADOS_VT_I64) {
          const int64_t *x = a->data;
          if (in->p1 == 0) VK_ROWS(v, o[i] = x[i]);
          else VK_ROWS(v, o[i] = (i128)x[i] * m);
        } else {
          const int32_t *x = a->data;
          VK_ROWS(v, o[i] = (i128)x[i] * m);
        }
        break;
      }
      VK_ROWS(v, {
        i128 r = 0;
        int ok = soft_dec_rescale(get_num(a, i), in->p1, d->vtype, &r);
        put_dec(d, v, i, r, ok);
      });
      break;
    case HADOS_K_CAST_F64_TO_INT: {
      const double *x = a->data;
      int is32 = d->vtype == HADOS_VT_I32;
      VK_ROWS(v, {
        double f = x[i];
        int64_t r;
        if (f != f) r = 0;
        else if (is32) r = f >= 2147483647.0 ? INT32_MAX : f <= -2147483648.0 ? INT32_MIN : (int64_t)f;
        else r = f >= 9223372036854775807.0 ? INT64_MAX : f <= -9223372036854775808.0 ? INT64_MIN : (int64_t)f;
        put_int(d, i, r);
      });
      break;
    }
    case HADOS_K_CAST_STR_TO_DATE: {
      const soft_str *x = a->data;
      int32_t *o = d->data;
      VK_ROWS(v, {
        int32_t r = 0;
        int ok = vk_valid_at(d, i) && parse_date(x[i], &r);
        o[i] = r;
        if (!ok) vk_set_null(d, v, i);
      });
      break;
    }
    case HADOS_K_CAST_STR_TO_INT: {
      const soft_str *x = a->data;
      int64_t lo = d->vtype == HADOS_VT_I32 ? INT32_MIN : INT64_MIN, hi = d->vtype == HADOS_VT_I32 ? INT32_MAX : INT64_MAX;
      VK_ROWS(v, {
        int64_t r = 0;
        int ok = vk_valid_at(d, i) && parse_int(x[i], lo, hi, &r);
        put_int(d, i, r);
        if (!ok) vk_set_null(d, v, i);
      });
      break;
    }
    case HADOS_K_CAST_STR_TO_F64: {
      const soft_str *x = a->data;
      double *o = d->data;
      VK_ROWS(v, {
        double r = 0;
        int ok = vk_valid_at(d, i) && parse_f64(x[i], &r);
        o[i] = r;
        if (!ok) vk_set_null(d, v, i);
      });
      break;
    }
    case HADOS_K_CAST_STR_TO_DEC: {
      const soft_str *x = a->data;
      VK_ROWS(v, {
        i128 r = 0;
        int ok = vk_valid_at(d, i) && parse_dec(x[i], in->p1, in->p3, d->vtype, &r);
        put_dec(d, v, i, r, ok);
      });
      break;
    }
    case HADOS_K_CAST_DATE_TO_STR: {
      const int32_t *x = a->data;
      int st = HADOS_OK;
      VK_ROWS(v, {
        if (st) break;
        int64_t y;
        unsigned m, dd;
        char buf[32];
        soft_civil_from_days(x[i], &y, &m, &dd);
        int n = snprintf(buf, sizeof buf, "%04lld-%02u-%02u", (long long)y, m, dd);
        st = put_text(k, i, buf, n);
      });
      return st;
    }
    case HADOS_K_CAST_INT_TO_STR: {
      int st = HADOS_OK;
      VK_ROWS(v, {
        if (st) break;
        char buf[24];
        int n = snprintf(buf, sizeof buf, "%lld", (long long)get_num(a, i));
        st = put_text(k, i, buf, n);
      });
      return st;
    }
    case HADOS_K_CAST_TS_TO_DATE: {
      const int64_t *x = a->data;
      int32_t *o = d->data;
      const int64_t day = 86400000000LL;
      VK_ROWS(v, {
        int64_t t = x[i], q = t / day;
        if (t % day < 0) q--;
        o[i] = (int32_t)q;
      });
      break;
    }
    default: { /* HADOS_K_CAST_DATE_TO_TS */
      const int32_t *x = a->data;
      int64_t *o = d->data;
      VK_ROWS(v, o[i] = (int64_t)x[i] * 86400000000LL);
    }
  }
  return HADOS_OK;
}

/* CAST_TO_F64 of an I32 / I64 register (ints, and decimals stored in 64
   bits: p1 is the scale) in typed loops the compiler vectorises; the
   conversion of an int64 to double is the same correctly rounded value as
   that of the same number widened to 128 bits first, as k_cast does for
   I128. */
VK_INLINE int cast_f64_body(soft_kctx *k) {
  const soft_vec *v = k->v;
  const soft_reg *a = k->a;
  soft_reg *d = k->dst;
  if (a->vtype == HADOS_VT_I128) return k_cast(k);
  vk_valid1(d, a, v);
  double *o = d->data;
  const uint32_t p = k->in->p1;
  const double div = pow10d((int)p);
  if (a->vtype == HADOS_VT_I32) {
    const int32_t *x = a->data;
    if (p == 0)
      VK_ROWS(v, o[i] = (double)x[i]);
    else
      VK_ROWS(v, o[i] = (double)x[i] / div);
  } else {
    const int64_t *x = a->data;
    if (p == 0)
      VK_ROWS(v, o[i] = (double)x[i]);
    else
      VK_ROWS(v, o[i] = (double)x[i] / div);
  }
  return HADOS_OK;
}
VK_TARGETS(k_cast_f64, cast_f64_body)

void soft_vk_register_cast(soft_vkfn *fn, uint32_t simd) {
  for (uint32_t op = HADOS_K_CAST_I32_I64; op <= HADOS_K_CAST_DATE_TO_TS; op++) fn[op] = k_cast;
  fn[HADOS_K_CAST_TO_F64] = VK_PICK(k_cast_f64, simd);
}
