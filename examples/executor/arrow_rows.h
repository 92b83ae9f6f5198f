/* arrow_rows.h — just enough of the Arrow C Data and C Stream interfaces in
   plain C for an executor harness: a producer of a stream of rows (int64,
   date, decimal and string columns, nullable) as Spark's host side would
   hand hados, and a printer of any stream hados returns.
   Header-only (static functions); include after hados.h. */
#ifndef ARROW_ROWS_H
#define ARROW_ROWS_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A column of the producer's batches: values for n rows. Formats: "l"
   (int64: ints), "tdD" (date32, days: ints), "d:P,S" (decimal128 with
   P <= 18: unscaled ints), "u" (utf8: strs, NULL entries are nulls).
   nulls[i] != 0 makes row i null; nulls may be NULL. */
typedef struct {
  const char *name;
  const char *format;
  const int64_t *ints;
  const char *const *strs;
  const uint8_t *nulls;
} rows_column;

/* ---- producer ---- */

static inline void rows_release_schema(struct ArrowSchema *s) {
  if (!s || !s->release) return;
  for (int64_t i = 0; i < s->n_children; i++) {
    struct ArrowSchema *c = s->children[i];
    if (c->release) c->release(c);
    free(c);
  }
  free(s->children);
  s->release = NULL;
}

static inline void rows_release_child(struct ArrowArray *a) {
  if (!a || !a->release) return;
  for (int64_t i = 0; i < a->n_buffers; i++) free((void *)a->buffers[i]);
  free(a->buffers);
  a->release = NULL;
}

static inline void rows_release_array(struct ArrowArray *a) {
  if (!a || !a->release) return;
  for (int64_t i = 0; i < a->n_children; i++) {
    struct ArrowArray *c = a->children[i];
    if (c->release) c->release(c);
    free(c);
  }
  free(a->children);
  free(a->buffers);
  a->release = NULL;
}

/* rows_schema fills *out with a struct schema of the columns (names and
   formats are borrowed: they must outlive it). */
static inline void rows_schema(const rows_column *cols, int ncols, struct ArrowSchema *out) {
  memset(out, 0, sizeof *out);
  out->format = "+s";
  out->name = "";
  out->n_children = ncols;
  out->children = calloc(ncols, sizeof *out->children);
  for (int i = 0; i < ncols; i++) {
    struct ArrowSchema *c = calloc(1, sizeof *c);
    c->format = cols[i].format;
    c->name = cols[i].name;
    c->flags = ARROW_FLAG_NULLABLE;
    c->release = rows_release_schema;
    out->children[i] = c;
  }
  out->release = rows_release_schema;
}

static inline int rows_null(const rows_column *c, int64_t i) {
  return (c->nulls && c->nulls[i]) || (c->format[0] == 'u' && !c->strs[i]);
}

/* rows_array builds one column's array of n rows (malloc'd buffers). */
static inline struct ArrowArray *rows_array(const rows_column *col, int64_t n) {
  struct ArrowArray *a = calloc(1, sizeof *a);
  int str = col->format[0] == 'u', dec = col->format[0] == 'd', date = col->format[0] == 't';
  a->length = n;
  a->n_buffers = str ? 3 : 2;
  a->buffers = calloc(a->n_buffers, sizeof *a->buffers);
  a->release = rows_release_child;
  uint8_t *valid = calloc((n + 7) / 8 + 1, 1);
  for (int64_t i = 0; i < n; i++) {
    if (rows_null(col, i)) a->null_count++;
    else valid[i / 8] |= (uint8_t)(1u << (i % 8));
  }
  a->buffers[0] = valid;
  if (str) {
    int32_t *offs = calloc(n + 1, sizeof *offs);
    size_t chars = 0;
    for (int64_t i = 0; i < n; i++) chars += rows_null(col, i) ? 0 : strlen(col->strs[i]);
    char *data = malloc(chars + 1);
    for (int64_t i = 0; i < n; i++) {
      size_t len = rows_null(col, i) ? 0 : strlen(col->strs[i]);
      memcpy(data + offs[i], rows_null(col, i) ? "" : col->strs[i], len);
      offs[i + 1] = offs[i] + (int32_t)len;
    }
    a->buffers[1] = offs, a->buffers[2] = data;
  } else if (dec) { /* 16-byte little-endian two's complement */
    int64_t *v = calloc(2 * n + 2, sizeof *v);
    for (int64_t i = 0; i < n; i++)
      if (!rows_null(col, i)) v[2 * i] = col->ints[i], v[2 * i + 1] = col->ints[i] < 0 ? -1 : 0;
    a->buffers[1] = v;
  } else if (date) {
    int32_t *v = calloc(n + 1, sizeof *v);
    for (int64_t i = 0; i < n; i++) v[i] = rows_null(col, i) ? 0 : (int32_t)col->ints[i];
    a->buffers[1] = v;
  } else {
    int64_t *v = calloc(n + 1, sizeof *v);
    for (int64_t i = 0; i < n; i++) v[i] = rows_null(col, i) ? 0 : col->ints[i];
    a->buffers[1] = v;
  }
  return a;
}

/* rows_batch fills *out with a struct array of the columns' n rows. */
static inline void rows_batch(const rows_column *cols, int ncols, int64_t n, struct ArrowArray *out) {
  memset(out, 0, sizeof *out);
  out->length = n;
  out->n_buffers = 1;
  out->buffers = calloc(1, sizeof *out->buffers);
  out->n_children = ncols;
  out->children = calloc(ncols, sizeof *out->children);
  for (int i = 0; i < ncols; i++) out->children[i] = rows_array(&cols[i], n);
  out->release = rows_release_array;
}

