package scan

import (
	"math"
	"math/big"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/schema"

	"github.com/hados-io/hados/operators/types"
)

// This file turns Parquet metadata into summaries. Every function returns
// nil (nothing known) rather than guess when the metadata is absent,
// inconsistent or of a kind it does not trust.

// trustMinMax reports whether min/max statistics of the column may be used.
// Statistics written before ColumnOrder existed (the deprecated min/max
// fields) ordered binary values as signed bytes, which is wrong for UTF-8
// strings and binary decimals: they are ignored for those physical types.
func (c *fileCol) trustMinMax() bool {
	switch c.descr.PhysicalType() {
	case parquet.Types.ByteArray, parquet.Types.FixedLenByteArray:
		return c.descr.ColumnOrder() == parquet.ColumnOrders.TypeDefinedOrder
	case parquet.Types.Int96:
		return false
	}
	return c.descr.SortOrder() != schema.SortUNKNOWN
}

// statsSummary is what the column chunk's statistics say.
func statsSummary(cc *metadata.ColumnChunkMetaData, c *fileCol) *summary {
	st, err := cc.Statistics()
	if err != nil || st == nil {
		return nil
	}
	s := &summary{rows: cc.NumValues()}
	if st.HasNullCount() {
		s.nulls, s.nullsKnown = st.NullCount(), true
	}
	if st.HasMinMax() && c.trustMinMax() {
		lo, ok1 := c.decodeStat(st.EncodeMin())
		hi, ok2 := c.decodeStat(st.EncodeMax())
		s.min, s.max, s.minMaxSet = lo, hi, ok1 && ok2
	}
	return s
}

// pageIndex is one column chunk's page index: the row span of each data page
// and, when the ColumnIndex is present, a summary per page.
func pageIndex(rg *metadata.RowGroupPageIndexReader, c *fileCol, rows int64) *pageSummaries {
	if rg == nil {
		return nil
	}
	oi, err := rg.GetOffsetIndex(c.leaf)
	if err != nil || oi == nil {
		return nil
	}
	locs := oi.GetPageLocations()
	ps := &pageSummaries{}
	for i, l := range locs {
		end := rows
		if i+1 < len(locs) {
			end = locs[i+1].FirstRowIndex
		}
		if l.FirstRowIndex < 0 || end < l.FirstRowIndex || end > rows || (i == 0 && l.FirstRowIndex != 0) {
			return nil // inconsistent: trust nothing
		}
		ps.spans = append(ps.spans, rowRange{l.FirstRowIndex, end})
	}
	ps.sums = make([]*summary, len(ps.spans))
	ci, err := rg.GetColumnIndex(c.leaf)
	if err != nil || ci == nil {
		return ps
	}
	nullPages, mins, maxs := ci.GetNullPages(), ci.GetMinValues(), ci.GetMaxValues()
	if len(nullPages) != len(ps.spans) || len(mins) != len(nullPages) || len(maxs) != len(nullPages) {
		return ps
	}
	var nullCounts []int64
	if ci.IsSetNullCounts() && len(ci.GetNullCounts()) == len(nullPages) {
		nullCounts = ci.GetNullCounts()
	}
	// The ColumnIndex postdates ColumnOrder: its binary bounds are
	// unsigned-ordered (and possibly truncated, which keeps them bounds).
	for i := range nullPages {
		s := &summary{rows: ps.spans[i].end - ps.spans[i].start}
		switch {
		case nullPages[i]:
			s.nulls, s.nullsKnown = s.rows, true
		case nullCounts != nil:
			s.nulls, s.nullsKnown = nullCounts[i], true
		}
		if !nullPages[i] {
			lo, ok1 := c.decodeStat(mins[i])
			hi, ok2 := c.decodeStat(maxs[i])
			s.min, s.max, s.minMaxSet = lo, hi, ok1 && ok2
		}
		ps.sums[i] = s
	}
	return ps
}

