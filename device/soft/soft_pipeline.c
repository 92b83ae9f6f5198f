/*
 * soft_pipeline.c — the software DPU's pipeline interpreter
 * (HADOS_OP_PIPELINE, hados_pipeline.h; internals in soft_pipeline.h).
 *
 * A run has three phases.
 *
 * Decode. Every field of the descriptor is checked before anything is
 * executed: magic, version, size, each section inside the descriptor and
 * 8-byte aligned, register / constant / column indices, kernel numbers,
 * flags, kernel parameters, and the value type of every operand and
 * destination against the kernel's signature (the table in check_insn). A
 * register must be written by an earlier instruction before it is read (or
 * projected, or aggregated), so no kernel ever reads storage no kernel
 * wrote. Errors are E_INVALID naming the field, the instruction and the
 * value.
 *
 * Bind. The columns are checked against the op's row range: the range lies
 * within each column's length; the validity bitmap, values, string
 * offsets, dictionary offsets and string bytes that the rows touch lie in
 * device memory (soft_range, E_FAULT otherwise); string offsets are
 * non-decreasing over the touched rows (a column no COLUMN instruction
 * loads is checked for its type, flags and length only). A plain string
 * column with int32 offsets has only the range's first and last offsets
 * checked here (they bound the bytes); each vector's offsets are checked
 * as it loads them (non-decreasing, within those two), while they are in
 * the cache anyway, and a bad one is the same error naming the first bad
 * entry (a vector whose rows are all filtered out before the load is not
 * read). The sink's output columns or aggregation state are checked the
 * same way.
 *
 * Execute. Rows [row_begin, row_end) go through in vectors of up to
 * HADOS_VECTOR_SIZE rows: the selection starts as all rows, instructions
 * run in order (FILTER narrows it; an empty selection ends the vector),
 * then the sink takes the selected rows. A comparison with a constant whose
 * only reader is the FILTER after it runs fused with it; for I32 / I64 it
 * runs as a range filter, and two range filters on one register in a row
 * (BETWEEN, a date range) as one. Registers live in one scratch
 * block allocated per run (values, validity bytes, broadcast copies of the
 * constants used as operands, and a string arena for kernels that make
 * strings) and freed at its end. Fixed-width columns without nulls are
 * aliased, not copied. Dictionary-encoded fixed-width columns (1-, 2- or
 * 4-byte codes) are gathered from their dictionary into the register
 * (every row, or the selected rows when the selection keeps fewer than
 * 3/4) after one pass that checks the codes; a range filter on such a
 * column with 1- or 2-byte codes runs on the codes through a pass table
 * built per run, and a column only such filters read is not gathered at
 * all (dict_filters). A predicate on a STR dictionary column (a
 * comparison, EQ_NULLSAFE or IN against constants, STARTS_WITH, ENDS_WITH,
 * CONTAINS, LIKE) runs its kernel once per run over the dictionary's
 * entries (up to 64Ki of them, and no more than the run has rows) into a
 * table of results per code, and then costs a lookup per row (fused with
 * a FILTER right after it: the selection narrowed directly); a column
 * only such predicates read is not loaded beyond its validity and a check
 * of its codes (dict_preds). A dictionary of one-byte strings (flags) is laid out
 * as bytes in row order (soft_reg.str1), and a plain string column whose
 * vector holds only one-byte strings is its bytes already; either loads
 * with one view (str1_lazy) and the rest are written only for a reader
 * that needs them (soft_reg_views; the aggregation's one-byte key paths
 * do not). When at least 3/4 of a vector's rows are selected
 * (1/4 for integer and double +, -, * and int casts: dense_quarters),
 * arithmetic kernels that cannot fail run over all of its rows (dense
 * loops vectorise). While a vector runs, the rows two vectors on of every
 * fixed-width column the program loads (and of plain string columns'
 * offsets) are prefetched, a slice before each instruction (pl_pfq), and
 * a one-byte string vector's bytes as it loads.
 * A pipeline of range filters on columns feeding only a
 * row count skips vectors altogether (the counting path, below).
 *
 * Conventions beyond the header: an instruction's `vtype` is the operand
 * type for comparisons, SELECT and arithmetic, and the result type for
 * casts and decimal kernels; CAST_INT_TO_STR and CAST_TO_F64 read the
 * register type of a (CAST_TO_F64 also checks p2 against it); the string
 * predicates (STARTS_WITH, ENDS_WITH, CONTAINS, LIKE) need b to be a
 * constant (HADOS_IF_B_CONST). SINK_PROJECT output columns start at row 0
 * (offset 0), take int32 string offsets, and a null may only be written to
 * a column with a validity bitmap. On E_NOMEM the op's result is the
 * number of rows placed.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "soft_pipeline.h"
#include "soft_vkernels.h"

#define VS HADOS_VECTOR_SIZE
#define MAX_CONST_OPERANDS 256u

/* ---------------------------------------------------------------- kernel table */
static soft_vktab tables[3];
static pthread_once_t tables_once = PTHREAD_ONCE_INIT;

static void tables_init(void) {
  for (uint32_t s = 0; s < 3; s++) {
    tables[s].simd = s;
    soft_vk_register_cmp(tables[s].fn, s);
    soft_vk_register_arith(tables[s].fn, s);
    soft_vk_register_cast(tables[s].fn, s);
    soft_vk_register_str(tables[s].fn, s);
    tables[s].cmp_filter = soft_vk_cmp_filter(s);
    tables[s].range_filter = soft_vk_range_filter(s);
    tables[s].range_mask = soft_vk_range_mask(s);
  }
}

const soft_vktab *soft_vk_table(uint32_t simd) {
  pthread_once(&tables_once, tables_init);
  return &tables[simd > HADOS_SIMD_AVX512 ? HADOS_SIMD_SCALAR : simd];
}

static const char *const knames[HADOS_K__COUNT] = {
    [HADOS_K_NOP] = "NOP", [HADOS_K_COLUMN] = "COLUMN", [HADOS_K_CONST] = "CONST", [HADOS_K_EQ] = "EQ",
    [HADOS_K_NE] = "NE", [HADOS_K_LT] = "LT", [HADOS_K_LE] = "LE", [HADOS_K_GT] = "GT", [HADOS_K_GE] = "GE",
    [HADOS_K_EQ_NULLSAFE] = "EQ_NULLSAFE", [HADOS_K_AND] = "AND", [HADOS_K_OR] = "OR", [HADOS_K_NOT] = "NOT",
    [HADOS_K_IS_NULL] = "IS_NULL", [HADOS_K_IS_NOT_NULL] = "IS_NOT_NULL", [HADOS_K_IN] = "IN",
    [HADOS_K_FILTER] = "FILTER", [HADOS_K_SELECT] = "SELECT", [HADOS_K_ADD] = "ADD", [HADOS_K_SUB] = "SUB",
    [HADOS_K_MUL] = "MUL", [HADOS_K_DIV] = "DIV", [HADOS_K_MOD] = "MOD", [HADOS_K_NEG] = "NEG",
    [HADOS_K_DEC_ADD] = "DEC_ADD", [HADOS_K_DEC_SUB] = "DEC_SUB", [HADOS_K_DEC_MUL] = "DEC_MUL",
    [HADOS_K_DEC_DIV] = "DEC_DIV", [HADOS_K_DEC_MOD] = "DEC_MOD", [HADOS_K_DEC_CHECK] = "DEC_CHECK",
    [HADOS_K_DEC_RESCALE] = "DEC_RESCALE", [HADOS_K_CAST_I32_I64] = "CAST_I32_I64",
    [HADOS_K_CAST_I64_I32] = "CAST_I64_I32", [HADOS_K_CAST_TO_F64] = "CAST_TO_F64",
    [HADOS_K_CAST_F64_TO_DEC] = "CAST_F64_TO_DEC", [HADOS_K_CAST_DEC_TO_INT] = "CAST_DEC_TO_INT",
    [HADOS_K_CAST_INT_TO_DEC] = "CAST_INT_TO_DEC", [HADOS_K_CAST_F64_TO_INT] = "CAST_F64_TO_INT",
    [HADOS_K_CAST_STR_TO_DATE] = "CAST_STR_TO_DATE", [HADOS_K_CAST_DATE_TO_STR] = "CAST_DATE_TO_STR",
    [HADOS_K_CAST_STR_TO_INT] = "CAST_STR_TO_INT", [HADOS_K_CAST_STR_TO_F64] = "CAST_STR_TO_F64",
    [HADOS_K_CAST_INT_TO_STR] = "CAST_INT_TO_STR", [HADOS_K_CAST_STR_TO_DEC] = "CAST_STR_TO_DEC",
    [HADOS_K_CAST_TS_TO_DATE] = "CAST_TS_TO_DATE", [HADOS_K_CAST_DATE_TO_TS] = "CAST_DATE_TO_TS",
    [HADOS_K_YEAR] = "YEAR", [HADOS_K_MONTH] = "MONTH", [HADOS_K_DAY] = "DAY", [HADOS_K_DATE_ADD] = "DATE_ADD",
    [HADOS_K_STARTS_WITH] = "STARTS_WITH", [HADOS_K_ENDS_WITH] = "ENDS_WITH", [HADOS_K_CONTAINS] = "CONTAINS",
    [HADOS_K_LIKE] = "LIKE", [HADOS_K_SUBSTR] = "SUBSTR", [HADOS_K_LENGTH] = "LENGTH",
};

const char *soft_vk_name(uint32_t op, char buf[16]) {
  if (op < HADOS_K__COUNT && knames[op]) return knames[op];
  snprintf(buf, 16, "k%u", op);
  return buf;
}

static const char *vt_name(uint32_t vt) {
  static const char *const n[] = {"?", "BOOL", "I32", "I64", "F64", "I128", "STR"};
  return vt <= HADOS_VT_STR ? n[vt] : "?";
}

static int vt_ok(uint32_t vt) { return vt >= HADOS_VT_BOOL && vt <= HADOS_VT_STR; }

/* Unaligned little-endian loads from device memory. */
static inline int32_t ld_i32(const uint8_t *p) {
  int32_t x;
  memcpy(&x, p, 4);
  return x;
}
static inline int64_t ld_i64(const uint8_t *p) {
  int64_t x;
  memcpy(&x, p, 8);
  return x;
}

/* ---------------------------------------------------------------- decoded program */
/* One instruction with its operands resolved. */
typedef struct pl_step {
  hados_insn in;
  int32_t ca, cb;               /* constant number of a / b, -1 for a register */
  uint8_t use_a, use_b, use_c;  /* operands the kernel reads */
  uint8_t fuse_filter;          /* compare fused with the FILTER that follows (skipped) */
  uint8_t range;                /* fused compare run as a range filter (soft_vk_range.c) */
  uint8_t range_merged;         /* ...that also covers the range filter two steps on */
  uint16_t range_reg;           /* its register */
  soft_cval rlo, rhi;           /* its inclusive range (I64 values) */
  int32_t dict_col;             /* range filter on a register loaded from a dictionary column with 1- or
                                   2-byte codes: that column (filtered on codes, see dict_tables), else -1 */
  uint8_t *dtab;                /* ...its pass table, one byte per raw code (malloc, prog_free) */
  uint8_t lazy;                 /* COLUMN of a dictionary whose register only code filters read: validity
                                   and codes checked, values not gathered */
  /* dictionary predicates (dict_preds) */
  uint8_t dp;                   /* a boolean kernel whose only register operand a COLUMN of a STR dictionary
                                   column wrote (and nothing else writes): a candidate */
  uint8_t dp_on;                /* ...evaluated on the dictionary in this run (dp_tab built) */
  uint8_t dp_filter;            /* ...fused with the FILTER after it (its result is read by nothing else) */
  uint8_t dp_nullval;           /* EQ_NULLSAFE: the result of a null row (the constant is null) */
  uint8_t dp_hasnull;           /* some entry's result is null */
  uint8_t slazy;                /* COLUMN of a STR dictionary whose register only dictionary predicates
                                   and null tests read: validity and codes checked, no views */
  uint16_t dp_reg;              /* the column's register */
  int32_t dp_col;               /* the column */
  uint8_t *dp_tab;              /* per code (1-byte codes: per raw byte; else dict_length entries and one
                                   for a code out of range): bit 0 the result, bit 1 null (malloc) */
} pl_step;

/* A bound input column and a bound SINK_PROJECT output column
   (soft_pipeline.h). */
typedef soft_col pl_col;
typedef soft_outcol pl_out;

/* The decoded pipeline and its run state. Owns steps, cols, cv, outs and
   scratch (malloc), released by prog_free. */
typedef struct pl_prog {
  soft_device *d;
  const uint8_t *base;
  uint32_t size;
  hados_pipeline h;
  uint8_t vt[HADOS_MAX_REGISTERS];
  pl_step *steps;
  pl_col *cols;
  soft_cval *cv;
  int32_t *creg_of;             /* constant number -> broadcast register slot, -1 none */
  uint32_t n_creg;
  uint16_t proj[HADOS_MAX_REGISTERS * 4];
  uint32_t n_proj;
  hados_agg_spec agg;
  uint64_t arena_bytes;         /* string arena per vector */
  uint64_t rb, re;              /* the op's row range */
  /* run state */
  soft_reg *regs;               /* n_regs registers, then n_creg constant registers */
  void *scratch;
  pl_out *outs;
  uint64_t out_cap, out_rows;
  soft_agg_state *agg_state;
} pl_prog;

static void prog_free(pl_prog *P) {
  for (uint32_t i = 0; P->steps && i < P->h.n_insns; i++) free(P->steps[i].dtab), free(P->steps[i].dp_tab);
  free(P->steps);
  free(P->cols);
  free(P->cv);
  free(P->creg_of);
  free(P->outs);
  free(P->regs);
  free(P->scratch);
}

#define BAD(...) soft_fail(HADOS_E_INVALID, "pipeline: " __VA_ARGS__)

/* A section of n elements of `elem` bytes at off lies within the descriptor. */
static int section(const pl_prog *P, const char *what, uint32_t off, uint64_t n, uint64_t elem, uint32_t align) {
  if (off % align) return BAD("%s section at offset %u is not %u-byte aligned", what, off, align);
  if ((uint64_t)off + n * elem > P->size)
    return BAD("%s section [%u, +%llu) exceeds the descriptor size %u", what, off, (unsigned long long)(n * elem), P->size);
  return HADOS_OK;
}

