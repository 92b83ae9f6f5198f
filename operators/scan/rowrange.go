package scan

// rowRange is the half-open row interval [start, end) of a row group.
type rowRange struct{ start, end int64 }

// ranges is a sorted list of disjoint, non-adjacent, non-empty row ranges.
type ranges []rowRange

func fullRange(n int64) ranges {
	if n <= 0 {
		return nil
	}
	return ranges{{0, n}}
}

// add appends r, merging it with the last range when they touch; r must not
// start before the last range starts.
func (rs ranges) add(r rowRange) ranges {
	if r.end <= r.start {
		return rs
	}
	if n := len(rs); n > 0 && r.start <= rs[n-1].end {
		if r.end > rs[n-1].end {
			rs[n-1].end = r.end
		}
		return rs
	}
	return append(rs, r)
}

func (rs ranges) intersect(o ranges) ranges {
	var out ranges
	i, j := 0, 0
	for i < len(rs) && j < len(o) {
		s, e := max(rs[i].start, o[j].start), min(rs[i].end, o[j].end)
		out = out.add(rowRange{s, e})
		if rs[i].end < o[j].end {
			i++
		} else {
			j++
		}
	}
	return out
}

func (rs ranges) union(o ranges) ranges {
	var out ranges
	i, j := 0, 0
	for i < len(rs) || j < len(o) {
		if j >= len(o) || (i < len(rs) && rs[i].start <= o[j].start) {
			out = out.add(rs[i])
			i++
		} else {
			out = out.add(o[j])
			j++
		}
	}
	return out
}

func (rs ranges) rows() int64 {
	var n int64
	for _, r := range rs {
		n += r.end - r.start
	}
	return n
}

// overlaps reports whether any range meets [start, end).
func (rs ranges) overlaps(start, end int64) bool {
	for _, r := range rs {
		if r.start < end && start < r.end {
			return true
		}
	}
	return false
}

// pageSummaries is one column's page index in a row group: the row span of
// each page and what its ColumnIndex entry says about it.
type pageSummaries struct {
	spans []rowRange
	sums  []*summary // nil entries: nothing known
}

// rowsMay returns the rows of a row group of n rows in which p may be true,
// given the page indexes of some columns (a column without one contributes
// every row).
func (p *pred) rowsMay(n int64, pages func(col string) *pageSummaries) ranges {
	switch p.kind {
	case pTrue:
		return fullRange(n)
	case pFalse:
		return nil
	case pAnd:
		out := fullRange(n)
		for _, k := range p.kids {
			out = out.intersect(k.rowsMay(n, pages))
		}
		return out
	case pOr:
		var out ranges
		for _, k := range p.kids {
			out = out.union(k.rowsMay(n, pages))
		}
		return out
	}
	ps := pages(p.leaf.col)
	if ps == nil {
		return fullRange(n)
	}
	var out ranges
	for i, span := range ps.spans {
		if s := ps.sums[i]; s == nil || s.may(p.leaf) {
			out = out.add(span)
		}
	}
	return out
}
