package conformance

import (
	"fmt"
	"slices"
	"strings"
)

// maxReported is how many differing rows a mismatch report shows.
const maxReported = 3

// Mismatch says how a result differs from the reference. Its Error text
// names the first differing rows with both engines' values.
type Mismatch struct {
	Why  string    // "2 rows, want 3", "column count", "values differ"
	Rows []RowDiff // the first differing rows (at most maxReported)
	Got  *Table
	Want *Table
}

// RowDiff is one differing row: its position (0-based, after canonical
// sorting where the order does not matter) and both values.
type RowDiff struct {
	Index     int
	Got, Want []any // nil when that side has no such row
}

func (m *Mismatch) Error() string {
	var b strings.Builder
	b.WriteString("results differ: " + m.Why)
	if m.Want != nil {
		fmt.Fprintf(&b, "\n  columns:  %s", strings.Join(m.Want.Names, " | "))
		fmt.Fprintf(&b, "\n  types:    got %s; want %s", strings.Join(m.Got.Types, ", "), strings.Join(m.Want.Types, ", "))
	}
	for _, d := range m.Rows {
		fmt.Fprintf(&b, "\n  row %d: got  %s\n  row %d: want %s", d.Index+1, formatRow(d.Got), d.Index+1, formatRow(d.Want))
	}
	return b.String()
}

func formatRow(row []any) string {
	if row == nil {
		return "(no row)"
	}
	parts := make([]string, len(row))
	for i, v := range row {
		parts[i] = formatValue(v)
	}
	return strings.Join(parts, " | ")
}

// Compare checks got (hados's result) against want (the reference) under
// the rules of ValueEqual. order lists the columns the query orders by
// (indices into the result); rows must appear in that order, while rows
// whose order columns are equal (ties, whose order SQL leaves open) may
// come in any order. An empty order means the order does not matter at
// all. It returns nil or a *Mismatch.
func Compare(got, want *Table, order []int) error {
	if len(got.Names) != len(want.Names) {
		return &Mismatch{Why: fmt.Sprintf("%d columns (%s), want %d (%s)", len(got.Names), strings.Join(got.Names, ", "),
			len(want.Names), strings.Join(want.Names, ", ")), Got: got, Want: want}
	}
	for _, c := range order {
		if c < 0 || c >= len(want.Names) {
			return fmt.Errorf("conformance: order column %d out of range (%d columns)", c, len(want.Names))
		}
	}
	g, w := slices.Clone(got.Rows), slices.Clone(want.Rows)
	// Position by position, the order columns must agree.
	for i := 0; i < min(len(g), len(w)); i++ {
		if !keysEqual(g[i], w[i], order) {
			m := &Mismatch{Why: "rows out of order or differing in the ordered columns", Got: got, Want: want}
			m.Rows = append(m.Rows, RowDiff{Index: i, Got: g[i], Want: w[i]})
			return m
		}
	}
	// Within each run of equal order columns (the whole result when there
	// are none), compare the rows as multisets: sort both canonically.
	for start := 0; start < len(w); {
		end := start + 1
		for end < len(w) && keysEqual(w[start], w[end], order) {
			end++
		}
		sortRows(w[start:end])
		if start < len(g) {
			sortRows(g[start:min(end, len(g))])
		}
		start = end
	}
	if len(w) == 0 && len(g) > 0 {
		sortRows(g)
	}
	m := &Mismatch{Why: "values differ", Got: got, Want: want}
	if len(g) != len(w) {
		m.Why = fmt.Sprintf("%d rows, want %d", len(g), len(w))
	}
	for i := 0; i < max(len(g), len(w)) && len(m.Rows) < maxReported; i++ {
		var gr, wr []any
		if i < len(g) {
			gr = g[i]
		}
		if i < len(w) {
			wr = w[i]
		}
		if gr == nil || wr == nil || !rowEqual(gr, wr) {
			m.Rows = append(m.Rows, RowDiff{Index: i, Got: gr, Want: wr})
		}
	}
	if len(m.Rows) == 0 && len(g) == len(w) {
		return nil
	}
	return m
}

func keysEqual(a, b []any, cols []int) bool {
	for _, c := range cols {
		if !ValueEqual(a[c], b[c]) {
			return false
		}
	}
	return true
}

func rowEqual(a, b []any) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !ValueEqual(a[i], b[i]) {
			return false
		}
	}
	return true
}

// sortRows sorts rows into the canonical order of compareValues, column
// by column.
func sortRows(rows [][]any) {
	slices.SortStableFunc(rows, func(a, b []any) int {
		for i := range min(len(a), len(b)) {
			if c := compareValues(a[i], b[i]); c != 0 {
				return c
			}
		}
		return len(a) - len(b)
	})
}
