/*
 * hados_pipeline.h — fused query pipelines as device programs (pipeline
 * format version 1). Part of the device ABI next to hados_driver.h: a
 * driver that executes HADOS_OP_PIPELINE* ops implements this.
 *
 * A pipeline is a small vector program: it reads input columns (Arrow
 * layout, in device memory), runs a list of instructions over *vectors* of
 * up to HADOS_VECTOR_SIZE rows held in registers, narrows a selection as
 * filters run, and ends in a sink: write the selected rows of some
 * registers to output columns (filter/project), fold them into aggregation
 * state (hash aggregate), or count them. One HADOS_OP_PIPELINE op runs the
 * pipeline over a range of input rows, vector by vector, on one engine
 * core: many kernels, one submit, cache-resident vectors. The host splits
 * the rows of a batch into ranges, one op per core, and merges.
 *
 * Everything the device reads is in device memory: the descriptor (header,
 * columns, constants, instructions, sink), the column buffers, the output
 * buffers and the aggregation state. All addresses are device addresses.
 * Multi-byte values are little-endian. Structures are 8-byte aligned.
 *
 * ---------------------------------------------------------------- values
 * Registers and columns have a physical value type (HADOS_VT_*):
 *   BOOL   registers: one uint8 per row (0/1); columns: Arrow bit-packed
 *   I32    int32: Spark int and date (days since 1970-01-01)
 *   I64    int64: Spark bigint, timestamp (µs since the epoch, UTC) and
 *          decimal with precision <= 18 (the unscaled value)
 *   F64    double
 *   I128   two's complement 128-bit: decimal with precision > 18
 *   STR    UTF-8 string; registers hold views {const uint8_t *ptr (engine
 *          internal), uint32 len}; columns are Arrow utf8 (int32 offsets),
 *          large_utf8 (int64 offsets, COLF_LARGE) or dictionary-encoded
 *          (codes into a utf8 dictionary, COLF_DICT)
 * Fixed-width input columns may be dictionary-encoded too (COLF_DICT, see
 * hados_column): COLUMN gathers the values into the register.
 * Every register row also has a validity byte (1 = valid). A register whose
 * rows are all valid may say so (a flag), letting kernels skip null work.
 * Null semantics are SQL's: kernels propagate nulls unless documented
 * otherwise; comparisons with a null are null; AND/OR/NOT are three-valued;
 * FILTER keeps a row only when the condition is valid and true.
 *
 * ---------------------------------------------------------------- decimals
 * Decimal kernels work on unscaled values and take scales from the
 * instruction; the host computes Spark's result types (precision/scale) and
 * emits explicit rescale and overflow-check instructions. Rounding is
 * HALF_UP (away from zero at .5), as Spark's. A value that does not fit the
 * precision given to DEC_CHECK becomes null (Spark's CheckOverflow, non-ANSI
 * mode); division by zero gives null.
 */
#ifndef HADOS_PIPELINE_H
#define HADOS_PIPELINE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HADOS_PIPELINE_VERSION 1u
#define HADOS_PIPELINE_MAGIC 0x4C505948u /* "HYPL" */
#define HADOS_VECTOR_SIZE 2048u
#define HADOS_MAX_REGISTERS 64u
#define HADOS_MAX_COLUMNS 256u
#define HADOS_MAX_INSNS 4096u

/* Program ops (hados_op.opcode) added by this header. */
#define HADOS_OP_PIPELINE 12u  /* src = descriptor, len = its size; arg[0] = first row, arg[1] = end row
                                  (exclusive), arg[2] = sink state (hados_project_out for SINK_PROJECT,
                                  an aggregation state for SINK_AGG, 0 for SINK_COUNT);
                                  result = rows that reached the sink */
#define HADOS_OP_AGG_CREATE 13u /* src = descriptor (its hados_agg_spec); arg[0] = byte budget (0: none);
                                   arg[1] bit 0: the state's output is merged again and its input is
                                   clustered by its key: a driver may make a group of every run of
                                   equal keys instead of hashing them (a hint; 0: none);
                                   dst = device address of a uint64 that receives the state address;
                                   result = state address */
