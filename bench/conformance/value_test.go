package conformance

import (
	"errors"
	"math/big"
	"strings"
	"testing"
	"time"
)

func dec(s string) Decimal {
	d, err := ParseDecimal(s)
	if err != nil {
		panic(err)
	}
	return d
}

func TestParseDecimal(t *testing.T) {
	tests := []struct {
		in      string
		want    string
		scale   int
		wantErr string
	}{
		{in: "12.30", want: "12.30", scale: 2},
		{in: "-0.005", want: "-0.005", scale: 3},
		{in: "7", want: "7", scale: 0},
		{in: ".5", want: "0.5", scale: 1},
		{in: "+3.", want: "3", scale: 0},
		{in: "", wantErr: "no digits"},
		{in: "-", wantErr: "no digits"},
		{in: ".", wantErr: "no digits"},
		{in: "1e5", wantErr: `unexpected 'e'`},
		{in: "1.2.3", wantErr: `unexpected '.'`},
		{in: " 1", wantErr: `unexpected ' '`},
		{in: "--1", wantErr: `unexpected '-'`},
		{in: "1234567890123456789012345678901234567890123456789012345678901234567890123456789", wantErr: "more than 76 digits"},
	}
	for _, tt := range tests {
		got, err := ParseDecimal(tt.in)
		if tt.wantErr != "" {
			if err == nil || !errors.Is(err, ErrDecimal) || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ParseDecimal(%q) error = %v, want one containing %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got.String() != tt.want || got.Scale != tt.scale {
			t.Errorf("ParseDecimal(%q) = %v (scale %d), %v; want %s (scale %d)", tt.in, got, got.Scale, err, tt.want, tt.scale)
		}
	}
}

func TestDecimalRound(t *testing.T) {
	tests := []struct {
		in    string
		scale int
		want  string
	}{
		{"1.2345", 2, "1.23"},
		{"1.2350", 2, "1.24"},
		{"-1.2350", 2, "-1.24"},
		{"-1.2349", 2, "-1.23"},
		{"0.5", 0, "1"},
		{"9.995", 2, "10.00"},
		{"1.5", 3, "1.5"},
	}
	for _, tt := range tests {
		if got := dec(tt.in).Round(tt.scale).String(); got != tt.want {
			t.Errorf("Round(%s, %d) = %s, want %s", tt.in, tt.scale, got, tt.want)
		}
	}
}

func TestValueEqual(t *testing.T) {
	day := time.Date(1995, 3, 15, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		a, b any
		want bool
	}{
		{nil, nil, true},
		{nil, int64(0), false},
		{int64(0), nil, false},
		{int64(3), int64(3), true},
		{int64(3), int64(4), false},
		{"AIR", "AIR", true},
		{"AIR", "AIR ", false},
		{"1995-03-15", "1995-03-15", true},
		{true, true, true},
		{true, false, false},
		{day, day, true},
		{day, day.Add(time.Second), false},
		// decimals at the coarser scale
		{dec("12.30"), dec("12.3"), true},
		{dec("12.345"), dec("12.35"), true},
		{dec("12.344"), dec("12.35"), false},
		{dec("12.30"), dec("12.31"), false},
		{dec("-0.005"), dec("-0.01"), true},
		// decimal against double, at the decimal's scale
		{dec("25.322062"), 25.3220623824, true},
		{25.3220623824, dec("25.322062"), true},
		{dec("25.322063"), 25.3220623824, false},
		{dec("0.0503"), 0.050328045, true},
		// doubles within 1e-9 relative
		{1.0, 1.0 + 1e-12, true},
		{1e12, 1e12 + 1e4, false},
		{1e12, 1e12 + 1e2, true},
		{-1.0, 1.0, false},
		// integers against numbers
		{int64(14876), dec("14876"), true},
		{dec("14876.0"), int64(14876), true},
		{int64(2), 2.0, true},
		{int64(2), dec("2.5"), false},
		// kinds that never meet
		{int64(1), "1", false},
		{"1", dec("1"), false},
		{true, int64(1), false},
	}
	for _, tt := range tests {
		if got := ValueEqual(tt.a, tt.b); got != tt.want {
			t.Errorf("ValueEqual(%v (%T), %v (%T)) = %v, want %v", tt.a, tt.a, tt.b, tt.b, got, tt.want)
		}
	}
}

// FuzzParseDecimal: any input parses or fails with ErrDecimal; what parses
// prints back to a value that parses to the same number.
func FuzzParseDecimal(f *testing.F) {
	for _, s := range []string{"12.30", "-0.005", ".5", "7", "", "-", "1e5", "1.2.3", "+3.", "000.000"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDecimal(s)
		if err != nil {
			if !errors.Is(err, ErrDecimal) {
				t.Fatalf("ParseDecimal(%q): error %v does not wrap ErrDecimal", s, err)
			}
			return
		}
		back, err := ParseDecimal(d.String())
		if err != nil || back.Scale != d.Scale || back.Unscaled.Cmp(d.Unscaled) != 0 {
			t.Fatalf("ParseDecimal(%q) = %v; reparsed %v, %v", s, d, back, err)
		}
		if d.Round(0).Unscaled.CmpAbs(new(big.Int).Add(new(big.Int).Abs(d.Unscaled), big.NewInt(1))) > 0 && d.Scale == 0 {
			t.Fatalf("Round grew %v", d)
		}
	})
}
