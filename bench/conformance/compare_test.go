package conformance

import (
	"errors"
	"strings"
	"testing"
)

func table(names []string, rows ...[]any) *Table {
	types := make([]string, len(names))
	for i := range types {
		types[i] = "t"
	}
	return &Table{Names: names, Types: types, Rows: rows}
}

func TestCompare(t *testing.T) {
	cols := []string{"k", "v"}
	want := table(cols,
		[]any{"a", dec("1.50")},
		[]any{"b", dec("2.00")},
		[]any{"b", dec("3.00")},
		[]any{"c", nil},
	)
	tests := []struct {
		name    string
		got     *Table
		order   []int
		wantErr string // "" = equal
	}{
		{"same", table(cols, []any{"a", dec("1.5")}, []any{"b", dec("2")}, []any{"b", dec("3")}, []any{"c", nil}), []int{0}, ""},
		{"ties in any order", table(cols, []any{"a", 1.5}, []any{"b", dec("3.00")}, []any{"b", dec("2.00")}, []any{"c", nil}), []int{0}, ""},
		{"unordered query", table(cols, []any{"c", nil}, []any{"b", dec("3.00")}, []any{"a", dec("1.50")}, []any{"b", dec("2.00")}), []int{}, ""},
		{"out of order", table(cols, []any{"b", dec("2.00")}, []any{"a", dec("1.50")}, []any{"b", dec("3.00")}, []any{"c", nil}), []int{0},
			"rows out of order or differing in the ordered columns\n  columns:  k | v\n  types:    got t, t; want t, t\n" +
				`  row 1: got  "b" | 2.00` + "\n" + `  row 1: want "a" | 1.50`},
		{"value differs", table(cols, []any{"a", dec("1.50")}, []any{"b", dec("2.01")}, []any{"b", dec("3.00")}, []any{"c", nil}), []int{0},
			`values differ` + "\n  columns:  k | v\n  types:    got t, t; want t, t\n" + `  row 2: got  "b" | 2.01` + "\n" + `  row 2: want "b" | 2.00`},
		{"null differs", table(cols, []any{"a", dec("1.50")}, []any{"b", dec("2.00")}, []any{"b", dec("3.00")}, []any{"c", int64(0)}), []int{0},
			`row 4: got  "c" | 0` + "\n" + `  row 4: want "c" | NULL`},
		{"missing row", table(cols, []any{"a", dec("1.50")}, []any{"b", dec("2.00")}, []any{"b", dec("3.00")}), []int{0},
			"3 rows, want 4\n  columns:  k | v\n  types:    got t, t; want t, t\n  row 4: got  (no row)\n" + `  row 4: want "c" | NULL`},
		{"extra row", table(cols, []any{"a", dec("1.50")}, []any{"b", dec("2.00")}, []any{"b", dec("3.00")}, []any{"c", nil}, []any{"d", nil}), []int{0},
			"5 rows, want 4"},
		{"columns", table([]string{"k"}, []any{"a"}), []int{0}, "1 columns (k), want 2 (k, v)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Compare(tt.got, want, tt.order)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("unexpected mismatch: %v", err)
				}
				return
			}
			var m *Mismatch
			if !errors.As(err, &m) || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error:\n%v\nwant a *Mismatch containing:\n%s", err, tt.wantErr)
			}
		})
	}
	if err := Compare(want, want, []int{7}); err == nil || !strings.Contains(err.Error(), "order column 7 out of range") {
		t.Errorf("bad order column: %v", err)
	}
}

// TestCompareReportsAtMostThreeRows keeps reports short.
func TestCompareReportsAtMostThreeRows(t *testing.T) {
	var got, want [][]any
	for i := range 10 {
		got = append(got, []any{int64(i), int64(i)})
		want = append(want, []any{int64(i), int64(i + 1)})
	}
	err := Compare(table([]string{"a", "b"}, got...), table([]string{"a", "b"}, want...), []int{0})
	var m *Mismatch
	if !errors.As(err, &m) || len(m.Rows) != maxReported || m.Rows[0].Index != 0 {
		t.Fatalf("%v", err)
	}
}

func TestTPCHOrder(t *testing.T) {
	for q := 1; q <= 22; q++ {
		if _, err := TPCHOrder(q); err != nil {
			t.Errorf("Q%d: %v", q, err)
		}
	}
	for _, q := range []int{0, 23} {
		if _, err := TPCHOrder(q); err == nil {
			t.Errorf("TPCHOrder(%d) did not fail", q)
		}
	}
}
