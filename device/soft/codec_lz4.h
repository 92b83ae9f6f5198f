/*
 * codec_lz4.h - the software DPU's LZ4 *block* codec (header-only C99).
 *
 * Format: the raw LZ4 block format (no frame header, no checksums), bit
 * compatible with github.com/pierrec/lz4/v4 CompressBlock/UncompressBlock
 * and with the reference liblz4 LZ4_compress_default/LZ4_decompress_safe.
 * A block is a run of sequences; each sequence is
 *
 *   token (hi nibble: literal length, lo nibble: match length - 4)
 *   [literal length extension: 255, 255, ..., <255]
 *   literals
 *   little-endian 16-bit match offset (1..65535)
 *   [match length extension: 255, 255, ..., <255]
 *
 * and the last sequence stops after its literals.
 *
 * This header also holds the primitives both codecs share (error codes,
 * little-endian loads, match counting and the overlap-aware match copy);
 * codec_snappy.h includes it for them.
 *
 * Linkage: every function is `static` (and marked unused, so a translation
 * unit that uses only some of them compiles warning-free); include the header
 * wherever it is needed. No libc beyond <stdint.h>, <stddef.h>, <string.h>.
 *
 * Memory: no function allocates. The compressors' hash tables (16 KiB for
 * LZ4 by default, 32 KiB for Snappy; less for small inputs) live on the
 * caller's stack, so callers need that much stack (engine and cgo threads
 * have megabytes). All
 * buffers are owned by the caller; the functions only read src and write
 * dst[0, cap).
 *
 * Safety: the decompressors treat their input as hostile. They never read
 * outside src[0, n) nor write outside dst[0, cap) and every loop consumes
 * input or produces output, so they always terminate. The LZ4 decoder
 * cannot know the decoded length in advance, so bytes of dst between the
 * returned length and cap may be overwritten with scratch data: pass the
 * expected decoded size as cap when the rest of dst matters. (The Snappy
 * decoder never writes past the decoded length.)
 */
#ifndef HD_CODEC_LZ4_H
#define HD_CODEC_LZ4_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* ===================== shared codec primitives ===================== */

/* Error codes returned (as negative int64_t) by every hd_*_codec function. */
#define HD_CODEC_EINVAL (-1)   /* bad argument: negative size, NULL buffer   */
#define HD_CODEC_ECORRUPT (-2) /* malformed compressed input                 */
#define HD_CODEC_ESPACE (-3)   /* dst capacity too small for the output      */
#define HD_CODEC_ETOOBIG (-4)  /* input larger than the format can describe  */

#if defined(__GNUC__) || defined(__clang__)
#define HD_CODEC_FN static __attribute__((unused))
#define HD_CODEC_LIKELY(x) __builtin_expect(!!(x), 1)
#define HD_CODEC_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define HD_CODEC_FN static
#define HD_CODEC_LIKELY(x) (x)
#define HD_CODEC_UNLIKELY(x) (x)
#endif

#if defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__) && \
    __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define HD_CODEC_LE 1
#else
#define HD_CODEC_LE 0
#endif

/* hd_codec_strerror names an error code, for logs and Go error messages. */
HD_CODEC_FN const char *hd_codec_strerror(int64_t code) {
  switch (code) {
  case HD_CODEC_EINVAL:
    return "invalid argument";
  case HD_CODEC_ECORRUPT:
    return "corrupt input";
  case HD_CODEC_ESPACE:
    return "destination too small";
  case HD_CODEC_ETOOBIG:
    return "input too large";
  default:
    return code < 0 ? "unknown error" : "ok";
  }
}

HD_CODEC_FN uint32_t hd_codec_load32(const uint8_t *p) {
  uint32_t v;
  memcpy(&v, p, sizeof v);
  return v;
}

HD_CODEC_FN uint64_t hd_codec_load64(const uint8_t *p) {
  uint64_t v;
  memcpy(&v, p, sizeof v);
  return v;
}

HD_CODEC_FN uint32_t hd_codec_le16(const uint8_t *p) {
  return (uint32_t)p[0] | ((uint32_t)p[1] << 8);
}

