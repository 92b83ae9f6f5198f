/*
 * codec_snappy.h - the software DPU's Snappy *block* codec (header-only C99).
 *
 * Format: the Snappy block format (not the framing/stream format), bit
 * compatible with github.com/golang/snappy Encode/Decode and the reference
 * C++ snappy RawCompress/RawUncompress. A block is
 *
 *   uvarint decoded length (at most 0xffffffff)
 *   elements, each starting with a tag byte whose low 2 bits select:
 *     00 literal: length-1 in the high 6 bits, or 60..63 meaning 1..4
 *        little-endian length-1 bytes follow; then the literal bytes
 *     01 copy, length 4..11 in bits 2..4, 11-bit offset (bits 5..7 + 1 byte)
 *     10 copy, length 1..64 in the high 6 bits, 16-bit LE offset
 *     11 copy, length 1..64 in the high 6 bits, 32-bit LE offset
 *
 * and the elements must produce exactly the decoded length.
 *
 * The compressor, like golang/snappy, cuts its input into independent
 * 64 KiB windows so every offset fits a 2-byte copy; its hash table (at most
 * 32 KiB of uint16) lives on the caller's stack. No function allocates: all
 * buffers belong to the caller. Linkage, error codes and the safety contract
 * (never read outside src[0, n), never write outside dst[0, cap), always
 * terminate) are those of codec_lz4.h, whose shared primitives this header
 * uses; unlike LZ4, the decoder knows the decoded length up front and
 * never writes past it.
 */
#ifndef HD_CODEC_SNAPPY_H
#define HD_CODEC_SNAPPY_H

#include "codec_lz4.h" /* shared primitives: errors, loads, match copy */

#define HD_SNAPPY_WINDOW 65536 /* compressor window; offsets stay < 64 KiB */
#ifndef HD_SNAPPY_HASH_BITS
#define HD_SNAPPY_HASH_BITS 14 /* 16384 uint16 = 32 KiB on the stack */
#endif
#define HD_SNAPPY_INPUT_MARGIN 15 /* no match search in a window's tail   */
#define HD_SNAPPY_MIN_MATCH_WINDOW 17 /* shorter windows are one literal  */
#define HD_SNAPPY_SKIP_TRIGGER 5      /* step grows every 32 misses       */
#define HD_SNAPPY_MAX_INPUT 0xffffffffLL
#define HD_SNAPPY_FAST_IN 17  /* decoder fast loop: input bytes left  */
#define HD_SNAPPY_FAST_OUT 80 /* and output bytes left                */

/* hd_snappy_bound returns the worst-case compressed size of n input bytes
 * (golang/snappy MaxEncodedLen: 32 + n + n/6), or HD_CODEC_ETOOBIG /
 * HD_CODEC_EINVAL. */
HD_CODEC_FN int64_t hd_snappy_bound(int64_t n) {
  if (n < 0)
    return HD_CODEC_EINVAL;
  if (n > HD_SNAPPY_MAX_INPUT)
    return HD_CODEC_ETOOBIG;
  return 32 + n + n / 6;
}

/* hd_snappy_preamble parses the uvarint decoded length as Go's
 * binary.Uvarint does (up to 10 bytes, non-minimal encodings allowed) and
 * stores its size in *hdr. Returns the length or HD_CODEC_ECORRUPT. */
HD_CODEC_FN int64_t hd_snappy_preamble(const uint8_t *src, int64_t n,
                                       int64_t *hdr) {
  uint64_t v = 0;
  int64_t i;
  for (i = 0; i < n && i < 10; i++) {
    uint8_t b = src[i];
    if (b < 0x80) {
      if (i == 9 && b > 1)
        return HD_CODEC_ECORRUPT; /* overflows 64 bits */
      v |= (uint64_t)b << (7 * i);
      if (v > (uint64_t)HD_SNAPPY_MAX_INPUT)
        return HD_CODEC_ECORRUPT;
      *hdr = i + 1;
      return (int64_t)v;
    }
    v |= (uint64_t)(b & 0x7f) << (7 * i);
  }
  return HD_CODEC_ECORRUPT; /* truncated or longer than 10 bytes */
}

/* hd_snappy_decoded_len returns the decoded length announced by the block's
 * preamble, or HD_CODEC_ECORRUPT / HD_CODEC_EINVAL. */
HD_CODEC_FN int64_t hd_snappy_decoded_len(const uint8_t *src, int64_t n) {
  int64_t hdr;
  if (n < 0 || (n > 0 && !src))
    return HD_CODEC_EINVAL;
  return hd_snappy_preamble(src, n, &hdr);
}

