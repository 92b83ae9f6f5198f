package write

import "strings"

// DefaultPartitionName is the directory value Spark (and Hive) use for a
// null or empty partition value.
const DefaultPartitionName = "__HIVE_DEFAULT_PARTITION__"

// escapeSet marks the ASCII bytes Spark's ExternalCatalogUtils.escapePathName
// escapes on non-Windows hosts: the control characters 0x01–0x1F, DEL and
// " # % ' * / : = ? \ { [ ] ^.
var escapeSet = func() (set [128]bool) {
	for c := 0x01; c <= 0x1F; c++ {
		set[c] = true
	}
	for _, c := range "\"#%'*/:=?\\\x7F{[]^" {
		set[c] = true
	}
	return set
}()

const hexDigits = "0123456789ABCDEF"

// EscapePathName escapes s for use as one directory name component the way
// Spark does: each byte of escapeSet becomes %XX (upper-case hex); every
// other byte, including all of a multi-byte UTF-8 sequence, is kept.
func EscapePathName(s string) string {
	i := 0
	for i < len(s) && !needsEscape(s[i]) {
		i++
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for ; i < len(s); i++ {
		c := s[i]
		if needsEscape(c) {
			b.WriteByte('%')
			b.WriteByte(hexDigits[c>>4])
			b.WriteByte(hexDigits[c&0x0F])
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}

func needsEscape(c byte) bool { return c < 0x80 && escapeSet[c] }

// UnescapePathName reverses EscapePathName as Spark's unescapePathName
// does: "%XX" with two hex digits becomes the character U+00XX; a '%' not
// followed by two hex digits is kept. (Java's Integer.parseInt also takes
// "+X" there; that quirk is not reproduced.)
func UnescapePathName(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '%' && i+2 < len(s) {
			hi, ok1 := unhex(s[i+1])
			lo, ok2 := unhex(s[i+2])
			if ok1 && ok2 {
				b.WriteRune(rune(hi<<4 | lo))
				i += 2
				continue
			}
		}
		b.WriteByte(c)
	}
	return b.String()
}

func unhex(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// PartitionPathSegment is one Hive-style directory name, col=value, as
// Spark's getPartitionPathString builds it: both sides escaped, and a null
// (null=true) or empty value written as DefaultPartitionName.
func PartitionPathSegment(col, value string, null bool) string {
	if null || value == "" {
		return EscapePathName(col) + "=" + DefaultPartitionName
	}
	return EscapePathName(col) + "=" + EscapePathName(value)
}