static int decode_header(pl_prog *P, soft_device *d, uint64_t desc, uint64_t len) {
  uint8_t *p;
  int st;
  if (len < sizeof(hados_pipeline))
    return BAD("descriptor of %llu bytes, the header alone is %zu", (unsigned long long)len, sizeof(hados_pipeline));
  if ((st = soft_range(d, desc, len, &p))) return st;
  if ((uintptr_t)p % 8) return BAD("descriptor at 0x%llx is not 8-byte aligned", (unsigned long long)desc);
  memcpy(&P->h, p, sizeof P->h);
  const hados_pipeline *h = &P->h;
  if (h->magic != HADOS_PIPELINE_MAGIC) return BAD("bad magic 0x%08x (want 0x%08x)", h->magic, HADOS_PIPELINE_MAGIC);
  if (h->version != HADOS_PIPELINE_VERSION) return BAD("unsupported version %u (want %u)", h->version, HADOS_PIPELINE_VERSION);
  if (h->size < sizeof(hados_pipeline) || h->size > len)
    return BAD("size field %u outside [%zu, %llu] (the op's length)", h->size, sizeof(hados_pipeline), (unsigned long long)len);
  P->base = p;
  P->size = h->size;
  if (h->n_regs > HADOS_MAX_REGISTERS) return BAD("n_regs %u exceeds %u", h->n_regs, HADOS_MAX_REGISTERS);
  if (h->n_columns > HADOS_MAX_COLUMNS) return BAD("n_columns %u exceeds %u", h->n_columns, HADOS_MAX_COLUMNS);
  if (h->n_insns > HADOS_MAX_INSNS) return BAD("n_insns %u exceeds %u", h->n_insns, HADOS_MAX_INSNS);
  if ((st = section(P, "register types", h->reg_vtypes_off, h->n_regs, 1, 1)) ||
      (st = section(P, "columns", h->columns_off, h->n_columns, sizeof(hados_column), 8)) ||
      (st = section(P, "constants", h->consts_off, h->n_consts, sizeof(hados_const), 8)) ||
      (st = section(P, "instructions", h->insns_off, h->n_insns, sizeof(hados_insn), 8)) ||
      (st = section(P, "strings", h->strings_off, h->strings_len, 1, 1)))
    return st;
  for (uint32_t r = 0; r < h->n_regs; r++) {
    P->vt[r] = p[h->reg_vtypes_off + r];
    if (!vt_ok(P->vt[r])) return BAD("register %u has unknown value type %u", r, P->vt[r]);
  }
  return HADOS_OK;
}

static int decode_consts(pl_prog *P) {
  uint32_t n = P->h.n_consts;
  if (!n) return HADOS_OK;
  P->cv = calloc(n, sizeof *P->cv);
  P->creg_of = malloc(sizeof(int32_t) * n);
  if (!P->cv || !P->creg_of) return soft_fail(HADOS_E_NOMEM, "pipeline: %u constants: out of host memory", n);
  for (uint32_t i = 0; i < n; i++) {
    hados_const c;
    memcpy(&c, P->base + P->h.consts_off + i * sizeof c, sizeof c);
    soft_cval *v = &P->cv[i];
    P->creg_of[i] = -1;
    if (!vt_ok(c.vtype)) return BAD("constant %u has unknown value type %u", i, c.vtype);
    if (c.is_null > 1) return BAD("constant %u: is_null %u (want 0 or 1)", i, c.is_null);
    v->vtype = c.vtype;
    v->is_null = c.is_null;
    switch (c.vtype) {
      case HADOS_VT_BOOL: v->i = c.lo != 0; break;
      case HADOS_VT_I32: v->i = (int32_t)c.lo; break;
      case HADOS_VT_I64: v->i = (int64_t)c.lo; break;
      case HADOS_VT_F64: memcpy(&v->f, &c.lo, 8); break;
      case HADOS_VT_I128: v->x = (i128)(((u128)c.hi << 64) | c.lo); break;
      default:
        if (c.hi > P->size || c.lo > P->size - c.hi)
          return BAD("constant %u: string [%llu, +%llu) exceeds the descriptor size %u", i, (unsigned long long)c.lo,
                     (unsigned long long)c.hi, P->size);
        v->s.ptr = P->base + c.lo;
        v->s.len = (uint32_t)c.hi;
    }
    if (c.vtype != HADOS_VT_I128) v->x = v->i;
  }
  return HADOS_OK;
}

/* ---------------------------------------------------------------- type checking */
typedef struct chk {
  pl_prog *P;
  uint32_t idx;
  const char *name;
  uint8_t written[HADOS_MAX_REGISTERS];
  char nb[16];
} chk;

#define IBAD(C, FMT, ...) BAD("instruction %u (%s): " FMT, (C)->idx, (C)->name, __VA_ARGS__)

/* Checks operand `which` (a/b/c) of the instruction; want = 0: any type.
   Its type goes to *got. */
static int operand(chk *C, pl_step *s, char which, uint32_t want, uint32_t *got) {
  pl_prog *P = C->P;
  uint16_t r = which == 'a' ? s->in.a : which == 'b' ? s->in.b : s->in.c;
  int is_const = (which == 'a' && (s->in.flags & HADOS_IF_A_CONST)) || (which == 'b' && (s->in.flags & HADOS_IF_B_CONST));
  uint32_t vt;
  if (is_const) {
    if (r >= P->h.n_consts) return IBAD(C, "constant operand %c = %u, the pipeline has %u constants", which, r, P->h.n_consts);
    vt = P->cv[r].vtype;
    if (P->creg_of[r] < 0) {
      if (P->n_creg == MAX_CONST_OPERANDS) return IBAD(C, "more than %u constants used as operands", MAX_CONST_OPERANDS);
      P->creg_of[r] = (int32_t)P->n_creg++;
    }
    if (which == 'a') s->ca = r;
    else s->cb = r;
  } else {
    if (r >= P->h.n_regs) return IBAD(C, "operand %c = register %u, the pipeline has %u registers", which, r, P->h.n_regs);
    if (!C->written[r]) return IBAD(C, "operand %c reads register %u before any instruction writes it", which, r);
    vt = P->vt[r];
  }
  if (want && vt != want)
    return IBAD(C, "operand %c %s %u is %s, the kernel needs %s", which, is_const ? "constant" : "register", r, vt_name(vt),
                vt_name(want));
  if (which == 'a') s->use_a = 1;
  else if (which == 'b') s->use_b = 1;
  else s->use_c = 1;
  if (got) *got = vt;
  return HADOS_OK;
}

static int dest(chk *C, const pl_step *s, uint32_t want) {
  uint16_t r = s->in.dst;
  if (r >= C->P->h.n_regs) return IBAD(C, "destination register %u, the pipeline has %u registers", r, C->P->h.n_regs);
  if (C->P->vt[r] != want)
    return IBAD(C, "destination register %u is %s, the kernel writes %s", r, vt_name(C->P->vt[r]), vt_name(want));
  C->written[r] = 1;
  return HADOS_OK;
}

static int in_set(uint32_t v, uint32_t a, uint32_t b) { return v == a || v == b; }

#define TRY(x) \
  do {         \
    int st_ = (x); \
    if (st_) return st_; \
  } while (0)
#define NEED(cond, FMT, ...) \
  do {                       \
    if (!(cond)) return IBAD(C, FMT, __VA_ARGS__); \
  } while (0)

static int check_insn(chk *C, pl_step *s) {
  pl_prog *P = C->P;
  const hados_insn *in = &s->in;
  uint32_t T = in->vtype, op = in->op, t = 0;
  if (in->flags & ~(HADOS_IF_A_CONST | HADOS_IF_B_CONST)) return IBAD(C, "unknown flags 0x%x", in->flags);
  switch (op) {
    case HADOS_K_NOP:
      return HADOS_OK;
    case HADOS_K_COLUMN:
      NEED(in->p1 >= 0 && (uint32_t)in->p1 < P->h.n_columns, "column %d, the pipeline has %u columns", in->p1, P->h.n_columns);
      NEED(vt_ok(P->cols[in->p1].c.vtype), "column %d has unknown value type %u", in->p1, P->cols[in->p1].c.vtype);
      NEED(T == P->cols[in->p1].c.vtype, "vtype %s, column %d is %s", vt_name(T), in->p1, vt_name(P->cols[in->p1].c.vtype));
      if (T == HADOS_VT_STR && (P->cols[in->p1].c.flags & HADOS_COLF_DICT)) P->arena_bytes += VS; /* one-byte entries in row order */
      return dest(C, s, T);
    case HADOS_K_CONST:
      NEED(in->p1 >= 0 && (uint32_t)in->p1 < P->h.n_consts, "constant %d, the pipeline has %u constants", in->p1,
           P->h.n_consts);
      NEED(T == P->cv[in->p1].vtype, "vtype %u, constant %d is %s", T, in->p1, vt_name(P->cv[in->p1].vtype));
      if (P->creg_of[in->p1] < 0) {
        NEED(P->n_creg < MAX_CONST_OPERANDS, "more than %u constants used as operands", MAX_CONST_OPERANDS);
        P->creg_of[in->p1] = (int32_t)P->n_creg++;
      }
      return dest(C, s, T);
    case HADOS_K_EQ: case HADOS_K_NE: case HADOS_K_LT: case HADOS_K_LE: case HADOS_K_GT: case HADOS_K_GE:
    case HADOS_K_EQ_NULLSAFE:
      NEED(vt_ok(T), "unknown operand vtype %u", T);
      TRY(operand(C, s, 'a', T, NULL));
      TRY(operand(C, s, 'b', T, NULL));
      return dest(C, s, HADOS_VT_BOOL);
    case HADOS_K_AND: case HADOS_K_OR:
      TRY(operand(C, s, 'a', HADOS_VT_BOOL, NULL));
      TRY(operand(C, s, 'b', HADOS_VT_BOOL, NULL));
      return dest(C, s, HADOS_VT_BOOL);
    case HADOS_K_NOT:
      TRY(operand(C, s, 'a', HADOS_VT_BOOL, NULL));
      return dest(C, s, HADOS_VT_BOOL);
    case HADOS_K_IS_NULL: case HADOS_K_IS_NOT_NULL:
      TRY(operand(C, s, 'a', 0, NULL));
      return dest(C, s, HADOS_VT_BOOL);
    case HADOS_K_IN:
      NEED(vt_ok(T), "unknown operand vtype %u", T);
      NEED(in->p1 >= 0 && in->p2 >= 0 && (uint64_t)in->p1 + (uint64_t)in->p2 <= P->h.n_consts,
           "constants [%d, +%d) outside the %u constants", in->p1, in->p2, P->h.n_consts);
      for (int32_t j = 0; j < in->p2; j++)
        NEED(P->cv[in->p1 + j].vtype == T, "IN constant %d is %s, the operand %s", in->p1 + j,
             vt_name(P->cv[in->p1 + j].vtype), vt_name(T));
      TRY(operand(C, s, 'a', T, NULL));
      return dest(C, s, HADOS_VT_BOOL);
    case HADOS_K_FILTER:
      return operand(C, s, 'a', HADOS_VT_BOOL, NULL);
    case HADOS_K_SELECT:
      NEED(vt_ok(T), "unknown operand vtype %u", T);
      TRY(operand(C, s, 'a', T, NULL));
      TRY(operand(C, s, 'b', T, NULL));
      TRY(operand(C, s, 'c', HADOS_VT_BOOL, NULL));
      return dest(C, s, T);
    case HADOS_K_ADD: case HADOS_K_SUB: case HADOS_K_MUL: case HADOS_K_DIV: case HADOS_K_MOD:
      NEED(T == HADOS_VT_I32 || T == HADOS_VT_I64 || T == HADOS_VT_F64, "vtype %s, the kernel takes I32, I64 or F64", vt_name(T));
      TRY(operand(C, s, 'a', T, NULL));
      TRY(operand(C, s, 'b', T, NULL));
      return dest(C, s, T);
    case HADOS_K_NEG:
      NEED(T == HADOS_VT_I32 || T == HADOS_VT_I64 || T == HADOS_VT_F64, "vtype %s, the kernel takes I32, I64 or F64", vt_name(T));
      TRY(operand(C, s, 'a', T, NULL));
      return dest(C, s, T);
    case HADOS_K_DEC_ADD: case HADOS_K_DEC_SUB: case HADOS_K_DEC_MUL: case HADOS_K_DEC_DIV: case HADOS_K_DEC_MOD:
      NEED(in_set(T, HADOS_VT_I64, HADOS_VT_I128), "result vtype %s, decimals are I64 or I128", vt_name(T));
      NEED(in_set((uint32_t)in->p2, HADOS_VT_I64, HADOS_VT_I128) && in_set((uint32_t)in->p3, HADOS_VT_I64, HADOS_VT_I128),
           "input storage types p2 = %d, p3 = %d (want I64 = 3 or I128 = 5)", in->p2, in->p3);
      if (op == HADOS_K_DEC_MUL) NEED(in->p1 >= 0 && in->p1 <= 255, "scale reduction p1 = %d outside [0, 255]", in->p1);
      if (op == HADOS_K_DEC_DIV) NEED(in->p1 >= -76 && in->p1 <= 76, "scale shift p1 = %d outside [-76, 76]", in->p1);
      if (op == HADOS_K_DEC_ADD || op == HADOS_K_DEC_SUB || op == HADOS_K_DEC_MOD)
        NEED(in->imm <= 0xffff && (in->imm & 0xff) <= 76 && (in->imm >> 8) <= 76, "scale factors imm = 0x%llx (two bytes <= 76)",
             (unsigned long long)in->imm);
      TRY(operand(C, s, 'a', (uint32_t)in->p2, NULL));
      TRY(operand(C, s, 'b', (uint32_t)in->p3, NULL));
      return dest(C, s, T);
    case HADOS_K_DEC_CHECK:
      NEED(in_set(T, HADOS_VT_I64, HADOS_VT_I128), "vtype %s, decimals are I64 or I128", vt_name(T));
      NEED(in->p1 >= 1 && in->p1 <= 38, "precision p1 = %d outside [1, 38]", in->p1);
      TRY(operand(C, s, 'a', T, NULL));
      return dest(C, s, T);
    case HADOS_K_DEC_RESCALE:
      NEED(in_set(T, HADOS_VT_I64, HADOS_VT_I128), "result vtype %s, decimals are I64 or I128", vt_name(T));
      NEED(in_set((uint32_t)in->p2, HADOS_VT_I64, HADOS_VT_I128), "input storage p2 = %d (want I64 = 3 or I128 = 5)", in->p2);
      NEED(in->p1 >= -76 && in->p1 <= 76, "scale shift p1 = %d outside [-76, 76]", in->p1);
      TRY(operand(C, s, 'a', (uint32_t)in->p2, NULL));
      return dest(C, s, T);
    case HADOS_K_CAST_I32_I64:
      TRY(operand(C, s, 'a', HADOS_VT_I32, NULL));
      return dest(C, s, HADOS_VT_I64);
    case HADOS_K_CAST_I64_I32:
      TRY(operand(C, s, 'a', HADOS_VT_I64, NULL));
      return dest(C, s, HADOS_VT_I32);
    case HADOS_K_CAST_TO_F64:
      NEED(in->p2 == HADOS_VT_I32 || in->p2 == HADOS_VT_I64 || in->p2 == HADOS_VT_I128, "input type p2 = %d (want I32, I64 or I128)", in->p2);
      NEED(in->p1 >= 0 && in->p1 <= 38, "scale p1 = %d outside [0, 38]", in->p1);
      TRY(operand(C, s, 'a', (uint32_t)in->p2, NULL));
      return dest(C, s, HADOS_VT_F64);
    case HADOS_K_CAST_F64_TO_DEC: case HADOS_K_CAST_STR_TO_DEC:
      NEED(in_set(T, HADOS_VT_I64, HADOS_VT_I128), "result vtype %s, decimals are I64 or I128", vt_name(T));
      NEED(in->p1 >= 0 && in->p1 <= 38, "scale p1 = %d outside [0, 38]", in->p1);
      NEED(in->p3 >= 1 && in->p3 <= 38, "precision p3 = %d outside [1, 38]", in->p3);
      TRY(operand(C, s, 'a', op == HADOS_K_CAST_F64_TO_DEC ? HADOS_VT_F64 : HADOS_VT_STR, NULL));
      return dest(C, s, T);
    case HADOS_K_CAST_DEC_TO_INT:
      NEED(in_set(T, HADOS_VT_I32, HADOS_VT_I64), "result vtype %s (want I32 or I64)", vt_name(T));
      NEED(in_set((uint32_t)in->p2, HADOS_VT_I64, HADOS_VT_I128), "input storage p2 = %d (want I64 = 3 or I128 = 5)", in->p2);
      NEED(in->p1 >= 0 && in->p1 <= 38, "scale p1 = %d outside [0, 38]", in->p1);
      TRY(operand(C, s, 'a', (uint32_t)in->p2, NULL));
      return dest(C, s, T);
    case HADOS_K_CAST_INT_TO_DEC:
      NEED(in_set(T, HADOS_VT_I64, HADOS_VT_I128), "result vtype %s, decimals are I64 or I128", vt_name(T));
      NEED(in_set((uint32_t)in->p2, HADOS_VT_I32, HADOS_VT_I64), "input type p2 = %d (want I32 = 2 or I64 = 3)", in->p2);
      NEED(in->p1 >= 0 && in->p1 <= 38, "scale p1 = %d outside [0, 38]", in->p1);
      TRY(operand(C, s, 'a', (uint32_t)in->p2, NULL));
      return dest(C, s, T);
    case HADOS_K_CAST_F64_TO_INT: case HADOS_K_CAST_STR_TO_INT:
      NEED(in_set(T, HADOS_VT_I32, HADOS_VT_I64), "result vtype %s (want I32 or I64)", vt_name(T));
      TRY(operand(C, s, 'a', op == HADOS_K_CAST_F64_TO_INT ? HADOS_VT_F64 : HADOS_VT_STR, NULL));
      return dest(C, s, T);
    case HADOS_K_CAST_STR_TO_DATE:
      TRY(operand(C, s, 'a', HADOS_VT_STR, NULL));
      return dest(C, s, HADOS_VT_I32);
    case HADOS_K_CAST_DATE_TO_STR:
      TRY(operand(C, s, 'a', HADOS_VT_I32, NULL));
      P->arena_bytes += 32ull * VS;
      return dest(C, s, HADOS_VT_STR);
    case HADOS_K_CAST_STR_TO_F64:
      TRY(operand(C, s, 'a', HADOS_VT_STR, NULL));
      return dest(C, s, HADOS_VT_F64);
    case HADOS_K_CAST_INT_TO_STR:
      TRY(operand(C, s, 'a', 0, &t));
      NEED(in_set(t, HADOS_VT_I32, HADOS_VT_I64), "operand a is %s (want I32 or I64)", vt_name(t));
      P->arena_bytes += 24ull * VS;
      return dest(C, s, HADOS_VT_STR);
    case HADOS_K_CAST_TS_TO_DATE:
      TRY(operand(C, s, 'a', HADOS_VT_I64, NULL));
      return dest(C, s, HADOS_VT_I32);
    case HADOS_K_CAST_DATE_TO_TS:
      TRY(operand(C, s, 'a', HADOS_VT_I32, NULL));
      return dest(C, s, HADOS_VT_I64);
    case HADOS_K_YEAR: case HADOS_K_MONTH: case HADOS_K_DAY:
      TRY(operand(C, s, 'a', HADOS_VT_I32, NULL));
      return dest(C, s, HADOS_VT_I32);
    case HADOS_K_DATE_ADD:
      TRY(operand(C, s, 'a', HADOS_VT_I32, NULL));
      TRY(operand(C, s, 'b', HADOS_VT_I32, NULL));
      return dest(C, s, HADOS_VT_I32);
    case HADOS_K_STARTS_WITH: case HADOS_K_ENDS_WITH: case HADOS_K_CONTAINS: case HADOS_K_LIKE:
      NEED(in->flags & HADOS_IF_B_CONST, "operand b must be a constant (flag B_CONST), flags 0x%x", in->flags);
      if (op == HADOS_K_LIKE) NEED(in->p1 >= 0 && in->p1 <= 255, "escape character p1 = %d outside [0, 255]", in->p1);
      TRY(operand(C, s, 'a', HADOS_VT_STR, NULL));
      TRY(operand(C, s, 'b', HADOS_VT_STR, NULL));
      return dest(C, s, HADOS_VT_BOOL);
    case HADOS_K_SUBSTR:
      TRY(operand(C, s, 'a', HADOS_VT_STR, NULL));
      return dest(C, s, HADOS_VT_STR);
    case HADOS_K_LENGTH:
      TRY(operand(C, s, 'a', HADOS_VT_STR, NULL));
      return dest(C, s, HADOS_VT_I32);
  }
  return IBAD(C, "unknown kernel %u", op);
}

