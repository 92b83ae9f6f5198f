/*
 * soft_pipeline.h — internals of the software DPU's pipeline interpreter
 * (hados_pipeline.h is the contract; this is how the engine implements it).
 *
 * Vectors. The interpreter walks the op's row range in vectors of up to
 * HADOS_VECTOR_SIZE rows. Within a vector, rows are numbered 0..n-1 and
 * every register is a dense array indexed by that row number; the selection
 * (sel, sel_n) lists the rows still alive in increasing order, or is NULL
 * when all n rows are. Kernels compute and write only selected rows; they
 * never compact. FILTER shrinks the selection.
 *
 * Registers. A register has a value type, a data pointer and a validity
 * byte array. `all_valid` says every *selected* row is valid (kernels may
 * skip validity then; a kernel that writes dst must set dst's all_valid and,
 * when it is 0, the validity bytes of every selected row). A register loaded
 * from a fixed-width column may alias the column's memory (read-only, data
 * points at the vector's first row); kernels never write into a register
 * that aliases (`alias` = 1) — the interpreter gives every instruction's dst
 * its own storage. STR registers hold soft_str views into column or
 * constant memory or into the per-vector string arena (SUBSTR, casts).
 */
#ifndef HADOS_SOFT_PIPELINE_H
#define HADOS_SOFT_PIPELINE_H

#include <stdint.h>

#include "hados_pipeline.h"
#include "soft.h"

typedef struct soft_str {
  const uint8_t *ptr;
  uint32_t len;
  uint32_t pad;
} soft_str;

typedef struct soft_reg {
  uint32_t vtype;     /* HADOS_VT_* */
  uint32_t all_valid; /* 1: every selected row is valid */
  uint32_t alias;     /* 1: data aliases column memory (read-only) */
  uint32_t str1;      /* STR only, a hint that may be 0: 1 when every row 0..n-1 of
                         the vector (valid or not) is a one-byte string and row i's
                         byte is at ((soft_str *)data)[0].ptr + i (a plain column of
                         one-character strings: its bytes are one contiguous array) */
  uint32_t str1_lazy; /* STR with str1 only: 1 when only view 0 is written (row i's view is
                         {view 0's ptr + i, 1}); soft_reg_views writes the others before any
                         reader of views (kernels, sinks, the aggregation's general key
                         paths); the one-byte key paths read view 0 alone */
  uint32_t narrow;    /* I128 only, for this vector: 1 when data holds int64_t values (the
                         register's logical type stays I128; kernels proved every value fits
                         64 bits) at own + 8 * HADOS_VECTOR_SIZE. Only kernels the interpreter
                         lists as narrow-aware read it so; it widens the register in place
                         (soft_reg_widen) before any other consumer, sinks included, except
                         SINK_AGG's aggregate inputs (soft_agg_update reads or widens them) */
  uint8_t *valid;     /* HADOS_VECTOR_SIZE validity bytes (own storage) */
  void *data;         /* values: int32_t, int64_t, double, __int128, uint8_t (BOOL), soft_str */
  uint8_t *own;       /* the register's own data storage (16 * HADOS_VECTOR_SIZE bytes) */
} soft_reg;

/* The rows of one vector being processed. */
typedef struct soft_vec {
  uint32_t n;         /* rows in the vector */
  const uint16_t *sel;/* selected rows, NULL = all n */
  uint32_t sel_n;     /* number of selected rows (n when sel is NULL) */
  uint64_t row0;      /* input row number of vector row 0 */
} soft_vec;

/* ---------------------------------------------------------------- aggregation
 * Aggregation state (HADOS_OP_AGG_*): created from a hados_agg_spec, it
 * holds the groups seen so far with their aggregation buffers, in device
 * memory taken from the device heap (so it counts in telemetry and the
 * byte budget). Updates come from SINK_AGG: the key registers and the
 * aggregates' input registers of one vector and its selection.
 */
typedef struct soft_agg_state soft_agg_state;

/* Widens a narrow I128 register (soft_reg.narrow) in place for the
   selected rows of v (every row when at least 3/4 are selected); no-op on
   any other register. */
void soft_reg_widen(soft_reg *r, const soft_vec *v);

/* Writes the views of a str1_lazy register (soft_reg.str1_lazy) for rows
   0..v->n-1 and clears the flag; no-op on any other register. */
void soft_reg_views(soft_reg *r, const soft_vec *v);

/* Creates a state; budget 0 = unlimited (else E_NOMEM when the state would
   grow beyond it, with a message naming sizes). */
int soft_agg_create(soft_device *d, const hados_agg_spec *spec, uint64_t budget, soft_agg_state **out);
/* Puts a fresh state of one integer key into runs mode: every run of
   equal keys becomes a group of its own, found without a hash table (a
   partial aggregation of input clustered by its key); other states are
   left as they are. */
void soft_agg_runs(soft_agg_state *st);
/* Folds the selected rows of a vector into the state. keys[k] is key k's
   register; args[j] / args2[j] aggregate j's input registers (NULL when
   the aggregate takes none). Keys and args2 must not be narrow; an args[j]
   may be (soft_reg.narrow): the few-group sums read its 64-bit storage,
   every other path widens it in place first (soft_reg_widen); a
   str1_lazy register (key or input) gets its views written (soft_reg_views)
   unless the one-byte key paths alone read it. That is why the registers,
   though const here, must be writable. */
