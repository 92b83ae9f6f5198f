package duckdbh

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func TestTPCHQueryTexts(t *testing.T) {
	for n := 1; n <= TPCHQueries; n++ {
		q := TPCHQuery(n)
		if want := fmt.Sprintf("-- TPC-H Q%d,", n); !strings.HasPrefix(q, want) {
			t.Errorf("TPCHQuery(%d) starts %.30q, want the header %q", n, q, want)
		}
		if !strings.Contains(strings.ToLower(q), "select") {
			t.Errorf("TPCHQuery(%d) has no select", n)
		}
	}
	for _, n := range []int{-1, 0, 23, 1000} {
		if q := TPCHQuery(n); q != "" {
			t.Errorf("TPCHQuery(%d) = %.20q, want empty", n, q)
		}
	}
}

// TestTPCHQueryLimits checks the specification's row limits are present.
func TestTPCHQueryLimits(t *testing.T) {
	limits := map[int]string{2: "limit 100", 3: "limit 10", 10: "limit 20", 18: "limit 100", 21: "limit 100"}
	for n := 1; n <= TPCHQueries; n++ {
		has := strings.Contains(TPCHQuery(n), "\nlimit ")
		want, limited := limits[n]
		switch {
		case limited && !strings.Contains(TPCHQuery(n), want):
			t.Errorf("Q%d lacks %q", n, want)
		case !limited && has:
			t.Errorf("Q%d has a limit the specification does not ask for", n)
		}
	}
}

func TestParseQueryList(t *testing.T) {
	all := make([]int, 22)
	for i := range all {
		all[i] = i + 1
	}
	tests := []struct {
		in      string
		want    []int
		wantErr string
	}{
		{in: "1,6", want: []int{1, 6}},
		{in: " 6 , 1 ", want: []int{6, 1}},
		{in: "q1,Q22", want: []int{1, 22}},
		{in: "1-3,22", want: []int{1, 2, 3, 22}},
		{in: "3,1-4", want: []int{3, 1, 2, 4}},
		{in: "all", want: all},
		{in: "ALL", want: all},
		{in: "", wantErr: "item 1: empty item"},
		{in: "1,,2", wantErr: "item 2: empty item"},
		{in: "0", wantErr: `"0" is not a query number`},
		{in: "23", wantErr: `"23" is not a query number`},
		{in: "x", wantErr: `"x" is not a query number`},
		{in: "5-2", wantErr: `range "5-2" runs backwards`},
		{in: "1-", wantErr: `"" is not a query number`},
		{in: "1-2-3", wantErr: `"2-3" is not a query number`},
	}
	for _, tt := range tests {
		got, err := ParseQueryList(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ParseQueryList(%q) error = %v, want one containing %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ParseQueryList(%q) = %v, %v, want %v", tt.in, got, err, tt.want)
		}
	}
}

// FuzzParseQueryList: any input either fails or gives distinct numbers in
// 1..22.
func FuzzParseQueryList(f *testing.F) {
	for _, s := range []string{"1,6", "1-22", "all", "", "q3", "5-2", "1,,", "-1", "99999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseQueryList(s)
		if err != nil {
			if len(got) != 0 {
				t.Fatalf("ParseQueryList(%q) returned %v with error %v", s, got, err)
			}
			return
		}
		if len(got) == 0 {
			t.Fatalf("ParseQueryList(%q) returned no queries and no error", s)
		}
		seen := map[int]bool{}
		for _, n := range got {
			if n < 1 || n > TPCHQueries || seen[n] {
				t.Fatalf("ParseQueryList(%q) = %v: bad or repeated %d", s, got, n)
			}
			seen[n] = true
		}
	})
}