/* Agg spec fields that do not depend on registers (shared with AGG_CREATE). */
static int check_agg_spec(const hados_agg_spec *a) {
  if (a->n_keys > 16) return BAD("aggregation spec: n_keys %u exceeds 16", a->n_keys);
  if (a->n_aggs > 64) return BAD("aggregation spec: n_aggs %u exceeds 64", a->n_aggs);
  for (uint32_t k = 0; k < a->n_keys; k++)
    if (!vt_ok(a->key_vtypes[k])) return BAD("aggregation spec: key %u has unknown value type %u", k, a->key_vtypes[k]);
  for (uint32_t j = 0; j < a->n_aggs; j++) {
    const hados_agg *g = &a->aggs[j];
    if (g->func < HADOS_AGG_SUM || g->func > HADOS_AGG_FIRST) return BAD("aggregation spec: aggregate %u has unknown function %u", j, g->func);
    if (g->flags & ~(HADOS_AGGF_DECIMAL | HADOS_AGGF_IGNORE_NULLS | HADOS_AGGF_MERGE))
      return BAD("aggregation spec: aggregate %u has unknown flags 0x%x", j, g->flags);
    if (!vt_ok(g->out_vtype)) return BAD("aggregation spec: aggregate %u has unknown output type %u", j, g->out_vtype);
    if (g->arg != 0xffff && !vt_ok(g->in_vtype)) return BAD("aggregation spec: aggregate %u has unknown input type %u", j, g->in_vtype);
  }
  return HADOS_OK;
}

static int sink_reg(chk *C, uint32_t r, uint32_t want, const char *what, uint32_t j) {
  pl_prog *P = C->P;
  if (r >= P->h.n_regs) return BAD("sink: %s %u is register %u, the pipeline has %u registers", what, j, r, P->h.n_regs);
  if (!C->written[r]) return BAD("sink: %s %u reads register %u, which no instruction writes", what, j, r);
  if (want && P->vt[r] != want)
    return BAD("sink: %s %u: register %u is %s, the spec says %s", what, j, r, vt_name(P->vt[r]), vt_name(want));
  return HADOS_OK;
}

static int decode_sink(pl_prog *P, chk *C) {
  const hados_pipeline *h = &P->h;
  switch (h->sink) {
    case HADOS_SINK_COUNT:
      return HADOS_OK;
    case HADOS_SINK_PROJECT: {
      TRY(section(P, "project sink", h->sink_off, 1, 2, 2));
      uint16_t n;
      memcpy(&n, P->base + h->sink_off, 2);
      if (n > sizeof P->proj / sizeof P->proj[0]) return BAD("project sink: %u columns exceed %zu", n, sizeof P->proj / sizeof P->proj[0]);
      TRY(section(P, "project sink", h->sink_off, 1 + (uint64_t)n, 2, 2));
      P->n_proj = n;
      memcpy(P->proj, P->base + h->sink_off + 2, 2u * n);
      for (uint32_t j = 0; j < n; j++) TRY(sink_reg(C, P->proj[j], 0, "projected column", j));
      return HADOS_OK;
    }
    case HADOS_SINK_AGG: {
      TRY(section(P, "aggregation sink", h->sink_off, 1, sizeof(hados_agg_spec), 8));
      memcpy(&P->agg, P->base + h->sink_off, sizeof P->agg);
      TRY(check_agg_spec(&P->agg));
      for (uint32_t k = 0; k < P->agg.n_keys; k++) TRY(sink_reg(C, P->agg.key_regs[k], P->agg.key_vtypes[k], "key", k));
      for (uint32_t j = 0; j < P->agg.n_aggs; j++) {
        const hados_agg *g = &P->agg.aggs[j];
        if (g->arg != 0xffff) TRY(sink_reg(C, g->arg, g->in_vtype, "aggregate", j));
        if (g->flags & HADOS_AGGF_MERGE && g->arg2 != 0xffff) TRY(sink_reg(C, g->arg2, 0, "aggregate (second input)", j));
      }
      return HADOS_OK;
    }
  }
  return BAD("unknown sink %u", h->sink);
}

static int reads_reg(const pl_step *s, uint32_t r) {
  return (s->use_a && s->ca < 0 && s->in.a == r) || (s->use_b && s->cb < 0 && s->in.b == r) || (s->use_c && s->in.c == r);
}

static uint32_t flip_cmp(uint32_t op) {
  switch (op) {
    case HADOS_K_LT: return HADOS_K_GT;
    case HADOS_K_LE: return HADOS_K_GE;
    case HADOS_K_GT: return HADOS_K_LT;
    case HADOS_K_GE: return HADOS_K_LE;
  }
  return op;
}

/* Turns fused integer comparisons with a constant (all but NE) into range
   filters, and merges a range filter with one on the same register two
   steps on (its FILTER between): one pass instead of two. */
static void ranges(pl_prog *P) {
  for (uint32_t i = 0; i < P->h.n_insns; i++) {
    pl_step *s = &P->steps[i];
    uint32_t vt = s->in.vtype, op = s->in.op;
    if (!s->fuse_filter || op == HADOS_K_NE || (vt != HADOS_VT_I32 && vt != HADOS_VT_I64)) continue;
    const int cleft = s->ca >= 0;
    const soft_cval *c = &P->cv[cleft ? s->ca : s->cb];
    if (cleft) op = flip_cmp(op);
    const int64_t min = vt == HADOS_VT_I32 ? INT32_MIN : INT64_MIN, max = vt == HADOS_VT_I32 ? INT32_MAX : INT64_MAX;
    int64_t lo = min, hi = max, x = c->i;
    switch (op) {
      case HADOS_K_EQ: lo = hi = x; break;
      case HADOS_K_LT: if (x == min) lo = 1, hi = 0; else hi = x - 1; break;
      case HADOS_K_LE: hi = x; break;
      case HADOS_K_GT: if (x == max) lo = 1, hi = 0; else lo = x + 1; break;
      default: lo = x; break; /* GE */
    }
    if (c->is_null) lo = 1, hi = 0; /* compared with null: no row passes */
    s->range = 1;
    s->range_reg = cleft ? s->in.b : s->in.a;
    s->rlo = (soft_cval){.vtype = HADOS_VT_I64, .i = lo};
    s->rhi = (soft_cval){.vtype = HADOS_VT_I64, .i = hi};
  }
  for (uint32_t i = 0; i + 2 < P->h.n_insns; i++) {
    pl_step *s = &P->steps[i], *t = &P->steps[i + 2];
    if (!s->range || s->range_merged || !t->range || t->range_reg != s->range_reg || t->in.vtype != s->in.vtype) continue;
    if (t->rlo.i > s->rlo.i) s->rlo.i = t->rlo.i;
    if (t->rhi.i < s->rhi.i) s->rhi.i = t->rhi.i;
    s->range_merged = 1;
    t->range = 0; /* runs inside s */
    i += 2;
  }
}

/* 1 when a sink reads register r. */
static int sink_reads(const pl_prog *P, uint32_t r) {
  for (uint32_t j = 0; j < P->n_proj; j++)
    if (P->proj[j] == r) return 1;
  if (P->h.sink != HADOS_SINK_AGG) return 0;
  for (uint32_t j = 0; j < P->agg.n_keys; j++)
    if (P->agg.key_regs[j] == r) return 1;
  for (uint32_t j = 0; j < P->agg.n_aggs; j++)
    if (P->agg.aggs[j].arg == r || ((P->agg.aggs[j].flags & HADOS_AGGF_MERGE) && P->agg.aggs[j].arg2 == r)) return 1;
  return 0;
}

/* The step of the COLUMN load that is the only writer of register r, and
   comes before step i; -1 when another step writes r too (or none does, or
   it is not a COLUMN). */
static int32_t sole_column(const pl_prog *P, uint32_t i, uint32_t r) {
  int32_t w = -1, writes = 0;
  for (uint32_t j = 0; j < P->h.n_insns; j++) {
    const pl_step *t = &P->steps[j];
    if (t->in.op == HADOS_K_FILTER || t->in.op == HADOS_K_NOP || t->in.dst != r) continue;
    writes++;
    if (j < i && t->in.op == HADOS_K_COLUMN) w = (int32_t)j;
  }
  return writes == 1 ? w : -1;
}

/* Range filters on a register that a COLUMN of a dictionary-encoded
   I32 / I64 column with 1- or 2-byte codes wrote (and nothing else writes)
   run on the codes: a table says which codes pass (built per run, once
   the dictionary is bound: dict_tables), so the filter reads one or two
   bytes per row. A COLUMN whose register only such filters read skips
   the gather (lazy). */
static void dict_filters(pl_prog *P) {
  const uint32_t n = P->h.n_insns;
  for (uint32_t i = 0; i < n; i++) {
    pl_step *s = &P->steps[i];
    if (!s->range) continue;
    const int32_t w = sole_column(P, i, s->range_reg);
    if (w < 0) continue;
    const hados_column *c = &P->cols[P->steps[w].in.p1].c;
    if (!(c->flags & HADOS_COLF_DICT) || (c->vtype != HADOS_VT_I32 && c->vtype != HADOS_VT_I64) ||
        !(c->flags & (HADOS_COLF_IDX8 | HADOS_COLF_IDXU8 | HADOS_COLF_IDX16)))
      continue;
    s->dict_col = P->steps[w].in.p1;
  }
  for (uint32_t w = 0; w < n; w++) { /* lazy loads */
    pl_step *t = &P->steps[w];
    if (t->in.op != HADOS_K_COLUMN) continue;
    const uint32_t r = t->in.dst;
    int only = 0, other = sink_reads(P, r);
    for (uint32_t j = w + 1; j < n && !other; j++) {
      const pl_step *u = &P->steps[j];
      if (!reads_reg(u, r)) continue;
      if (u->range && u->dict_col == t->in.p1 && u->range_reg == r) only = 1;
      else if (j >= 2 && P->steps[j - 2].range_merged && P->steps[j - 2].dict_col == t->in.p1 && P->steps[j - 2].range_reg == r) only = 1;
      else other = 1;
    }
    t->lazy = only && !other;
  }
}

/* Dictionary predicates: a boolean kernel (comparisons, EQ_NULLSAFE, IN,
   STARTS_WITH, ENDS_WITH, CONTAINS, LIKE) whose only register operand is
   the register a COLUMN of a STR dictionary column wrote (the other, if
   any, a constant; nothing else writes the register) depends on the row's
   code alone. Such a step (dp) may run, per run, the kernel itself once
   over the dictionary's entries into a table of results per code
   (dict_preds_build), and then per vector look the codes up (dict_pred):
   the same kernel on the same strings, so the same results. One whose
   result only the FILTER after it reads narrows the selection directly
   (dp_filter). Whether a run does so, and whether the COLUMN then loads
   views at all (slazy), is decided once the columns are bound. */
