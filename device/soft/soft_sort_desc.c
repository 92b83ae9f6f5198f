/* soft_sort_desc.c — decoding of hados_sort / hados_gather (soft_sort_desc.h). */
#include <stdlib.h>
#include <string.h>

#include "soft_sort_desc.h"

#define HDR_SIZE 24u

void rel_free(rel_desc *r) {
  free(r->cols);
  free(r->flags);
  free(r->str_end);
  r->cols = NULL;
  r->flags = NULL;
  r->str_end = NULL;
}

int rel_decode(soft_device *d, const char *who, uint64_t addr, uint64_t len, int sort, rel_desc *out) {
  uint8_t *p;
  int st;
  memset(out, 0, sizeof *out);
  uint32_t magic = sort ? HADOS_SORT_MAGIC : HADOS_GATHER_MAGIC;
  uint32_t max = sort ? HADOS_MAX_SORT_KEYS : HADOS_MAX_COLUMNS;
  uint64_t elem = sort ? sizeof(hados_sort_key) : sizeof(hados_column);
  const char *what = sort ? "keys" : "columns";
  if (len < HDR_SIZE)
    return soft_fail(HADOS_E_INVALID, "%s: descriptor of %llu bytes, the header alone is %u", who, (unsigned long long)len, HDR_SIZE);
  if ((st = soft_range(d, addr, len, &p))) return st;
  if ((uintptr_t)p % 8) return soft_fail(HADOS_E_INVALID, "%s: descriptor at 0x%llx is not 8-byte aligned", who, (unsigned long long)addr);
  uint32_t h[4];
  memcpy(h, p, 16);
  memcpy(&out->rows, p + 16, 8);
  if (h[0] != magic) return soft_fail(HADOS_E_INVALID, "%s: bad magic 0x%08x (want 0x%08x)", who, h[0], magic);
  if (h[1] != HADOS_RELATIONAL_VERSION)
    return soft_fail(HADOS_E_INVALID, "%s: unsupported version %u (want %u)", who, h[1], HADOS_RELATIONAL_VERSION);
  if (h[3] < 1 || h[3] > max) return soft_fail(HADOS_E_INVALID, "%s: %u %s, want 1..%u", who, h[3], what, max);
  uint64_t need = HDR_SIZE + elem * h[3];
  if (h[2] < need || h[2] > len)
    return soft_fail(HADOS_E_INVALID, "%s: size field %u outside [%llu, %llu] (%u %s; the op's length)", who, h[2],
                     (unsigned long long)need, (unsigned long long)len, h[3], what);
  if (out->rows > INT32_MAX) return soft_fail(HADOS_E_INVALID, "%s: %llu rows (row numbers are int32)", who, (unsigned long long)out->rows);
  out->n = h[3];
  out->cols = calloc(out->n, sizeof *out->cols);
  if (sort) out->flags = calloc(out->n, sizeof *out->flags);
  else out->str_end = calloc(out->n, sizeof *out->str_end);
  if (!out->cols || (sort && !out->flags) || (!sort && !out->str_end)) {
    rel_free(out);
    return soft_fail(HADOS_E_NOMEM, "%s: out of host memory", who);
  }
  for (uint32_t j = 0; j < out->n; j++) {
    const uint8_t *e = p + HDR_SIZE + elem * j;
    memcpy(&out->cols[j].c, e, sizeof(hados_column));
    if (sort) {
      memcpy(&out->flags[j], e + sizeof(hados_column), 4);
      if (out->flags[j] & ~(HADOS_SKEY_DESC | HADOS_SKEY_NULLS_FIRST)) {
        st = soft_fail(HADOS_E_INVALID, "%s: key %u has unknown flags 0x%x", who, j, out->flags[j]);
        rel_free(out);
        return st;
      }
    }
    /* a gather binds the last row: every buffer in bounds, the string
       bytes up to the last offset; rows are checked as they are read */
    uint64_t rb = sort || !out->rows ? 0 : out->rows - 1;
    if ((st = soft_col_bind(d, who, j, &out->cols[j], rb, out->rows))) {
      rel_free(out);
      return st;
    }
    const soft_col *c = &out->cols[j];
    if (!sort && out->rows && c->c.vtype == HADOS_VT_STR && !(c->c.flags & HADOS_COLF_DICT)) {
      uint64_t e = c->c.offset + out->rows;
      if (c->width == 4) {
        int32_t x;
        memcpy(&x, c->offsets + e * 4, 4);
        out->str_end[j] = (uint64_t)x; /* non-negative: checked by the bind */
      } else {
        int64_t x;
        memcpy(&x, c->offsets + e * 8, 8);
        out->str_end[j] = (uint64_t)x;
      }
    }
  }
  return HADOS_OK;
}

int rel_i32s(soft_device *d, const char *who, const char *what, uint64_t addr, uint64_t n, int32_t **out) {
  uint8_t *p = NULL;
  int st;
  *out = NULL;
  if (!n) return HADOS_OK;
  if (n > INT32_MAX) return soft_fail(HADOS_E_INVALID, "%s: %s: %llu row numbers", who, what, (unsigned long long)n);
  if ((st = soft_range(d, addr, n * 4, &p)))
    return soft_fail(st, "%s: %s: [0x%llx, +%llu) is outside device memory", who, what, (unsigned long long)addr,
                     (unsigned long long)(n * 4));
  if ((uintptr_t)p % 4) return soft_fail(HADOS_E_INVALID, "%s: %s at 0x%llx is not 4-byte aligned", who, what, (unsigned long long)addr);
  *out = (int32_t *)p;
  return HADOS_OK;
}