/* hd_snappy_literal_extra is how many bytes of length follow the tag of a
 * literal of len bytes (len >= 1). */
HD_CODEC_FN int hd_snappy_literal_extra(int64_t len) {
  uint32_t m = (uint32_t)(len - 1);
  return m < 60 ? 0 : m < (1u << 8) ? 1 : m < (1u << 16) ? 2 : m < (1u << 24) ? 3 : 4;
}

/* hd_snappy_put_literal emits the literal lit[0, len), len >= 1, or returns
 * NULL when it does not fit before oend. overread says that 7 bytes past
 * the literal may be read (it ends at a match, not at the input's end). */
HD_CODEC_FN uint8_t *hd_snappy_put_literal(uint8_t *op, const uint8_t *oend,
                                           const uint8_t *lit, int64_t len,
                                           int overread) {
  uint32_t m = (uint32_t)(len - 1);
  int nb = hd_snappy_literal_extra(len), i;
  if (oend - op < 1 + nb + len)
    return NULL;
  if (nb == 0) {
    *op++ = (uint8_t)(m << 2);
  } else {
    *op++ = (uint8_t)((59 + nb) << 2);
    for (i = 0; i < nb; i++)
      *op++ = (uint8_t)(m >> (8 * i));
  }
  if (overread && oend - op >= len + 8)
    hd_codec_wildcopy(op, lit, len);
  else
    memcpy(op, lit, (size_t)len);
  return op + len;
}

/* hd_snappy_put_copy2 emits one 2-byte-offset copy of 1..64 bytes. */
HD_CODEC_FN uint8_t *hd_snappy_put_copy2(uint8_t *op, uint32_t offset,
                                         int64_t len) {
  op[0] = (uint8_t)(((len - 1) << 2) | 2);
  op[1] = (uint8_t)offset;
  op[2] = (uint8_t)(offset >> 8);
  return op + 3;
}

/* hd_snappy_put_copy emits a copy of len >= 4 bytes at offset < 65536 as
 * golang/snappy does: 64-byte pieces, then a 1-byte-offset copy when it
 * fits (len 4..11, offset < 2048). Returns NULL when it does not fit
 * before oend. */
HD_CODEC_FN uint8_t *hd_snappy_put_copy(uint8_t *op, const uint8_t *oend,
                                        uint32_t offset, int64_t len) {
  /* pieces: (len-4)/64 of 64 bytes (68..), then one of 60 if 65..67 remain,
   * then the last piece; all 3 bytes except a short 1-byte-offset one. */
  int64_t rest = len - ((len - 4) / 64) * 64, size = ((len - 4) / 64) * 3;
  if (rest > 64)
    size += 3, rest -= 60;
  size += (rest >= 12 || offset >= 2048) ? 3 : 2;
  if (oend - op < size)
    return NULL;
  while (len >= 68) {
    op = hd_snappy_put_copy2(op, offset, 64);
    len -= 64;
  }
  if (len > 64) { /* 65..67: leave at least 4 for the last piece */
    op = hd_snappy_put_copy2(op, offset, 60);
    len -= 60;
  }
  if (len >= 12 || offset >= 2048)
    return hd_snappy_put_copy2(op, offset, len);
  op[0] = (uint8_t)(((offset >> 8) << 5) | ((uint32_t)(len - 4) << 2) | 1);
  op[1] = (uint8_t)offset;
  return op + 2;
}

/* hd_snappy_compress_window compresses one window src[0, n), n <= 64 KiB,
 * appending elements at op. Returns the new output pointer or NULL when
 * the output would pass oend. */