static void dict_preds(pl_prog *P) {
  const uint32_t n = P->h.n_insns;
  for (uint32_t i = 0; i < n; i++) {
    pl_step *s = &P->steps[i];
    const uint32_t op = s->in.op;
    int32_t r = -1;
    switch (op) {
      case HADOS_K_EQ: case HADOS_K_NE: case HADOS_K_LT: case HADOS_K_LE: case HADOS_K_GT: case HADOS_K_GE:
      case HADOS_K_EQ_NULLSAFE:
        if (s->in.vtype != HADOS_VT_STR || (s->ca >= 0) == (s->cb >= 0)) continue;
        r = s->ca >= 0 ? s->in.b : s->in.a;
        break;
      case HADOS_K_IN:
        if (s->in.vtype != HADOS_VT_STR || s->ca >= 0) continue;
        r = s->in.a;
        break;
      case HADOS_K_STARTS_WITH: case HADOS_K_ENDS_WITH: case HADOS_K_CONTAINS: case HADOS_K_LIKE:
        if (s->ca >= 0 || s->cb < 0) continue;
        r = s->in.a;
        break;
      default:
        continue;
    }
    if (s->fuse_filter || s->range) continue;
    const int32_t w = sole_column(P, i, (uint32_t)r);
    if (w < 0) continue;
    const hados_column *c = &P->cols[P->steps[w].in.p1].c;
    if (c->vtype != HADOS_VT_STR || !(c->flags & HADOS_COLF_DICT)) continue;
    s->dp = 1;
    s->dp_reg = (uint16_t)r;
    s->dp_col = P->steps[w].in.p1;
    if (op == HADOS_K_EQ_NULLSAFE) s->dp_nullval = (uint8_t)P->cv[s->ca >= 0 ? s->ca : s->cb].is_null;
    /* fused with the FILTER right after it when nothing else reads the result */
    const uint32_t d = s->in.dst;
    if (i + 1 < n && P->steps[i + 1].in.op == HADOS_K_FILTER && P->steps[i + 1].ca < 0 && P->steps[i + 1].in.a == d &&
        !sink_reads(P, d)) {
      int used = 0;
      for (uint32_t j = i + 2; j < n && !used; j++) used = reads_reg(&P->steps[j], d);
      s->dp_filter = !used;
    }
  }
}

/* Marks comparisons against one constant whose only reader is the FILTER
   right after them (and no sink): they run as one fused kernel. */
static void fuse(pl_prog *P) {
  for (uint32_t i = 0; i + 1 < P->h.n_insns; i++) {
    pl_step *s = &P->steps[i], *f = &P->steps[i + 1];
    uint32_t op = s->in.op, vt = s->in.vtype, r = s->in.dst;
    if (op < HADOS_K_EQ || op > HADOS_K_GE || (s->ca >= 0) == (s->cb >= 0)) continue;
    if (vt != HADOS_VT_I32 && vt != HADOS_VT_I64 && vt != HADOS_VT_F64 && vt != HADOS_VT_I128) continue;
    if (f->in.op != HADOS_K_FILTER || f->ca >= 0 || f->in.a != r) continue;
    int used = 0;
    for (uint32_t j = i + 2; j < P->h.n_insns && !used; j++) used = reads_reg(&P->steps[j], r);
    for (uint32_t j = 0; j < P->n_proj && !used; j++) used = P->proj[j] == r;
    for (uint32_t j = 0; P->h.sink == HADOS_SINK_AGG && j < P->agg.n_keys && !used; j++) used = P->agg.key_regs[j] == r;
    for (uint32_t j = 0; P->h.sink == HADOS_SINK_AGG && j < P->agg.n_aggs && !used; j++)
      used = P->agg.aggs[j].arg == r || ((P->agg.aggs[j].flags & HADOS_AGGF_MERGE) && P->agg.aggs[j].arg2 == r);
    if (!used) s->fuse_filter = 1;
  }
  ranges(P);
  dict_filters(P);
  dict_preds(P);
}

static int decode(pl_prog *P, soft_device *d, uint64_t desc, uint64_t len) {
  P->d = d;
  TRY(decode_header(P, d, desc, len));
  TRY(decode_consts(P));
  const hados_pipeline *h = &P->h;
  if (h->n_columns) {
    if (!(P->cols = calloc(h->n_columns, sizeof *P->cols)))
      return soft_fail(HADOS_E_NOMEM, "pipeline: %u columns: out of host memory", h->n_columns);
    for (uint32_t j = 0; j < h->n_columns; j++) memcpy(&P->cols[j].c, P->base + h->columns_off + j * sizeof(hados_column), sizeof(hados_column));
  }
  if (h->n_insns && !(P->steps = calloc(h->n_insns, sizeof *P->steps)))
    return soft_fail(HADOS_E_NOMEM, "pipeline: %u instructions: out of host memory", h->n_insns);
  chk C;
  memset(&C, 0, sizeof C);
  C.P = P;
  for (uint32_t i = 0; i < h->n_insns; i++) {
    pl_step *s = &P->steps[i];
    memcpy(&s->in, P->base + h->insns_off + i * sizeof(hados_insn), sizeof(hados_insn));
    s->ca = s->cb = -1;
    s->dict_col = -1;
    C.idx = i;
    C.name = soft_vk_name(s->in.op, C.nb);
    TRY(check_insn(&C, s));
  }
  TRY(decode_sink(P, &C));
  fuse(P);
  return HADOS_OK;
}

/* ---------------------------------------------------------------- binding */
/* Host pointer for [addr, addr + len) (len 0: no access, NULL); E_FAULT
   naming the buffer (printf-style `what`) when it leaves device memory. */
static int dev_ptr(soft_device *d, const char *who, uint64_t addr, uint64_t len, const uint8_t **out, const char *what, ...)
    __attribute__((format(printf, 6, 7)));
static int dev_ptr(soft_device *d, const char *who, uint64_t addr, uint64_t len, const uint8_t **out, const char *what, ...) {
  uint8_t *p = NULL;
  *out = NULL;
  if (!len) return HADOS_OK;
  if (soft_range(d, addr, len, &p) == HADOS_OK) {
    *out = p;
    return HADOS_OK;
  }
  char w[128];
  va_list ap;
  va_start(ap, what);
  vsnprintf(w, sizeof w, what, ap);
  va_end(ap);
  return soft_fail(HADOS_E_FAULT, "%s: %s: [0x%llx, +%llu) is outside device memory", who, w, (unsigned long long)addr,
                   (unsigned long long)len);
}

#define CBAD(j, FMT, ...) soft_fail(HADOS_E_INVALID, "%s: column %u: " FMT, who, j, __VA_ARGS__)

/* Offsets [first, last] of a string buffer: non-decreasing, non-negative;
   *end receives the last one. */
static int check_offsets(const char *who, uint32_t j, const char *what, const uint8_t *offs, uint32_t w, uint64_t first, uint64_t last, uint64_t *end) {
  int64_t prev = w == 4 ? ld_i32(offs + first * 4) : ld_i64(offs + first * 8);
  if (prev < 0) return CBAD(j, "%s offset %llu is negative (%lld)", what, (unsigned long long)first, (long long)prev);
  { /* the common case in one branchless (vectorisable) pass; the loop
       below finds the entry to name */
    uint64_t bad = 0;
    if (w == 4)
      for (uint64_t i = first + 1; i <= last; i++) bad |= ld_i32(offs + i * 4) < ld_i32(offs + i * 4 - 4);
    else
      for (uint64_t i = first + 1; i <= last; i++) bad |= ld_i64(offs + i * 8) < ld_i64(offs + i * 8 - 8);
    if (!bad) {
      *end = (uint64_t)(w == 4 ? ld_i32(offs + last * 4) : ld_i64(offs + last * 8));
      return HADOS_OK;
    }
  }
  for (uint64_t i = first + 1; i <= last; i++) {
    int64_t o = w == 4 ? ld_i32(offs + i * 4) : ld_i64(offs + i * 8);
    if (o < prev)
      return CBAD(j, "%s offsets decrease at entry %llu (%lld after %lld)", what, (unsigned long long)i, (long long)o, (long long)prev);
    prev = o;
  }
  *end = (uint64_t)prev;
  return HADOS_OK;
}

#define COLF_IDX (HADOS_COLF_IDX8 | HADOS_COLF_IDXU8 | HADOS_COLF_IDX16)

static int col_bind(soft_device *d, const char *who, uint32_t j, soft_col *col, uint64_t rb, uint64_t re, int pipeline) {
  const hados_column *c = &col->c;
  const uint32_t known = HADOS_COLF_DICT | HADOS_COLF_LARGE | (pipeline ? COLF_IDX : 0);
  if (!vt_ok(c->vtype)) return CBAD(j, "unknown value type %u", c->vtype);
  if (c->flags & ~known) return CBAD(j, "unknown flags 0x%x", c->flags);
  const int fixed_dict = pipeline && (c->flags & HADOS_COLF_DICT) && c->vtype != HADOS_VT_STR;
  if (c->flags && c->vtype != HADOS_VT_STR && !fixed_dict) return CBAD(j, "flags 0x%x on a %s column", c->flags, vt_name(c->vtype));
  if (fixed_dict && (c->vtype == HADOS_VT_BOOL || (c->flags & HADOS_COLF_LARGE)))
    return CBAD(j, "flags 0x%x on a %s column (dictionaries hold I32, I64, F64, I128 or STR)", c->flags, vt_name(c->vtype));
  if ((c->flags & HADOS_COLF_DICT) && (c->flags & HADOS_COLF_LARGE)) return CBAD(j, "flags 0x%x: a dictionary has int32 offsets", c->flags);
  if ((c->flags & COLF_IDX) && (!(c->flags & HADOS_COLF_DICT) || ((c->flags & COLF_IDX) & ((c->flags & COLF_IDX) - 1))))
    return CBAD(j, "flags 0x%x: one code width flag, on a dictionary column", c->flags);
  col->dict_width = 0;
  col->dict_str1 = 0;
  col->offsets_lazy = 0;
  col->codes_unsigned = (c->flags & HADOS_COLF_IDXU8) != 0;
  if (re > c->length) return CBAD(j, "rows [%llu, %llu) beyond its length %llu", (unsigned long long)rb, (unsigned long long)re, (unsigned long long)c->length);
  if (c->offset > (1ull << 56) || c->length > (1ull << 56)) return CBAD(j, "offset %llu / length %llu too large", (unsigned long long)c->offset, (unsigned long long)c->length);
  uint64_t first = c->offset + rb, end = c->offset + re; /* element range touched */
  col->all_valid = c->validity == 0 || c->null_count == 0;
  if (rb == re) return HADOS_OK;
  int st;
  if (!col->all_valid && (st = dev_ptr(d, who, c->validity, (end + 7) / 8, &col->validity, "column %u: validity bitmap", j)))
    return st;
  if (fixed_dict) {
    col->width = c->flags & (HADOS_COLF_IDX8 | HADOS_COLF_IDXU8) ? 1 : c->flags & HADOS_COLF_IDX16 ? 2 : 4;
    col->dict_width = c->vtype == HADOS_VT_I32 ? 4 : c->vtype == HADOS_VT_I128 ? 16 : 8;
    if (c->dict_length > INT32_MAX) return CBAD(j, "dictionary of %llu entries", (unsigned long long)c->dict_length);
    if ((st = dev_ptr(d, who, c->data, end * col->width, &col->data, "column %u: dictionary codes", j))) return st;
    return dev_ptr(d, who, c->dict_data, c->dict_length * col->dict_width, &col->dict_data, "column %u: dictionary values", j);
  }
  switch (c->vtype) {
    case HADOS_VT_BOOL: col->width = 0; st = dev_ptr(d, who, c->data, (end + 7) / 8, &col->data, "column %u: values", j); break;
    case HADOS_VT_I32: col->width = 4; st = dev_ptr(d, who, c->data, end * 4, &col->data, "column %u: values", j); break;
    case HADOS_VT_I64: case HADOS_VT_F64: col->width = 8; st = dev_ptr(d, who, c->data, end * 8, &col->data, "column %u: values", j); break;
    case HADOS_VT_I128: col->width = 16; st = dev_ptr(d, who, c->data, end * 16, &col->data, "column %u: values", j); break;
    default:
      if (c->flags & HADOS_COLF_DICT) {
        col->width = c->flags & (HADOS_COLF_IDX8 | HADOS_COLF_IDXU8) ? 1 : c->flags & HADOS_COLF_IDX16 ? 2 : 4;
        if ((st = dev_ptr(d, who, c->data, end * col->width, &col->data, "column %u: dictionary codes", j))) break;
        if (c->dict_length > INT32_MAX) return CBAD(j, "dictionary of %llu entries", (unsigned long long)c->dict_length);
        if ((st = dev_ptr(d, who, c->dict_offsets, (c->dict_length + 1) * 4, &col->dict_offsets, "column %u: dictionary offsets", j)))
          return st;
        uint64_t bytes = 0;
        TRY(check_offsets(who, j, "dictionary", col->dict_offsets, 4, 0, c->dict_length, &bytes));
        if ((st = dev_ptr(d, who, c->dict_data, bytes, &col->dict_data, "column %u: dictionary bytes", j))) return st;
        if (pipeline && c->dict_length && c->dict_length <= 256) { /* one-byte entries: loads lay the bytes out in row order */
          uint32_t one = 1;
          for (uint64_t k = 0; k < c->dict_length; k++) {
            int32_t s0 = ld_i32(col->dict_offsets + 4 * k);
            one &= ld_i32(col->dict_offsets + 4 * k + 4) - s0 == 1;
            if (one) col->dict_byte[k] = col->dict_data[s0];
          }
          col->dict_str1 = one;
        }
      } else {
        col->width = c->flags & HADOS_COLF_LARGE ? 8 : 4;
        if ((st = dev_ptr(d, who, c->offsets, (end + 1) * col->width, &col->offsets, "column %u: string offsets", j))) return st;
        uint64_t bytes = 0;
        if (pipeline && col->width == 4) { /* the rest as vectors load them (load_column) */
          const int64_t o0 = ld_i32(col->offsets + first * 4), o1 = ld_i32(col->offsets + end * 4);
          if (o0 < 0 || o1 < o0) TRY(check_offsets(who, j, "string", col->offsets, 4, first, end, &bytes)); /* names the entry */
          if (o0 < 0 || o1 < o0) return CBAD(j, "string offsets [%llu, %llu] out of order", (unsigned long long)first, (unsigned long long)end);
          col->offsets_lazy = 1;
          col->off_first = o0;
          col->off_end = o1;
          bytes = (uint64_t)o1;
        } else {
          TRY(check_offsets(who, j, "string", col->offsets, col->width, first, end, &bytes));
        }
        if ((st = dev_ptr(d, who, c->data, bytes, &col->data, "column %u: string bytes", j))) return st;
      }
  }
  return st;
}

int soft_col_bind(soft_device *d, const char *who, uint32_t j, soft_col *col, uint64_t rb, uint64_t re) {
  return col_bind(d, who, j, col, rb, re, 0);
}

int soft_col_bind_pipeline(soft_device *d, const char *who, uint32_t j, soft_col *col, uint64_t rb, uint64_t re) {
  return col_bind(d, who, j, col, rb, re, 1);
}

#define OBAD(j, FMT, ...) soft_fail(HADOS_E_INVALID, "%s: project output column %u: " FMT, who, j, __VA_ARGS__)

