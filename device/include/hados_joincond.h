/*
 * hados_joincond.h — a hash join's extra condition over candidate pairs as
 * one device op (relational format version 1). Part of the device ABI next
 * to hados_relational.h, whose row-number conventions it follows and
 * whose hados_column layout (hados_pipeline.h) it uses.
 *
 * A join probe (HADOS_OP_JOIN_PROBE) yields candidate pairs of row numbers
 * (probe row, build row) whose keys are equal; a join with an extra
 * non-equi condition keeps only the pairs the condition accepts. For the
 * common shape of such conditions — a conjunction of comparisons between
 * columns of either side, e.g. TPC-H Q21's `l2.l_suppkey <> l1.l_suppkey`
 * — JOIN_COND evaluates the condition directly over the pairs' row
 * numbers, reading each operand in place (no gather of the columns).
 * JOIN_PROBE with HADOS_PROBE_COND (hados_relational.h) takes the same
 * descriptor (its pair fields unused) and tests each candidate as it
 * finds it, for semi, anti and existence joins.
 *
 * A pair passes when its build row is not -1 and every term is true. A
 * term compares operand a with operand b, both columns of the same value
 * type (I32, I64, F64 or I128), each read at the pair's probe row or its
 * build row; a null operand makes the term null, and null rejects the pair
 * (Spark's join condition: AND of comparisons, null is not true).
 * Integers and I128 compare as signed numbers (decimals: unscaled values of
 * the same scale), doubles in Spark's order (NaN = NaN and above every
 * other value, -0.0 = 0.0).
 */
#ifndef HADOS_JOINCOND_H
#define HADOS_JOINCOND_H

#include <stdint.h>

#include "hados_pipeline.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HADOS_JOIN_COND_MAGIC 0x444E4348u /* "HCND" */
#define HADOS_MAX_JOIN_COND_TERMS 16u

/* Program op added by this header. */
#define HADOS_OP_JOIN_COND 23u /* src = hados_join_cond, len = its size; arg[0] = first pair, arg[1] =
                                  end pair (exclusive, <= pairs); writes out[i] for every pair i of
                                  [first, end) (1: the pair passes, 0: not); result = pairs passing.
                                  Ops over disjoint pair ranges of one descriptor may run at once. */

/* Comparisons (hados_join_term.cmp): a OP b. */
#define HADOS_JCMP_EQ 0u
#define HADOS_JCMP_NE 1u
#define HADOS_JCMP_LT 2u
#define HADOS_JCMP_LE 3u
#define HADOS_JCMP_GT 4u
#define HADOS_JCMP_GE 5u

/* Term flags: which side's row an operand is read at (unset: the probe row). */
#define HADOS_JTERM_A_BUILD 1u
#define HADOS_JTERM_B_BUILD 2u

/* Condition flags (hados_join_cond.flags). */
#define HADOS_JCOND_FIRST_PASS 1u /* only whether some pair of a probe row passes matters (semi, anti
                                     and existence joins probing their left side): after a pair of a
                                     probe row passes, the op may write 0 for the row's later pairs
                                     of its range without evaluating them */

typedef struct hados_join_term {
  uint32_t cmp;      /* HADOS_JCMP_* */
  uint32_t flags;    /* HADOS_JTERM_* */
  hados_column a, b; /* the operands: same value type, I32, I64, F64 or I128 */
} hados_join_term;

/* Condition descriptor: header then n_terms terms. */
typedef struct hados_join_cond {
  uint32_t magic;     /* HADOS_JOIN_COND_MAGIC */
  uint32_t version;   /* HADOS_RELATIONAL_VERSION */
  uint32_t size;      /* bytes of the whole descriptor */
  uint32_t n_terms;   /* 1..HADOS_MAX_JOIN_COND_TERMS */
  uint32_t flags;     /* HADOS_JCOND_* */
  uint32_t reserved;
  uint64_t pairs;      /* pairs in the arrays */
  uint64_t probe_rows; /* rows of every probe-side operand column (probe row numbers are below) */
  uint64_t build_rows; /* rows of every build-side operand column (build row numbers are below, or -1) */
  uint64_t probe_idx;  /* int32[pairs]: probe row numbers */
  uint64_t build_idx;  /* int32[pairs]: build row numbers, -1 for none (the pair fails) */
  uint64_t out;        /* uint8[pairs]: written 1 (passes) or 0 */
  hados_join_term terms[];
} hados_join_cond;

#ifdef __cplusplus
}
#endif
#endif /* HADOS_JOINCOND_H */