HD_CODEC_FN uint8_t *hd_snappy_compress_window(const uint8_t *src, int64_t n,
                                               uint8_t *op,
                                               const uint8_t *oend) {
  uint16_t table[1u << HD_SNAPPY_HASH_BITS];
  const uint8_t *ip = src, *anchor = src, *iend = src + n;
  const uint8_t *ilimit;
  unsigned bits;

  if (n < HD_SNAPPY_MIN_MATCH_WINDOW)
    goto tail;
  ilimit = iend - HD_SNAPPY_INPUT_MARGIN;
  bits = hd_codec_table_bits(n, 8, HD_SNAPPY_HASH_BITS);
  memset(table, 0, sizeof(uint16_t) << bits);
  ip++; /* position 0 is what every empty slot points at */
  for (;;) {
    const uint8_t *ref, *next = ip;
    uint32_t h, next_h = hd_codec_hash4(ip, bits);
    uint32_t attempts = 1u << HD_SNAPPY_SKIP_TRIGGER;
    do { /* find a 4-byte match, skipping faster the longer we miss */
      ip = next;
      h = next_h;
      if (ip > ilimit)
        goto tail;
      next = ip + (attempts++ >> HD_SNAPPY_SKIP_TRIGGER);
      ref = src + table[h];
      /* clamped: a hash past the limit is never used, but stays in bounds */
      next_h = hd_codec_hash4(next <= ilimit ? next : ilimit, bits);
      table[h] = (uint16_t)(ip - src);
    } while (hd_codec_load32(ref) != hd_codec_load32(ip));
    while (ip > anchor && ref > src && ip[-1] == ref[-1]) {
      ip--;
      ref--;
    }
    if (ip > anchor &&
        !(op = hd_snappy_put_literal(op, oend, anchor, ip - anchor, 1)))
      return NULL;
    for (;;) { /* emit this copy and any copy found right after it */
      int64_t len = 4 + hd_codec_count(ip + 4, ref + 4, iend);
      if (!(op = hd_snappy_put_copy(op, oend, (uint32_t)(ip - ref), len)))
        return NULL;
      ip += len;
      anchor = ip;
      if (ip > ilimit)
        goto tail;
      table[hd_codec_hash4(ip - 1, bits)] = (uint16_t)(ip - 1 - src);
      h = hd_codec_hash4(ip, bits);
      ref = src + table[h];
      table[h] = (uint16_t)(ip - src);
      if (hd_codec_load32(ref) != hd_codec_load32(ip))
        break;
    }
    ip++;
    if (ip > ilimit)
      goto tail;
  }

tail:
  if (anchor < iend)
    return hd_snappy_put_literal(op, oend, anchor, iend - anchor, 0);
  return op;
}

/* hd_snappy_compress compresses src[0, n) into dst[0, cap) as one Snappy
 * block with a single-pass greedy hash matcher per 64 KiB window. Returns
 * the compressed size (>= 1: an empty input becomes the preamble 0x00),
 * HD_CODEC_ESPACE if cap is too small (never when cap >=
 * hd_snappy_bound(n)), HD_CODEC_ETOOBIG above 0xffffffff bytes, or
 * HD_CODEC_EINVAL. */
HD_CODEC_FN int64_t hd_snappy_compress(const uint8_t *src, int64_t n,
                                       uint8_t *dst, int64_t cap) {
  uint8_t *op;
  const uint8_t *oend;
  uint8_t pre[5];
  int64_t hdr = 0, pos;
  uint64_t v;

  if (n < 0 || cap < 0 || (n > 0 && !src) || (cap > 0 && !dst))
    return HD_CODEC_EINVAL;
  if (n > HD_SNAPPY_MAX_INPUT)
    return HD_CODEC_ETOOBIG;
  for (v = (uint64_t)n; v >= 0x80; v >>= 7)
    pre[hdr++] = (uint8_t)(v | 0x80);
  pre[hdr++] = (uint8_t)v;
  if (cap < hdr)
    return HD_CODEC_ESPACE;
  memcpy(dst, pre, (size_t)hdr);
  op = dst + hdr;
  oend = dst + cap;
  for (pos = 0; pos < n; pos += HD_SNAPPY_WINDOW) {
    int64_t w = n - pos < HD_SNAPPY_WINDOW ? n - pos : HD_SNAPPY_WINDOW;
    op = hd_snappy_compress_window(src + pos, w, op, oend);
    if (!op)
      return HD_CODEC_ESPACE;
  }
  return op - dst;
}

/* hd_snappy_copy_tab describes each copy tag (low 2 bits 01, 10 or 11) for
 * the decoder's fast loop: bits 0..31 mask the little-endian word after the
 * tag down to its offset bytes, bits 40..42 are the offset's high bits (the
 * 1-byte-offset form), bits 48..54 the length; literal tags hold 0.
 * HD_SNAPPY_TAG_SHIFT holds, in its byte (tag & 7), 8 times the copy
 * element's size (tag and offset bytes: 2, 3 or 5), so the way to the next
 * tag is three shifts with no load. */
#define HD_SNAPPY_C1(x) (0xffull | ((uint64_t)(((x) >> 5) << 8) << 32) | \
                         ((uint64_t)(4 + (((x) >> 2) & 7)) << 48))
#define HD_SNAPPY_C2(x) (0xffffull | ((uint64_t)(1 + ((x) >> 2)) << 48))
#define HD_SNAPPY_C4(x) (0xffffffffull | ((uint64_t)(1 + ((x) >> 2)) << 48))
#define HD_SNAPPY_ROW(x) 0, HD_SNAPPY_C1(x), HD_SNAPPY_C2(x), HD_SNAPPY_C4(x)
#define HD_SNAPPY_ROW4(x) HD_SNAPPY_ROW(x), HD_SNAPPY_ROW((x) + 4), \
    HD_SNAPPY_ROW((x) + 8), HD_SNAPPY_ROW((x) + 12)