#define HADOS_OP_AGG_MERGE 14u  /* dst = state, src = state of the same spec: dst += src (src unchanged) */
#define HADOS_OP_AGG_EMIT 15u   /* src = state; dst = hados_agg_out (output columns: keys, then the
                                   aggregates' buffer columns); result = groups written. With
                                   capacity too small: E_NOMEM and result = groups needed */
#define HADOS_OP_AGG_FREE 16u   /* src = state */

/* Value types. */
#define HADOS_VT_BOOL 1u
#define HADOS_VT_I32 2u
#define HADOS_VT_I64 3u
#define HADOS_VT_F64 4u
#define HADOS_VT_I128 5u
#define HADOS_VT_STR 6u

/* Column flags. */
#define HADOS_COLF_DICT 1u  /* data = codes (int32 unless an IDX flag says narrower); dict_* = the dictionary */
#define HADOS_COLF_LARGE 2u /* string offsets are int64 */
/* DICT code widths (at most one; none: int32). Pipeline ops only: the
   other ops (sort, join, gather) take int32 codes of a utf8 dictionary. */
#define HADOS_COLF_IDX8 4u   /* int8 codes */
#define HADOS_COLF_IDXU8 8u  /* uint8 codes */
#define HADOS_COLF_IDX16 16u /* int16 codes */

/* An input or output column in Arrow layout.
   Dictionary-encoded input (COLF_DICT): data holds one code per row (int32,
   or int8 / uint8 / int16 with an IDX flag) indexing the dict_length
   entries of the dictionary; the validity bitmap is the codes' (a null row's
   code is not read); the dictionary has no nulls. For STR the dictionary is
   utf8 (dict_offsets, dict_data); for I32, I64, F64 and I128 (pipeline
   ops only) dict_data holds dict_length fixed-width values and
   dict_offsets is 0. A valid row whose code lies outside [0, dict_length)
   fails the op with E_INVALID naming the column and row. */
typedef struct hados_column {
  uint32_t vtype;     /* HADOS_VT_* of the values (of the dictionary's values for DICT) */
  uint32_t flags;     /* HADOS_COLF_* */
  uint64_t length;    /* rows */
  uint64_t offset;    /* Arrow offset of row 0, in elements (and bits of the validity bitmap) */
  uint64_t null_count;
  uint64_t validity;  /* bitmap, 0 if every row is valid */
  uint64_t data;      /* fixed-width values, string bytes (utf8), or codes (DICT) */
  uint64_t offsets;   /* string offsets (utf8), 0 otherwise */
  uint64_t dict_data;    /* DICT: dictionary string bytes, or fixed-width values */
  uint64_t dict_offsets; /* DICT of STR: dictionary int32 offsets */
  uint64_t dict_length;  /* DICT: dictionary entries */
  uint64_t capacity;     /* output columns: bytes available at data (strings) */
} hados_column;

/* A constant: 16 bytes of value, or for STR a view into the descriptor's
   string area: lo = byte offset from the descriptor start, hi = length. */
typedef struct hados_const {
  uint32_t vtype;
  uint32_t is_null;
  uint64_t lo; /* BOOL/I32/I64: the value (sign-extended); F64: bits; I128: low 64 bits */
  uint64_t hi; /* I128: high 64 bits */
} hados_const;

/* Instruction: dst = kernel(a, b, c) over the selected rows of the vector. */
typedef struct hados_insn {
  uint16_t op;    /* HADOS_K_* */
  uint8_t vtype;  /* operand value type (see each kernel) */
  uint8_t flags;  /* HADOS_IF_* */
  uint16_t dst;   /* destination register */
  uint16_t a, b, c;
  int32_t p1, p2, p3; /* kernel parameters */
  uint64_t imm;       /* kernel immediate */
} hados_insn;        /* 32 bytes */

/* Instruction flags. */
#define HADOS_IF_B_CONST 1u /* operand b is constant number b, not a register */
#define HADOS_IF_A_CONST 2u /* operand a is constant number a */

/*
 * Kernels. Operand types are those of `vtype` unless stated. "sel" rows are
 * the rows still selected; kernels write only selected rows of dst.
 */
