/*
 * soft_ops.c — execution of one op of a program on an engine core.
 *
 * Every device address and length is checked against the device's region
 * before a byte is touched (E_FAULT otherwise). Copy ops are where injected
 * DMA errors strike: the op fails with E_IO after the copy, as a descriptor
 * whose completion reports a link error would.
 */
#include <string.h>
#include <time.h>

#include "codec_lz4.h"
#include "codec_snappy.h"
#include "soft.h"
#include "soft_pipeline.h"
#include "soft_relational.h"
#include "soft_vkernels.h"

#include "hados_joincond.h"

/* HADOS_OP_JOIN_COND (soft_joincond.c). */
int soft_joincond_op(soft_device *d, const hados_op *op, uint64_t len, uint64_t *result);

uint64_t soft_rand(uint64_t *s) {
  uint64_t x = *s;
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  *s = x;
  return x;
}

static double rand01(uint64_t *s) { return (double)(soft_rand(s) >> 11) / 9007199254740992.0; }

int soft_range(soft_device *d, uint64_t addr, uint64_t len, uint8_t **out) {
  if (addr < d->base || addr - d->base > d->size || len > d->size - (addr - d->base))
    return soft_fail(HADOS_E_FAULT, "soft device %u: range [0x%llx, +%llu) is outside device memory [0x%llx, +%llu)", d->index,
                     (unsigned long long)addr, (unsigned long long)len, (unsigned long long)d->base,
                     (unsigned long long)d->size);
  *out = d->mem + (addr - d->base);
  return HADOS_OK;
}

/* rng == NULL: no fault injection (self-test). */
static int inject_dma_error(soft_device *d, uint64_t *rng) {
  if (rng && d->faults.dma_error_rate > 0 && rand01(rng) < d->faults.dma_error_rate) {
    atomic_fetch_add(&d->faults_injected, 1);
    return soft_fail(HADOS_E_IO, "soft device %u: injected DMA descriptor error", d->index);
  }
  return HADOS_OK;
}

static int64_t codec_compress(uint32_t codec, const uint8_t *src, int64_t n, uint8_t *dst, int64_t cap) {
  if (codec == HADOS_CODEC_LZ4) return hd_lz4_compress(src, n, dst, cap);
  return hd_snappy_compress(src, n, dst, cap);
}

static int64_t codec_decompress(uint32_t codec, const uint8_t *src, int64_t n, uint8_t *dst, int64_t cap) {
  if (codec == HADOS_CODEC_LZ4) return hd_lz4_decompress(src, n, dst, cap);
  return hd_snappy_decompress(src, n, dst, cap);
}