#define HD_SNAPPY_ROW16(x) HD_SNAPPY_ROW4(x), HD_SNAPPY_ROW4((x) + 16), \
    HD_SNAPPY_ROW4((x) + 32), HD_SNAPPY_ROW4((x) + 48)
#define HD_SNAPPY_TAG_SHIFT 0x2818100028181000ull
HD_CODEC_FN const uint64_t hd_snappy_copy_tab[256] = {
    HD_SNAPPY_ROW16(0), HD_SNAPPY_ROW16(64), HD_SNAPPY_ROW16(128),
    HD_SNAPPY_ROW16(192)};
#undef HD_SNAPPY_C1
#undef HD_SNAPPY_C2
#undef HD_SNAPPY_C4
#undef HD_SNAPPY_ROW
#undef HD_SNAPPY_ROW4
#undef HD_SNAPPY_ROW16

/* hd_snappy_decompress decodes the Snappy block src[0, n) into dst[0, cap).
 * It writes nothing past dst + the decoded length, whatever cap is.
 * Returns the decoded size (always the preamble's length);
 * HD_CODEC_ESPACE if that length exceeds cap; HD_CODEC_ECORRUPT for
 * malformed input (bad preamble, truncated element, zero or too-far offset,
 * output longer or shorter than announced). */
