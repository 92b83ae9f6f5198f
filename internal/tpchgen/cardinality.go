package tpchgen

// cardinality holds the row counts of the scaled tables (TPC-H 4.2.5).
type cardinality struct {
	supplier, part, customer, orders int64
}

func scaled(sf float64, base int64) int64 { return int64(sf * float64(base)) }

func newCardinality(sf float64) cardinality {
	return cardinality{
		supplier: scaled(sf, 10_000),
		part:     scaled(sf, 200_000),
		customer: scaled(sf, 150_000),
		orders:   scaled(sf, 1_500_000),
	}
}

// orderKey maps the 0-based order index to its sparse O_ORDERKEY: only the
// first 8 of every 32 keys are used (1..8, 33..40, 65..72, ...), leaving room
// for the refresh functions' inserts.
func orderKey(index int64) int64 { return index/8*32 + index%8 + 1 }

// orderingCustomer maps a uniform draw r in [0, customer-customer/3) to a
// customer key that is not a multiple of 3: a third of the customers never
// place an order (TPC-H 4.2.3, O_CUSTKEY).
func orderingCustomer(r int64) int64 { return r + r/2 + 1 }

// partSupplier is the TPC-H formula for the i-th (0..3) supplier of a part:
// (partkey + i*(S/4 + (partkey-1)/S)) mod S + 1, S = number of suppliers.
// At very small S (below 100, SF < 0.01) the four keys can collide.
func partSupplier(partkey int64, i, suppliers int64) int64 {
	return (partkey+i*(suppliers/4+(partkey-1)/suppliers))%suppliers + 1
}

// retailPrice is P_RETAILPRICE in cents:
// (90000 + ((partkey/10) mod 20001) + 100*(partkey mod 1000)) / 100.
func retailPrice(partkey int64) int64 {
	return 90000 + (partkey/10)%20001 + 100*(partkey%1000)
}
