/*
 * soft_vkernels.h — the vector kernels of the pipeline interpreter (private
 * to soft_pipeline.c and the soft_vkernels_*.c files).
 *
 * A kernel runs one instruction over the selected rows of one vector: it
 * reads its operand registers (a, b, c), writes dst's values and validity
 * for the selected rows, and returns HADOS_OK or a soft_fail status. The
 * interpreter has checked every operand's type and index before the run, so
 * kernels trust the instruction. Constant operands (HADOS_IF_A_CONST /
 * HADOS_IF_B_CONST) arrive both as a broadcast register (every row holds
 * the value, so generic loops need no special case) and as the scalar in
 * ka / kb, which the hot kernels use to compare or compute against a
 * register-held value.
 *
 * Kernel families live in one file each: compare and logic
 * (soft_vkernels_cmp.c), integer, double and decimal arithmetic
 * (soft_vkernels_arith.c), casts (soft_vkernels_cast.c), dates and strings
 * (soft_vkernels_str.c), and the range filter the interpreter makes of
 * fused integer comparisons (soft_vk_range.c). The hot kernels are compiled three times (AVX-512,
 * AVX2, baseline) the way soft_kernels.c does; soft_vk_table returns the
 * table for a SIMD level, built once per process.
 */
#ifndef HADOS_SOFT_VKERNELS_H
#define HADOS_SOFT_VKERNELS_H

#include <stdint.h>
#include <string.h>

#include "soft_pipeline.h"

typedef __int128 i128;
typedef unsigned __int128 u128;

/* A decoded constant. s points into the descriptor's string area. */
typedef struct soft_cval {
  uint32_t vtype;
  uint32_t is_null;
  int64_t i;   /* BOOL (0/1), I32, I64 */
  double f;    /* F64 */
  i128 x;      /* I128 (and I64/I32 widened) */
  soft_str s;  /* STR */
} soft_cval;

/* Bytes for strings kernels make within one vector (reset per vector).
   Owned by the interpreter's run scratch. */
typedef struct soft_arena {
  uint8_t *base;
  uint64_t cap, used;
} soft_arena;

/* Everything a kernel sees of one instruction on one vector. */
typedef struct soft_kctx {
  const soft_vec *v;
  const hados_insn *in;
  uint32_t index;           /* instruction index, for messages */
  soft_reg *dst;
  const soft_reg *a, *b, *c; /* operands (broadcast registers for constants) */
  const soft_cval *ka, *kb;  /* the constant when a / b is one, else NULL */
  const soft_cval *consts;   /* every constant of the pipeline (IN, string kernels) */
  soft_arena *arena;
  uint16_t *sel_out;         /* FILTER: storage for the narrowed selection */
  soft_vec *vout;            /* FILTER: the vector whose selection it narrows */
} soft_kctx;

typedef int (*soft_vkfn)(soft_kctx *k);

/* Range mask (soft_vk_range.c): rows [0, n) of x (I32 or I64 by vt) within
   the inclusive [lo, hi] (lo <= hi) as bits of m, (n + 63) / 64 words: set
   (and_ = 0; the last word's bits from n on are 0) or ANDed in (and_ = 1);
   with valid (a validity bitmap whose bit vbit0 is row 0) null rows are
   cleared as well. Returns the number of bits set in m afterwards. */
typedef uint64_t (*soft_vkmask)(const void *x, uint32_t vt, int64_t lo, int64_t hi, uint32_t n, uint64_t *m, int and_,
                                const uint8_t *valid, uint64_t vbit0);

typedef struct soft_vktab {
  uint32_t simd;
  soft_vkfn fn[HADOS_K__COUNT];
  /* A comparison (I32, I64, F64, I128 against a constant) fused with the
     FILTER that consumes it: narrows the selection directly, no BOOL
     register in between (the interpreter fuses when nothing else reads
     the comparison's result). */
  soft_vkfn cmp_filter;
  /* An I32 / I64 register within the inclusive range [ka->i, kb->i],
     narrowing the selection (soft_vk_range.c): the interpreter's form of
     fused integer comparisons with constants and of two of them on one
     register (BETWEEN). */
  soft_vkfn range_filter;
  soft_vkmask range_mask;
} soft_vktab;

/* The kernel table for a SIMD level (HADOS_SIMD_*); static, never freed. */
const soft_vktab *soft_vk_table(uint32_t simd);

/* Each family fills its entries of a table for a SIMD level. */
void soft_vk_register_cmp(soft_vkfn *fn, uint32_t simd);
soft_vkfn soft_vk_cmp_filter(uint32_t simd);
soft_vkfn soft_vk_range_filter(uint32_t simd);
soft_vkmask soft_vk_range_mask(uint32_t simd);
void soft_vk_register_arith(soft_vkfn *fn, uint32_t simd);
void soft_vk_register_cast(soft_vkfn *fn, uint32_t simd);
void soft_vk_register_str(soft_vkfn *fn, uint32_t simd);

/* Kernel name for messages ("k42" for unknown numbers). */
const char *soft_vk_name(uint32_t op, char buf[16]);