HD_CODEC_FN uint32_t hd_codec_le32(const uint8_t *p) {
  return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
         ((uint32_t)p[3] << 24);
}

/* hd_codec_hash4 hashes the 4 bytes at p (the minimum match) into
 * [0, 1<<bits). The caller guarantees 4 readable bytes. */
HD_CODEC_FN uint32_t hd_codec_hash4(const uint8_t *p, unsigned bits) {
  return (hd_codec_load32(p) * 2654435761u) >> (32 - bits);
}

/* hd_codec_hash5 hashes 5 bytes at p into [0, 1<<bits): candidates then
 * tend to match for 5+ bytes, which pays off in LZ4, whose shortest
 * sequence costs 3 bytes. The caller guarantees 8 readable bytes. On a
 * big-endian machine other bytes are hashed, which is equally valid. */
HD_CODEC_FN uint32_t hd_codec_hash5(const uint8_t *p, unsigned bits) {
  return (uint32_t)(((hd_codec_load64(p) << 24) * 889523592379ull) >>
                    (64 - bits));
}

/* hd_codec_table_bits picks a hash-table size (log2) for an n-byte input:
 * large enough to find matches, small enough that clearing it is cheap for
 * tiny inputs. */
HD_CODEC_FN unsigned hd_codec_table_bits(int64_t n, unsigned min_bits,
                                         unsigned max_bits) {
  unsigned bits = min_bits;
  while (bits < max_bits && ((int64_t)1 << bits) < n)
    bits++;
  return bits;
}

/* hd_codec_count returns how many bytes starting at p equal those starting
 * at m (m < p), reading p no further than limit (exclusive). */
HD_CODEC_FN int64_t hd_codec_count(const uint8_t *p, const uint8_t *m,
                                   const uint8_t *limit) {
  const uint8_t *start = p;
#if HD_CODEC_LE && (defined(__GNUC__) || defined(__clang__))
  while (limit - p >= 8) {
    uint64_t x = hd_codec_load64(p) ^ hd_codec_load64(m);
    if (x)
      return (p - start) + (__builtin_ctzll(x) >> 3);
    p += 8;
    m += 8;
  }
#endif
  while (p < limit && *p == *m) {
    p++;
    m++;
  }
  return p - start;
}

/* hd_codec_copy_match appends len bytes copied from offset bytes back
 * (offset >= 1, possibly overlapping: offset < len repeats a pattern) at op.
 * The caller has checked that op - offset is inside the output and that
 * op + len <= the logical output end. phys_end is the end of writable
 * memory: when at least len + 8 bytes are writable the copy runs in 8-byte
 * chunks and may scribble up to 7 bytes past op + len. */
HD_CODEC_FN void hd_codec_copy_match(uint8_t *op, int64_t offset, int64_t len,
                                     const uint8_t *phys_end) {
  const uint8_t *m = op - offset;
  uint8_t *end = op + len;
  if (HD_CODEC_LIKELY(phys_end - op >= len + 8)) {
    if (HD_CODEC_UNLIKELY(offset < 8)) {
      /* Lay down the first 8 bytes one at a time (sequential, so overlap
       * is fine), then step m back by a whole number of pattern periods so
       * the chunks below read at a distance of at least 8. */
      static const uint8_t period[8] = {0, 8, 8, 9, 8, 10, 12, 14};
      int i;
      for (i = 0; i < 8; i++)
        op[i] = m[i];
      op += 8;
      m = op - period[offset];
      if (op >= end)
        return;
    }
    do {
      memcpy(op, m, 8);
      op += 8;
      m += 8;
    } while (op < end);
    return;
  }
  while (op < end)
    *op++ = *m++;
}

/* hd_codec_copy_literals copies len bytes from ip to op; when both sides
 * have 16 spare bytes and len <= 16 it copies a fixed 16 bytes. */
HD_CODEC_FN void hd_codec_copy_literals(uint8_t *op, const uint8_t *ip,
                                        int64_t len, int64_t in_room,
                                        int64_t out_room) {
  if (len <= 16 && in_room >= 16 && out_room >= 16)
    memcpy(op, ip, 16);
  else
    memcpy(op, ip, (size_t)len);
}

