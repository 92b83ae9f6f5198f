/*
 * soft_vkernels_str.c — date and string kernels.
 *
 * Dates are I32 days since 1970-01-01 in the proleptic Gregorian calendar
 * (soft_civil_from_days). Strings are soft_str views; SUBSTR returns views
 * into its input (no copy). Character counting is UTF-8 aware: a character
 * starts at every byte that is not a continuation byte (10xxxxxx), so
 * LENGTH, SUBSTR and LIKE's '_' count characters as Spark does for valid
 * UTF-8 (invalid sequences count byte by byte).
 */
#define _GNU_SOURCE /* memmem */
#include <immintrin.h>
#include <stdlib.h>

#include "soft_vkernels.h"

/* ---------------------------------------------------------------- dates */
static int k_date_part(soft_kctx *k) {
  const int32_t *x = k->a->data;
  int32_t *o = k->dst->data;
  uint32_t op = k->in->op;
  vk_valid1(k->dst, k->a, k->v);
  VK_ROWS(k->v, {
    int64_t y;
    unsigned m, d;
    soft_civil_from_days(x[i], &y, &m, &d);
    o[i] = op == HADOS_K_YEAR ? (int32_t)y : op == HADOS_K_MONTH ? (int32_t)m : (int32_t)d;
  });
  return HADOS_OK;
}

static int k_date_add(soft_kctx *k) {
  const int32_t *x = k->a->data, *y = k->b->data;
  int32_t *o = k->dst->data;
  vk_valid2(k->dst, k->a, k->b, k->v);
  VK_ROWS(k->v, o[i] = (int32_t)((uint32_t)x[i] + (uint32_t)y[i]));
  return HADOS_OK;
}

/* ---------------------------------------------------------------- UTF-8 */
static inline int is_cont(uint8_t c) { return (c & 0xC0) == 0x80; }

static uint32_t utf8_chars(soft_str s) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < s.len; i++) n += !is_cont(s.ptr[i]);
  return n;
}

/* Byte offset of character c (clipped to the end). */
static uint32_t utf8_offset(soft_str s, int64_t c) {
  uint32_t i = 0;
  while (i < s.len && c > 0) {
    i++;
    while (i < s.len && is_cont(s.ptr[i])) i++;
    c--;
  }
  return i;
}

/* Bytes of the character starting at s[i] (at least 1, clipped to n). */
static inline uint32_t char_len(const uint8_t *s, uint32_t i, uint32_t n) {
  uint32_t j = i + 1;
  while (j < n && is_cont(s[j])) j++;
  return j - i;
}

/* ---------------------------------------------------------------- substring search */
/* A finder returns the leftmost occurrence of needle nd (nn bytes) in the
   haystack h (hn bytes), or NULL. */
typedef const uint8_t *(*str_finder)(const uint8_t *h, uint32_t hn, const uint8_t *nd, uint32_t nn);

static const uint8_t *find_mem(const uint8_t *h, uint32_t hn, const uint8_t *nd, uint32_t nn) {
  return memmem(h, hn, nd, nn);
}

/* find_avx2 tests 32 positions at a time on the needle's first and last
   bytes and compares the middle only where both match (filters and LIKE
   look for words such as "special" in comments of tens of bytes, where
   memmem's setup dominates). Loads stay inside the haystack; positions a
   whole block cannot cover are tested one at a time. */
__attribute__((target("avx2"))) static const uint8_t *find_avx2(const uint8_t *h, uint32_t hn, const uint8_t *nd, uint32_t nn) {
  if (nn == 0) return h;
  if (nn > hn) return NULL;
  if (nn == 1) return memchr(h, nd[0], hn);
  const __m256i first = _mm256_set1_epi8((char)nd[0]), last = _mm256_set1_epi8((char)nd[nn - 1]);
  uint32_t i = 0;
  for (; i + nn - 1 + 32 <= hn; i += 32) {
    __m256i bf = _mm256_loadu_si256((const __m256i *)(h + i));
    __m256i bl = _mm256_loadu_si256((const __m256i *)(h + i + nn - 1));
    uint32_t mask = (uint32_t)_mm256_movemask_epi8(_mm256_and_si256(_mm256_cmpeq_epi8(bf, first), _mm256_cmpeq_epi8(bl, last)));
    while (mask) {
      uint32_t b = (uint32_t)__builtin_ctz(mask);
      if (nn == 2 || memcmp(h + i + b + 1, nd + 1, nn - 2) == 0) return h + i + b;
      mask &= mask - 1;
    }
  }
  for (; i + nn <= hn; i++)
    if (h[i] == nd[0] && h[i + nn - 1] == nd[nn - 1] && (nn == 2 || memcmp(h + i + 1, nd + 1, nn - 2) == 0)) return h + i;
  return NULL;
}