int soft_agg_update(soft_agg_state *st, const soft_reg *const *keys, const soft_reg *const *args,
                    const soft_reg *const *args2, const soft_vec *v);
/* dst += src (same spec). */
int soft_agg_merge(soft_agg_state *dst, const soft_agg_state *src);
/* 1 when the state is a global aggregate of count(*)s only: the number of
   rows is all an update needs, and soft_agg_add_rows adds it without a
   vector (the interpreter's counting path). */
int soft_agg_rows_only(const soft_agg_state *st);
int soft_agg_add_rows(soft_agg_state *st, uint64_t n);
/* Writes the groups into the output columns (keys, then buffers, in the
   order of hados_agg.h); *n receives the groups written, or needed when
   out->capacity_rows is too small (E_NOMEM). Groups come out in first-seen
   order (deterministic for a deterministic input order). */
int soft_agg_emit(soft_device *d, const soft_agg_state *st, const hados_agg_out *out, uint64_t *n);
void soft_agg_free(soft_agg_state *st);
/* The device address the host sees for a state, and back. */
uint64_t soft_agg_addr(soft_device *d, const soft_agg_state *st);
soft_agg_state *soft_agg_from_addr(soft_device *d, uint64_t addr);

/* ---------------------------------------------------------------- columns
 * Binding checks a column descriptor against device memory and turns its
 * buffers into host pointers; the pipeline interpreter, sort, gather and
 * join ops share it. Errors are E_INVALID / E_FAULT messages starting with
 * `who` (e.g. "pipeline", "sort") and naming column j.
 */
/* An input column bound for rows [rb, re). */
typedef struct soft_col {
  hados_column c;
  uint32_t width;               /* bytes per value; BOOL: 0 (bits); STR: offset width; DICT: code width (1, 2, 4) */
  uint32_t dict_width;          /* DICT of a fixed-width type: bytes per dictionary value (else 0) */
  uint32_t codes_unsigned;      /* DICT: codes are uint8 (COLF_IDXU8) */
  uint32_t dict_str1;           /* DICT of STR (pipeline): at most 256 entries, each one byte long (flags) */
  uint8_t dict_byte[256];       /* ...their bytes */
  uint32_t offsets_lazy;        /* plain STR with int32 offsets (pipeline): only the range's first and last
                                   offsets (off_first, off_end) were checked at bind; each vector's are
                                   checked as it loads (within [off_first, off_end], non-decreasing) */
  int64_t off_first, off_end;
  int all_valid;
  const uint8_t *validity, *data, *offsets, *dict_data, *dict_offsets;
} soft_col;

/* A bound hados_project_out column (row 0 on, int32 string offsets). */
typedef struct soft_outcol {
  hados_column c;
  uint8_t *validity, *data, *offsets;
  uint64_t used;                /* string bytes written */
} soft_outcol;

/* Binds col (col->c filled by the caller) for rows [rb, re): types, flags,
   the range within the length, every buffer the rows touch inside device
   memory, string offsets non-decreasing. */
int soft_col_bind(soft_device *d, const char *who, uint32_t j, soft_col *col, uint64_t rb, uint64_t re);
/* soft_col_bind that also accepts what only the pipeline interpreter
   reads: narrow dictionary codes (COLF_IDX*) and dictionary-encoded
   fixed-width columns (dictionary values inside device memory; the codes
   are checked against dict_length as they are loaded). The offsets of a
   plain string column with int32 offsets are checked as they are loaded
   too (offsets_lazy): at bind only the range's first (non-negative) and
   last (not below the first) are, which bound the string bytes checked
   to lie in device memory. */
int soft_col_bind_pipeline(soft_device *d, const char *who, uint32_t j, soft_col *col, uint64_t rb, uint64_t re);
/* Binds the hados_project_out at addr: n columns of types vts, capacity
   *cap_rows. *outs (malloc, n entries, caller frees, also on error) holds
   the bound columns; string columns get offset 0 written. */
int soft_project_out_bind(soft_device *d, const char *who, uint64_t addr, uint32_t n, const uint32_t *vts, soft_outcol **outs,
                          uint64_t *cap_rows);

/* ---------------------------------------------------------------- interpreter */
/* 1 (the default): predicates on a STR dictionary column may run once per
   run over the dictionary's entries (soft_pipeline.c, dict_preds); 0: on
   the rows as loaded, always. Read when a run starts; tests and
   benchmarks switch it to compare the two. */
extern int soft_pipeline_dict_preds;


/* Runs HADOS_OP_PIPELINE: the descriptor at desc (size bytes), rows
   [row_begin, row_end), sink state at sink_addr. *rows = rows that reached
   the sink. */
int soft_pipeline_run(soft_device *d, uint64_t desc, uint64_t size, uint64_t row_begin, uint64_t row_end,
                      uint64_t sink_addr, uint64_t *rows);

#endif
