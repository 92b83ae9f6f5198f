package expr

import (
	"math"
	"strings"
	"time"
)

// ParseSparkDate is Spark's DateTimeUtils.stringToDate (see castFromString);
// it returns the days since 1970-01-01.
func ParseSparkDate(s string) (int32, bool) {
	b := strings.Trim(s, sparkTrimSet)
	if b == "" {
		return 0, false
	}
	sign := 1
	j := 0
	if b[0] == '-' || b[0] == '+' {
		if b[0] == '-' {
			sign = -1
		}
		j++
	}
	seg := [3]int{1, 1, 1}
	i, val, digits := 0, 0, 0
	validDigits := func(segment, n int) bool {
		if segment == 0 {
			return n >= 4 && n <= 7
		}
		return n > 0 && n <= 2
	}
	for ; j < len(b) && b[j] != ' ' && b[j] != 'T'; j++ {
		c := b[j]
		if i < 2 && c == '-' {
			if !validDigits(i, digits) {
				return 0, false
			}
			seg[i] = val
			val, digits = 0, 0
			i++
			continue
		}
		if c < '0' || c > '9' {
			return 0, false
		}
		val = val*10 + int(c-'0')
		digits++
		if digits > 7 {
			return 0, false
		}
	}
	if !validDigits(i, digits) {
		return 0, false
	}
	if i < 2 && j < len(b) {
		return 0, false // yyyy and yyyy-mm must be the whole string
	}
	seg[i] = val
	y, m, d := sign*seg[0], seg[1], seg[2]
	if m < 1 || m > 12 || d < 1 || d > daysInMonth(y, m) {
		return 0, false
	}
	// The epoch day must fit an int (Spark's Math.toIntExact → NULL).
	days := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC).Unix() / 86400
	if days < math.MinInt32 || days > math.MaxInt32 {
		return 0, false
	}
	return int32(days), true
}

func daysInMonth(y, m int) int {
	switch m {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}
