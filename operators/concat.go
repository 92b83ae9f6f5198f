package operators

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/hados-io/hados/device"
	hmem "github.com/hados-io/hados/memory"
)

// ConcatRecords makes one record of recs (all of one schema), in
// t.OutputAllocator() memory — device memory when the device is
// host-visible, so operators read it in place. A single record is returned
// as it is (retained). Dictionary columns whose dictionaries differ are
// unified. The caller releases the result; recs are not released.
func ConcatRecords(t *Target, recs []arrow.Record) (arrow.Record, error) {
	if len(recs) == 0 {
		return nil, fmt.Errorf("%w: concat of no records", device.ErrInvalid)
	}
	if len(recs) == 1 {
		recs[0].Retain()
		return recs[0], nil
	}
	schema := recs[0].Schema()
	var rows int64
	for i, r := range recs {
		if !r.Schema().Equal(schema) {
			return nil, fmt.Errorf("%w: concat: record %d has schema %s, record 0 %s", device.ErrInvalid, i, r.Schema(), schema)
		}
		rows += r.NumRows()
	}
	if rows > 1<<31-1 {
		return nil, fmt.Errorf("%w: concat: %d rows exceed a batch (2^31-1)", device.ErrInvalid, rows)
	}
	// Arrow's Concatenate loses what it allocated when an allocation fails
	// half way, so ask the account for the bytes first.
	if t.Account != nil {
		need := uint64(0)
		for _, r := range recs {
			need += recordBytes(r)
		}
		if err := t.Account.Reserve(need); err != nil {
			return nil, fmt.Errorf("concat of %d rows: %w", rows, err)
		}
		t.Account.Release(need)
	}
	mem := t.OutputAllocator()
	cols := make([]arrow.Array, schema.NumFields())
	release := func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}
	parts := make([]arrow.Array, len(recs))
	for j := range cols {
		for i, r := range recs {
			parts[i] = r.Column(j)
		}
		err := hmem.Catch(func() (err error) {
			cols[j], err = array.Concatenate(parts, mem)
			return err
		})
		if err != nil {
			release()
			return nil, fmt.Errorf("concat: column %d (%s): %w", j, schema.Field(j).Name, err)
		}
	}
	rec := array.NewRecord(schema, cols, rows)
	release()
	return rec, nil
}

// recordBytes is the size of a record's buffers (dictionaries included).
func recordBytes(r arrow.Record) uint64 {
	var n uint64
	var add func(d arrow.ArrayData)
	add = func(d arrow.ArrayData) {
		for _, b := range d.Buffers() {
			if b != nil {
				n += uint64(b.Len())
			}
		}
		for _, c := range d.Children() {
			add(c)
		}
		if d.DataType().ID() == arrow.DICTIONARY {
			add(d.Dictionary())
		}
	}
	for _, c := range r.Columns() {
		add(c.Data())
	}
	return n
}