enum hados_kernel {
  HADOS_K_NOP = 0,
  /* dst = column p1 (values of the current rows; for DICT columns the
     strings). vtype = the column's. */
  HADOS_K_COLUMN = 1,
  /* dst = constant p1 broadcast. vtype = the constant's. */
  HADOS_K_CONST = 2,
  /* dst(BOOL) = a OP b, vtype = operand type (I32, I64, F64, I128, STR,
     BOOL). Floating point: NaN = NaN and NaN is greater than every other
     value (Spark's ordering for comparisons); -0.0 = 0.0. Strings compare
     as unsigned bytes. */
  HADOS_K_EQ = 3, HADOS_K_NE = 4, HADOS_K_LT = 5, HADOS_K_LE = 6, HADOS_K_GT = 7, HADOS_K_GE = 8,
  /* dst(BOOL) = a <=> b: never null; true when both null or equal. */
  HADOS_K_EQ_NULLSAFE = 9,
  /* BOOL three-valued logic. */
  HADOS_K_AND = 10, HADOS_K_OR = 11, HADOS_K_NOT = 12,
  /* dst(BOOL, never null) = a is (not) null; vtype = a's type. */
  HADOS_K_IS_NULL = 13, HADOS_K_IS_NOT_NULL = 14,
  /* dst(BOOL) = a IN (constants p1 .. p1+p2-1); null if a is null, or if
     no constant matches and one of them is null. */
  HADOS_K_IN = 15,
  /* Narrow the selection to rows where a (BOOL) is valid and true. */
  HADOS_K_FILTER = 16,
  /* dst = a (selected rows where c (BOOL) is valid and true) else b.
     vtype = the type of a, b and dst. CASE WHEN, IF, COALESCE compile to it. */
  HADOS_K_SELECT = 17,
  /* Integer and double arithmetic, vtype I32, I64 or F64. Integers wrap on
     overflow (Spark's non-ANSI mode); DIV and MOD by zero give null;
     integer DIV truncates toward zero (used for Spark's `div`), MOD takes
     the sign of the dividend. F64 follows IEEE (x/0 = ±Inf or NaN) except
     that Spark's Divide/Remainder by zero give null, which the host asks
     for with p1 = 1. */
  HADOS_K_ADD = 20, HADOS_K_SUB = 21, HADOS_K_MUL = 22, HADOS_K_DIV = 23, HADOS_K_MOD = 24,
  HADOS_K_NEG = 25,
  /* Decimal arithmetic on unscaled values; vtype = the result's storage
     (I64 or I128); the inputs' storage types are p2 (a) and p3 (b) as
     HADOS_VT_* (I64 or I128).
     DEC_ADD/SUB: dst = a * 10^(imm & 0xff) ± b * 10^(imm >> 8 & 0xff)
       (the host aligns scales; result scale = max(s1, s2)).
     DEC_MUL: dst = round_half_up(a * b / 10^p1) (p1 = s1 + s2 - result
       scale, >= 0).
     DEC_DIV: dst = round_half_up(a * 10^p1 / b) (p1 = result scale - s1 +
       s2, may be large); b = 0 gives null.
     DEC_MOD: dst = a' % b' after aligning both to scale max(s1,s2):
       a' = a * 10^(imm & 0xff), b' = b * 10^(imm >> 8 & 0xff); b = 0 gives null.
     Intermediates are exact (the engine widens to 256 bits when needed);
     results that do not fit the storage type become null. */
  HADOS_K_DEC_ADD = 26, HADOS_K_DEC_SUB = 27, HADOS_K_DEC_MUL = 28, HADOS_K_DEC_DIV = 29,
  HADOS_K_DEC_MOD = 30,
  /* dst = a with values outside ±(10^p1 - 1) made null (CheckOverflow to
     precision p1). vtype I64 or I128. */
  HADOS_K_DEC_CHECK = 31,
  /* Decimal rescale: dst(vtype) = a (storage p2) * 10^p1 (p1 >= 0), or
     round_half_up(a / 10^-p1) (p1 < 0). Widening I64 -> I128 is a rescale
     with p1 = 0. Overflow of the storage gives null. */
  HADOS_K_DEC_RESCALE = 32,
  /* Casts. CAST_I32_I64, CAST_I64_I32 (wraps, as Spark's non-ANSI cast),
     CAST_TO_F64 (a of type p2: I32, I64, or decimal I64/I128 with scale p1),
     CAST_F64_TO_DEC (to storage vtype, scale p1, precision p3; HALF_UP;
     overflow or NaN/Inf gives null), CAST_DEC_TO_INT (a storage p2, scale
     p1, truncates toward zero, to vtype I32/I64; overflow null),
     CAST_INT_TO_DEC (a of type p2 I32/I64 -> vtype with scale p1;
     overflow null), CAST_F64_TO_INT (to vtype I32/I64, truncating toward
     zero; NaN gives 0 and out-of-range values saturate, as Spark's
     non-ANSI cast), CAST_STR_TO_DATE (yyyy-mm-dd[...]; invalid -> null),
     CAST_DATE_TO_STR (yyyy-mm-dd), CAST_STR_TO_I64 / _I32 / _F64 (Spark's
     trimming rules; invalid -> null), CAST_INT_TO_STR, CAST_STR_TO_DEC
     (scale p1, precision p3, storage vtype). */
  HADOS_K_CAST_I32_I64 = 40, HADOS_K_CAST_I64_I32 = 41, HADOS_K_CAST_TO_F64 = 42,
  HADOS_K_CAST_F64_TO_DEC = 43, HADOS_K_CAST_DEC_TO_INT = 44, HADOS_K_CAST_INT_TO_DEC = 45,
  HADOS_K_CAST_F64_TO_INT = 46, HADOS_K_CAST_STR_TO_DATE = 47, HADOS_K_CAST_DATE_TO_STR = 48,
  HADOS_K_CAST_STR_TO_INT = 49, HADOS_K_CAST_STR_TO_F64 = 50, HADOS_K_CAST_INT_TO_STR = 51,
  HADOS_K_CAST_STR_TO_DEC = 52, HADOS_K_CAST_TS_TO_DATE = 53, HADOS_K_CAST_DATE_TO_TS = 54,
  /* Dates (I32 days): dst(I32) = year / month / day of month; DATE_ADD:
     dst = a + b days (b I32 register or constant). */
  HADOS_K_YEAR = 60, HADOS_K_MONTH = 61, HADOS_K_DAY = 62, HADOS_K_DATE_ADD = 63,
  /* Strings. STARTS_WITH / ENDS_WITH / CONTAINS: dst(BOOL) = a vs constant
     b. LIKE: dst(BOOL) = a LIKE constant b with escape character p1 ('\\'
     by default); '%' any run, '_' one character (UTF-8 aware).
     SUBSTR: dst(STR) = substring(a, pos p1, len p2) with Spark's 1-based,
     character-counting rules (pos 0 = 1; negative pos counts from the end;
     p2 < 0 means to the end). LENGTH: dst(I32) = characters of a. */
  HADOS_K_STARTS_WITH = 70, HADOS_K_ENDS_WITH = 71, HADOS_K_CONTAINS = 72, HADOS_K_LIKE = 73,
  HADOS_K_SUBSTR = 74, HADOS_K_LENGTH = 75,
  HADOS_K__COUNT
};

