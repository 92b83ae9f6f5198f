package tpchgen

import (
	"math"
)

// gen is the immutable generation state shared by every goroutine working
// on one run: the seed, the table sizes, the text pool and the suppliers
// chosen to carry "Customer ... Complaints/Recommends" comments.
type gen struct {
	seed   uint64
	schema Schema
	card   cardinality
	clerks int64
	text   *textPool
	// supplierTag maps the suppkeys chosen to hold a complaint or
	// recommendation to the closing word.
	supplierTag map[int64]string
}

func newGen(opt Options) *gen {
	g := &gen{
		seed:   opt.Seed,
		schema: opt.Schema,
		card:   newCardinality(opt.SF),
		clerks: max(1, scaled(opt.SF, 1000)),
		text:   poolFor(opt.Seed),
	}
	g.supplierTag = chooseSupplierTags(g.seed, opt.SF, g.card.supplier)
	return g
}

// chooseSupplierTags picks SF*5 suppliers for "Customer%Complaints" and
// another SF*5 for "Customer%Recommends" (TPC-H 4.2.3, S_COMMENT). At
// least one of each is chosen whenever there are two suppliers, so small
// scale factors still exercise Q16's filter.
func chooseSupplierTags(seed uint64, sf float64, suppliers int64) map[int64]string {
	n := max(1, int64(math.Round(sf*5)))
	n = min(n, suppliers/2)
	tags := make(map[int64]string, 2*n)
	r := rngAt(seed, streamSupplierTag, 0)
	for i := int64(0); i < 2*n; {
		k := r.between(1, suppliers)
		if _, dup := tags[k]; dup {
			continue
		}
		if i < n {
			tags[k] = "Complaints"
		} else {
			tags[k] = "Recommends"
		}
		i++
	}
	return tags
}
