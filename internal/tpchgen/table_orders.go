package tpchgen

// Orders and lineitem are generated from the same per-order draws: an
// order's date and line count come first in its stream, and each line's
// numeric values come from a stream keyed by (order, line). ORDERS needs
// its lines to compute O_TOTALPRICE and O_ORDERSTATUS, so it recomputes
// their numeric values (cheap) without generating their text.

// orderHead returns order o's stream positioned after its date and line
// count, which lineitem needs, followed by those two values.
func (g *gen) orderHead(o int64) (rng, int32, int) {
	rg := rngAt(g.seed, streamOrder, o)
	date := startDate + int32(rg.between(0, int64(endDate-151-startDate)))
	lines := int(rg.between(1, 7))
	return rg, date, lines
}

// line holds the numeric values of one lineitem. Amounts are hundredths.
type line struct {
	partkey, suppkey           int64
	quantity, price, disc, tax int64
	ship, commit, receipt      int32
	returnFlag, lineStatus     string
}

// lineOf computes line j (0-based) of order o, placed on orderDate.
func (g *gen) lineOf(o int64, j int, orderDate int32) line {
	rg := rngAt(g.seed, streamLine, o*8+int64(j))
	var l line
	l.partkey = rg.between(1, g.card.part)
	l.suppkey = partSupplier(l.partkey, rg.between(0, 3), g.card.supplier)
	l.quantity = rg.between(1, 50)
	l.price = l.quantity * retailPrice(l.partkey)
	l.disc = rg.between(0, 10)
	l.tax = rg.between(0, 8)
	l.ship = orderDate + int32(rg.between(1, 121))
	l.commit = orderDate + int32(rg.between(30, 90))
	l.receipt = l.ship + int32(rg.between(1, 30))
	coin := rg.between(0, 1)
	switch {
	case l.receipt > currentDate:
		l.returnFlag = "N"
	case coin == 0:
		l.returnFlag = "R"
	default:
		l.returnFlag = "A"
	}
	l.lineStatus = "F"
	if l.ship > currentDate {
		l.lineStatus = "O"
	}
	return l
}

// charge is the line's contribution to O_TOTALPRICE in cents:
// extendedprice * (1 - discount) * (1 + tax), truncating each step.
func (l line) charge() int64 {
	return l.price * (100 - l.disc) / 100 * (100 + l.tax) / 100
}

// linesOfOrder is the number of lineitems of order o.
func linesOfOrder(g *gen, o int64) int64 {
	_, _, lines := g.orderHead(o)
	return int64(lines)
}

// fillOrders generates ORDERS rows for order indexes [lo, hi).
func fillOrders(g *gen, c *cols, lo, hi int64) {
	key, cust, status, total, date, priority, clerk, shipPriority, comment :=
		c.id(0), c.id(1), c.str(2), c.money(3), c.date(4), c.str(5), c.str(6), c.i32(7), c.str(8)
	ordering := g.card.customer - g.card.customer/3
	for o := lo; o < hi; o++ {
		rg, odate, lines := g.orderHead(o)
		var sum int64
		open := 0
		for j := 0; j < lines; j++ {
			l := g.lineOf(o, j, odate)
			sum += l.charge()
			if l.lineStatus == "O" {
				open++
			}
		}
		key.Append(orderKey(o))
		cust.Append(orderingCustomer(rg.between(0, ordering-1)))
		switch open {
		case 0:
			status.AppendString("F")
		case lines:
			status.AppendString("O")
		default:
			status.AppendString("P")
		}
		total.append(sum)
		date.Append(dateOf(odate))
		priority.AppendString(priorities[rg.index(len(priorities))])
		c.appendKeyed(clerk, "Clerk#", rg.between(1, g.clerks))
		shipPriority.Append(0)
		comment.AppendString(g.text.comment(&rg, 19, 78))
	}
}

// fillLineitem generates the LINEITEM rows of order indexes [lo, hi).
func fillLineitem(g *gen, c *cols, lo, hi int64) {
	orderkey, partkey, suppkey, linenumber := c.id(0), c.id(1), c.id(2), c.i32(3)
	quantity, price, disc, tax := c.money(4), c.money(5), c.money(6), c.money(7)
	returnFlag, lineStatus := c.str(8), c.str(9)
	ship, commit, receipt := c.date(10), c.date(11), c.date(12)
	instruct, mode, comment := c.str(13), c.str(14), c.str(15)
	for o := lo; o < hi; o++ {
		_, odate, lines := g.orderHead(o)
		ok := orderKey(o)
		for j := 0; j < lines; j++ {
			l := g.lineOf(o, j, odate)
			orderkey.Append(ok)
			partkey.Append(l.partkey)
			suppkey.Append(l.suppkey)
			linenumber.Append(int32(j + 1))
			quantity.append(l.quantity * 100)
			price.append(l.price)
			disc.append(l.disc)
			tax.append(l.tax)
			returnFlag.AppendString(l.returnFlag)
			lineStatus.AppendString(l.lineStatus)
			ship.Append(dateOf(l.ship))
			commit.Append(dateOf(l.commit))
			receipt.Append(dateOf(l.receipt))
			rt := rngAt(g.seed, streamLineText, o*8+int64(j))
			instruct.AppendString(instructions[rt.index(len(instructions))])
			mode.AppendString(shipModes[rt.index(len(shipModes))])
			comment.AppendString(g.text.comment(&rt, 10, 43))
		}
	}
}