/* Sinks. */
#define HADOS_SINK_COUNT 1u   /* count the selected rows */
#define HADOS_SINK_PROJECT 2u /* write registers to output columns */
#define HADOS_SINK_AGG 3u     /* fold into aggregation state */

/* Aggregate functions of SINK_AGG. The buffer columns each emits are
   Spark's aggregation buffers:
     SUM       on I64 (bigint or decimal <= 18), I128 (decimal), F64:
               buffer: sum (the output storage type, given by out_vtype),
               and for decimal sums an `isEmpty` BOOL (flag AGGF_DECIMAL);
               a null input is skipped; overflow of the output storage
               makes the sum null (Spark, non-ANSI).
     COUNT     of a register (non-null rows) or of rows (arg = 0xffff): I64
     MIN, MAX  any orderable type: the extreme, null if no non-null input
     FIRST     the first value in input order (AGGF_IGNORE_NULLS: first
               non-null); buffer: value + valueSet BOOL
   AVG is SUM + COUNT in Spark's buffer; the host plans it so. */
#define HADOS_AGG_SUM 1u
#define HADOS_AGG_COUNT 2u
#define HADOS_AGG_MIN 3u
#define HADOS_AGG_MAX 4u
#define HADOS_AGG_FIRST 5u
#define HADOS_AGGF_DECIMAL 1u
#define HADOS_AGGF_IGNORE_NULLS 2u
#define HADOS_AGGF_MERGE 4u /* input is itself a buffer (PartialMerge/Final): SUM adds sums and
                               ANDs isEmpty (second input register in arg2); COUNT sums counts;
                               FIRST keeps the first set value (valueSet in arg2) */

