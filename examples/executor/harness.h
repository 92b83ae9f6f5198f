/* harness.h — small helpers shared by the executor example and the C ABI
   tests: a CHECK macro that counts failures with hados' last error, and
   reading a whole file. Header-only; include after hados.h. */
#ifndef HARNESS_H
#define HARNESS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;

#define CHECK(cond, ...)                                              \
  do {                                                                \
    if (!(cond)) {                                                    \
      fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);            \
      fprintf(stderr, __VA_ARGS__);                                   \
      fprintf(stderr, " (last error: %s)\n", hados_last_error());     \
      failures++;                                                     \
    }                                                                 \
  } while (0)

static inline int contains(const char *s, const char *sub) { return s && strstr(s, sub) != NULL; }

/* read_file returns the file's bytes NUL-terminated (free them) and its
   length in *len, or NULL. */
static inline char *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *b = n >= 0 ? malloc((size_t)n + 1) : NULL;
  if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
    free(b);
    b = NULL;
  }
  fclose(f);
  if (b) {
    b[n] = 0;
    *len = (size_t)n;
  }
  return b;
}

#endif /* HARNESS_H */