int soft_exec_op(soft_device *d, const hados_op *op, uint64_t prev, uint64_t *result, uint64_t *rng) {
  uint64_t len = op->len;
  uint8_t *dp = NULL, *sp = NULL;
  int st;
  *result = 0;
  if (op->flags & HADOS_OPF_LEN_FROM_PREV) {
    if (prev > op->len)
      return soft_fail(HADOS_E_INVALID, "soft: length %llu from the previous op exceeds this op's capacity %llu",
                       (unsigned long long)prev, (unsigned long long)op->len);
    len = prev;
  }
  switch (op->opcode) {
    case HADOS_OP_NOP:
      return HADOS_OK;
    case HADOS_OP_COPY_H2D:
      if ((st = soft_range(d, op->dst, len, &dp))) return st;
      if (len && !op->src) return soft_fail(HADOS_E_INVALID, "soft: COPY_H2D with a null host pointer");
      memcpy(dp, (const void *)(uintptr_t)op->src, len);
      atomic_fetch_add(&d->bytes_h2d, len);
      *result = len;
      return inject_dma_error(d, rng);
    case HADOS_OP_COPY_D2H:
      if ((st = soft_range(d, op->src, len, &sp))) return st;
      if (len && !op->dst) return soft_fail(HADOS_E_INVALID, "soft: COPY_D2H with a null host pointer");
      memcpy((void *)(uintptr_t)op->dst, sp, len);
      atomic_fetch_add(&d->bytes_d2h, len);
      *result = len;
      return inject_dma_error(d, rng);
    case HADOS_OP_COPY_D2D:
      if ((st = soft_range(d, op->dst, len, &dp)) || (st = soft_range(d, op->src, len, &sp))) return st;
      memmove(dp, sp, len);
      atomic_fetch_add(&d->bytes_d2d, len);
      *result = len;
      return inject_dma_error(d, rng);
    case HADOS_OP_FILL:
      if ((st = soft_range(d, op->dst, len, &dp))) return st;
      d->kern.fill((uint64_t *)dp, len / 8, op->arg[0]);
      for (uint64_t i = len & ~7ULL; i < len; i++) dp[i] = (uint8_t)(op->arg[0] >> (8 * (i & 7)));
      *result = len;
      return HADOS_OK;
    case HADOS_OP_CHECKSUM:
      if ((st = soft_range(d, op->src, len, &sp))) return st;
      *result = d->kern.checksum(sp, len);
      return HADOS_OK;
    case HADOS_OP_COMPARE: {
      if ((st = soft_range(d, op->dst, len, &dp)) || (st = soft_range(d, op->src, len, &sp))) return st;
      const uint64_t chunk = 4096;
      for (uint64_t off = 0; off < len; off += chunk) {
        uint64_t n = len - off < chunk ? len - off : chunk;
        if (memcmp(dp + off, sp + off, n) != 0) {
          uint64_t i = off;
          while (dp[i] == sp[i]) i++;
          *result = i;
          return soft_fail(HADOS_E_MISMATCH, "soft device %u: compare found a difference at offset %llu", d->index,
                           (unsigned long long)i);
        }
      }
      *result = len;
      return HADOS_OK;
    }
    case HADOS_OP_PATTERN_WRITE:
    case HADOS_OP_PATTERN_CHECK: {
      uint64_t addr = op->opcode == HADOS_OP_PATTERN_WRITE ? op->dst : op->src;
      if (len % 8 || addr % 8) return soft_fail(HADOS_E_INVALID, "soft: pattern ops need 8-byte aligned address and length");
      if (op->arg[0] > HADOS_PATTERN_ADDRESS) return soft_fail(HADOS_E_INVALID, "soft: unknown pattern kind %llu", (unsigned long long)op->arg[0]);
      if ((st = soft_range(d, addr, len, &dp))) return st;
      if (op->opcode == HADOS_OP_PATTERN_WRITE) {
        d->kern.pattern_write((uint64_t *)dp, len / 8, (uint32_t)op->arg[0], op->arg[1], addr);
        *result = len;
        return HADOS_OK;
      }
      uint64_t bad = d->kern.pattern_check((const uint64_t *)dp, len / 8, (uint32_t)op->arg[0], op->arg[1], addr);
      *result = bad * 8;
      if (bad < len / 8)
        return soft_fail(HADOS_E_MISMATCH, "soft device %u: pattern check failed at device address 0x%llx", d->index,
                         (unsigned long long)(addr + bad * 8));
      return HADOS_OK;
    }
    case HADOS_OP_COMPRESS:
    case HADOS_OP_DECOMPRESS: {
      uint32_t codec = (uint32_t)op->arg[0];
      uint64_t cap = op->arg[1];
      if (codec != HADOS_CODEC_LZ4 && codec != HADOS_CODEC_SNAPPY)
        return soft_fail(HADOS_E_INVALID, "soft: unknown codec %u", codec);
      if ((int64_t)len < 0 || (int64_t)cap < 0) return soft_fail(HADOS_E_INVALID, "soft: codec length too large");
      if ((st = soft_range(d, op->dst, cap, &dp)) || (st = soft_range(d, op->src, len, &sp))) return st;
      int64_t n = op->opcode == HADOS_OP_COMPRESS ? codec_compress(codec, sp, (int64_t)len, dp, (int64_t)cap)
                                                  : codec_decompress(codec, sp, (int64_t)len, dp, (int64_t)cap);
      if (n < 0)
        return soft_fail(HADOS_E_IO, "soft device %u: %s %s failed (code %lld): corrupt input or capacity %llu too small", d->index,
                         codec == HADOS_CODEC_LZ4 ? "lz4" : "snappy",
                         op->opcode == HADOS_OP_COMPRESS ? "compress" : "decompress", (long long)n,
                         (unsigned long long)cap);
      *result = (uint64_t)n;
      return HADOS_OK;
    }
    case HADOS_OP_SLEEP: {
      if (op->arg[0] > SOFT_MAX_SLEEP_NS)
        return soft_fail(HADOS_E_INVALID, "soft: sleep of %llu ns is longer than the %llu ns maximum", (unsigned long long)op->arg[0],
                         (unsigned long long)SOFT_MAX_SLEEP_NS);
      struct timespec ts = {(time_t)(op->arg[0] / 1000000000ULL), (long)(op->arg[0] % 1000000000ULL)};
      nanosleep(&ts, NULL);
      return HADOS_OK;
    }
    case HADOS_OP_PIPELINE:
      return soft_pipeline_run(d, op->src, len, op->arg[0], op->arg[1], op->arg[2], result);
    case HADOS_OP_AGG_CREATE:
    case HADOS_OP_AGG_MERGE:
    case HADOS_OP_AGG_EMIT:
    case HADOS_OP_AGG_FREE:
      return soft_pipeline_agg_op(d, op, len, result);
    case HADOS_OP_SORT:
    case HADOS_OP_MERGE:
      return soft_sort_op(d, op, len, result);
    case HADOS_OP_GATHER:
      return soft_gather_op(d, op, len, result);
    case HADOS_OP_JOIN_BUILD:
    case HADOS_OP_JOIN_PROBE:
    case HADOS_OP_JOIN_FREE:
      return soft_join_op(d, op, len, result);
    case HADOS_OP_JOIN_COND:
      return soft_joincond_op(d, op, len, result);
    default:
      return soft_fail(HADOS_E_INVALID, "soft: unknown opcode %u", op->opcode);
  }
}