/* hd_codec_wildcopy copies len bytes from ip to op (non-overlapping) in
 * 8-byte steps: it may read, and write, up to 7 bytes past len. The caller
 * guarantees both are in bounds. */
HD_CODEC_FN void hd_codec_wildcopy(uint8_t *op, const uint8_t *ip,
                                   int64_t len) {
  uint8_t *end = op + len;
  do {
    memcpy(op, ip, 8);
    op += 8;
    ip += 8;
  } while (op < end);
}

/* ============================ LZ4 block ============================ */

#define HD_LZ4_MINMATCH 4
#define HD_LZ4_LASTLITERALS 5 /* a block ends with >= 5 literals          */
#define HD_LZ4_MFLIMIT 12     /* the last match starts >= 12 bytes before end */
#define HD_LZ4_MAX_OFFSET 65535
#define HD_LZ4_MAX_INPUT 0x7E000000 /* as LZ4_MAX_INPUT_SIZE             */
/* Hash-table size (log2 of uint32 entries) on the stack: 12 = 16 KiB, as
 * liblz4's default. Define it to 14 (64 KiB) before including for about
 * 10% smaller output on prose at about 30% lower compression speed. */
#ifndef HD_LZ4_HASH_BITS
#define HD_LZ4_HASH_BITS 12
#endif
#ifndef HD_LZ4_SKIP_TRIGGER
#define HD_LZ4_SKIP_TRIGGER 6 /* step grows every 64 misses */
#endif

/* hd_lz4_bound returns the worst-case compressed size of n input bytes, or
 * HD_CODEC_ETOOBIG / HD_CODEC_EINVAL. Same as LZ4_COMPRESSBOUND. */
HD_CODEC_FN int64_t hd_lz4_bound(int64_t n) {
  if (n < 0)
    return HD_CODEC_EINVAL;
  if (n > HD_LZ4_MAX_INPUT)
    return HD_CODEC_ETOOBIG;
  return n + n / 255 + 16;
}

/* hd_lz4_put_len writes the 255-run extension of a length already reduced
 * by 15 and returns the new output pointer. */
HD_CODEC_FN uint8_t *hd_lz4_put_len(uint8_t *op, int64_t len) {
  while (len >= 255) {
    *op++ = 255;
    len -= 255;
  }
  *op++ = (uint8_t)len;
  return op;
}

/* hd_lz4_ext_bytes is the size of the extension that follows a token
 * nibble holding len (a literal length, or a match length minus 4). */
HD_CODEC_FN int64_t hd_lz4_ext_bytes(int64_t len) {
  return len >= 15 ? (len - 15) / 255 + 1 : 0;
}

/* hd_lz4_put_sequence emits literals [anchor, ip) and a match of mlen bytes
 * at offset; it returns the new output pointer or NULL when the sequence
 * does not fit before oend. */
HD_CODEC_FN uint8_t *hd_lz4_put_sequence(uint8_t *op, const uint8_t *oend,
                                         const uint8_t *anchor,
                                         const uint8_t *ip, int64_t mlen,
                                         uint32_t offset) {
  int64_t lit = ip - anchor;
  int64_t ml = mlen - HD_LZ4_MINMATCH;
  uint8_t *token;
  if (oend - op < 1 + hd_lz4_ext_bytes(lit) + lit + 2 + hd_lz4_ext_bytes(ml))
    return NULL;
  token = op++;
  if (lit >= 15) {
    *token = 15 << 4;
    op = hd_lz4_put_len(op, lit - 15);
  } else {
    *token = (uint8_t)(lit << 4);
  }
  /* The literals end at a match start, >= 12 bytes before the input's
   * end, so over-reading 7 bytes is safe; over-writing needs room. */
  if (oend - op >= lit + 8)
    hd_codec_wildcopy(op, anchor, lit);
  else
    memcpy(op, anchor, (size_t)lit);
  op += lit;
  op[0] = (uint8_t)offset;
  op[1] = (uint8_t)(offset >> 8);
  op += 2;
  if (ml >= 15) {
    *token |= 15;
    op = hd_lz4_put_len(op, ml - 15);
  } else {
    *token |= (uint8_t)ml;
  }
  return op;
}