int soft_project_out_bind(soft_device *d, const char *who, uint64_t addr, uint32_t n, const uint32_t *vts, soft_outcol **outs,
                          uint64_t *cap_rows) {
  const uint8_t *p;
  hados_project_out hdr;
  int st;
  *outs = NULL;
  if ((st = dev_ptr(d, who, addr, sizeof hdr, &p, "project output header"))) return st;
  memcpy(&hdr, p, sizeof hdr);
  if (hdr.n_cols != n)
    return soft_fail(HADOS_E_INVALID, "%s: project output has %llu columns, want %u", who, (unsigned long long)hdr.n_cols, n);
  if (hdr.capacity_rows > (1ull << 40))
    return soft_fail(HADOS_E_INVALID, "%s: project output capacity %llu rows is too large", who, (unsigned long long)hdr.capacity_rows);
  if ((st = dev_ptr(d, who, addr, sizeof hdr + hdr.n_cols * sizeof(hados_column), &p, "project output columns"))) return st;
  *cap_rows = hdr.capacity_rows;
  if (!n) return HADOS_OK;
  soft_outcol *os = calloc(n, sizeof *os);
  if (!os) return soft_fail(HADOS_E_NOMEM, "%s: out of host memory", who);
  *outs = os;
  uint64_t cap = hdr.capacity_rows;
  for (uint32_t j = 0; j < n; j++) {
    soft_outcol *o = &os[j];
    uint32_t vt = vts[j];
    memcpy(&o->c, p + sizeof hdr + j * sizeof(hados_column), sizeof o->c);
    if (o->c.vtype != vt) return OBAD(j, "type %s, want %s", vt_name(o->c.vtype), vt_name(vt));
    if (o->c.flags) return OBAD(j, "flags 0x%x (output strings are utf8 with int32 offsets)", o->c.flags);
    if (o->c.offset) return OBAD(j, "offset %llu (output starts at row 0)", (unsigned long long)o->c.offset);
    if (o->c.validity &&
        (st = dev_ptr(d, who, o->c.validity, (cap + 7) / 8, (const uint8_t **)&o->validity, "project output column %u: validity", j)))
      return st;
    switch (vt) {
      case HADOS_VT_BOOL: st = dev_ptr(d, who, o->c.data, (cap + 7) / 8, (const uint8_t **)&o->data, "project output column %u: values", j); break;
      case HADOS_VT_I32: st = dev_ptr(d, who, o->c.data, cap * 4, (const uint8_t **)&o->data, "project output column %u: values", j); break;
      case HADOS_VT_I64: case HADOS_VT_F64: st = dev_ptr(d, who, o->c.data, cap * 8, (const uint8_t **)&o->data, "project output column %u: values", j); break;
      case HADOS_VT_I128: st = dev_ptr(d, who, o->c.data, cap * 16, (const uint8_t **)&o->data, "project output column %u: values", j); break;
      default:
        if (o->c.capacity > INT32_MAX) return OBAD(j, "capacity %llu bytes exceeds int32 offsets", (unsigned long long)o->c.capacity);
        if ((st = dev_ptr(d, who, o->c.offsets, (cap + 1) * 4, (const uint8_t **)&o->offsets, "project output column %u: offsets", j))) break;
        st = dev_ptr(d, who, o->c.data, o->c.capacity, (const uint8_t **)&o->data, "project output column %u: string bytes", j);
        memset(o->offsets, 0, 4);
    }
    if (st) return st;
  }
  return HADOS_OK;
}

static int bind_project(pl_prog *P, uint64_t addr) {
  uint32_t vts[HADOS_MAX_REGISTERS * 4];
  for (uint32_t j = 0; j < P->n_proj; j++) vts[j] = P->vt[P->proj[j]];
  return soft_project_out_bind(P->d, "pipeline", addr, P->n_proj, vts, &P->outs, &P->out_cap);
}

/* ---------------------------------------------------------------- run scratch */
/* Registers (own values + validity), constant registers and the arena in
   one block; constant registers are filled once. */
static int alloc_scratch(pl_prog *P) {
  uint32_t nr = P->h.n_regs + P->n_creg;
  uint64_t per = 16ull * VS + VS;
  uint64_t bytes = per * nr + P->arena_bytes + 64;
  if (nr && !(P->regs = calloc(nr, sizeof(soft_reg)))) return soft_fail(HADOS_E_NOMEM, "pipeline: out of host memory");
  if (!(P->scratch = aligned_alloc(64, (bytes + 63) & ~63ull)))
    return soft_fail(HADOS_E_NOMEM, "pipeline: %llu bytes of register scratch: out of host memory", (unsigned long long)bytes);
  uint8_t *m = P->scratch;
  for (uint32_t r = 0; r < nr; r++) {
    soft_reg *R = &P->regs[r];
    R->own = m;
    R->valid = m + 16ull * VS;
    R->data = R->own;
    m += per;
    R->vtype = r < P->h.n_regs ? P->vt[r] : 0;
  }
  for (uint32_t c = 0; c < P->h.n_consts; c++) {
    if (P->creg_of[c] < 0) continue;
    soft_reg *R = &P->regs[P->h.n_regs + P->creg_of[c]];
    const soft_cval *v = &P->cv[c];
    R->vtype = v->vtype;
    R->all_valid = !v->is_null;
    memset(R->valid, !v->is_null, VS);
    for (uint32_t i = 0; i < VS; i++) {
      switch (v->vtype) {
        case HADOS_VT_BOOL: R->own[i] = (uint8_t)v->i; break;
        case HADOS_VT_I32: ((int32_t *)R->own)[i] = (int32_t)v->i; break;
        case HADOS_VT_I64: ((int64_t *)R->own)[i] = v->i; break;
        case HADOS_VT_F64: ((double *)R->own)[i] = v->f; break;
        case HADOS_VT_I128: ((i128 *)R->own)[i] = v->x; break;
        default: ((soft_str *)R->own)[i] = v->s;
      }
    }
  }
  return HADOS_OK;
}

/* ---------------------------------------------------------------- execution */
static inline uint8_t bit_at(const uint8_t *bits, uint64_t i) { return (bits[i >> 3] >> (i & 7)) & 1; }

static void expand_bits(uint8_t *out, const uint8_t *bits, uint64_t first, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) out[i] = bit_at(bits, first + i);
}

/* Dictionary code of element e (any code width). */
static inline int64_t code_at(const pl_col *col, uint64_t e) {
  switch (col->width) {
    case 1: return col->codes_unsigned ? (int64_t)col->data[e] : (int64_t)(int8_t)col->data[e];
    case 2: {
      int16_t x;
      memcpy(&x, col->data + 2 * e, 2);
      return x;
    }
  }
  return ld_i32(col->data + 4 * e);
}

/* Row i's dictionary code (code element e) into *code, -1 for a null row
   whose code lies outside [0, dl) (its value is never read); E_INVALID
   naming the row for a valid one. */
static inline int row_code(const pl_prog *P, uint32_t ins, const pl_col *col, const soft_reg *r, const soft_vec *v, uint32_t i,
                           uint64_t e, uint64_t dl, int64_t *code) {
  int64_t c = code_at(col, e);
  if (c < 0 || (uint64_t)c >= dl) {
    if (r->all_valid || r->valid[i])
      return BAD("instruction %u (COLUMN): column %d row %llu: dictionary code %lld outside [0, %llu)", ins, P->steps[ins].in.p1,
                 (unsigned long long)(v->row0 + i), (long long)c, (unsigned long long)dl);
    c = -1;
  }
  *code = c;
  return HADOS_OK;
}

/* The largest code of n rows from element e0 as unsigned (a negative code
   is huge): one branchless pass in the codes' own width (the maximum and
   an OR whose sign bit says some code is negative), which vectorises even
   for the baseline ISA (a pass on 64-bit values does not). */
#define MAXCODE(T, SIGNED)                                                  \
  static uint64_t maxcode_##T(const uint8_t *p, uint32_t n) {               \
    const T *c = (const T *)(const void *)p;                                \
    T m = 0, o = 0;                                                         \
    for (uint32_t i = 0; i < n; i++) {                                      \
      m = c[i] > m ? c[i] : m;                                              \
      o |= c[i];                                                            \
    }                                                                       \
    if (SIGNED && (uint64_t)(int64_t)o >> 63) return UINT64_MAX;          \
    return (uint64_t)m;                                                     \
  }
MAXCODE(int8_t, 1)
MAXCODE(uint8_t, 0)
MAXCODE(int16_t, 1)
MAXCODE(int32_t, 1)

/* The largest of the n codes of col at p (aligned to the code width), as
   maxcode_* gives it (a negative code is huge). */
static uint64_t max_code(const pl_col *col, const uint8_t *p, uint32_t n) {
  switch (col->width) {
    case 1: return col->codes_unsigned ? maxcode_uint8_t(p, n) : maxcode_int8_t(p, n);
    case 2: return maxcode_int16_t(p, n);
    default: return maxcode_int32_t(p, n);
  }
}

/* Gathers dictionary values: dense (sel NULL: rows 0..n-1) or the selected
   rows; every code read is known to be in range. */
#define GATHER(T, V)                                                                                   \
  static void gather_##T##_##V(V *restrict o, const uint8_t *p, const V *restrict dict, uint32_t n,   \
                               const uint16_t *sel, uint32_t sel_n) {                                  \
    const T *c = (const T *)(const void *)p;                                                           \
    if (!sel) {                                                                                        \
      for (uint32_t i = 0; i < n; i++) o[i] = dict[c[i]];                                              \
    } else {                                                                                           \
      for (uint32_t k = 0; k < sel_n; k++) o[sel[k]] = dict[c[sel[k]]];                                \
    }                                                                                                  \
  }
#define GATHERS(T) GATHER(T, int32_t) GATHER(T, int64_t) GATHER(T, i128)
GATHERS(int8_t)
GATHERS(uint8_t)
GATHERS(int16_t)
GATHERS(int32_t)

/* COLUMN of a dictionary-encoded fixed-width column: the codes are checked
   (a valid row's code outside the dictionary is E_INVALID naming the row;
   a null row's code is not used), then the values gathered from the
   dictionary into the register: every row when the selection keeps most
   of them (dense kernels may read them all), else the selected rows. */
static int load_dict_fixed(pl_prog *P, uint32_t ins, const pl_col *col, soft_reg *r, const soft_vec *v, uint64_t e0, int lazy) {
  uint32_t n = v->n, w = col->width;
  uint64_t dl = col->c.dict_length;
  const uint8_t *p = col->data + e0 * w;
  if ((uintptr_t)p % w || (uintptr_t)col->dict_data % col->dict_width) { /* misaligned: the slow path */
  } else {
    uint64_t mx = max_code(col, p, n);
    if (n && mx < dl) {
      if (lazy) return HADOS_OK; /* only code filters read the register */
      const uint16_t *sel = v->sel && 4ull * v->sel_n < 3ull * n ? v->sel : NULL;
      uint32_t sn = v->sel_n;
#define G(T)                                                                                              \
  switch (col->dict_width) {                                                                              \
    case 4: gather_##T##_int32_t((void *)r->own, p, (const int32_t *)(const void *)col->dict_data, n, sel, sn); break; \
    case 8: gather_##T##_int64_t((void *)r->own, p, (const int64_t *)(const void *)col->dict_data, n, sel, sn); break; \
    default: gather_##T##_i128((void *)r->own, p, (const i128 *)(const void *)col->dict_data, n, sel, sn);        \
  }
      if (w == 1 && col->codes_unsigned) G(uint8_t)
      else if (w == 1) G(int8_t)
      else if (w == 2) G(int16_t)
      else G(int32_t)
#undef G
      return HADOS_OK;
    }
  }
  /* some code is out of range (or the codes are misaligned): row by row,
     null rows take entry 0 (or zero) */
  for (uint32_t i = 0; i < n; i++) {
    int64_t code = 0;
    TRY(row_code(P, ins, col, r, v, i, e0 + i, dl, &code));
    uint8_t *o = r->own + (size_t)i * col->dict_width;
    if (code < 0) {
      memset(o, 0, col->dict_width);
      continue;
    }
    memcpy(o, col->dict_data + (uint64_t)code * col->dict_width, col->dict_width);
  }
  return HADOS_OK;
}

/* Unaligned 32-bit loads (string offsets at any device address). */
typedef uint32_t pl_u32a __attribute__((aligned(1), may_alias));

static int check_codes(const pl_prog *P, uint32_t ins, const pl_col *col, const soft_reg *r, const soft_vec *v, uint64_t e0);

