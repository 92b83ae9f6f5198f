package duckdbh

import (
	"embed"
	"fmt"
	"strconv"
	"strings"
)

// TPCHQueries is the number of TPC-H queries (Q1..Q22).
const TPCHQueries = 22

// tpchSQL holds the 22 queries, one file each, tpch/qNN.sql. They are the
// specification's query texts with its validation substitution parameters,
// in DuckDB's dialect; each file's header comment names the parameters.
//
//go:embed tpch/*.sql
var tpchSQL embed.FS

// TPCHQuery returns the SQL text of TPC-H query n (1..22) with the
// specification's validation parameters, or "" when n is out of range.
//
// The texts follow the specification with these allowed variants: date
// arithmetic is written `cast(date '1998-12-01' - interval 90 day as date)`
// (in DuckDB date ± interval is a TIMESTAMP; without the cast every row's
// DATE column would be cast to TIMESTAMP before the comparison, which costs
// Q6 about 30% and differs from Spark, where the expression is a DATE),
// Q15's view is a WITH clause, Q18's unnamed sum(l_quantity) is named sum_qty, and the
// row limits (Q2 100, Q3 10, Q10 20, Q18 100, Q21 100) are LIMIT clauses.
// Q11's FRACTION is 0.0001 whatever the scale factor.
func TPCHQuery(n int) string {
	if n < 1 || n > TPCHQueries {
		return ""
	}
	b, err := tpchSQL.ReadFile(fmt.Sprintf("tpch/q%02d.sql", n))
	if err != nil {
		// Every file is embedded at build time; TestTPCHQueryTexts checks them.
		return ""
	}
	return string(b)
}

// ParseQueryList parses a query selection such as "1,6", "1-5,22" or "all"
// into query numbers in the order given, without duplicates. Every number
// must be within 1..22; an empty list is an error.
func ParseQueryList(s string) ([]int, error) {
	s = strings.TrimSpace(s)
	if strings.EqualFold(s, "all") {
		out := make([]int, TPCHQueries)
		for i := range out {
			out[i] = i + 1
		}
		return out, nil
	}
	var out []int
	seen := map[int]bool{}
	for i, item := range strings.Split(s, ",") {
		lo, hi, err := parseQueryRange(strings.TrimSpace(item))
		if err != nil {
			return nil, fmt.Errorf("duckdbh: query list %q, item %d: %w", s, i+1, err)
		}
		for n := lo; n <= hi; n++ {
			if !seen[n] {
				seen[n] = true
				out = append(out, n)
			}
		}
	}
	return out, nil
}

// parseQueryRange parses "N" or "N-M" (N <= M), each within 1..22.
func parseQueryRange(item string) (lo, hi int, err error) {
	if item == "" {
		return 0, 0, fmt.Errorf("empty item (want a query number 1..%d or a range like 1-5)", TPCHQueries)
	}
	a, b, isRange := strings.Cut(item, "-")
	if lo, err = parseQueryNumber(a); err != nil {
		return 0, 0, err
	}
	if !isRange {
		return lo, lo, nil
	}
	if hi, err = parseQueryNumber(b); err != nil {
		return 0, 0, err
	}
	if hi < lo {
		return 0, 0, fmt.Errorf("range %q runs backwards", item)
	}
	return lo, hi, nil
}

func parseQueryNumber(s string) (int, error) {
	s = strings.TrimPrefix(strings.TrimPrefix(strings.TrimSpace(s), "q"), "Q")
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > TPCHQueries {
		return 0, fmt.Errorf("%q is not a query number 1..%d", s, TPCHQueries)
	}
	return n, nil
}
