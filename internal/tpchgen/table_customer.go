package tpchgen

// fillCustomer generates CUSTOMER rows for custkeys lo+1..hi.
func fillCustomer(g *gen, c *cols, lo, hi int64) {
	key, name, addr, nation, phone, bal, segment, comment :=
		c.id(0), c.str(1), c.str(2), c.id(3), c.str(4), c.money(5), c.str(6), c.str(7)
	for r := lo; r < hi; r++ {
		rg := rngAt(g.seed, streamCustomer, r)
		k := r + 1
		key.Append(k)
		c.appendKeyed(name, "Customer#", k)
		c.scratch = appendVString(c.scratch[:0], &rg, 10, 40)
		addr.BinaryBuilder.Append(c.scratch)
		n := rg.between(0, int64(len(nations))-1)
		nation.Append(n)
		c.scratch = appendPhone(c.scratch[:0], &rg, n)
		phone.BinaryBuilder.Append(c.scratch)
		bal.append(rg.between(-99999, 999999))
		segment.AppendString(segments[rg.index(len(segments))])
		comment.AppendString(g.text.comment(&rg, 29, 116))
	}
}