/* COLUMN: loads the vector's rows of a column into register r. */
static int load_column(pl_prog *P, uint32_t ins, const pl_col *col, soft_reg *r, const soft_vec *v, soft_arena *arena) {
  uint64_t e0 = col->c.offset + v->row0;
  uint32_t n = v->n;
  r->alias = 0;
  r->str1 = 0;
  r->str1_lazy = 0;
  r->narrow = 0;
  r->data = r->own;
  r->all_valid = (uint32_t)col->all_valid;
  if (!col->all_valid) expand_bits(r->valid, col->validity, e0, n);
  if (col->dict_width) return load_dict_fixed(P, ins, col, r, v, e0, P->steps[ins].lazy);
  switch (col->c.vtype) {
    case HADOS_VT_BOOL:
      expand_bits(r->own, col->data, e0, n);
      return HADOS_OK;
    case HADOS_VT_STR: {
      soft_str *o = (soft_str *)r->own;
      if (col->c.flags & HADOS_COLF_DICT) {
        if (P->steps[ins].slazy) return check_codes(P, ins, col, r, v, e0); /* only dictionary predicates read it */
        uint64_t dl = col->c.dict_length;
        uint8_t *b = col->dict_str1 && n ? vk_arena(arena, n) : NULL;
        if (b) { /* one-byte entries: the bytes in row order, for str1 */
          const uint8_t *p = col->data + e0 * col->width;
          if ((uintptr_t)p % col->width == 0) {
            uint64_t mx = max_code(col, p, n);
            if (mx < dl) { /* every code in range: a byte table lookup per row */
              const uint8_t *db = col->dict_byte;
              if (col->width == 1)
                for (uint32_t i = 0; i < n; i++) b[i] = db[p[i]];
              else if (col->width == 2)
                for (uint32_t i = 0; i < n; i++) b[i] = db[((const uint16_t *)(const void *)p)[i]];
              else
                for (uint32_t i = 0; i < n; i++) b[i] = db[((const uint32_t *)(const void *)p)[i]];
              o[0] = (soft_str){b, 1, 0}; /* view 0 only (str1_lazy) */
              r->str1 = r->str1_lazy = 1;
              return HADOS_OK;
            }
          }
          for (uint32_t i = 0; i < n; i++) {
            int64_t code = 0;
            TRY(row_code(P, ins, col, r, v, i, e0 + i, dl, &code));
            if (code < 0) code = 0;
            b[i] = col->dict_byte[code];
            o[i] = (soft_str){b + i, 1, 0};
          }
          r->str1 = 1;
          return HADOS_OK;
        }
        const uint8_t *p = col->data + e0 * col->width;
        if ((uintptr_t)p % col->width == 0) {
          uint64_t mx = max_code(col, p, n);
          if (mx < dl) { /* every code in range: views of the selected rows (every row when most are) */
            const uint8_t *doff = col->dict_offsets, *dd = col->dict_data;
            const uint16_t *sel = v->sel && 4ull * v->sel_n < 3ull * n ? v->sel : NULL;
            const uint32_t m = sel ? v->sel_n : n;
#define VIEWS(T)                                                                                  \
  for (uint32_t j = 0; j < m; j++) {                                                              \
    const uint32_t i = sel ? sel[j] : j;                                                          \
    const uint64_t c = (uint64_t)((const T *)(const void *)p)[i];                                 \
    const int32_t s0 = ld_i32(doff + 4 * c), s1 = ld_i32(doff + 4 * c + 4);                       \
    o[i] = (soft_str){dd + s0, (uint32_t)(s1 - s0), 0};                                           \
  }
            if (col->width == 1) VIEWS(uint8_t) /* int8 codes in range are non-negative */
            else if (col->width == 2) VIEWS(uint16_t)
            else VIEWS(uint32_t)
#undef VIEWS
            return HADOS_OK;
          }
        }
        for (uint32_t i = 0; i < n; i++) {
          int64_t code = 0;
          TRY(row_code(P, ins, col, r, v, i, e0 + i, dl, &code));
          if (code < 0) {
            o[i] = (soft_str){col->dict_data, 0, 0};
            continue;
          }
          int32_t s0 = ld_i32(col->dict_offsets + 4 * (uint64_t)code), s1 = ld_i32(col->dict_offsets + 4 * (uint64_t)code + 4);
          o[i] = (soft_str){col->dict_data + s0, (uint32_t)(s1 - s0), 0};
        }
      } else if (col->width == 4) {
        const pl_u32a *off = (const pl_u32a *)(const void *)(col->offsets + e0 * 4);
        /* every string one byte long (consecutive offsets, one contiguous
           byte array: str1) or not, and the vector's offsets in order
           (offsets_lazy: checked here) */
        uint32_t notone = 0, dec = 0;
        for (uint32_t i = 0; i < n; i++) notone |= (off[i + 1] - off[i]) ^ 1u; /* branchless: vectorised */
        if (notone)
          for (uint32_t i = 0; i < n; i++) dec |= (int32_t)off[i + 1] < (int32_t)off[i];
        if (col->offsets_lazy && (dec || (int32_t)off[0] < col->off_first || (int32_t)off[n] > col->off_end)) {
          uint64_t bytes;
          /* name the first bad entry of the whole bound range, as binding would have */
          TRY(check_offsets("pipeline", (uint32_t)P->steps[ins].in.p1, "string", col->offsets, 4, col->c.offset + P->rb,
                            col->c.offset + P->re, &bytes));
          return BAD("instruction %u (COLUMN): column %d rows [%llu, +%u): string offsets outside [%lld, %lld]", ins,
                     P->steps[ins].in.p1, (unsigned long long)v->row0, n, (long long)col->off_first, (long long)col->off_end);
        }
        if (!notone && n) { /* view 0 only (str1_lazy) */
          o[0] = (soft_str){col->data + (int32_t)off[0], 1, 0};
          /* the bytes: first read at the sink, after the vector's kernels */
          for (const uint8_t *b = (const uint8_t *)((uintptr_t)o[0].ptr & ~(uintptr_t)63); b < o[0].ptr + n; b += 64)
            __builtin_prefetch(b, 0, 2);
          r->str1 = r->str1_lazy = 1;
          return HADOS_OK;
        }
        for (uint32_t i = 0; i < n; i++) {
          const int32_t s0 = (int32_t)off[i], s1 = (int32_t)off[i + 1];
          o[i] = (soft_str){col->data + s0, (uint32_t)(s1 - s0), 0};
        }
      } else {
        for (uint32_t i = 0; i < n; i++) {
          int64_t s0 = ld_i64(col->offsets + (e0 + i) * 8), s1 = ld_i64(col->offsets + (e0 + i) * 8 + 8);
          if (s1 - s0 > UINT32_MAX)
            return BAD("instruction %u (COLUMN): column %d row %llu: string of %lld bytes exceeds 4 GiB", ins, P->steps[ins].in.p1,
                       (unsigned long long)(v->row0 + i), (long long)(s1 - s0));
          o[i] = (soft_str){col->data + s0, (uint32_t)(s1 - s0), 0};
        }
      }
      return HADOS_OK;
    }
    default: {
      const uint8_t *p = col->data + e0 * col->width;
      if ((uintptr_t)p % col->width == 0) {
        r->data = (void *)(uintptr_t)p;
        r->alias = 1;
      } else {
        memcpy(r->own, p, (size_t)n * col->width);
      }
      return HADOS_OK;
    }
  }
}

/* Builds the pass tables of the code filters (dict_filters) once the
   columns are bound: entry x (a raw 1- or 2-byte code) passes when x read
   as the column's code type lies in the dictionary and its value in the
   range. */
static int dict_tables(pl_prog *P) {
  for (uint32_t i = 0; i < P->h.n_insns; i++) {
    pl_step *s = &P->steps[i];
    if (s->dict_col < 0) continue;
    const pl_col *col = &P->cols[s->dict_col];
    const uint32_t entries = col->width == 1 ? 256u : 65536u;
    if (!(s->dtab = calloc(entries, 1))) return soft_fail(HADOS_E_NOMEM, "pipeline: out of host memory");
    for (uint32_t x = 0; x < entries; x++) {
      int64_t code = col->width == 2 ? (int64_t)(int16_t)x : col->codes_unsigned ? (int64_t)x : (int64_t)(int8_t)x;
      if (code < 0 || (uint64_t)code >= col->c.dict_length) continue;
      int64_t val = col->dict_width == 4 ? ld_i32(col->dict_data + 4 * code) : ld_i64(col->dict_data + 8 * code);
      s->dtab[x] = val >= s->rlo.i && val <= s->rhi.i;
    }
  }
  return HADOS_OK;
}

/* A range filter run on dictionary codes (dict_filters): keeps the
   selected rows that are valid and whose code passes. */
static void code_filter(const pl_prog *P, const pl_step *s, soft_vec *v, uint16_t *out) {
  const pl_col *col = &P->cols[s->dict_col];
  const soft_reg *r = &P->regs[s->range_reg];
  const uint8_t *tab = s->dtab, *valid = r->valid;
  const uint8_t all = (uint8_t)(r->all_valid != 0);
  const uint64_t e0 = col->c.offset + v->row0;
  uint32_t m = 0;
  if (col->width == 1) {
    const uint8_t *c = col->data + e0;
    if (!v->sel) {
      if (all)
        for (uint32_t i = 0; i < v->n; i++) out[m] = (uint16_t)i, m += tab[c[i]];
      else
        for (uint32_t i = 0; i < v->n; i++) out[m] = (uint16_t)i, m += tab[c[i]] & valid[i];
    } else {
      for (uint32_t k = 0; k < v->sel_n; k++) {
        uint32_t i = v->sel[k];
        out[m] = (uint16_t)i;
        m += tab[c[i]] & (all | valid[i]);
      }
    }
  } else {
    const uint8_t *c = col->data + 2 * e0;
    for (uint32_t k = 0; k < v->sel_n; k++) {
      uint32_t i = v->sel ? v->sel[k] : k;
      uint16_t x;
      memcpy(&x, c + 2 * i, 2);
      out[m] = (uint16_t)i;
      m += tab[x] & (all | valid[i]);
    }
  }
  v->sel = out;
  v->sel_n = m;
}

/* ---------------------------------------------------------------- dictionary predicates */
#ifndef HADOS_SOFT_DICT_PREDS /* -DHADOS_SOFT_DICT_PREDS=0 builds an engine with them off (A/B measurements) */
#define HADOS_SOFT_DICT_PREDS 1
#endif
int soft_pipeline_dict_preds = HADOS_SOFT_DICT_PREDS;

/* The largest dictionary a predicate runs on (beyond it, or beyond the
   run's rows, the kernel runs on the rows as loaded). */
#define DP_MAX_DICT 65536u

/* Per run, once the columns are bound and the scratch allocated: decides
   which candidate dictionary predicates (dict_preds) run on the
   dictionary, runs their kernels over its entries (VS at a time, in the
   column register's storage as views, into the result register's) and
   builds their tables; then marks the COLUMN loads that only such
   predicates (and null tests) read (slazy). The kernels see a vector of valid rows and the
   instruction's own constant operands. */
static int dict_preds_build(pl_prog *P, const soft_vktab *tab, soft_arena *arena) {
  const uint32_t n = P->h.n_insns, nr = P->h.n_regs;
  const int on = __atomic_load_n(&soft_pipeline_dict_preds, __ATOMIC_RELAXED);
  for (uint32_t i = 0; i < n; i++) {
    pl_step *s = &P->steps[i];
    s->dp_on = 0;
    if (!s->dp || !on) continue;
    const pl_col *col = &P->cols[s->dp_col];
    const uint64_t dl = col->c.dict_length;
    if (dl == 0 || dl > DP_MAX_DICT || dl > P->re - P->rb) continue;
    const uint64_t size = col->width == 1 ? 256 : dl + 1;
    uint8_t *t = malloc(size > 256 ? size : 256);
    if (!t) return soft_fail(HADOS_E_NOMEM, "pipeline: out of host memory");
    s->dp_tab = t;
    soft_reg *R = &P->regs[s->dp_reg], *D = &P->regs[s->in.dst];
    soft_str *views = (soft_str *)(void *)R->own;
    const uint64_t used = arena->used;
    for (uint64_t base = 0; base < dl; base += VS) {
      const uint32_t m = dl - base < VS ? (uint32_t)(dl - base) : VS;
      for (uint32_t k = 0; k < m; k++) {
        const int32_t s0 = ld_i32(col->dict_offsets + 4 * (base + k)), s1 = ld_i32(col->dict_offsets + 4 * (base + k) + 4);
        views[k] = (soft_str){col->dict_data + s0, (uint32_t)(s1 - s0), 0};
      }
      soft_reg src = *R, ca, cb;
      src.data = views;
      src.all_valid = 1;
      src.alias = src.str1 = src.str1_lazy = src.narrow = 0;
      D->data = D->own;
      D->alias = D->str1 = D->str1_lazy = D->narrow = 0;
      soft_vec vv = {m, NULL, m, 0};
      soft_kctx k;
      memset(&k, 0, sizeof k);
      k.v = &vv;
      k.in = &s->in;
      k.index = i;
      k.consts = P->cv;
      k.arena = arena;
      k.dst = D;
      if (s->use_a) {
        if (s->ca >= 0) ca = P->regs[nr + P->creg_of[s->ca]], k.ka = &P->cv[s->ca], k.a = &ca;
        else k.a = &src;
      }
      if (s->use_b) {
        if (s->cb >= 0) cb = P->regs[nr + P->creg_of[s->cb]], k.kb = &P->cv[s->cb], k.b = &cb;
        else k.b = &src;
      }
      arena->used = used;
      TRY(tab->fn[s->in.op](&k));
      const uint8_t *o = D->data;
      for (uint32_t x = 0; x < m; x++) t[base + x] = (uint8_t)((o[x] != 0) | (vk_valid_at(D, x) ? 0 : 2));
    }
    arena->used = used;
    uint8_t hasnull = 0;
    for (uint64_t x = 0; x < dl; x++) hasnull |= t[x] >> 1;
    s->dp_hasnull = hasnull;
    if (col->width == 1) { /* indexed by the raw byte: codes outside the dictionary (null rows) are null */
      for (uint32_t x = 0; x < 256; x++) {
        const int64_t code = col->codes_unsigned ? (int64_t)x : (int64_t)(int8_t)x;
        if (code < 0 || (uint64_t)code >= dl) t[x] = 2;
      }
    } else {
      t[dl] = 2; /* the entry of any code outside the dictionary */
    }
    s->dp_on = 1;
  }
  for (uint32_t w = 0; w < n; w++) { /* COLUMN loads only dictionary predicates read */
    pl_step *t = &P->steps[w];
    t->slazy = 0;
    if (t->in.op != HADOS_K_COLUMN) continue;
    const hados_column *c = &P->cols[t->in.p1].c;
    if (c->vtype != HADOS_VT_STR || !(c->flags & HADOS_COLF_DICT)) continue;
    const uint32_t r = t->in.dst;
    int only = 0, other = sink_reads(P, r);
    for (uint32_t j = w + 1; j < n && !other; j++) {
      const pl_step *u = &P->steps[j];
      if (!reads_reg(u, r)) continue;
      if (u->dp_on && u->dp_reg == r && u->dp_col == t->in.p1) only = 1;
      else if (u->in.op == HADOS_K_IS_NULL || u->in.op == HADOS_K_IS_NOT_NULL) only = 1; /* validity only */
      else other = 1;
    }
    t->slazy = only && !other;
  }
  return HADOS_OK;
}

/* COLUMN of a STR dictionary column that only dictionary predicates (and
   IS_NULL / IS_NOT_NULL, which read the validity alone) read (slazy): the validity is loaded; the codes are checked as a full load
   checks them (a valid row's code outside the dictionary is E_INVALID
   naming the row), no view is made. */
static int check_codes(const pl_prog *P, uint32_t ins, const pl_col *col, const soft_reg *r, const soft_vec *v, uint64_t e0) {
  const uint32_t n = v->n, w = col->width;
  const uint64_t dl = col->c.dict_length;
  const uint8_t *p = col->data + e0 * w;
  if ((uintptr_t)p % w == 0 && n) {
    uint64_t mx = max_code(col, p, n);
    if (mx < dl) return HADOS_OK;
  }
  for (uint32_t i = 0; i < n; i++) {
    int64_t code = 0;
    TRY(row_code(P, ins, col, r, v, i, e0 + i, dl, &code));
  }
  return HADOS_OK;
}

typedef int16_t pl_i16a __attribute__((aligned(1), may_alias));
typedef int32_t pl_i32a __attribute__((aligned(1), may_alias));

/* Row i's table entry, for the column's code width (codes at p, any
   alignment; table t; dl entries): checked (a code outside the dictionary,
   only a null row's, takes entry dl), or, when every row is valid (every
   code was checked as the column loaded), not. */
#define DP_C2(i) ((uint32_t)(int32_t)((const pl_i16a *)(const void *)p)[i])
#define DP_C4(i) ((uint32_t)((const pl_i32a *)(const void *)p)[i])
#define DP_ENTRY1(i) t[p[i]]
#define DP_ENTRY2(i) t[DP_C2(i) < dl ? DP_C2(i) : dl]
#define DP_ENTRY4(i) t[DP_C4(i) < dl ? DP_C4(i) : dl]
#define DP_ENTRY2U(i) t[DP_C2(i)]
#define DP_ENTRY4U(i) t[DP_C4(i)]

#define DP_LOOP(ENTRY, BODY)                                                     \
  do {                                                                           \
    if (s_)                                                                      \
      for (uint32_t j_ = 0; j_ < n_; j_++) {                                     \
        const uint32_t i = s_[j_];                                               \
        const uint8_t x = ENTRY(i);                                              \
        BODY;                                                                    \
      }                                                                          \
    else                                                                         \
      for (uint32_t i = 0; i < n_; i++) {                                        \
        const uint8_t x = ENTRY(i);                                              \
        BODY;                                                                    \
      }                                                                          \
  } while (0)

/* Runs BODY (reading the entry as `x`) for the selected rows i of v, for
   each code width (R: the column's register). */
