/*
 * standalone.c - exercises codec_lz4.h and codec_snappy.h outside Go.
 *
 * TestCStandalone compiles this file with -std=c99 -pedantic -Wall -Wextra
 * -Werror (so the headers must stay warning-free in strict C99) and, when
 * the compiler supports them, -fsanitize=address,undefined: round trips on
 * generated data, then decoding of randomly mutated blocks, every buffer
 * malloc'd at its exact size so any overrun or undefined behaviour aborts.
 * Usage: standalone <iterations>. Exit status 0 means every check passed.
 */
#include <stdio.h>
#include <stdlib.h>

#include "codec_lz4.h"
#include "codec_snappy.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint32_t next(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (uint32_t)(rng >> 16);
}

/* fill writes one of several data shapes. */
static void fill(uint8_t *p, int64_t n, int shape) {
  int64_t i;
  for (i = 0; i < n; i++) {
    switch (shape) {
    case 0:
      p[i] = (uint8_t)next();
      break;
    case 1:
      p[i] = (uint8_t)('a' + i % (1 + shape * 3));
      break;
    case 2:
      p[i] = (uint8_t)"the quick brown fox "[next() % 20];
      break;
    default:
      p[i] = (i > 64 && next() % 4) ? p[i - 1 - next() % 64] : (uint8_t)next();
    }
  }
}

typedef int64_t (*codec_fn)(const uint8_t *, int64_t, uint8_t *, int64_t);

struct codec {
  const char *name;
  int64_t (*bound)(int64_t);
  codec_fn compress, decompress;
};

static int fail(const char *codec, const char *what, int64_t n, int64_t r) {
  fprintf(stderr, "%s: %s (n=%lld, r=%lld)\n", codec, what, (long long)n,
          (long long)r);
  return 1;
}

static int round_trip(const struct codec *c, int64_t n, int shape) {
  uint8_t *in = malloc((size_t)(n ? n : 1)), *out, *back;
  int64_t bound = c->bound(n), r, m;
  int bad = 0;
  fill(in, n, shape);
  out = malloc((size_t)bound);
  r = c->compress(n ? in : NULL, n, out, bound);
  if (r <= 0 || r > bound) {
    bad = fail(c->name, "compress", n, r);
  } else {
    back = malloc((size_t)(n ? n : 1));
    m = c->decompress(out, r, n ? back : NULL, n);
    if (m != n || (n && memcmp(back, in, (size_t)n)))
      bad = fail(c->name, "round trip", n, m);
    if (r > 1 && c->compress(in, n, out, r - 1) != HD_CODEC_ESPACE)
      bad = fail(c->name, "short output buffer accepted", n, r);
    free(back);
  }
  free(out);
  free(in);
  return bad;
}

/* mutate decodes a corrupted copy of a valid block into an exact-size
 * buffer; only crashes (caught by the sanitizers) or results above the
 * capacity count as failures. */
static int mutate(const struct codec *c, int64_t n) {
  uint8_t *in = malloc((size_t)n + 1), *blk, *bad_blk, *out;
  int64_t bound = c->bound(n), r, cap, k, m;
  int bad = 0;
  fill(in, n, 1 + (int)(next() % 3)); /* shapes with early matches */
  blk = malloc((size_t)bound);
  r = c->compress(in, n, blk, bound);
  if (r <= 0) {
    free(blk);
    free(in);
    return fail(c->name, "compress for mutation", n, r);
  }
  bad_blk = malloc((size_t)r);
  memcpy(bad_blk, blk, (size_t)r);
  for (k = 1 + next() % 4; k > 0; k--) {
    uint8_t *b = &bad_blk[next() % r];
    switch (next() % 3) {
    case 0:
      *b ^= (uint8_t)(1u << (next() % 8)); /* bit flip */
      break;
    case 1:
      *b = (uint8_t)(*b + (next() % 2 ? 1 : 255)); /* off by one */
      break;
    default:
      *b = (uint8_t)next();
    }
  }
  if (next() % 4 == 0)
    r = next() % r + 1; /* truncate */
  cap = (next() % 2) ? n : (int64_t)(next() % (uint32_t)(n + 16));
  out = malloc((size_t)(cap ? cap : 1));
  m = c->decompress(bad_blk, r, cap ? out : NULL, cap);
  if (m > cap || (m < 0 && m != HD_CODEC_ECORRUPT && m != HD_CODEC_ESPACE))
    bad = fail(c->name, "mutated block", n, m);
  free(out);
  free(bad_blk);
  free(blk);
  free(in);
  return bad;
}

int main(int argc, char **argv) {
  static const struct codec codecs[2] = {
      {"lz4", hd_lz4_bound, hd_lz4_compress, hd_lz4_decompress},
      {"snappy", hd_snappy_bound, hd_snappy_compress, hd_snappy_decompress}};
  long iters = argc > 1 ? atol(argv[1]) : 1000, i;
  int bad = 0, ci;
  for (ci = 0; ci < 2; ci++) {
    const struct codec *c = &codecs[ci];
    for (i = 0; i < 200 && !bad; i++)
      bad |= round_trip(c, i, (int)(i % 4));
    for (i = 0; i < 20 && !bad; i++)
      bad |= round_trip(c, (int64_t)(next() % 300000), (int)(i % 4));
    for (i = 0; i < iters && !bad; i++)
      bad |= mutate(c, 1 + (int64_t)(next() % (i % 4 ? 200 : 3000)));
  }
  if (!bad)
    printf("ok: %ld mutations per codec\n", iters);
  return bad;
}
