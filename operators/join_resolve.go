package operators

import "github.com/hados-io/hados/device"

// joinMode is what a probe batch contributes to a join's output.
type joinMode uint8

const (
	modePairs  joinMode = iota // inner and outer joins: (probe row, build row) pairs
	modeSemi                   // probe side is the left of a semi join: probe rows with a match
	modeAnti                   // ... of an anti join: probe rows without a match
	modeExists                 // ... of an existence join: every probe row and whether it matched
	modeMark                   // the build side is the left of a semi/anti/existence join: only mark build rows
)

// joinPlan is how a join type and build side execute.
type joinPlan struct {
	mode       joinMode
	probeLeft  bool // the probe side is the left child
	probeOuter bool // probe rows without a match are kept (with a null build row)
	buildOuter bool // build rows never matched are emitted at the end
	track      bool // build rows' matched flags are kept across batches
}

func planJoin(typ JoinType, build BuildSide) joinPlan {
	p := joinPlan{probeLeft: build == BuildRight}
	switch typ {
	case JoinLeftOuter:
		p.probeOuter, p.buildOuter = p.probeLeft, !p.probeLeft
	case JoinRightOuter:
		p.probeOuter, p.buildOuter = !p.probeLeft, p.probeLeft
	case JoinFullOuter:
		p.probeOuter, p.buildOuter = true, true
	case JoinLeftSemi, JoinLeftAnti, JoinExistence:
		switch {
		case !p.probeLeft:
			p.mode = modeMark
		case typ == JoinLeftSemi:
			p.mode = modeSemi
		case typ == JoinLeftAnti:
			p.mode = modeAnti
		default:
			p.mode = modeExists
		}
	}
	p.track = p.buildOuter || p.mode == modeMark
	return p
}

// probeFlags are the JOIN_PROBE flags the plan needs; withCond says an
// extra condition decides between candidate pairs (so every pair is
// needed, not only the first).
func (p joinPlan) probeFlags(withCond bool) uint32 {
	var f uint32
	if p.probeOuter || p.mode == modeAnti || p.mode == modeExists {
		f |= device.ProbeUnmatched
	}
	if !withCond && (p.mode == modeSemi || p.mode == modeAnti || p.mode == modeExists) {
		f |= device.ProbeFirstMatch
	}
	return f
}

// joinRows is a batch's output as row numbers: probe rows and build rows
// (-1 = a row of nulls) for pairs, or probe rows (and their exists flags)
// for semi, anti and existence joins.
type joinRows struct {
	probe, build []int32
	exists       []bool
}

// resolve turns the pairs of one probe batch (in probe row order; build
// row -1 for a probe row without candidates) into output rows (which may
// be pp and bb themselves: the caller hands them over). pass says
// which candidate pairs satisfy the extra condition (nil: all). matched,
// when the plan tracks build rows, receives the build rows of passing
// pairs. skip, if set, drops probe rows from semi/anti/existence output
// (null keys of a null-aware anti join).
func (p joinPlan) resolve(pp, bb []int32, pass []bool, matched []bool, skip func(row int32) bool) joinRows {
	if p.mode == modePairs && pass == nil && !p.track && !p.probeOuter {
		// inner join without a condition: every pair is output (the
		// slices are taken over, not copied)
		return joinRows{probe: pp, build: bb}
	}
	var out joinRows
	switch p.mode {
	case modePairs:
		out.probe, out.build = make([]int32, 0, len(pp)), make([]int32, 0, len(pp))
	case modeSemi, modeAnti, modeExists:
		out.probe = make([]int32, 0, len(pp))
	}
	for i := 0; i < len(pp); {
		row := pp[i]
		j := i
		any := false
		for ; j < len(pp) && pp[j] == row; j++ {
			b := bb[j]
			if b < 0 || (pass != nil && !pass[j]) {
				continue
			}
			any = true
			if p.track {
				matched[b] = true
			}
			if p.mode == modePairs {
				out.probe = append(out.probe, row)
				out.build = append(out.build, b)
			}
		}
		i = j
		switch p.mode {
		case modePairs:
			if !any && p.probeOuter {
				out.probe = append(out.probe, row)
				out.build = append(out.build, -1)
			}
		case modeSemi:
			if any {
				out.probe = append(out.probe, row)
			}
		case modeAnti:
			if !any && (skip == nil || !skip(row)) {
				out.probe = append(out.probe, row)
			}
		case modeExists:
			out.probe = append(out.probe, row)
			out.exists = append(out.exists, any)
		}
	}
	return out
}

// finish is what the build side contributes after the last probe batch:
// the build rows to emit (and exists flags for an existence join).
// rows is the number of build rows; keep, if set, filters the rows of an
// anti join (null-aware rules).
func (p joinPlan) finish(typ JoinType, rows int, matched []bool, keep func(row int32) bool) joinRows {
	var out joinRows
	switch {
	case p.buildOuter:
		for b := range rows {
			if !matched[b] {
				out.build = append(out.build, int32(b))
			}
		}
	case p.mode == modeMark:
		for b := range rows {
			switch typ {
			case JoinLeftSemi:
				if matched[b] {
					out.build = append(out.build, int32(b))
				}
			case JoinLeftAnti:
				if !matched[b] && (keep == nil || keep(int32(b))) {
					out.build = append(out.build, int32(b))
				}
			default:
				out.build = append(out.build, int32(b))
				out.exists = append(out.exists, matched[b])
			}
		}
	}
	return out
}
