/*
 * soft_vk_range.c — the range filter: an integer register tested against
 * an inclusive range [lo, hi] of constants, narrowing the selection
 * directly (no BOOL register, no FILTER pass).
 *
 * The interpreter turns every comparison of an I32 or I64 register with a
 * constant whose only reader is the FILTER after it (x >= c, x < c, c <= x,
 * x = c: all but <>) into a range, and merges two such filters on the same
 * register in a row (Q6's `l_shipdate >= d1 AND l_shipdate < d2`, every
 * BETWEEN) into one. The test is one unsigned comparison,
 * (x - lo) <= (hi - lo), exact for any lo <= hi in the type's range; an
 * empty range (lo > hi) keeps no row. A null row never passes.
 *
 * On a dense vector with every row valid, the AVX-512 build compares 16
 * (I32) or 8 (I64) lanes at once and compresses the passing row numbers
 * straight into the selection; everything else runs a branchless scalar
 * loop that writes the candidate row and advances by the test's outcome.
 * The range arrives in k->ka (lo) and k->kb (hi), the register in k->a.
 */
#include <immintrin.h>

#include "soft_vkernels.h"

/* Scalar rows: s[n] = r, n += pass. */
#define RANGE_ROWS(T, UT, VALID)                                  \
  do {                                                            \
    const T *x = (const T *)a->data;                              \
    const UT span = (UT)((UT)hi - (UT)lo);                        \
    if (v->sel) {                                                 \
      const uint16_t *in = v->sel;                                \
      for (uint32_t j = 0; j < v->sel_n; j++) {                   \
        const uint32_t r = in[j];                                 \
        s[n] = (uint16_t)r;                                       \
        n += (VALID) & ((UT)((UT)x[r] - (UT)lo) <= span);         \
      }                                                           \
    } else {                                                      \
      for (uint32_t r = from; r < v->n; r++) {                    \
        s[n] = (uint16_t)r;                                       \
        n += (VALID) & ((UT)((UT)x[r] - (UT)lo) <= span);         \
      }                                                           \
    }                                                             \
  } while (0)

/* Scalar loop for rows [from, n) of a dense vector (all rows when sel). */
VK_INLINE uint32_t range_scalar(const soft_kctx *k, uint16_t *s, uint32_t n, uint32_t from) {
  const soft_vec *v = k->v;
  const soft_reg *a = k->a;
  const int64_t lo = k->ka->i, hi = k->kb->i;
  const uint8_t *va = a->valid;
  if (k->in->vtype == HADOS_VT_I32) {
    if (a->all_valid) RANGE_ROWS(int32_t, uint32_t, 1u);
    else RANGE_ROWS(int32_t, uint32_t, (uint32_t)(va[r] != 0));
  } else {
    if (a->all_valid) RANGE_ROWS(int64_t, uint64_t, 1u);
    else RANGE_ROWS(int64_t, uint64_t, (uint32_t)(va[r] != 0));
  }
  return n;
}
#undef RANGE_ROWS

static int range_finish(soft_kctx *k, uint16_t *s, uint32_t n) {
  k->vout->sel = s;
  k->vout->sel_n = n;
  return HADOS_OK;
}

static int k_range_filter_scalar(soft_kctx *k) {
  uint16_t *s = k->sel_out;
  if (k->ka->i > k->kb->i) return range_finish(k, s, 0);
  return range_finish(k, s, range_scalar(k, s, 0, 0));
}

__attribute__((target("avx2"))) static int k_range_filter_avx2(soft_kctx *k) {
  uint16_t *s = k->sel_out;
  if (k->ka->i > k->kb->i) return range_finish(k, s, 0);
  return range_finish(k, s, range_scalar(k, s, 0, 0));
}