// dictSummary is the set of values in the chunk's dictionary, when every
// data page of the chunk is dictionary encoded (a writer that fell back to
// plain encoding has values outside the dictionary).
func dictSummary(rg *file.RowGroupReader, cc *metadata.ColumnChunkMetaData, c *fileCol) *summary {
	if !cc.HasDictionaryPage() || !allDictEncoded(cc) {
		return nil
	}
	pr, err := rg.GetColumnPageReader(c.leaf)
	if err != nil {
		return nil
	}
	defer pr.Close()
	dp, err := pr.GetDictionaryPage()
	if err != nil || dp == nil {
		return nil
	}
	vals, err := c.decodeDict(dp.Data(), int(dp.NumValues()))
	if err != nil {
		return nil
	}
	return &summary{valuesSet: true, values: vals}
}

func allDictEncoded(cc *metadata.ColumnChunkMetaData) bool {
	es := cc.EncodingStats()
	if len(es) == 0 {
		return false // unknown: some pages may be plain
	}
	data := 0
	for _, e := range es {
		switch e.PageType {
		case file.PageTypeDataPage, file.PageTypeDataPageV2:
			data++
			if e.Encoding != parquet.Encodings.RLEDict && e.Encoding != parquet.Encodings.PlainDict {
				return false
			}
		}
	}
	return data > 0
}

// bloomSummary answers membership from the chunk's bloom filter, for the
// literals whose physical encoding it can reproduce exactly.
func bloomSummary(rg *metadata.RowGroupBloomFilterReader, c *fileCol) *summary {
	bf, err := rg.GetColumnBloomFilter(c.leaf)
	if err != nil || bf == nil {
		return nil
	}
	h := bf.Hasher()
	return &summary{mayContain: func(v datum) (bool, bool) {
		hash, ok := c.bloomHash(h, v)
		if !ok {
			return true, false
		}
		return bf.CheckHash(hash), true
	}}
}

// bloomHash hashes v as the writer hashed the physical value it stored.
func (c *fileCol) bloomHash(h metadata.Hasher, v datum) (uint64, bool) {
	if !bloomable(v) {
		return 0, false
	}
	if ts, ok := c.read.(*arrow.TimestampType); ok && ts.Unit != arrow.Microsecond {
		return 0, false
	}
	switch c.descr.PhysicalType() {
	case parquet.Types.Int32, parquet.Types.Int64:
		var i int64
		switch x := v.(type) {
		case int64:
			i = x
		case *big.Rat:
			u, err := ratUnscaled(x, c.spark.Precision, c.spark.Scale)
			if err != nil || !u.IsInt64() {
				return 0, false
			}
			i = u.Int64()
		default:
			return 0, false
		}
		if c.descr.PhysicalType() == parquet.Types.Int32 {
			if i < math.MinInt32 || i > math.MaxInt32 {
				return 0, false
			}
			return metadata.GetHash(h, int32(i)), true
		}
		return metadata.GetHash(h, i), true
	case parquet.Types.Float:
		f := v.(float64)
		if float64(float32(f)) != f {
			return 0, false
		}
		return metadata.GetHash(h, float32(f)), true
	case parquet.Types.Double:
		return metadata.GetHash(h, v.(float64)), true
	case parquet.Types.ByteArray:
		if b, ok := v.([]byte); ok && c.spark.Kind != types.Decimal {
			return metadata.GetHash(h, parquet.ByteArray(b)), true
		}
	case parquet.Types.FixedLenByteArray:
		if r, ok := v.(*big.Rat); ok {
			u, err := ratUnscaled(r, c.spark.Precision, c.spark.Scale)
			if err != nil {
				return 0, false
			}
			b, ok := fixedTwosComplement(u, c.descr.TypeLength())
			if !ok {
				return 0, false
			}
			return metadata.GetHash(h, parquet.FixedLenByteArray(b)), true
		}
	}
	return 0, false
}

// fixedTwosComplement writes u as big-endian two's complement in n bytes.
func fixedTwosComplement(u *big.Int, n int) ([]byte, bool) {
	x := new(big.Int).Set(u)
	if x.Sign() < 0 {
		x.Add(x, new(big.Int).Lsh(big.NewInt(1), uint(8*n)))
	}
	if x.Sign() < 0 || x.BitLen() > 8*n {
		return nil, false
	}
	return x.FillBytes(make([]byte, n)), true
}