/* HADOS_OP_AGG_* ops, routed by soft_exec_op to the aggregation state. */
int soft_pipeline_agg_op(soft_device *d, const hados_op *op, uint64_t len, uint64_t *result);

/* ---------------------------------------------------------------- helpers */
#define VK_INLINE static inline __attribute__((always_inline))

/* Runs the body (the variadic arguments, so it may hold commas) for every
   selected row index i of vector v. */
#define VK_ROWS(v, ...)                                                   \
  do {                                                                    \
    const soft_vec *v_ = (v);                                             \
    /* bounds in locals: byte stores may alias *v_ */                     \
    const uint32_t n_ = v_->sel ? v_->sel_n : v_->n;                      \
    if (v_->sel) {                                                        \
      const uint16_t *s_ = v_->sel;                                       \
      for (uint32_t j_ = 0; j_ < n_; j_++) {                              \
        uint32_t i = s_[j_];                                              \
        __VA_ARGS__;                                                      \
      }                                                                   \
    } else {                                                              \
      for (uint32_t i = 0; i < n_; i++) {                                 \
        __VA_ARGS__;                                                      \
      }                                                                   \
    }                                                                     \
  } while (0)

/* Instantiates BODY(k) for AVX-512, AVX2 and the baseline ISA. */
#define VK_TARGETS(NAME, BODY)                                                                    \
  __attribute__((target("avx512f,avx512dq,avx512bw,avx512vl"))) static int NAME##_avx512(soft_kctx *k) { \
    return BODY(k);                                                                               \
  }                                                                                               \
  __attribute__((target("avx2"))) static int NAME##_avx2(soft_kctx *k) { return BODY(k); }       \
  static int NAME##_scalar(soft_kctx *k) { return BODY(k); }
#define VK_PICK(NAME, simd) \
  ((simd) == HADOS_SIMD_AVX512 ? NAME##_avx512 : (simd) == HADOS_SIMD_AVX2 ? NAME##_avx2 : NAME##_scalar)

VK_INLINE uint8_t vk_valid_at(const soft_reg *r, uint32_t i) { return r->all_valid ? 1 : r->valid[i]; }

/* dst validity = a's (unary kernels). */
VK_INLINE void vk_valid1(soft_reg *d, const soft_reg *a, const soft_vec *v) {
  if (a->all_valid) {
    d->all_valid = 1;
    return;
  }
  d->all_valid = 0;
  if (d->valid != a->valid) VK_ROWS(v, d->valid[i] = a->valid[i]);
}

/* dst validity = a's & b's. */
VK_INLINE void vk_valid2(soft_reg *d, const soft_reg *a, const soft_reg *b, const soft_vec *v) {
  if (a->all_valid && b->all_valid) {
    d->all_valid = 1;
    return;
  }
  d->all_valid = 0;
  if (a->all_valid)
    VK_ROWS(v, d->valid[i] = b->valid[i]);
  else if (b->all_valid)
    VK_ROWS(v, d->valid[i] = a->valid[i]);
  else
    VK_ROWS(v, d->valid[i] = a->valid[i] & b->valid[i]);
}

/* Every selected row of dst valid. */
VK_INLINE void vk_all_valid(soft_reg *d) { d->all_valid = 1; }

/* Makes row i of dst null, materialising validity bytes first if dst was
   all valid. */
VK_INLINE void vk_set_null(soft_reg *d, const soft_vec *v, uint32_t i) {
  if (d->all_valid) {
    VK_ROWS(v, d->valid[i] = 1);
    d->all_valid = 0;
  }
  d->valid[i] = 0;
}

/* The narrow storage of an I128 register (soft_reg.narrow): int64_t values
   at own + 8 * HADOS_VECTOR_SIZE. A kernel whose I128 result provably fits
   64 bits for every row it writes fills it and calls vk_set_narrow; the
   interpreter widens the register for any consumer that reads 128 bits. */
VK_INLINE int64_t *vk_narrow_buf(soft_reg *d) { return (int64_t *)(void *)(d->own + 8ull * HADOS_VECTOR_SIZE); }
VK_INLINE void vk_set_narrow(soft_reg *d) {
  d->data = vk_narrow_buf(d);
  d->narrow = 1;
}

/* Reserves n bytes of the vector's string arena (NULL when full). */
static inline uint8_t *vk_arena(soft_arena *a, uint64_t n) {
  if (n > a->cap - a->used) return NULL;
  uint8_t *p = a->base + a->used;
  a->used += n;
  return p;
}

/* 10^n as i128 for n in [0, 38]. */
extern const i128 soft_pow10_i128[39];

/* Decimal rescale x * 10^p (p >= 0) or round_half_up(x / 10^-p) into the
   storage vtype (I64 or I128); 0 when the result does not fit. */
int soft_dec_rescale(i128 x, int p, uint32_t vtype, i128 *out);

/* Proleptic Gregorian calendar: days since 1970-01-01 and back. */
int64_t soft_days_from_civil(int64_t y, unsigned m, unsigned d);
void soft_civil_from_days(int64_t days, int64_t *y, unsigned *m, unsigned *d);

#endif