/* ---------------------------------------------------------------- predicates */
static const soft_str *const_str(soft_kctx *k) { return &k->kb->s; }

static int str_pred(soft_kctx *k, str_finder find) {
  const soft_str *x = k->a->data;
  soft_str p = *const_str(k);
  uint8_t *o = k->dst->data;
  uint32_t op = k->in->op;
  vk_valid2(k->dst, k->a, k->b, k->v);
  VK_ROWS(k->v, {
    soft_str s = x[i];
    uint8_t r = 0;
    if (s.len >= p.len) {
      if (p.len == 0) r = 1;
      else if (op == HADOS_K_STARTS_WITH) r = memcmp(s.ptr, p.ptr, p.len) == 0;
      else if (op == HADOS_K_ENDS_WITH) r = memcmp(s.ptr + s.len - p.len, p.ptr, p.len) == 0;
      else r = find(s.ptr, s.len, p.ptr, p.len) != NULL;
    }
    o[i] = r;
  });
  return HADOS_OK;
}

static int k_str_pred_scalar(soft_kctx *k) { return str_pred(k, find_mem); }
static int k_str_pred_avx2(soft_kctx *k) { return str_pred(k, find_avx2); }

/* LIKE: the pattern compiles to tokens: a literal byte (0..255), ONE ('_':
   one character) or ANY ('%': any run). */
enum { TOK_ONE = 256, TOK_ANY = 257 };

static uint32_t like_compile(soft_str p, uint8_t esc, uint16_t *tok) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < p.len; i++) {
    uint8_t c = p.ptr[i];
    if (c == esc && i + 1 < p.len) {
      tok[n++] = p.ptr[++i];
    } else if (c == '%') {
      if (n == 0 || tok[n - 1] != TOK_ANY) tok[n++] = TOK_ANY;
    } else if (c == '_') {
      tok[n++] = TOK_ONE;
    } else {
      tok[n++] = c;
    }
  }
  return n;
}

/* Wildcard match with one backtrack point (the last '%'): O(len * pattern). */
static int like_match(soft_str s, const uint16_t *tok, uint32_t m) {
  uint32_t si = 0, pi = 0, mark = 0;
  int64_t star = -1;
  while (si < s.len) {
    if (pi < m && tok[pi] == TOK_ONE) {
      si += char_len(s.ptr, si, s.len);
      pi++;
    } else if (pi < m && tok[pi] < 256 && s.ptr[si] == tok[pi]) {
      si++;
      pi++;
    } else if (pi < m && tok[pi] == TOK_ANY) {
      star = pi++;
      mark = si;
    } else if (star >= 0) {
      pi = (uint32_t)star + 1;
      mark += char_len(s.ptr, mark, s.len);
      si = mark;
    } else {
      return 0;
    }
  }
  while (pi < m && tok[pi] == TOK_ANY) pi++;
  return pi == m;
}

/* A LIKE pattern without '_' is literal segments between '%'s: the first
   one anchored at the start unless the pattern starts with '%', the last at
   the end unless it ends with '%', the others found left to right (the
   leftmost match of each leaves the most room for the rest). Byte
   comparisons are exact for UTF-8: a literal's first byte is never a
   continuation byte, so it only matches where a character starts. */
enum { LIKE_MAX_SEGS = 16 };
typedef struct {
  uint8_t lit[256];                   /* the literal bytes, segment after segment */
  uint32_t off[LIKE_MAX_SEGS + 1];    /* segment k is lit[off[k], off[k+1]) */
  uint32_t nseg;
  int front, back, any;               /* anchored first/last segment; any '%' at all */
} like_segs;

/* like_plan fills sg from the tokens when the pattern suits the segment
   matcher (no '_', at most LIKE_MAX_SEGS segments, 256 literal bytes). */
static int like_plan(const uint16_t *tok, uint32_t m, like_segs *sg) {
  uint32_t nl = 0;
  sg->nseg = 0;
  sg->any = 0;
  sg->front = m > 0 && tok[0] != TOK_ANY;
  sg->back = m > 0 && tok[m - 1] != TOK_ANY;
  for (uint32_t i = 0; i < m; i++) {
    if (tok[i] == TOK_ONE) return 0;
    if (tok[i] == TOK_ANY) {
      sg->any = 1;
      continue;
    }
    if (i == 0 || tok[i - 1] == TOK_ANY) {
      if (sg->nseg == LIKE_MAX_SEGS) return 0;
      sg->off[sg->nseg++] = nl;
    }
    if (nl == sizeof(sg->lit)) return 0;
    sg->lit[nl++] = (uint8_t)tok[i];
  }
  sg->off[sg->nseg] = nl;
  return 1;
}