__attribute__((target("avx512f,avx512dq,avx512bw,avx512vl"))) static int k_range_filter_avx512(soft_kctx *k) {
  const soft_vec *v = k->v;
  uint16_t *s = k->sel_out;
  const int64_t lo = k->ka->i, hi = k->kb->i;
  if (lo > hi) return range_finish(k, s, 0);
  if (v->sel || !k->a->all_valid) return range_finish(k, s, range_scalar(k, s, 0, 0));
  uint32_t n = 0, r = 0;
  /* a store of 16 (8) row numbers at s + n stays within the selection
     buffer: n <= r and r + 16 <= v->n <= HADOS_VECTOR_SIZE */
  if (k->in->vtype == HADOS_VT_I32) {
    const int32_t *x = k->a->data;
    const __m512i vlo = _mm512_set1_epi32((int32_t)lo), vspan = _mm512_set1_epi32((int32_t)(uint32_t)((uint32_t)hi - (uint32_t)lo));
    const __m512i iota = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    for (; r + 16 <= v->n; r += 16) {
      __m512i d = _mm512_sub_epi32(_mm512_loadu_si512((const void *)(x + r)), vlo);
      __mmask16 m = _mm512_cmple_epu32_mask(d, vspan);
      __m512i idx = _mm512_maskz_compress_epi32(m, _mm512_add_epi32(iota, _mm512_set1_epi32((int32_t)r)));
      _mm256_storeu_si256((__m256i *)(s + n), _mm512_cvtepi32_epi16(idx));
      n += (uint32_t)__builtin_popcount(m);
    }
  } else {
    const int64_t *x = k->a->data;
    const __m512i vlo = _mm512_set1_epi64(lo), vspan = _mm512_set1_epi64((int64_t)((uint64_t)hi - (uint64_t)lo));
    const __m256i iota = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    for (; r + 8 <= v->n; r += 8) {
      __m512i d = _mm512_sub_epi64(_mm512_loadu_si512((const void *)(x + r)), vlo);
      __mmask8 m = _mm512_cmple_epu64_mask(d, vspan);
      __m256i idx = _mm256_maskz_compress_epi32(m, _mm256_add_epi32(iota, _mm256_set1_epi32((int32_t)r)));
      _mm_storeu_si128((__m128i *)(s + n), _mm256_cvtepi32_epi16(idx));
      n += (uint32_t)__builtin_popcount(m);
    }
  }
  return range_finish(k, s, range_scalar(k, s, n, r));
}

soft_vkfn soft_vk_range_filter(uint32_t simd) { return VK_PICK(k_range_filter, simd); }

/* ---------------------------------------------------------------- range masks
 * The counting path (soft_pipeline.c: a pipeline of range filters on
 * columns feeding only count(*)) needs no selection vector: each filter
 * sets bit i of m when row i passes (and_ = 0; bits from n to the end of
 * the last word are 0) or clears the bits of rows that fail (and_ = 1);
 * with a validity bitmap, null rows are cleared too. The kernel returns
 * the number of bits set in m afterwards.
 */

/* cnt (1..64) bits of the bitmap b from bit `bit` on, reading only the
   bytes that hold them. */
VK_INLINE uint64_t bits_at(const uint8_t *b, uint64_t bit, uint32_t cnt) {
  const uint8_t *p = b + (bit >> 3);
  const uint32_t sh = (uint32_t)(bit & 7), need = (sh + cnt + 7) >> 3; /* <= 9 bytes */
  uint8_t t[16] = {0};
  memcpy(t, p, need);
  uint64_t lo;
  memcpy(&lo, t, 8);
  uint64_t v = lo >> sh;
  if (sh) v |= (uint64_t)t[8] << (64 - sh);
  return cnt == 64 ? v : v & ((1ull << cnt) - 1);
}

#define MASK_TAIL(T, UT, r0)                                                                      \
  do {                                                                                            \
    const T *x_ = (const T *)x;                                                                   \
    const UT span_ = (UT)((UT)hi - (UT)lo);                                                       \
    if (!and_ && (r0) < n) { /* clear the bits from r0 on: the loop below ORs them in */          \
      uint32_t w0 = (r0) >> 6;                                                                    \
      m[w0] &= ((r0) & 63) ? (1ull << ((r0) & 63)) - 1 : 0;                                       \
      for (uint32_t w = w0 + 1; w <= (n - 1) >> 6; w++) m[w] = 0;                                 \
    }                                                                                             \
    for (uint32_t i = (r0); i < n; i++) {                                                         \
      const uint64_t pass = (UT)((UT)x_[i] - (UT)lo) <= span_;                                    \
      if (and_) m[i >> 6] &= ~((pass ^ 1) << (i & 63));                                           \
      else m[i >> 6] |= pass << (i & 63);                                                         \
    }                                                                                             \
  } while (0)

#define MASK_WORDS(T, UT)                                                \
  do {                                                                   \
    const T *x_ = (const T *)x;                                          \
    const UT span_ = (UT)((UT)hi - (UT)lo);                              \
    for (; r + 64 <= n; r += 64) {                                       \
      uint64_t bits = 0;                                                 \
      for (uint32_t j = 0; j < 64; j++)                                  \
        bits |= (uint64_t)((UT)((UT)x_[r + j] - (UT)lo) <= span_) << j;  \
      if (and_) m[r >> 6] &= bits;                                       \
      else m[r >> 6] = bits;                                             \
    }                                                                    \
  } while (0)

/* Validity and the count, shared by every ISA. */
#define MASK_FINISH()                                                                 \
  do {                                                                                \
    const uint32_t nw_ = (n + 63) >> 6;                                               \
    uint64_t c_ = 0;                                                                  \
    for (uint32_t w = 0; w < nw_; w++) {                                              \
      if (valid) m[w] &= bits_at(valid, vbit0 + 64ull * w, n - 64 * w < 64 ? n - 64 * w : 64); \
      c_ += (uint64_t)__builtin_popcountll(m[w]);                                     \
    }                                                                                 \
    return c_;                                                                        \
  } while (0)