/* hd_lz4_compress compresses src[0, n) into dst[0, cap) as one LZ4 block
 * using a single-pass greedy hash matcher (LZ4's fast mode: one candidate
 * per position, a step that grows over incompressible stretches). Returns
 * the compressed size (>= 1: an empty input becomes the single token 0x00),
 * HD_CODEC_ESPACE if cap is too small (never when cap >= hd_lz4_bound(n)),
 * HD_CODEC_ETOOBIG above HD_LZ4_MAX_INPUT, or HD_CODEC_EINVAL. */
HD_CODEC_FN int64_t hd_lz4_compress(const uint8_t *src, int64_t n,
                                    uint8_t *dst, int64_t cap) {
  uint32_t table[1u << HD_LZ4_HASH_BITS];
  const uint8_t *ip, *anchor, *iend;
  uint8_t *op;
  const uint8_t *oend;
  int64_t lit;

  if (n < 0 || cap < 0 || (n > 0 && !src) || (cap > 0 && !dst))
    return HD_CODEC_EINVAL;
  if (n > HD_LZ4_MAX_INPUT)
    return HD_CODEC_ETOOBIG;
  if (cap == 0)
    return HD_CODEC_ESPACE; /* even an empty input needs its token */
  if (n == 0) {
    dst[0] = 0;
    return 1;
  }
  ip = anchor = src;
  iend = src + n;
  op = dst;
  oend = dst + cap;

  if (n > HD_LZ4_MFLIMIT) {
    const uint8_t *mflimit = iend - HD_LZ4_MFLIMIT;
    const uint8_t *matchlimit = iend - HD_LZ4_LASTLITERALS;
    unsigned bits = hd_codec_table_bits(n, 8, HD_LZ4_HASH_BITS);
    memset(table, 0, sizeof(uint32_t) << bits);
    ip++; /* position 0 is what every empty slot points at */
    for (;;) {
      const uint8_t *ref, *next = ip;
      uint32_t h, next_h = hd_codec_hash5(ip, bits);
      uint32_t attempts = 1u << HD_LZ4_SKIP_TRIGGER;
      int64_t mlen;
      /* Find a 4-byte match, skipping faster the longer we miss; the next
       * position's hash is computed while this one's candidate loads. */
      do {
        ip = next;
        h = next_h;
        if (ip > mflimit)
          goto last_literals;
        next = ip + (attempts++ >> HD_LZ4_SKIP_TRIGGER);
        ref = src + table[h];
        /* clamped: a hash past the limit is never used, but stays in bounds */
        next_h = hd_codec_hash5(next <= mflimit ? next : mflimit, bits);
        table[h] = (uint32_t)(ip - src);
      } while (ip - ref > HD_LZ4_MAX_OFFSET ||
               hd_codec_load32(ref) != hd_codec_load32(ip));
      /* Extend backwards over pending literals. */
      while (ip > anchor && ref > src && ip[-1] == ref[-1]) {
        ip--;
        ref--;
      }
      /* Emit this match and any match found right after it. */
      for (;;) {
        mlen = HD_LZ4_MINMATCH +
               hd_codec_count(ip + HD_LZ4_MINMATCH, ref + HD_LZ4_MINMATCH,
                              matchlimit);
        op = hd_lz4_put_sequence(op, oend, anchor, ip, mlen,
                                 (uint32_t)(ip - ref));
        if (!op)
          return HD_CODEC_ESPACE;
        ip += mlen;
        anchor = ip;
        if (ip > mflimit)
          goto last_literals;
        table[hd_codec_hash5(ip - 2, bits)] = (uint32_t)(ip - 2 - src);
        h = hd_codec_hash5(ip, bits);
        ref = src + table[h];
        table[h] = (uint32_t)(ip - src);
        if (ip - ref > HD_LZ4_MAX_OFFSET ||
            hd_codec_load32(ref) != hd_codec_load32(ip))
          break;
      }
      ip++;
      if (ip > mflimit)
        goto last_literals;
    }
  }

last_literals:
  lit = iend - anchor;
  if (oend - op < 1 + hd_lz4_ext_bytes(lit) + lit)
    return HD_CODEC_ESPACE;
  if (lit >= 15) {
    *op++ = 15 << 4;
    op = hd_lz4_put_len(op, lit - 15);
  } else {
    *op++ = (uint8_t)(lit << 4);
  }
  if (lit > 0)
    memcpy(op, anchor, (size_t)lit);
  op += lit;
  return op - dst;
}

