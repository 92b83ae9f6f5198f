/*
 * hados_relational.h — sort, gather and hash join as device ops (relational
 * format version 1). Part of the device ABI next to hados_driver.h and
 * hados_pipeline.h, whose hados_column layout and value types it uses.
 *
 * These ops work on *row numbers*: SORT and MERGE produce orders of rows,
 * JOIN_PROBE produces pairs of matching rows, and GATHER materialises rows
 * by number into output columns. The host strings them together into the
 * Sort, TopN, Limit and HashJoin operators, splitting big inputs into one
 * op per engine core where the op allows it.
 *
 * Row numbers are int32 (a batch holds fewer than 2^31 rows). All addresses
 * are device addresses; descriptors live in device memory; structures are
 * 8-byte aligned and little-endian.
 *
 * ---------------------------------------------------------------- ordering
 * Sort keys order rows as Spark's SortOrder does: per key ascending or
 * descending, nulls first or last (independently of the direction), later
 * keys break ties of earlier ones, and rows equal on every key keep their
 * input order (stable). Values compare as Spark compares them: integers and
 * decimals numerically (unscaled values of the same scale), doubles with
 * NaN greater than every other value and -0.0 = 0.0, strings as unsigned
 * bytes (a prefix sorts first), booleans false < true.
 *
 * ---------------------------------------------------------------- join keys
 * Join keys match when every key is equal: integers, decimals and strings by
 * value, doubles with NaN = NaN and -0.0 = 0.0 (Spark normalises floating
 * join keys), and a null key never matches unless the key is null-safe
 * (HADOS_JKEY_NULL_SAFE, Spark's `<=>` keys), where null matches null. Both
 * sides' key columns have the same value types (the plan casts).
 */
#ifndef HADOS_RELATIONAL_H
#define HADOS_RELATIONAL_H

#include <stdint.h>

#include "hados_pipeline.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HADOS_RELATIONAL_VERSION 1u
#define HADOS_SORT_MAGIC 0x54525348u   /* "HSRT" */
#define HADOS_GATHER_MAGIC 0x52544748u /* "HGTR" */
#define HADOS_JOIN_MAGIC 0x4E4A4A48u   /* "HJJN" */
#define HADOS_MAX_SORT_KEYS 32u
#define HADOS_MAX_JOIN_KEYS 16u

/* Program ops (hados_op.opcode) added by this header. */
#define HADOS_OP_SORT 17u   /* src = hados_sort, len = its size; arg[0] = first row, arg[1] = end row
                               (exclusive), arg[2] = limit (0: all; k > 0: only the first k rows of
                               the order are needed, e.g. TopN); dst = int32 out[min(end-first, limit
                               or all)]; result = row numbers written. Row numbers are absolute
                               (first..end-1). arg[3] = bounds (0: none): bit 63 set, bits 0-31 =
                               row lo (0xffffffff: unbounded), bits 32-62 = row hi (0x7fffffff:
                               unbounded); only the rows r with lo <= r < hi in the order by the
                               keys then the row number are sorted (limit 0, out[end-first]),
                               result = their count: one SORT per range of the order, no MERGE. */
#define HADOS_OP_MERGE 18u  /* src = hados_sort (the same keys); arg[0] = run A (int32 row numbers,
                               sorted), arg[1] = its length, arg[2] = run B, arg[3] = its length;
                               dst = int32 out[lenA + lenB]; stable: on ties A's rows come first;
                               result = lenA + lenB */
#define HADOS_OP_GATHER 19u /* src = hados_gather, len = its size; arg[0] = int32 row numbers (-1 =
                               a row of nulls, for outer joins), arg[1] = their count, arg[2] =
                               hados_project_out (output columns, one per gather column, same value
                               types; capacity in rows and string bytes); result = rows written. A
                               string column out of bytes fails with E_NOMEM (result = bytes needed
                               for all rows) so the host can retry with more. */
#define HADOS_OP_JOIN_BUILD 20u /* src = hados_join (build side key columns), len = its size;
                                   arg[0] = byte budget (0: none); arg[1] = parts (0 or 1: the op
                                   builds the whole table; a power of two up to 16: the device may
                                   only prepare the state, see below); dst = device address of a
                                   uint64 that receives the state address; result = state address.
                                   The state refers to the key columns, which must stay alive (and
                                   unchanged) until JOIN_FREE. After a build with parts > 1 the
                                   host runs one JOIN_BUILD per part, at once: arg[2] = state,
                                   arg[3] = part (src, len, dst unused); each returns the state,
                                   except that a result of 0 from any says the parts could not
                                   build it: free the state and build with parts = 1. */