typedef struct hados_agg {
  uint16_t func;      /* HADOS_AGG_* */
  uint16_t flags;     /* HADOS_AGGF_* */
  uint16_t arg;       /* input register (0xffff: none, count(*)) */
  uint16_t arg2;      /* second input register for AGGF_MERGE (isEmpty / valueSet) */
  uint32_t in_vtype;  /* input value type */
  uint32_t out_vtype; /* output storage type */
} hados_agg;

/* Aggregation spec: keys (registers) and aggregates. With no keys there is
   one global group (emitted even when no row arrived, as SQL requires). */
typedef struct hados_agg_spec {
  uint32_t n_keys;
  uint32_t n_aggs;
  uint16_t key_regs[16];
  uint32_t key_vtypes[16];
  /* Optional dense key domain (perfect hashing): if every key is an I32 or
     a DICT string whose domain the host knows, key k takes values in
     [key_min[k], key_min[k] + key_card[k]) (dictionary codes for DICT),
     and the product of cards (+1 each for null) is small: the engine may
     index accumulators directly instead of hashing. 0 cards: unknown. */
  int64_t key_min[16];
  uint64_t key_card[16];
  hados_agg aggs[64];
} hados_agg_spec;

/* SINK_PROJECT output: one column per output register, capacity in rows
   (and bytes for strings) given by the host; the op fails with E_NOMEM
   (result = rows it could not place) when a string column runs out of
   bytes, so the host can retry with more. */
typedef struct hados_project_out {
  uint64_t n_cols;
  uint64_t capacity_rows;
  hados_column cols[]; /* n_cols; validity, data (and offsets) preallocated */
} hados_project_out;

/* AGG_EMIT output: key columns then buffer columns, preallocated by the
   host for capacity_rows groups. */
typedef struct hados_agg_out {
  uint64_t n_cols;
  uint64_t capacity_rows;
  hados_column cols[];
} hados_agg_out;

/* The pipeline descriptor, at the start of its device memory block. */
typedef struct hados_pipeline {
  uint32_t magic;      /* HADOS_PIPELINE_MAGIC */
  uint32_t version;    /* HADOS_PIPELINE_VERSION */
  uint32_t size;       /* bytes of the whole descriptor, string area included */
  uint32_t n_regs;     /* registers used (<= HADOS_MAX_REGISTERS) */
  uint32_t reg_vtypes_off; /* byte offset of uint8 vtypes[n_regs] */
  uint32_t n_columns;  uint32_t columns_off;  /* hados_column[n_columns] */
  uint32_t n_consts;   uint32_t consts_off;   /* hados_const[n_consts] */
  uint32_t n_insns;    uint32_t insns_off;    /* hados_insn[n_insns] */
  uint32_t sink;       /* HADOS_SINK_* */
  uint32_t sink_off;   /* SINK_PROJECT: uint16 n + uint16 regs[n]; SINK_AGG: hados_agg_spec */
  uint32_t strings_off; uint32_t strings_len; /* constant string bytes */
  uint32_t reserved[5];
} hados_pipeline; /* 80 bytes; the sections follow at 8-byte aligned offsets */

#ifdef __cplusplus
}
#endif
#endif /* HADOS_PIPELINE_H */
