// Package linediff finds where two sequences of lines (result rows,
// golden text) first part: the one fact a failing comparison has to
// report, since the rest of the difference is usually its consequence.
package linediff

// First returns the index of the first line at which a and b differ and
// the two lines there, a line past the end of the shorter sequence being
// "" (so a sequence that is the other's prefix differs at its end, where
// the other continues). differ is false when a and b are equal.
func First(a, b []string) (i int, x, y string, differ bool) {
	for i = 0; i < max(len(a), len(b)); i++ {
		x, y = "", ""
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if x != y || i >= len(a) || i >= len(b) {
			return i, x, y, true
		}
	}
	return 0, "", "", false
}