#define DP_ROWS(v, BODY)                                                          \
  do {                                                                            \
    const uint32_t n_ = (v)->sel ? (v)->sel_n : (v)->n;                           \
    const uint16_t *s_ = (v)->sel;                                                \
    if (w == 1) DP_LOOP(DP_ENTRY1, BODY);                                         \
    else if (R->all_valid && w == 2) DP_LOOP(DP_ENTRY2U, BODY);                   \
    else if (R->all_valid) DP_LOOP(DP_ENTRY4U, BODY);                             \
    else if (w == 2) DP_LOOP(DP_ENTRY2, BODY);                                    \
    else DP_LOOP(DP_ENTRY4, BODY);                                                \
  } while (0)

/* A dictionary predicate (dp_on) over one vector: dst = the table's
   result for each selected row's code; a null row's result is null
   (EQ_NULLSAFE: dp_nullval, valid). */
static void dict_pred(const pl_prog *P, const pl_step *s, const soft_vec *v, soft_reg *dst) {
  const pl_col *col = &P->cols[s->dp_col];
  const soft_reg *R = &P->regs[s->dp_reg];
  const uint32_t w = col->width, dl = (uint32_t)col->c.dict_length;
  const uint8_t *p = col->data + (col->c.offset + v->row0) * w, *t = s->dp_tab, *rv = R->valid;
  uint8_t *o = dst->own, *dv = dst->valid;
  dst->data = o;
  dst->alias = dst->str1 = dst->str1_lazy = dst->narrow = 0;
  if (s->in.op == HADOS_K_EQ_NULLSAFE) { /* never null */
    const uint8_t nv = s->dp_nullval;
    if (R->all_valid) DP_ROWS(v, o[i] = x & 1);
    else DP_ROWS(v, o[i] = rv[i] ? x & 1 : nv);
    dst->all_valid = 1;
  } else if (R->all_valid && !s->dp_hasnull) {
    DP_ROWS(v, o[i] = x); /* every code is in the dictionary (checked as the column loaded) */
    dst->all_valid = 1;
  } else if (R->all_valid) {
    DP_ROWS(v, o[i] = x & 1; dv[i] = (uint8_t)(~x >> 1 & 1));
    dst->all_valid = 0;
  } else {
    DP_ROWS(v, o[i] = x & 1; dv[i] = (uint8_t)(rv[i] & ~x >> 1 & 1));
    dst->all_valid = 0;
  }
}

/* A dictionary predicate fused with its FILTER (dp_filter): keeps the
   selected rows whose result is valid and true, into out. */
static void dict_pred_filter(const pl_prog *P, const pl_step *s, soft_vec *v, uint16_t *out) {
  const pl_col *col = &P->cols[s->dp_col];
  const soft_reg *R = &P->regs[s->dp_reg];
  const uint32_t w = col->width, dl = (uint32_t)col->c.dict_length;
  const uint8_t *p = col->data + (col->c.offset + v->row0) * w, *t = s->dp_tab, *rv = R->valid;
  uint32_t m = 0;
  if (s->in.op == HADOS_K_EQ_NULLSAFE && !R->all_valid) {
    const uint8_t nv = s->dp_nullval;
    DP_ROWS(v, out[m] = (uint16_t)i; m += rv[i] ? x & 1 : nv);
  } else if (R->all_valid) {
    DP_ROWS(v, out[m] = (uint16_t)i; m += x == 1);
  } else {
    DP_ROWS(v, out[m] = (uint16_t)i; m += (x == 1) & rv[i]);
  }
  v->sel = out;
  v->sel_n = m;
}

/* Widens a narrow register (soft_reg.narrow) in place: the int64_t values
   at own + 8 * VS become __int128 at own. Row i's wide value covers the
   narrow values of rows 2i - VS and 2i - VS + 1, both <= i: rows in
   increasing order, each read before written, never overwrite a value
   still to be read. Dense (most rows selected): rows 0..n-1, eight at a
   time (the block at row i writes below every later block's values since
   i <= VS - 8 for a block that has a later one); else only the selected
   rows. may_alias keeps the compiler from reordering across the overlap. */
typedef int64_t pl_i64a __attribute__((may_alias));
typedef i128 pl_i128a __attribute__((may_alias));
void soft_reg_widen(soft_reg *R, const soft_vec *v) {
  if (!R->narrow) return;
  const pl_i64a *x = (const pl_i64a *)R->data;
  pl_i128a *o = (pl_i128a *)(void *)R->own;
  const uint32_t n = v->n;
  if (v->sel && 4ull * v->sel_n < 3ull * n) {
    for (uint32_t j = 0; j < v->sel_n; j++) {
      const uint32_t i = v->sel[j];
      const int64_t t = x[i];
      o[i] = (i128)t;
    }
  } else {
    for (uint32_t i = 0; i < n; i += 8) {
      int64_t t[8];
      const uint32_t m = n - i < 8 ? n - i : 8;
      for (uint32_t j = 0; j < m; j++) t[j] = x[i + j];
      for (uint32_t j = 0; j < m; j++) o[i + j] = (i128)t[j];
    }
  }
  R->data = R->own;
  R->narrow = 0;
}

void soft_reg_views(soft_reg *R, const soft_vec *v) {
  if (!R->str1_lazy) return;
  soft_str *o = (soft_str *)R->data;
  const uint8_t *b = o[0].ptr;
  for (uint32_t i = 1; i < v->n; i++) o[i] = (soft_str){b + i, 1, 0};
  R->str1_lazy = 0;
}

/* Kernels that read a narrow I128 operand as 64-bit storage: those whose
   instruction names each operand's storage (p2 for a, p3 for b) and read
   it through that, so the interpreter passes I64 there instead. */
static int narrow_aware(uint32_t op) {
  switch (op) {
    case HADOS_K_DEC_ADD: case HADOS_K_DEC_SUB: case HADOS_K_DEC_MUL: case HADOS_K_DEC_DIV: case HADOS_K_DEC_MOD:
    case HADOS_K_DEC_RESCALE: case HADOS_K_DEC_CHECK:
      return 1;
  }
  return 0;
}

/* SINK_PROJECT: appends the selected rows; E_NOMEM when the output is full. */
static int sink_project(pl_prog *P, const soft_vec *v) {
  for (uint32_t j = 0; j < P->n_proj; j++) soft_reg_widen(&P->regs[P->proj[j]], v), soft_reg_views(&P->regs[P->proj[j]], v);
  uint64_t room = P->out_cap - P->out_rows;
  uint32_t m = v->sel_n < room ? v->sel_n : (uint32_t)room;
  for (uint32_t j = 0; j < P->n_proj; j++) { /* rows whose strings fit */
    const soft_reg *r = &P->regs[P->proj[j]];
    pl_out *o = &P->outs[j];
    if (r->vtype != HADOS_VT_STR) continue;
    const soft_str *s = r->data;
    uint64_t used = o->used;
    for (uint32_t k = 0; k < m; k++) {
      uint32_t i = v->sel ? v->sel[k] : k;
      uint64_t len = vk_valid_at(r, i) ? s[i].len : 0;
      if (len > o->c.capacity - used) {
        m = k;
        break;
      }
      used += len;
    }
  }
  uint64_t row0 = P->out_rows;
  for (uint32_t j = 0; j < P->n_proj; j++) {
    const soft_reg *r = &P->regs[P->proj[j]];
    pl_out *o = &P->outs[j];
    for (uint32_t k = 0; k < m; k++) {
      uint32_t i = v->sel ? v->sel[k] : k;
      uint64_t at = row0 + k;
      uint8_t ok = vk_valid_at(r, i);
      if (o->validity) {
        if (ok) o->validity[at >> 3] |= (uint8_t)(1u << (at & 7));
        else o->validity[at >> 3] &= (uint8_t)~(1u << (at & 7));
      } else if (!ok) {
        return BAD("project output column %u: row %llu is null and the column has no validity bitmap", j, (unsigned long long)at);
      }
      switch (r->vtype) {
        case HADOS_VT_BOOL: {
          uint8_t b = ok && ((const uint8_t *)r->data)[i];
          if (b) o->data[at >> 3] |= (uint8_t)(1u << (at & 7));
          else o->data[at >> 3] &= (uint8_t)~(1u << (at & 7));
          break;
        }
        case HADOS_VT_I32: memcpy(o->data + at * 4, (const int32_t *)r->data + i, 4); break;
        case HADOS_VT_I64: case HADOS_VT_F64: memcpy(o->data + at * 8, (const int64_t *)r->data + i, 8); break;
        case HADOS_VT_I128: memcpy(o->data + at * 16, (const i128 *)r->data + i, 16); break;
        default: {
          soft_str s = ((const soft_str *)r->data)[i];
          if (!ok) s.len = 0;
          if (s.len) memcpy(o->data + o->used, s.ptr, s.len);
          o->used += s.len;
          int32_t end = (int32_t)o->used;
          memcpy(o->offsets + (at + 1) * 4, &end, 4);
        }
      }
    }
  }
  P->out_rows += m;
  if (m < v->sel_n)
    return soft_fail(HADOS_E_NOMEM, "pipeline: project output full after %llu rows (capacity %llu rows)",
                     (unsigned long long)P->out_rows, (unsigned long long)P->out_cap);
  return HADOS_OK;
}

static int sink_agg(pl_prog *P, const soft_vec *v) {
  const soft_reg *keys[16], *args[64], *args2[64];
  for (uint32_t k = 0; k < P->agg.n_keys; k++) soft_reg_widen(&P->regs[P->agg.key_regs[k]], v);
  for (uint32_t j = 0; j < P->agg.n_aggs; j++) {
    const hados_agg *g = &P->agg.aggs[j];
    /* a narrow argument goes as it is: soft_agg_update sums it in 64-bit
       lanes or widens it itself */
    if ((g->flags & HADOS_AGGF_MERGE) && g->arg2 != 0xffff) soft_reg_widen(&P->regs[g->arg2], v);
  }
  for (uint32_t k = 0; k < P->agg.n_keys; k++) keys[k] = &P->regs[P->agg.key_regs[k]];
  for (uint32_t j = 0; j < P->agg.n_aggs; j++) {
    const hados_agg *g = &P->agg.aggs[j];
    args[j] = g->arg == 0xffff ? NULL : &P->regs[g->arg];
    args2[j] = (g->flags & HADOS_AGGF_MERGE) && g->arg2 != 0xffff ? &P->regs[g->arg2] : NULL;
  }
  return soft_agg_update(P->agg_state, keys, args, args2, v);
}

/* Kernels that may run over every row of a vector whose selection keeps
   most of them (dense): pure per-row arithmetic that never fails, so the
   unselected rows (whatever their register contents) only cost time, and
   the dense loops vectorise where a loop over a selection does not. */
static int dense_ok(uint32_t op) {
  switch (op) {
    case HADOS_K_ADD: case HADOS_K_SUB: case HADOS_K_MUL:
    case HADOS_K_DEC_ADD: case HADOS_K_DEC_SUB: case HADOS_K_DEC_MUL: case HADOS_K_DEC_RESCALE: case HADOS_K_DEC_CHECK:
    case HADOS_K_CAST_I32_I64: case HADOS_K_CAST_INT_TO_DEC: case HADOS_K_CAST_TO_F64:
      return 1;
  }
  return 0;
}

/* The share of selected rows (in quarters) from which a dense_ok kernel
   runs over every row: 1/4 for one-instruction-per-row lane arithmetic
   (integer and double +, -, *, int widening, int to double), where a dense
   loop of 8 or 16 lanes beats a loop over even a quarter of the rows
   through the selection (whose index loads, gathers and scatters do not
   vectorise well), and 3/4 for the decimal kernels, whose rows cost more. */
static uint32_t dense_quarters(const hados_insn *in) {
  switch (in->op) {
    case HADOS_K_ADD: case HADOS_K_SUB: case HADOS_K_MUL: case HADOS_K_CAST_I32_I64:
      return 1;
    case HADOS_K_CAST_TO_F64:
      return in->p2 == HADOS_VT_I128 ? 3 : 1;
  }
  return 3;
}

/* A loaded column's values (or a plain string column's offsets) from row 0
   of the op's column: pointer and bytes per row, for the prefetch queue. */
typedef struct pl_pf {
  const uint8_t *p;
  uint32_t width;
} pl_pf;

/* Rows of every loaded column two vectors on, prefetched into the cache
   a slice before each instruction of this vector (pfq_step) and the rest
   before its sink: the kernels read a column a vector at a time, in short
   streams the hardware prefetcher picks up late, and requests spread over
   the vector's work keep memory busy while it computes (one burst at the
   vector's start waits on the memory system's queue). */
typedef struct pl_pfq {
  const pl_pf *pf;
  uint32_t npf, c;              /* columns, the one being prefetched */
  uint32_t quota;               /* lines per step */
  uint64_t row, n;              /* the rows prefetched */
  const uint8_t *p, *e;         /* column c's next line, its end */
} pl_pfq;

static void pfq_col(pl_pfq *q) {
  const pl_pf *f = &q->pf[q->c];
  q->p = (const uint8_t *)((uintptr_t)(f->p + q->row * f->width) & ~(uintptr_t)63);
  q->e = f->p + (q->row + q->n) * f->width;
}

/* Starts prefetching rows [row, row + n) (n = 0: none), steps slices. */
static void pfq_begin(pl_pfq *q, uint64_t row, uint64_t n, uint32_t steps) {
  uint64_t lines = 0;
  for (uint32_t c = 0; c < q->npf; c++) lines += (n * q->pf[c].width + 127) / 64;
  q->row = row;
  q->n = n;
  q->c = n ? 0 : q->npf;
  q->quota = (uint32_t)(lines / (steps ? steps : 1) + 1);
  if (q->c < q->npf) pfq_col(q);
}

/* Prefetches up to `lines` more lines. */
static void pfq_step(pl_pfq *q, uint32_t lines) {
  while (q->c < q->npf && lines) {
    for (; q->p < q->e && lines; q->p += 64, lines--) __builtin_prefetch(q->p, 0, 2);
    if (q->p >= q->e && ++q->c < q->npf) pfq_col(q);
  }
}

/* Runs the instructions over one vector; v->sel_n == 0 afterwards means no
   row survived. */