static int like_segs_match(soft_str s, const like_segs *sg, str_finder find) {
  const uint8_t *p = s.ptr;
  uint32_t lo = 0, hi = s.len, first = 0, last = sg->nseg;
  if (!sg->any) /* no '%': the whole string (the empty pattern: the empty string) */
    return s.len == sg->off[sg->nseg] && (s.len == 0 || memcmp(p, sg->lit, s.len) == 0);
  if (sg->front) {
    uint32_t n = sg->off[1];
    if (n > hi || memcmp(p, sg->lit, n) != 0) return 0;
    lo = n;
    first = 1;
  }
  if (sg->back && last > first) {
    uint32_t n = sg->off[last] - sg->off[last - 1];
    if (n > hi - lo || memcmp(p + hi - n, sg->lit + sg->off[last - 1], n) != 0) return 0;
    hi -= n;
    last--;
  }
  for (uint32_t k = first; k < last; k++) {
    uint32_t n = sg->off[k + 1] - sg->off[k];
    const uint8_t *f = find(p + lo, hi - lo, sg->lit + sg->off[k], n);
    if (!f) return 0;
    lo = (uint32_t)(f - p) + n;
  }
  return 1;
}

static int like(soft_kctx *k, str_finder find) {
  soft_str p = *const_str(k);
  uint8_t esc = k->in->p1 ? (uint8_t)k->in->p1 : '\\';
  uint16_t small[256], *tok = small;
  if (p.len > 256 && !(tok = malloc(sizeof(uint16_t) * p.len)))
    return soft_fail(HADOS_E_NOMEM, "pipeline: instruction %u: LIKE pattern of %u bytes: out of host memory", k->index, p.len);
  uint32_t m = like_compile(p, esc, tok);
  const soft_str *x = k->a->data;
  uint8_t *o = k->dst->data;
  vk_valid2(k->dst, k->a, k->b, k->v);
  like_segs sg;
  if (like_plan(tok, m, &sg))
    VK_ROWS(k->v, o[i] = (uint8_t)like_segs_match(x[i], &sg, find));
  else
    VK_ROWS(k->v, o[i] = (uint8_t)like_match(x[i], tok, m));
  if (tok != small) free(tok);
  return HADOS_OK;
}

static int k_like_scalar(soft_kctx *k) { return like(k, find_mem); }
static int k_like_avx2(soft_kctx *k) { return like(k, find_avx2); }

/* ---------------------------------------------------------------- SUBSTR, LENGTH */
/* Spark's substringSQL(pos, len) on characters; len < 0: to the end. */
static soft_str substr(soft_str s, int64_t pos, int64_t len) {
  int64_t n = utf8_chars(s);
  int64_t start = pos > 0 ? pos - 1 : pos < 0 ? n + pos : 0;
  int64_t end = len < 0 ? INT64_MAX / 2 : start + len;
  if (start < 0) start = 0;
  if (start >= end || start >= n) return (soft_str){s.ptr, 0, 0};
  uint32_t b0 = utf8_offset(s, start);
  soft_str t = {s.ptr + b0, s.len - b0, 0};
  uint32_t b1 = end - start >= n ? t.len : utf8_offset(t, end - start);
  t.len = b1;
  return t;
}

static int k_substr(soft_kctx *k) {
  const soft_str *x = k->a->data;
  soft_str *o = k->dst->data;
  int64_t pos = k->in->p1, len = k->in->p2;
  vk_valid1(k->dst, k->a, k->v);
  VK_ROWS(k->v, o[i] = substr(x[i], pos, len));
  return HADOS_OK;
}

static int k_length(soft_kctx *k) {
  const soft_str *x = k->a->data;
  int32_t *o = k->dst->data;
  vk_valid1(k->dst, k->a, k->v);
  VK_ROWS(k->v, o[i] = (int32_t)utf8_chars(x[i]));
  return HADOS_OK;
}

void soft_vk_register_str(soft_vkfn *fn, uint32_t simd) {
  int avx2 = simd == HADOS_SIMD_AVX2 || simd == HADOS_SIMD_AVX512;
  fn[HADOS_K_YEAR] = k_date_part;
  fn[HADOS_K_MONTH] = k_date_part;
  fn[HADOS_K_DAY] = k_date_part;
  fn[HADOS_K_DATE_ADD] = k_date_add;
  fn[HADOS_K_STARTS_WITH] = avx2 ? k_str_pred_avx2 : k_str_pred_scalar;
  fn[HADOS_K_ENDS_WITH] = fn[HADOS_K_STARTS_WITH];
  fn[HADOS_K_CONTAINS] = fn[HADOS_K_STARTS_WITH];
  fn[HADOS_K_LIKE] = avx2 ? k_like_avx2 : k_like_scalar;
  fn[HADOS_K_SUBSTR] = k_substr;
  fn[HADOS_K_LENGTH] = k_length;
}
