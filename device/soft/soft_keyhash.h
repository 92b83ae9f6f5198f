/*
 * soft_keyhash.h — key values and key hashing shared by the engine's
 * hash structures: the aggregation state (soft_agg.c) and the join's hash
 * table (soft_join.c).
 *
 * A key value is normalised before it is hashed or compared: doubles have
 * one NaN and no -0.0 (Spark normalises floating grouping and join keys),
 * booleans are 0/1, strings are (pointer, length) views compared bytewise,
 * so a dictionary-encoded and a plain string column hash alike. The hash of
 * a tuple combines the keys' hashes in key order; a null value has its own
 * hash (HASH_NULL).
 */
#ifndef SOFT_KEYHASH_H
#define SOFT_KEYHASH_H

#include <stdint.h>
#include <string.h>

#include "hados_pipeline.h"

#define KH_INLINE static inline __attribute__((always_inline))

/* A key value, normalised (doubles: one NaN, no -0.0; BOOL: 0/1). */
typedef struct kval {
  uint32_t null, len;
  uint64_t lo, hi;
  const uint8_t *p;
} kval;

KH_INLINE uint64_t f64_key_bits(double x) {
  if (x != x) return 0x7ff8000000000000ULL;
  if (x == 0) return 0;
  uint64_t b;
  memcpy(&b, &x, 8);
  return b;
}

/* Strings of at most 16 bytes as two words, exactly (no byte outside the
   string is read): with the length, (lo, hi) determines the bytes. 1..3
   bytes: first, middle and last byte; 4..8: the first and the last four
   bytes; 9..16: the first and the last eight. */
KH_INLINE void short_words(const uint8_t *p, uint32_t n, uint64_t *lo, uint64_t *hi) {
  if (n >= 9) {
    memcpy(lo, p, 8);
    memcpy(hi, p + n - 8, 8);
  } else if (n >= 4) {
    uint32_t a, b;
    memcpy(&a, p, 4);
    memcpy(&b, p + n - 4, 4);
    *lo = a | (uint64_t)b << 32;
    *hi = 0;
  } else {
    *lo = n ? p[0] | (uint64_t)p[n / 2] << 8 | (uint64_t)p[n - 1] << 16 : 0;
    *hi = 0;
  }
}

/* Bytewise equality of two strings of n bytes: up to 32 bytes by words
   (17..32: the first and the last 16 bytes, overlapping), longer ones
   memcmp. */
KH_INLINE int bytes_eq(const uint8_t *a, const uint8_t *b, uint32_t n) {
  if (n > 16) {
    if (n > 32) return memcmp(a, b, n) == 0;
    uint64_t a0, a1, a2, a3, b0, b1, b2, b3;
    memcpy(&a0, a, 8);
    memcpy(&a1, a + 8, 8);
    memcpy(&a2, a + n - 16, 8);
    memcpy(&a3, a + n - 8, 8);
    memcpy(&b0, b, 8);
    memcpy(&b1, b + 8, 8);
    memcpy(&b2, b + n - 16, 8);
    memcpy(&b3, b + n - 8, 8);
    return ((a0 ^ b0) | (a1 ^ b1) | (a2 ^ b2) | (a3 ^ b3)) == 0;
  }
  uint64_t alo, ahi, blo, bhi;
  short_words(a, n, &alo, &ahi);
  short_words(b, n, &blo, &bhi);
  return ((alo ^ blo) | (ahi ^ bhi)) == 0;
}

/* Equality of two values of type vt; null equals null (callers that want
   SQL's null semantics test null first). */
KH_INLINE int kval_eq(const kval *a, const kval *b, uint32_t vt) {
  if (a->null | b->null) return a->null == b->null;
  if (vt == HADOS_VT_STR) return a->len == b->len && bytes_eq(a->p, b->p, a->len);
  return a->lo == b->lo && a->hi == b->hi;
}

KH_INLINE uint64_t fmix(uint64_t k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdULL;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53ULL;
  k ^= k >> 33;
  return k;
}

/* A string of more than 16 bytes (n > 16: the tail's load below needs 8
   bytes before the string's end). */
static inline uint64_t hash_long(const uint8_t *p, uint32_t n) {
  uint64_t h = 0x243f6a8885a308d3ULL ^ ((uint64_t)n << 32);
  while (n >= 8) {
    uint64_t w;
    memcpy(&w, p, 8);
    h = fmix(h ^ w) + 0x9e3779b97f4a7c15ULL;
    p += 8;
    n -= 8;
  }
  /* the last n < 8 bytes as the low bytes of a word (little-endian): the
     string's last 8 bytes shifted down, one load (a variable-length
     memcpy is a byte loop through the stack, which stalls the load) */
  uint64_t w = 0;
  if (n) {
    memcpy(&w, p + n - 8, 8);
    w >>= 8 * (8 - n);
  }
  return fmix(h ^ w ^ n);
}

/* A string's hash: short strings take one or two mixes of their words,
   longer ones the word loop. */
KH_INLINE uint64_t hash_bytes(const uint8_t *p, uint32_t n) {
  if (n > 16) return hash_long(p, n);
  uint64_t lo, hi;
  short_words(p, n, &lo, &hi);
  uint64_t h = lo ^ 0x243f6a8885a308d3ULL ^ ((uint64_t)n << 56);
  if (n >= 9) h = fmix(h) ^ hi;
  return fmix(h);
}

#define HASH_NULL 0x9ae16a3b2f90404fULL /* the hash of a null key value */

KH_INLINE uint64_t hash_kval(const kval *x, uint32_t vt) {
  if (x->null) return HASH_NULL;
  if (vt == HADOS_VT_STR) return hash_bytes(x->p, x->len);
  return fmix(x->lo ^ fmix(x->hi ^ 0x2545f4914f6cdd1dULL));
}

/* Combines key k's hash into the tuple's (h = 0 before the first key). */
KH_INLINE uint64_t hash_combine(uint64_t h, uint64_t hk) {
  h = ((h << 23) | (h >> 41)) ^ hk;
  h *= 0x9e3779b97f4a7c15ULL;
  return h ^ (h >> 32);
}

#endif