static int run_vector(pl_prog *P, const soft_vktab *tab, soft_vec *v, uint16_t *selbuf[2], soft_arena *arena, pl_pfq *pq) {
  uint32_t nr = P->h.n_regs;
  for (uint32_t ii = 0; ii < P->h.n_insns; ii++) {
    const pl_step *s = &P->steps[ii];
    pfq_step(pq, pq->quota);
    const hados_insn *in = &s->in;
    soft_reg *dst = in->dst < nr ? &P->regs[in->dst] : NULL;
    int st;
    switch (in->op) {
      case HADOS_K_NOP:
        continue;
      case HADOS_K_COLUMN:
        TRY(load_column(P, ii, &P->cols[in->p1], dst, v, arena));
        continue;
      case HADOS_K_CONST: {
        const soft_reg *c = &P->regs[nr + P->creg_of[in->p1]];
        dst->data = c->data;
        dst->alias = 1;
        dst->str1 = 0;
        dst->str1_lazy = 0;
        dst->narrow = 0;
        dst->all_valid = c->all_valid;
        if (!c->all_valid) memset(dst->valid, 0, v->n);
        continue;
      }
    }
    if (s->dp_on) { /* evaluated on the dictionary: a table lookup per row */
      if (s->dp_filter) {
        dict_pred_filter(P, s, v, v->sel == selbuf[0] ? selbuf[1] : selbuf[0]);
        if (v->sel_n == 0) return HADOS_OK;
        ii++; /* the FILTER ran fused */
      } else {
        dict_pred(P, s, v, dst);
      }
      continue;
    }
    soft_reg sa, sb, sc;
    soft_kctx k;
    hados_insn nin;
    k.v = v;
    k.in = in;
    /* narrow operands: read as I64 storage by the kernels that can, widened
       for every other (and when the kernel writes over them) */
    if (s->use_a && s->ca < 0 && P->regs[in->a].narrow) {
      if (!narrow_aware(in->op) || in->a == in->dst) {
        soft_reg_widen(&P->regs[in->a], v);
      } else {
        if (k.in == in) nin = *in, k.in = &nin;
        nin.p2 = HADOS_VT_I64;
      }
    }
    if (s->use_b && s->cb < 0 && P->regs[in->b].narrow) {
      if (!narrow_aware(in->op) || in->op == HADOS_K_DEC_RESCALE || in->b == in->dst) {
        soft_reg_widen(&P->regs[in->b], v);
      } else {
        if (k.in == in) nin = *in, k.in = &nin;
        nin.p3 = HADOS_VT_I64;
      }
    }
    if (s->use_c && P->regs[in->c].narrow) soft_reg_widen(&P->regs[in->c], v);
    if (s->use_a && s->ca < 0) soft_reg_views(&P->regs[in->a], v); /* str1_lazy: every view */
    if (s->use_b && s->cb < 0) soft_reg_views(&P->regs[in->b], v);
    if (s->use_c) soft_reg_views(&P->regs[in->c], v);
    k.index = ii;
    k.consts = P->cv;
    k.arena = arena;
    k.ka = k.kb = NULL;
    k.a = k.b = k.c = NULL;
    if (s->use_a) {
      sa = s->ca >= 0 ? P->regs[nr + P->creg_of[s->ca]] : P->regs[in->a];
      k.a = &sa;
      if (s->ca >= 0) k.ka = &P->cv[s->ca];
    }
    if (s->use_b) {
      sb = s->cb >= 0 ? P->regs[nr + P->creg_of[s->cb]] : P->regs[in->b];
      k.b = &sb;
      if (s->cb >= 0) k.kb = &P->cv[s->cb];
    }
    if (s->use_c) {
      sc = P->regs[in->c];
      k.c = &sc;
    }
    if (s->range) {
      k.a = &P->regs[s->range_reg];
      k.ka = &s->rlo;
      k.kb = &s->rhi;
      k.dst = NULL;
      k.sel_out = v->sel == selbuf[0] ? selbuf[1] : selbuf[0];
      k.vout = v;
      if (s->dtab) code_filter(P, s, v, k.sel_out);
      else if ((st = tab->range_filter(&k))) return st;
      if (v->sel_n == 0) return HADOS_OK;
      ii += s->range_merged ? 3 : 1; /* the FILTER (and the merged compare + FILTER) ran */
      continue;
    }
    if (in->op == HADOS_K_FILTER || s->fuse_filter) {
      k.dst = NULL;
      k.sel_out = v->sel == selbuf[0] ? selbuf[1] : selbuf[0];
      k.vout = v;
      if ((st = s->fuse_filter ? tab->cmp_filter(&k) : tab->fn[HADOS_K_FILTER](&k))) return st;
      if (v->sel_n == 0) return HADOS_OK;
      ii += s->fuse_filter; /* the FILTER ran fused */
      continue;
    }
    dst->data = dst->own;
    dst->alias = 0;
    dst->str1 = 0;
    dst->str1_lazy = 0;
    dst->narrow = 0;
    k.dst = dst;
    k.sel_out = NULL;
    k.vout = NULL;
    soft_vec dense = {v->n, NULL, v->n, v->row0};
    if (v->sel && dense_ok(in->op) && 4ull * v->sel_n >= (uint64_t)dense_quarters(in) * v->n) k.v = &dense;
    if ((st = tab->fn[in->op](&k))) return st;
  }
  return HADOS_OK;
}

/* ---------------------------------------------------------------- counting path
 * A pipeline whose instructions are only COLUMN loads (and constants) and
 * range filters on loaded I32 / I64 columns, feeding a sink that needs
 * nothing but the number of rows (SINK_COUNT, or an aggregation state of
 * count(*)s only), runs without vectors or a selection: each block of
 * CBLOCK rows becomes a bit mask per filter (ANDed, validity included) and
 * its popcount. Same answer as the vector loop (a null row never passes a
 * range filter), at the speed of reading the filtered columns.
 */
#define CBLOCK 8192u

typedef struct pl_crange {
  uint32_t col, vt;
  int64_t lo, hi;
} pl_crange;

/* Fills cr (at most n_insns entries) with the program's range filters and
   returns 1 when the program has the counting shape. */
static int counting_plan(const pl_prog *P, pl_crange *cr, uint32_t *ncr) {
  int32_t col_of[HADOS_MAX_REGISTERS];
  uint32_t n = 0;
  for (uint32_t r = 0; r < HADOS_MAX_REGISTERS; r++) col_of[r] = -1;
  for (uint32_t i = 0; i < P->h.n_insns; i++) {
    const pl_step *s = &P->steps[i];
    switch (s->in.op) {
      case HADOS_K_NOP:
        continue;
      case HADOS_K_COLUMN: {
        uint32_t vt = P->cols[s->in.p1].c.vtype;
        /* a dictionary column's codes are checked as a vector loads it,
           which counting skips: such programs run vector by vector */
        if (P->cols[s->in.p1].c.flags & HADOS_COLF_DICT) return 0;
        col_of[s->in.dst] = vt == HADOS_VT_I32 || vt == HADOS_VT_I64 ? s->in.p1 : -1;
        continue;
      }
      case HADOS_K_CONST:
        col_of[s->in.dst] = -1;
        continue;
    }
    if (!s->range || col_of[s->range_reg] < 0) return 0;
    cr[n++] = (pl_crange){(uint32_t)col_of[s->range_reg], s->in.vtype, s->rlo.i, s->rhi.i};
    i += s->range_merged ? 3 : 1; /* the FILTER (and the merged compare + FILTER) */
  }
  *ncr = n;
  return 1;
}

/* The number of rows of [rb, re) that pass every range filter of cr. */
static uint64_t count_ranges(const pl_prog *P, const soft_vktab *tab, const pl_crange *cr, uint32_t ncr, uint64_t rb, uint64_t re) {
  uint64_t m[CBLOCK / 64], count = 0;
  for (uint32_t f = 0; f < ncr; f++)
    if (cr[f].lo > cr[f].hi) return 0;
  if (ncr == 0) return re - rb;
  for (uint64_t row = rb; row < re;) {
    uint32_t n = re - row < CBLOCK ? (uint32_t)(re - row) : CBLOCK;
    uint64_t c = 0;
    for (uint32_t f = 0; f < ncr; f++) {
      const pl_col *col = &P->cols[cr[f].col];
      uint64_t e0 = col->c.offset + row;
      c = tab->range_mask(col->data + e0 * col->width, cr[f].vt, cr[f].lo, cr[f].hi, n, m, f > 0,
                          col->all_valid ? NULL : col->validity, e0);
    }
    count += c;
    row += n;
  }
  return count;
}

int soft_pipeline_run(soft_device *d, uint64_t desc, uint64_t size, uint64_t row_begin, uint64_t row_end, uint64_t sink_addr,
                      uint64_t *rows) {
  pl_prog P;
  memset(&P, 0, sizeof P);
  *rows = 0;
  P.rb = row_begin;
  P.re = row_end;
  int st = decode(&P, d, desc, size);
  if (!st && row_begin > row_end)
    st = BAD("row range [%llu, %llu) is reversed", (unsigned long long)row_begin, (unsigned long long)row_end);
  /* a column no instruction loads is checked for its type, flags and
     length only: its buffers (a string column's offsets are read to be
     checked) are never touched */
  uint8_t loaded[HADOS_MAX_COLUMNS] = {0};
  for (uint32_t i = 0; !st && i < P.h.n_insns; i++)
    if (P.steps[i].in.op == HADOS_K_COLUMN) loaded[P.steps[i].in.p1] = 1;
  for (uint32_t j = 0; !st && j < P.h.n_columns; j++)
    st = soft_col_bind_pipeline(d, "pipeline", j, &P.cols[j], loaded[j] ? row_begin : row_end, row_end);
  if (!st && row_begin < row_end) st = dict_tables(&P);
  if (!st && P.h.sink == HADOS_SINK_PROJECT) st = bind_project(&P, sink_addr);
  if (!st && P.h.sink == HADOS_SINK_AGG && !(P.agg_state = soft_agg_from_addr(d, sink_addr)))
    st = BAD("sink state 0x%llx is not an aggregation state of this device", (unsigned long long)sink_addr);
  const soft_vktab *tab = soft_vk_table(d->kern.simd);
  if (!st && (P.h.sink == HADOS_SINK_COUNT || (P.h.sink == HADOS_SINK_AGG && soft_agg_rows_only(P.agg_state)))) {
    pl_crange *cr = P.h.n_insns ? malloc(sizeof *cr * P.h.n_insns) : NULL;
    uint32_t ncr = 0;
    int ok = (cr || !P.h.n_insns) && counting_plan(&P, cr, &ncr);
    for (uint32_t f = 0; ok && f < ncr && row_begin < row_end; f++) { /* element-aligned values (else the vector loop copies) */
      const pl_col *col = &P.cols[cr[f].col];
      ok = (uintptr_t)(col->data + (col->c.offset + row_begin) * col->width) % col->width == 0;
    }
    if (ok) {
      uint64_t c = count_ranges(&P, tab, cr, ncr, row_begin, row_end);
      if (P.h.sink == HADOS_SINK_AGG && c) st = soft_agg_add_rows(P.agg_state, c);
      *rows = st ? 0 : c;
      free(cr);
      prog_free(&P);
      return st;
    }
    free(cr);
  }
  if (!st) st = alloc_scratch(&P);
  soft_arena arena = {st ? NULL : (uint8_t *)P.scratch + (16ull * VS + VS) * (P.h.n_regs + P.n_creg), P.arena_bytes, 0};
  if (!st && row_begin < row_end) st = dict_preds_build(&P, tab, &arena);
  if (st) {
    prog_free(&P);
    return st;
  }
  uint16_t sel0[VS], sel1[VS], *selbuf[2] = {sel0, sel1};
  uint64_t count = 0;
  /* the fixed-width columns (dictionary codes, plain string offsets) the
     program loads: rows two vectors on are prefetched while one runs */
  pl_pf pf[HADOS_MAX_COLUMNS];
  uint32_t npf = 0, nsteps = 0;
  for (uint32_t i = 0; i < P.h.n_insns; i++) nsteps += P.steps[i].in.op != HADOS_K_NOP;
  for (uint32_t j = 0; j < P.h.n_columns; j++) {
    const pl_col *col = &P.cols[j];
    if (!loaded[j] || col->c.vtype == HADOS_VT_BOOL || !col->width) continue;
    if (col->c.vtype == HADOS_VT_STR && !(col->c.flags & HADOS_COLF_DICT)) /* a plain string column's offsets */
      pf[npf++] = (pl_pf){col->offsets + col->c.offset * col->width, col->width};
    else
      pf[npf++] = (pl_pf){col->data + col->c.offset * col->width, col->width};
  }
  for (uint64_t row = row_begin; row < row_end && !st;) {
    uint32_t n = row_end - row < VS ? (uint32_t)(row_end - row) : VS;
    soft_vec v = {n, NULL, n, row};
    pl_pfq pq = {.pf = pf, .npf = npf};
    const uint64_t pr = row + 2ull * VS; /* two vectors on */
    pfq_begin(&pq, pr, pr < row_end ? (row_end - pr < VS ? row_end - pr : VS) : 0, nsteps + 1);
    arena.used = 0;
    st = run_vector(&P, tab, &v, selbuf, &arena, &pq);
    pfq_step(&pq, UINT32_MAX); /* the rest (a vector that ended early too) */
    row += n;
    if (st || v.sel_n == 0) continue;
    switch (P.h.sink) {
      case HADOS_SINK_COUNT: count += v.sel_n; break;
      case HADOS_SINK_PROJECT: st = sink_project(&P, &v); break;
      default:
        st = sink_agg(&P, &v);
        if (!st) count += v.sel_n;
    }
  }
  *rows = P.h.sink == HADOS_SINK_PROJECT ? P.out_rows : count;
  prog_free(&P);
  return st;
}

/* ---------------------------------------------------------------- aggregation ops */
static int agg_state_at(soft_device *d, uint64_t addr, const char *what, soft_agg_state **out) {
  if (!(*out = soft_agg_from_addr(d, addr)))
    return soft_fail(HADOS_E_INVALID, "soft: %s 0x%llx is not an aggregation state of this device", what, (unsigned long long)addr);
  return HADOS_OK;
}

int soft_pipeline_agg_op(soft_device *d, const hados_op *op, uint64_t len, uint64_t *result) {
  soft_agg_state *a, *b;
  int st;
  *result = 0;
  switch (op->opcode) {
    case HADOS_OP_AGG_CREATE: {
      pl_prog P;
      memset(&P, 0, sizeof P);
      if ((st = decode_header(&P, d, op->src, len))) return st;
      if (P.h.sink != HADOS_SINK_AGG) return BAD("AGG_CREATE: the descriptor's sink is %u, not SINK_AGG", P.h.sink);
      if ((st = section(&P, "aggregation sink", P.h.sink_off, 1, sizeof(hados_agg_spec), 8))) return st;
      const hados_agg_spec *spec = (const hados_agg_spec *)(P.base + P.h.sink_off);
      if ((st = check_agg_spec(spec))) return st;
      uint8_t *dst;
      if ((st = soft_range(d, op->dst, 8, &dst))) return st;
      soft_agg_state *s;
      if ((st = soft_agg_create(d, spec, op->arg[0], &s))) return st;
      if (op->arg[1] & 1) soft_agg_runs(s); /* runs mode (a partial aggregation's hint) */
      uint64_t addr = soft_agg_addr(d, s);
      memcpy(dst, &addr, 8);
      *result = addr;
      return HADOS_OK;
    }
    case HADOS_OP_AGG_MERGE:
      if ((st = agg_state_at(d, op->dst, "AGG_MERGE destination", &a)) || (st = agg_state_at(d, op->src, "AGG_MERGE source", &b)))
        return st;
      return soft_agg_merge(a, b);
    case HADOS_OP_AGG_EMIT: {
      uint8_t *p;
      hados_agg_out hdr;
      if ((st = agg_state_at(d, op->src, "AGG_EMIT source", &a))) return st;
      if ((st = soft_range(d, op->dst, sizeof hdr, &p))) return st;
      memcpy(&hdr, p, sizeof hdr);
      if (hdr.n_cols > 16 + 2 * 64) return BAD("AGG_EMIT: output with %llu columns", (unsigned long long)hdr.n_cols);
      if ((st = soft_range(d, op->dst, sizeof hdr + hdr.n_cols * sizeof(hados_column), &p))) return st;
      if ((uintptr_t)p % 8) return BAD("AGG_EMIT: output descriptor at 0x%llx is not 8-byte aligned", (unsigned long long)op->dst);
      return soft_agg_emit(d, a, (const hados_agg_out *)p, result);
    }
    default: /* HADOS_OP_AGG_FREE */
      if ((st = agg_state_at(d, op->src, "AGG_FREE", &a))) return st;
      soft_agg_free(a);
      return HADOS_OK;
  }
}
