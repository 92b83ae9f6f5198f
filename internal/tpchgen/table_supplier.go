package tpchgen

// fillSupplier generates SUPPLIER rows for suppkeys lo+1..hi.
func fillSupplier(g *gen, c *cols, lo, hi int64) {
	key, name, addr, nation, phone, bal, comment :=
		c.id(0), c.str(1), c.str(2), c.id(3), c.str(4), c.money(5), c.str(6)
	for r := lo; r < hi; r++ {
		rg := rngAt(g.seed, streamSupplier, r)
		k := r + 1
		key.Append(k)
		c.appendKeyed(name, "Supplier#", k)
		c.scratch = appendVString(c.scratch[:0], &rg, 10, 40)
		addr.BinaryBuilder.Append(c.scratch)
		n := rg.between(0, int64(len(nations))-1)
		nation.Append(n)
		c.scratch = appendPhone(c.scratch[:0], &rg, n)
		phone.BinaryBuilder.Append(c.scratch)
		bal.append(rg.between(-99999, 999999))
		c.scratch = g.supplierComment(c.scratch[:0], &rg, g.supplierTag[k])
		comment.BinaryBuilder.Append(c.scratch)
	}
}

// supplierComment appends an S_COMMENT of 25..100 characters. When word is
// "Complaints" or "Recommends", "Customer" and word are written over the
// text at a random position with random text between them, so the
// comment matches LIKE '%Customer%<word>%' and keeps its length.
func (g *gen) supplierComment(dst []byte, r *rng, word string) []byte {
	const customer = "Customer"
	base := g.text.comment(r, 25, 100)
	if word == "" {
		return append(dst, base...)
	}
	free := int64(len(base) - len(customer) - len(word))
	gap := r.between(0, free)
	at := r.between(0, free-gap)
	dst = append(dst, base[:at]...)
	dst = append(dst, customer...)
	mid := at + int64(len(customer))
	dst = append(dst, base[mid:mid+gap]...)
	dst = append(dst, word...)
	return append(dst, base[mid+gap+int64(len(word)):]...)
}