/* hd_lz4_get_len adds a 255-run length extension read from *ipp to *len.
 * Returns 0 on success, HD_CODEC_ECORRUPT if the input ends inside it.
 * Each byte adds at most 255, so *len stays far below INT64_MAX. */
HD_CODEC_FN int hd_lz4_get_len(const uint8_t **ipp, const uint8_t *iend,
                               int64_t *len) {
  const uint8_t *ip = *ipp;
  uint32_t b;
  do {
    if (ip >= iend)
      return HD_CODEC_ECORRUPT;
    b = *ip++;
    *len += b;
  } while (b == 255);
  *ipp = ip;
  return 0;
}

/* hd_lz4_decompress decodes the LZ4 block src[0, n) into dst[0, cap).
 * Returns the decoded size; HD_CODEC_ECORRUPT for malformed input (a bad
 * offset, a truncated sequence, a final token with a match part);
 * HD_CODEC_ESPACE if the output would exceed cap. As pierrec/lz4's
 * UncompressBlock, an empty input decodes to 0 bytes and a block may end
 * right after a match. */
HD_CODEC_FN int64_t hd_lz4_decompress(const uint8_t *src, int64_t n,
                                      uint8_t *dst, int64_t cap) {
  const uint8_t *ip, *iend;
  uint8_t *op, *oend;
  uint8_t none[1];

  if (n < 0 || cap < 0 || (n > 0 && !src) || (cap > 0 && !dst))
    return HD_CODEC_EINVAL;
  if (n == 0)
    return 0;
  if (!dst)
    dst = none; /* cap == 0: keep the pointer arithmetic below defined */
  ip = src;
  iend = src + n;
  op = dst;
  oend = dst + cap;

  while (ip < iend) {
    uint32_t token = *ip++;
    int64_t lit = token >> 4, mlen = token & 15, offset;

    /* Fast path for the common short sequence (no length extensions) far
     * from both ends: fixed-size copies, one bounds check each side. */
    if (lit < 15 && mlen < 15 && iend - ip >= 16 + 2 && oend - op >= 32) {
      memcpy(op, ip, 16);
      ip += lit;
      op += lit;
      offset = hd_codec_le16(ip);
      ip += 2;
      mlen += HD_LZ4_MINMATCH;
      if (offset >= 8 && offset <= op - dst) {
        const uint8_t *m = op - offset;
        memcpy(op, m, 8); /* 18 bytes in 8-byte steps; each step reads */
        memcpy(op + 8, m + 8, 8); /* only bytes already written      */
        memcpy(op + 16, m + 16, 2);
        op += mlen;
        continue;
      }
      goto match; /* short offset or an invalid one: the general path */
    }

    if (lit == 15 && hd_lz4_get_len(&ip, iend, &lit))
      return HD_CODEC_ECORRUPT;
    if (lit > iend - ip)
      return HD_CODEC_ECORRUPT;
    if (lit > oend - op)
      return HD_CODEC_ESPACE;
    hd_codec_copy_literals(op, ip, lit, iend - ip, oend - op);
    ip += lit;
    op += lit;

    if (ip == iend) {
      if (mlen != 0)
        return HD_CODEC_ECORRUPT; /* the last sequence has no match */
      break;
    }
    if (iend - ip < 2)
      return HD_CODEC_ECORRUPT;
    offset = hd_codec_le16(ip);
    ip += 2;
    if (mlen == 15 && hd_lz4_get_len(&ip, iend, &mlen))
      return HD_CODEC_ECORRUPT;
    mlen += HD_LZ4_MINMATCH;
  match:
    if (offset == 0 || offset > op - dst)
      return HD_CODEC_ECORRUPT;
    if (mlen > oend - op)
      return HD_CODEC_ESPACE;
    hd_codec_copy_match(op, offset, mlen, oend);
    op += mlen;
  }
  return op - dst;
}

#endif /* HD_CODEC_LZ4_H */