#define HADOS_OP_JOIN_PROBE 21u /* src = hados_join (probe side key columns, same types), len = its
                                   size; arg[0] = state, arg[1] = hados_join_out (arg[2], arg[3]:
                                   the condition under HADOS_PROBE_COND); result = pairs written. Resumable: see hados_join_out. Many probes of one state
                                   may run at once (the state is read-only after the build). */
#define HADOS_OP_JOIN_FREE 22u  /* src = state */

/* Sort key flags. */
#define HADOS_SKEY_DESC 1u        /* descending */
#define HADOS_SKEY_NULLS_FIRST 2u /* nulls before values (Spark: the default for ASC) */

typedef struct hados_sort_key {
  hados_column col; /* the key column (any value type; DICT strings allowed) */
  uint32_t flags;   /* HADOS_SKEY_* */
  uint32_t reserved;
} hados_sort_key;

/* Sort descriptor: header then n_keys keys. */
typedef struct hados_sort {
  uint32_t magic;   /* HADOS_SORT_MAGIC */
  uint32_t version; /* HADOS_RELATIONAL_VERSION */
  uint32_t size;    /* bytes of the whole descriptor */
  uint32_t n_keys;  /* 1..HADOS_MAX_SORT_KEYS */
  uint64_t rows;    /* rows of every key column */
  hados_sort_key keys[];
} hados_sort;

/* Gather descriptor: the input columns whose rows are gathered. */
typedef struct hados_gather {
  uint32_t magic;   /* HADOS_GATHER_MAGIC */
  uint32_t version; /* HADOS_RELATIONAL_VERSION */
  uint32_t size;    /* bytes of the whole descriptor */
  uint32_t n_cols;  /* 1..HADOS_MAX_COLUMNS */
  uint64_t rows;    /* rows of every input column (row numbers must be < rows) */
  hados_column cols[];
} hados_gather;

/* Join key flags. */
#define HADOS_JKEY_NULL_SAFE 1u /* null matches null (Spark's EqualNullSafe key) */

/* Join descriptor: the key columns of one side (build or probe). */
typedef struct hados_join {
  uint32_t magic;   /* HADOS_JOIN_MAGIC */
  uint32_t version; /* HADOS_RELATIONAL_VERSION */
  uint32_t size;    /* bytes of the whole descriptor */
  uint32_t n_keys;  /* 1..HADOS_MAX_JOIN_KEYS */
  uint64_t rows;
  uint32_t key_flags[HADOS_MAX_JOIN_KEYS]; /* HADOS_JKEY_* (build and probe must agree) */
  hados_column keys[];
} hados_join;

/* Probe flags (hados_join_out.flags). */
#define HADOS_PROBE_FIRST_MATCH 1u /* at most one pair per probe row (semi, anti and existence
                                      joins without an extra condition) */
#define HADOS_PROBE_UNMATCHED 2u   /* also write (probe row, -1) for probe rows without a match
                                      (outer and anti joins) */
#define HADOS_PROBE_COND 4u        /* with FIRST_MATCH only: a build row matches only when the
                                      join condition passes for the pair (hados_joincond.h; the
                                      op's arg[2] = its hados_join_cond, arg[3] = the descriptor's
                                      length; its probe_rows and build_rows must be the probe's and
                                      the build's rows, its pair fields are not used): the pair
                                      written is the row's first passing match, and UNMATCHED
                                      writes (row, -1) for a row where none passes (semi, anti and
                                      existence joins with a simple condition) */

/* Probe output and cursor. The probe walks probe rows [next_row, end_row)
   and, for the row at next_row, its matches from the next_match-th on.
   Each op writes at most `capacity` pairs (probe row, build row) in probe
   row order, build rows of one probe row in build input order, then
   advances next_row/next_match past what it wrote; the host runs it again
   until next_row == end_row. */
typedef struct hados_join_out {
  uint64_t probe_rows; /* int32[capacity]: probe row numbers */
  uint64_t build_rows; /* int32[capacity]: build row numbers, -1 for an unmatched probe row */
  uint64_t capacity;   /* pairs */
  uint32_t flags;      /* HADOS_PROBE_* */
  uint32_t reserved;
  uint64_t end_row;    /* exclusive */
  uint64_t next_row;   /* in/out */
  uint64_t next_match; /* in/out: matches of next_row already written */
} hados_join_out;

#ifdef __cplusplus
}
#endif
#endif /* HADOS_RELATIONAL_H */