/* The stream: `batches` batches of the same n rows. */
typedef struct {
  const rows_column *cols;
  int ncols;
  int64_t n;
  int batches, next;
  int *released; /* counts release calls that did work (tests) */
} rows_stream_state;

static inline int rows_get_schema(struct ArrowArrayStream *s, struct ArrowSchema *out) {
  rows_stream_state *st = s->private_data;
  rows_schema(st->cols, st->ncols, out);
  return 0;
}

static inline int rows_get_next(struct ArrowArrayStream *s, struct ArrowArray *out) {
  rows_stream_state *st = s->private_data;
  if (st->next >= st->batches) {
    memset(out, 0, sizeof *out); /* end of stream: a released array */
    return 0;
  }
  st->next++;
  rows_batch(st->cols, st->ncols, st->n, out);
  return 0;
}

static inline const char *rows_get_last_error(struct ArrowArrayStream *s) {
  (void)s;
  return NULL;
}

static inline void rows_release_stream(struct ArrowArrayStream *s) {
  if (!s || !s->release) return;
  rows_stream_state *st = s->private_data;
  if (st->released) (*st->released)++;
  free(st);
  s->release = NULL;
}

/* rows_stream fills *out with a stream of `batches` batches of the
   columns' n rows (the columns must outlive the stream); *released, if
   not NULL, counts its release. */
static inline void rows_stream(struct ArrowArrayStream *out, const rows_column *cols, int ncols, int64_t n, int batches,
                        int *released) {
  rows_stream_state *st = calloc(1, sizeof *st);
  st->cols = cols, st->ncols = ncols, st->n = n, st->batches = batches, st->released = released;
  out->get_schema = rows_get_schema;
  out->get_next = rows_get_next;
  out->get_last_error = rows_get_last_error;
  out->release = rows_release_stream;
  out->private_data = st;
}

/* ---- printer ---- */

static inline int rows_valid(const struct ArrowArray *a, int64_t i) {
  const uint8_t *v = a->buffers[0];
  i += a->offset;
  return !v || (v[i / 8] >> (i % 8)) & 1;
}

/* rows_decimal formats a decimal128 (values that fit 64 bits). */
static inline void rows_decimal(FILE *f, const int64_t *v, int scale) {
  int64_t lo = v[0];
  uint64_t mag = lo < 0 ? (uint64_t)(-(lo + 1)) + 1 : (uint64_t)lo;
  uint64_t p = 1;
  for (int i = 0; i < scale; i++) p *= 10;
  if (scale == 0) fprintf(f, "%s%" PRIu64, lo < 0 ? "-" : "", mag);
  else fprintf(f, "%s%" PRIu64 ".%0*" PRIu64, lo < 0 ? "-" : "", mag / p, scale, mag % p);
}

/* rows_cell prints row i of column a of format fmt. */
static inline void rows_cell(FILE *f, const char *fmt, const struct ArrowArray *a, int64_t i) {
  if (!rows_valid(a, i)) {
    fputs("NULL", f);
    return;
  }
  int64_t j = i + a->offset;
  switch (fmt[0]) {
  case 'l': fprintf(f, "%" PRId64, ((const int64_t *)a->buffers[1])[j]); return;
  case 'i': fprintf(f, "%" PRId32, ((const int32_t *)a->buffers[1])[j]); return;
  case 'g': fprintf(f, "%.4f", ((const double *)a->buffers[1])[j]); return;
  case 'b': fputs((((const uint8_t *)a->buffers[1])[j / 8] >> (j % 8)) & 1 ? "true" : "false", f); return;
  case 'u': {
    const int32_t *o = a->buffers[1];
    fprintf(f, "%.*s", (int)(o[j + 1] - o[j]), (const char *)a->buffers[2] + o[j]);
    return;
  }
  case 'd': {
    int prec = 0, scale = 0;
    sscanf(fmt, "d:%d,%d", &prec, &scale);
    rows_decimal(f, (const int64_t *)a->buffers[1] + 2 * j, scale);
    return;
  }
  case 't':
    if (fmt[1] == 'd' && fmt[2] == 'D') {
      fprintf(f, "date32(%" PRId32 ")", ((const int32_t *)a->buffers[1])[j]);
      return;
    }
  }
  fprintf(f, "<%s>", fmt);
}

/* rows_print prints a stream's rows (a header line, then "|"-separated
   cells), releases every batch (not the stream) and returns the rows
   printed, or -1 on a stream error. */
static inline int64_t rows_print(FILE *f, struct ArrowArrayStream *s) {
  struct ArrowSchema schema;
  if (s->get_schema(s, &schema) != 0) return -1;
  for (int64_t c = 0; c < schema.n_children; c++) fprintf(f, "%s%s", c ? "|" : "", schema.children[c]->name);
  fputc('\n', f);
  int64_t total = 0;
  for (;;) {
    struct ArrowArray batch;
    if (s->get_next(s, &batch) != 0) {
      schema.release(&schema);
      return -1;
    }
    if (!batch.release) break;
    for (int64_t i = 0; i < batch.length; i++, total++) {
      for (int64_t c = 0; c < batch.n_children; c++) {
        if (c) fputc('|', f);
        rows_cell(f, schema.children[c]->format, batch.children[c], i + batch.offset);
      }
      fputc('\n', f);
    }
    batch.release(&batch);
  }
  schema.release(&schema);
  return total;
}

#endif /* ARROW_ROWS_H */