HD_CODEC_FN int64_t hd_snappy_decompress(const uint8_t *src, int64_t n,
                                         uint8_t *dst, int64_t cap) {
  const uint8_t *ip, *iend;
  uint8_t *op, *oend;
  int64_t hdr, dlen;
  uint8_t none[1];

  if (n < 0 || cap < 0 || (n > 0 && !src) || (cap > 0 && !dst))
    return HD_CODEC_EINVAL;
  dlen = hd_snappy_preamble(src, n, &hdr);
  if (dlen < 0)
    return dlen;
  if (dlen > cap)
    return HD_CODEC_ESPACE;
  if (!dst)
    dst = none; /* cap == dlen == 0: keep the pointer arithmetic defined */
  ip = src + hdr;
  iend = src + n;
  op = dst;
  oend = dst + dlen;

  for (;;) {
    /* Fast loop, far from both ends: at least HD_SNAPPY_FAST_IN input
     * bytes (a tag, and 16 literal bytes or 4 offset bytes, read as whole
     * words) and HD_SNAPPY_FAST_OUT output bytes (a copy of up to 64 bytes
     * written in 8-byte steps, or a 16- or 64-byte literal store) remain,
     * so no element can overrun and only a copy's offset needs checking
     * (a 64-byte literal also checks for its own input). The
     * next tag's position depends on the current tag alone, computed with
     * shifts (no table load on that chain), and the next tag itself is
     * taken from the 8 bytes already loaded when it lies among them, so
     * the chain from one element to the next has no load on it: on short
     * literals and copies (PLAIN int64 pages) that chain is the decoder's
     * speed. Literals longer than 60 bytes (or than 16 near the input's
     * end) and bad offsets leave it for the careful loop below, which
     * re-enters it. */
    if (iend - ip >= HD_SNAPPY_FAST_IN && oend - op >= HD_SNAPPY_FAST_OUT) {
      const uint8_t *ilim = iend - HD_SNAPPY_FAST_IN;
      const uint8_t *olim = oend - HD_SNAPPY_FAST_OUT;
      uint64_t w = hd_codec_load64(ip);
      uint64_t tw = w; /* the current tag in its low byte */
      while (ip <= ilim && op <= olim) {
        uint64_t off, e;
        const uint8_t *m;
        size_t clen;
        unsigned sh;
        if ((tw & 3) == 0) {
          size_t llen = ((tw >> 2) & 63) + 1;
          if (HD_CODEC_UNLIKELY(llen > 16)) {
            /* 17..60 bytes (strings): one 64-byte copy when the input has
             * room for it and the next word; the output always has */
            if (llen > 60 || iend - ip < 1 + 64 + 8)
              break;
            memcpy(op, ip + 1, 64);
            op += llen;
            ip += llen + 1;
            w = hd_codec_load64(ip);
            tw = w;
            continue;
          }
          memcpy(op, ip + 1, 16);
          op += llen;
          ip += llen + 1;
          if (llen < 7) { /* the next tag is in w: no load on the chain */
            tw = w >> (8 * (llen + 1));
            w = hd_codec_load64(ip);
          } else {
            if (ip > ilim) /* the word at ip may pass iend */
              break;
            w = hd_codec_load64(ip);
            tw = w;
          }
          continue;
        }
        /* a copy: the next tag's position by shifts of a constant (on the
         * chain), length and offset through the table (off the chain) */
        sh = (unsigned)(HD_SNAPPY_TAG_SHIFT >> ((tw & 7) << 3)) & 0xff;
        e = hd_snappy_copy_tab[tw & 0xff];
        off = ((w >> 8) & (uint32_t)e) | ((e >> 32) & 0x700);
        clen = (size_t)(e >> 48);
        if (HD_CODEC_UNLIKELY(off - 1 >= (uint64_t)(op - dst)))
          break; /* zero or too far: the careful loop reports it */
        ip += sh >> 3;
        tw = w >> sh; /* sh <= 40 */
        w = hd_codec_load64(ip);
        m = op - off;
        if (HD_CODEC_LIKELY(off >= 16)) {
          memcpy(op, m, 16); /* reads only bytes already written */
          if (HD_CODEC_UNLIKELY(clen > 16)) {
            size_t i;
            for (i = 16; i < clen; i += 16)
              memcpy(op + i, m + i, 16);
          }
        } else if (off == 8) {
          /* a run of one 8-byte value (int64 columns): load it once, so
           * no step waits for the store before it */
          uint64_t v = hd_codec_load64(m);
          size_t i;
          for (i = 0; i < clen; i += 8)
            memcpy(op + i, &v, 8);
        } else if (off >= 8) {
          memcpy(op, m, 8); /* offset >= 8: each step reads only */
          memcpy(op + 8, m + 8, 8); /* bytes already written      */
          if (HD_CODEC_UNLIKELY(clen > 16)) {
            size_t i;
            for (i = 16; i < clen; i += 8)
              memcpy(op + i, m + i, 8);
          }
        } else {
          hd_codec_copy_match(op, (int64_t)off, (int64_t)clen, oend);
        }
        op += clen;
      }
    }
    if (ip >= iend)
      break;
    {
    /* bytes after the tag, and the offset mask, per copy form */
    static const uint8_t extra[4] = {0, 1, 2, 4};
    static const uint32_t mask[4] = {0, 0xff, 0xffff, 0xffffffff};
    uint32_t tag = *ip++, t = tag & 3, x;
    int64_t len, offset;

    if (t == 0) { /* literal */
      len = (tag >> 2) + 1;
      if (HD_CODEC_LIKELY(len <= 16 && iend - ip >= 16 &&
                          oend - op >= 16)) {
        if (len > oend - op)
          return HD_CODEC_ECORRUPT;
        memcpy(op, ip, 16);
      } else {
        if (len > 60) { /* 1..4 little-endian bytes hold len - 1 */
          int64_t nb = len - 60, i;
          if (iend - ip < nb)
            return HD_CODEC_ECORRUPT;
          len = 0;
          for (i = 0; i < nb; i++)
            len |= (int64_t)ip[i] << (8 * i);
          ip += nb;
          len++;
        }
        if (len > oend - op || len > iend - ip)
          return HD_CODEC_ECORRUPT;
        memcpy(op, ip, (size_t)len);
      }
      ip += len;
      op += len;
      continue;
    }

    /* copy: the three forms decoded without a branch on the form */
    if (iend - ip < extra[t])
      return HD_CODEC_ECORRUPT;
    if (HD_CODEC_LIKELY(iend - ip >= 4)) {
      x = hd_codec_le32(ip);
    } else {
      int i;
      for (x = 0, i = 0; i < extra[t]; i++)
        x |= (uint32_t)ip[i] << (8 * i);
    }
    ip += extra[t];
    len = t == 1 ? 4 + ((tag >> 2) & 7) : 1 + (tag >> 2);
    offset = (int64_t)((t == 1 ? (tag >> 5) << 8 : 0) | (x & mask[t]));
    if (offset == 0 || offset > op - dst || len > oend - op)
      return HD_CODEC_ECORRUPT;
    if (HD_CODEC_LIKELY(offset >= 8 && len <= 16 && oend - op >= 16)) {
      memcpy(op, op - offset, 8); /* offset >= 8: each step reads */
      memcpy(op + 8, op - offset + 8, 8); /* only written bytes      */
    } else {
      hd_codec_copy_match(op, offset, len, oend);
    }
    op += len;
    }
  }
  if (op != oend)
    return HD_CODEC_ECORRUPT;
  return dlen;
}

#endif /* HD_CODEC_SNAPPY_H */
