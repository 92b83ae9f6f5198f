package expr

import (
	"fmt"
	"math"
	"strings"
)

// String functions. Strings are UTF-8 byte sequences; StartsWith,
// EndsWith and Contains compare bytes. Where Spark counts characters
// (length, substring, LIKE's '_') a character is what UTF8String counts: a
// lead byte and the continuation bytes its value announces (1 for ASCII
// and for bytes that cannot start a sequence, 2 for 0xC0–0xDF, 3 for
// 0xE0–0xEF, 4 for 0xF0–0xF7). On valid UTF-8 that is one code point.
//
//	length(s): the number of characters.
//	substring(s, pos, len): Spark's UTF8String.substringSQL: pos is 1-based,
//	  0 means 1, negative counts from the end (-1 is the last character);
//	  the end is start+len computed before clamping the start to 0, so
//	  substring('abc', -5, 3) is 'a' and substring('abc', -5, 2) is '';
//	  len <= 0 gives ''.
//	s LIKE p: '%' matches any run of characters, '_' exactly one, '\'
//	  escapes '%', '_' or '\' (Spark's default escape; any other escaped
//	  character, or a trailing '\', is an invalid pattern that Validate
//	  rejects). Matching is case-sensitive and '_' and '%' also match
//	  newlines (Spark compiles the pattern with DOTALL). NULL s or p gives
//	  NULL.
func compileString(e *Expr, args []evalFn) (evalFn, error) {
	switch e.Op {
	case OpStartsWith:
		return binary(args[0], args[1], func(s, p any) any { return strings.HasPrefix(s.(string), p.(string)) }), nil
	case OpEndsWith:
		return binary(args[0], args[1], func(s, p any) any { return strings.HasSuffix(s.(string), p.(string)) }), nil
	case OpContains:
		return binary(args[0], args[1], func(s, p any) any { return strings.Contains(s.(string), p.(string)) }), nil
	case OpLength:
		return unary(args[0], func(s any) any { return int32(len(charStarts(s.(string)))) }), nil
	case OpSubstring:
		return func(r *row) any {
			s, pos, n := args[0](r), args[1](r), args[2](r)
			if s == nil || pos == nil || n == nil {
				return nil
			}
			return substringSQL(s.(string), pos.(int32), n.(int32))
		}, nil
	}
	// OpLike: the pattern is a literal (Validate), compile it once.
	lit := e.Args[1].Value
	if lit == nil {
		return func(*row) any { return nil }, nil
	}
	pat, err := parseLike(lit.(string))
	if err != nil {
		return nil, fmt.Errorf("expr: Eval %s: %w", e, err)
	}
	return unary(args[0], func(s any) any { return pat.match(s.(string)) }), nil
}

// charLen is the length in bytes of the character starting with lead byte b
// (UTF8String.numBytesForFirstByte).
func charLen(b byte) int {
	switch {
	case b >= 0xF0 && b <= 0xF7:
		return 4
	case b >= 0xE0:
		if b <= 0xEF {
			return 3
		}
		return 1
	case b >= 0xC0:
		return 2
	}
	return 1
}

// charStarts returns the byte offset of every character of s.
func charStarts(s string) []int {
	var out []int
	for i := 0; i < len(s); i += charLen(s[i]) {
		out = append(out, i)
	}
	return out
}

// substringSQL is Spark's UTF8String.substringSQL(pos, length).
func substringSQL(s string, pos, length int32) string {
	starts := charStarts(s)
	n := int64(len(starts))
	var start int64
	switch {
	case pos > 0:
		start = int64(pos) - 1
	case pos < 0:
		start = n + int64(pos)
	}
	end := min(max(start+int64(length), math.MinInt32), math.MaxInt32)
	start = max(start, 0)
	if start >= end || start >= n {
		return ""
	}
	from := starts[start]
	if end >= n {
		return s[from:]
	}
	return s[from:starts[end]]
}

// likeItem is one element of a compiled LIKE pattern.
type likeItem struct {
	kind byte   // 'l' literal character, '_' one character, '%' any run
	lit  string // the literal character's bytes
}

// likePattern is a compiled LIKE pattern.
type likePattern []likeItem

// parseLike compiles a LIKE pattern with escape character '\', following
// Spark's StringUtils.escapeLikeRegex.
func parseLike(p string) (likePattern, error) {
	var out likePattern
	for i := 0; i < len(p); {
		c := p[i]
		switch c {
		case '\\':
			if i+1 >= len(p) {
				return nil, fmt.Errorf("LIKE pattern %q: the escape character is not allowed to end the pattern", p)
			}
			n := p[i+1]
			if n != '%' && n != '_' && n != '\\' {
				w := charLen(n)
				return nil, fmt.Errorf("LIKE pattern %q: the escape character is not allowed to precede %q (byte %d)",
					p, p[i+1:min(i+1+w, len(p))], i+1)
			}
			out = append(out, likeItem{kind: 'l', lit: string(n)})
			i += 2
		case '%', '_':
			out = append(out, likeItem{kind: c})
			i++
		default:
			w := min(charLen(c), len(p)-i)
			out = append(out, likeItem{kind: 'l', lit: p[i : i+w]})
			i += w
		}
	}
	return out, nil
}

// match reports whether all of s matches the pattern. It is the classic
// wildcard algorithm: advance greedily, and on a mismatch retry from the
// last '%' with one more character consumed by it (O(len(s)·len(p))).
func (p likePattern) match(s string) bool {
	si, pi := 0, 0
	starPi, starSi := -1, 0
	for si < len(s) {
		if pi < len(p) {
			switch it := p[pi]; it.kind {
			case '%':
				starPi, starSi = pi, si
				pi++
				continue
			case '_':
				si += charLen(s[si])
				pi++
				continue
			default:
				w := charLen(s[si])
				if strings.HasPrefix(s[si:], it.lit) && len(it.lit) == min(w, len(s)-si) {
					si += len(it.lit)
					pi++
					continue
				}
			}
		}
		if starPi < 0 {
			return false
		}
		starSi += charLen(s[starSi])
		si, pi = starSi, starPi+1
	}
	for pi < len(p) && p[pi].kind == '%' {
		pi++
	}
	return pi == len(p)
}