VK_INLINE uint64_t range_mask_generic(const void *x, uint32_t vt, int64_t lo, int64_t hi, uint32_t n, uint64_t *m, int and_,
                                      const uint8_t *valid, uint64_t vbit0) {
  uint32_t r = 0;
  if (!n) return 0;
  if (vt == HADOS_VT_I32) {
    MASK_WORDS(int32_t, uint32_t);
    MASK_TAIL(int32_t, uint32_t, r);
  } else {
    MASK_WORDS(int64_t, uint64_t);
    MASK_TAIL(int64_t, uint64_t, r);
  }
  MASK_FINISH();
}

static uint64_t k_range_mask_scalar(const void *x, uint32_t vt, int64_t lo, int64_t hi, uint32_t n, uint64_t *m, int and_,
                                    const uint8_t *valid, uint64_t vbit0) {
  return range_mask_generic(x, vt, lo, hi, n, m, and_, valid, vbit0);
}

__attribute__((target("avx2,popcnt"))) static uint64_t k_range_mask_avx2(const void *x, uint32_t vt, int64_t lo, int64_t hi, uint32_t n,
                                                                         uint64_t *m, int and_, const uint8_t *valid, uint64_t vbit0) {
  return range_mask_generic(x, vt, lo, hi, n, m, and_, valid, vbit0);
}

__attribute__((target("avx512f,avx512dq,avx512bw,avx512vl,popcnt"))) static uint64_t k_range_mask_avx512(
    const void *x, uint32_t vt, int64_t lo, int64_t hi, uint32_t n, uint64_t *m, int and_, const uint8_t *valid, uint64_t vbit0) {
  uint32_t r = 0;
  if (!n) return 0;
  if (vt == HADOS_VT_I32) {
    const int32_t *p = x;
    uint16_t *mb = (uint16_t *)m; /* little-endian: 16-bit piece r/16 of the mask */
    const __m512i vlo = _mm512_set1_epi32((int32_t)lo), vspan = _mm512_set1_epi32((int32_t)(uint32_t)((uint32_t)hi - (uint32_t)lo));
    for (; r + 64 <= n; r += 64) {
      uint64_t bits = 0;
      for (uint32_t j = 0; j < 4; j++)
        bits |= (uint64_t)_mm512_cmple_epu32_mask(_mm512_sub_epi32(_mm512_loadu_si512((const void *)(p + r + 16 * j)), vlo), vspan)
                << (16 * j);
      if (and_) m[r >> 6] &= bits;
      else m[r >> 6] = bits;
    }
    if (!and_ && r < n) /* the partial words below are written piecewise */
      for (uint32_t w = r >> 6; w <= (n - 1) >> 6; w++) m[w] = 0;
    for (; r + 16 <= n; r += 16) {
      __mmask16 a = _mm512_cmple_epu32_mask(_mm512_sub_epi32(_mm512_loadu_si512((const void *)(p + r)), vlo), vspan);
      if (and_) mb[r >> 4] &= a;
      else mb[r >> 4] = a;
    }
    MASK_TAIL(int32_t, uint32_t, r);
  } else {
    const int64_t *p = x;
    uint8_t *mb = (uint8_t *)m;
    const __m512i vlo = _mm512_set1_epi64(lo), vspan = _mm512_set1_epi64((int64_t)((uint64_t)hi - (uint64_t)lo));
    for (; r + 64 <= n; r += 64) {
      uint64_t bits = 0;
      for (uint32_t j = 0; j < 8; j++)
        bits |= (uint64_t)_mm512_cmple_epu64_mask(_mm512_sub_epi64(_mm512_loadu_si512((const void *)(p + r + 8 * j)), vlo), vspan)
                << (8 * j);
      if (and_) m[r >> 6] &= bits;
      else m[r >> 6] = bits;
    }
    if (!and_ && r < n) /* the partial words below are written piecewise */
      for (uint32_t w = r >> 6; w <= (n - 1) >> 6; w++) m[w] = 0;
    for (; r + 8 <= n; r += 8) {
      __mmask8 a = _mm512_cmple_epu64_mask(_mm512_sub_epi64(_mm512_loadu_si512((const void *)(p + r)), vlo), vspan);
      if (and_) mb[r >> 3] &= a;
      else mb[r >> 3] = a;
    }
    MASK_TAIL(int64_t, uint64_t, r);
  }
  MASK_FINISH();
}
#undef MASK_WORDS
#undef MASK_TAIL
#undef MASK_FINISH

soft_vkmask soft_vk_range_mask(uint32_t simd) { return VK_PICK(k_range_mask, simd); }
