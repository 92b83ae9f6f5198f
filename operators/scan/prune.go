package scan

import (
	"bytes"
	"math"
)

// summary is what some metadata tells about the values of one column over a
// set of rows (a row group's column chunk, a page, a dictionary, a bloom
// filter). Every field is optional; an unknown field makes the test
// conservative. A summary answers "may a row in this set satisfy the leaf?"
// and must never answer no when a row does.
type summary struct {
	rows       int64 // values in the set, nulls included (valid when nullsKnown)
	nulls      int64
	nullsKnown bool

	// min and max bound the non-null values (inclusive). They may be
	// truncated (a shorter min, a larger max), which keeps them bounds.
	min, max   datum
	minMaxSet  bool
	valuesSet  bool    // values is every distinct non-null value (a dictionary)
	values     []datum // may hold values no row uses
	mayContain func(datum) (present, ok bool)
}

// may reports whether some row summarised by get could make p true.
// get returns nil for a column it knows nothing about.
func (p *pred) may(get func(col string) *summary) bool {
	return p.holds(func(l *leaf) bool {
		s := get(l.col)
		return s == nil || s.may(l)
	})
}

func (s *summary) may(l *leaf) bool {
	allNull := s.nullsKnown && s.nulls >= s.rows
	switch l.op {
	case opIsNull:
		return !s.nullsKnown || s.nulls > 0
	case opIsNotNull:
		return !allNull
	}
	if allNull {
		return false
	}
	if s.valuesSet {
		for _, v := range s.values {
			if l.test(v, false) {
				return true
			}
		}
		return false
	}
	if s.mayContain != nil && (l.op == opEq || l.op == opIn) {
		for _, v := range l.vals {
			present, ok := s.mayContain(v)
			if !ok || present {
				return true
			}
		}
		return false
	}
	if !s.minMaxSet {
		return true
	}
	return rangeMay(l, s.min, s.max)
}

// rangeMay reports whether a non-null value in [min, max] may satisfy l.
//
// Floating point is handled with care: Parquet writers leave NaN out of
// min/max, and Spark orders NaN above every number, so a column with max 3
// may still hold a NaN that is > 5. Tests that NaN could satisfy (>, >=, !=,
// = NaN, NOT IN) never prune a floating-point column; a NaN min or max
// disables pruning altogether. -0.0 and 0.0 compare equal, as in Spark.
func rangeMay(l *leaf, min, max datum) bool {
	float := l.dom == domFloat
	if float && (isNaN(min) || isNaN(max)) {
		return true
	}
	cmp := func(a, b datum) int { return compare(l.dom, a, b) }
	within := func(v datum) bool {
		if float && isNaN(v) {
			return true
		}
		return cmp(min, v) <= 0 && cmp(v, max) <= 0
	}
	switch l.op {
	case opEq:
		return within(l.vals[0])
	case opIn:
		for _, v := range l.vals {
			if within(v) {
				return true
			}
		}
		return false
	case opNe:
		return float || cmp(min, l.vals[0]) != 0 || cmp(max, l.vals[0]) != 0
	case opNotIn:
		if float || cmp(min, max) != 0 {
			return true
		}
		return l.test(min, false)
	case opLt:
		return (float && isNaN(l.vals[0])) || cmp(min, l.vals[0]) < 0
	case opLe:
		return (float && isNaN(l.vals[0])) || cmp(min, l.vals[0]) <= 0
	case opGt:
		return float || cmp(max, l.vals[0]) > 0
	case opGe:
		return float || cmp(max, l.vals[0]) >= 0
	case opStarts:
		p := l.vals[0].([]byte)
		lo := min.([]byte)
		if len(lo) > len(p) {
			lo = lo[:len(p)]
		}
		return bytes.Compare(max.([]byte), p) >= 0 && bytes.Compare(lo, p) <= 0
	case opNotStarts:
		p := l.vals[0].([]byte)
		// Strings between two strings that start with p start with p too.
		return !(bytes.HasPrefix(min.([]byte), p) && bytes.HasPrefix(max.([]byte), p))
	}
	return true // EndsWith, Contains and their negations: bounds say nothing
}

// bloomable reports whether a bloom filter (which hashes the exact bytes of
// the physical value) may answer for v: not for floating-point zero (−0.0
// and 0.0 hash differently but compare equal) nor NaN (many encodings).
func bloomable(v datum) bool {
	f, ok := v.(float64)
	return !ok || (f != 0 && !math.IsNaN(f))
}
