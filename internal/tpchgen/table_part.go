package tpchgen

// fillPart generates PART rows for partkeys lo+1..hi.
func fillPart(g *gen, c *cols, lo, hi int64) {
	key, name, mfgr, brand, ptype, size, container, price, comment :=
		c.id(0), c.str(1), c.str(2), c.str(3), c.str(4), c.i32(5), c.str(6), c.money(7), c.str(8)
	for r := lo; r < hi; r++ {
		rg := rngAt(g.seed, streamPart, r)
		k := r + 1
		key.Append(k)
		c.scratch = appendPartName(c.scratch[:0], &rg)
		name.BinaryBuilder.Append(c.scratch)
		m := rg.between(1, 5)
		c.scratch = appendPadded(append(c.scratch[:0], "Manufacturer#"...), m, 1)
		mfgr.BinaryBuilder.Append(c.scratch)
		c.scratch = appendPadded(append(c.scratch[:0], "Brand#"...), m*10+rg.between(1, 5), 2)
		brand.BinaryBuilder.Append(c.scratch)
		c.scratch = append(append(append(append(append(c.scratch[:0],
			typeSyllable1[rg.index(len(typeSyllable1))]...), ' '),
			typeSyllable2[rg.index(len(typeSyllable2))]...), ' '),
			typeSyllable3[rg.index(len(typeSyllable3))]...)
		ptype.BinaryBuilder.Append(c.scratch)
		size.Append(int32(rg.between(1, 50)))
		c.scratch = append(append(append(c.scratch[:0],
			containerSyllable1[rg.index(len(containerSyllable1))]...), ' '),
			containerSyllable2[rg.index(len(containerSyllable2))]...)
		container.BinaryBuilder.Append(c.scratch)
		price.append(retailPrice(k))
		comment.AppendString(g.text.comment(&rg, 5, 22))
	}
}

// appendPartName appends five distinct colour words separated by spaces.
func appendPartName(dst []byte, r *rng) []byte {
	var picked [5]int
	for i := 0; i < len(picked); {
		w := r.index(len(colors))
		dup := false
		for _, p := range picked[:i] {
			dup = dup || p == w
		}
		if dup {
			continue
		}
		picked[i] = w
		if i > 0 {
			dst = append(dst, ' ')
		}
		dst = append(dst, colors[w]...)
		i++
	}
	return dst
}

// fillPartSupp generates the four PARTSUPP rows of each part lo+1..hi.
func fillPartSupp(g *gen, c *cols, lo, hi int64) {
	part, supp, avail, cost, comment := c.id(0), c.id(1), c.i32(2), c.money(3), c.str(4)
	for p := lo; p < hi; p++ {
		for i := int64(0); i < 4; i++ {
			rg := rngAt(g.seed, streamPartSupp, p*4+i)
			part.Append(p + 1)
			supp.Append(partSupplier(p+1, i, g.card.supplier))
			avail.Append(int32(rg.between(1, 9999)))
			cost.append(rg.between(100, 100000))
			comment.AppendString(g.text.comment(&rg, 49, 198))
		}
	}
}
