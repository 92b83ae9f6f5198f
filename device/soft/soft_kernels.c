/*
 * soft_kernels.c — the software DPU's diagnostic kernels, with runtime SIMD
 * dispatch.
 *
 * Each kernel body is written once as a plain loop over independent lanes
 * (counter-based, no loop-carried dependency) and instantiated three times:
 * for AVX-512, for AVX2 and for the baseline x86-64 ISA, with gcc's target
 * attribute so the autovectoriser emits each instruction set. The device
 * picks the widest variant the CPU supports (or a lower one forced by the
 * `simd=` option) when it opens, and reports it in its info.
 *
 * Definitions every reference implementation must match (see
 * device/reference.go):
 *   checksum  8 lanes h[j] = 0x9E3779B97F4A7C15 * (j+1); for word i:
 *             h[i%8] = (h[i%8] ^ w[i]) * 0x100000001B3; the tail bytes
 *             (len % 8) are packed little-endian into one more word w
 *             and folded into lane 0 the same way; result: r = len; for j:
 *             r = (r ^ h[j]) * 0x100000001B3.
 *   patterns  word i of a region whose device address is base:
 *             WALKING_ONES: 1 << (i % 64), inverted on odd passes (i/64 odd)
 *             RANDOM: splitmix64(seed + i)
 *             ADDRESS: base + 8*i
 */
#include <string.h>

#include "soft.h"

#define FNV_PRIME 0x100000001B3ULL
#define GOLDEN 0x9E3779B97F4A7C15ULL

static inline uint64_t splitmix64(uint64_t x) {
  x += GOLDEN;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

static inline uint64_t pattern_word(uint32_t kind, uint64_t i, uint64_t seed, uint64_t base) {
  switch (kind) {
    case HADOS_PATTERN_WALKING_ONES: {
      uint64_t w = 1ULL << (i & 63);
      return ((i >> 6) & 1) ? ~w : w;
    }
    case HADOS_PATTERN_RANDOM:
      return splitmix64(seed + i);
    default:
      return base + 8 * i;
  }
}

#define KERNELS(SUFFIX, ATTR)                                                                \
  ATTR static void fill_##SUFFIX(uint64_t *dst, uint64_t words, uint64_t pattern) {          \
    for (uint64_t i = 0; i < words; i++) dst[i] = pattern;                                   \
  }                                                                                          \
  ATTR static uint64_t checksum_##SUFFIX(const uint8_t *p, uint64_t len) {                   \
    uint64_t h[8];                                                                           \
    for (int j = 0; j < 8; j++) h[j] = GOLDEN * (uint64_t)(j + 1);                            \
    uint64_t words = len / 8, blocks = words / 8;                                            \
    const uint64_t *w = (const uint64_t *)p;                                                 \
    for (uint64_t b = 0; b < blocks; b++) {                                                  \
      for (int j = 0; j < 8; j++) {                                                          \
        uint64_t x;                                                                          \
        memcpy(&x, w + b * 8 + j, 8);                                                        \
        h[j] = (h[j] ^ x) * FNV_PRIME;                                                       \
      }                                                                                      \
    }                                                                                        \
    for (uint64_t i = blocks * 8; i < words; i++) {                                          \
      uint64_t x;                                                                            \
      memcpy(&x, w + i, 8);                                                                  \
      h[i & 7] = (h[i & 7] ^ x) * FNV_PRIME;                                                 \
    }                                                                                        \
    if (len & 7) {                                                                           \
      uint64_t x = 0;                                                                        \
      memcpy(&x, p + words * 8, len & 7);                                                    \
      h[0] = (h[0] ^ x) * FNV_PRIME;                                                         \
    }                                                                                        \
    uint64_t r = len;                                                                        \
    for (int j = 0; j < 8; j++) r = (r ^ h[j]) * FNV_PRIME;                                  \
    return r;                                                                                \
  }                                                                                          \
  ATTR static void pattern_write_##SUFFIX(uint64_t *dst, uint64_t words, uint32_t kind,      \
                                          uint64_t seed, uint64_t base) {                    \
    switch (kind) {                                                                          \
      case HADOS_PATTERN_WALKING_ONES:                                                       \
        for (uint64_t i = 0; i < words; i++)                                                 \
          dst[i] = pattern_word(HADOS_PATTERN_WALKING_ONES, i, seed, base);                  \
        break;                                                                               \
      case HADOS_PATTERN_RANDOM:                                                             \
        for (uint64_t i = 0; i < words; i++)                                                 \
          dst[i] = pattern_word(HADOS_PATTERN_RANDOM, i, seed, base);                        \
        break;                                                                               \
      default:                                                                               \
        for (uint64_t i = 0; i < words; i++)                                                 \
          dst[i] = pattern_word(HADOS_PATTERN_ADDRESS, i, seed, base);                       \
    }                                                                                        \
  }                                                                                          \
  /* Returns the index of the first bad word, or words if all are good. */                  \
  ATTR static uint64_t pattern_check_##SUFFIX(const uint64_t *src, uint64_t words,           \
                                              uint32_t kind, uint64_t seed, uint64_t base) { \
    const uint64_t block = 512;                                                              \
    for (uint64_t s = 0; s < words; s += block) {                                            \
      uint64_t e = s + block < words ? s + block : words, bad = 0;                           \
      for (uint64_t i = s; i < e; i++) bad |= src[i] ^ pattern_word(kind, i, seed, base);    \
      if (bad)                                                                               \
        for (uint64_t i = s; i < e; i++)                                                     \
          if (src[i] != pattern_word(kind, i, seed, base)) return i;                         \
    }                                                                                        \
    return words;                                                                            \
  }

KERNELS(avx512, __attribute__((target("avx512f,avx512dq,avx512bw,avx512vl"))))
KERNELS(avx2, __attribute__((target("avx2"))))
KERNELS(scalar, )

uint32_t soft_simd_detect(void) {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
      __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl"))
    return HADOS_SIMD_AVX512;
  if (__builtin_cpu_supports("avx2")) return HADOS_SIMD_AVX2;
  return HADOS_SIMD_SCALAR;
}

void soft_kernels_select(soft_kernels *k, uint32_t max_simd) {
  uint32_t simd = soft_simd_detect();
  if (simd > max_simd) simd = max_simd;
  k->simd = simd;
  switch (simd) {
    case HADOS_SIMD_AVX512:
      k->fill = fill_avx512;
      k->checksum = checksum_avx512;
      k->pattern_write = pattern_write_avx512;
      k->pattern_check = pattern_check_avx512;
      break;
    case HADOS_SIMD_AVX2:
      k->fill = fill_avx2;
      k->checksum = checksum_avx2;
      k->pattern_write = pattern_write_avx2;
      k->pattern_check = pattern_check_avx2;
      break;
    default:
      k->fill = fill_scalar;
      k->checksum = checksum_scalar;
      k->pattern_write = pattern_write_scalar;
      k->pattern_check = pattern_check_scalar;
  }
}
