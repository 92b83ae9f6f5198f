package exchange

import "encoding/binary"

// maxLongDigits is Spark's Decimal.MAX_LONG_DIGITS: decimals up to this
// precision hash their unscaled value as a long.
const maxLongDigits = 18

// bigIntBytes writes into buf (16 bytes) the bytes Java's
// BigInteger.toByteArray() returns for the 128-bit two's complement value
// hi:lo — big-endian, minimal length, at least one byte, with a sign bit
// that matches the value — and returns that suffix of buf.
func bigIntBytes(hi int64, lo uint64, buf *[16]byte) []byte {
	binary.BigEndian.PutUint64(buf[0:8], uint64(hi))
	binary.BigEndian.PutUint64(buf[8:16], lo)
	b := buf[:]
	for len(b) > 1 {
		if (b[0] == 0x00 && b[1]&0x80 == 0) || (b[0] == 0xff && b[1]&0x80 != 0) {
			b = b[1:]
			continue
		}
		break
	}
	return b
}

// HashDecimal128 hashes a decimal of the given precision whose unscaled
// value is the 128-bit two's complement integer hi:lo, as Spark does:
// hashLong(unscaled) when precision <= 18, otherwise the bytes of
// BigInteger.toByteArray() through HashBytes.
func HashDecimal128(hi int64, lo uint64, precision int, seed int32) int32 {
	if precision <= maxLongDigits {
		return HashLong(int64(lo), seed)
	}
	var buf [16]byte
	return HashBytes(bigIntBytes(hi, lo, &buf), seed)
}
