package tpchgen

// fillRegion generates REGION: five fixed rows with pseudo-text comments.
func fillRegion(g *gen, c *cols, lo, hi int64) {
	key, name, comment := c.id(0), c.str(1), c.str(2)
	for r := lo; r < hi; r++ {
		rg := rngAt(g.seed, streamRegion, r)
		key.Append(r)
		name.AppendString(regionNames[r])
		comment.AppendString(g.text.comment(&rg, 31, 115))
	}
}

// fillNation generates NATION: 25 fixed rows with pseudo-text comments.
func fillNation(g *gen, c *cols, lo, hi int64) {
	key, name, region, comment := c.id(0), c.str(1), c.id(2), c.str(3)
	for r := lo; r < hi; r++ {
		rg := rngAt(g.seed, streamNation, r)
		key.Append(r)
		name.AppendString(nations[r].name)
		region.Append(nations[r].region)
		comment.AppendString(g.text.comment(&rg, 31, 114))
	}
}
