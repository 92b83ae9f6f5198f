package arrowsize

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// Record is the size of the buffers rec's columns reference (see the
// package comment).
func Record(rec arrow.RecordBatch) int64 {
	var n int64
	for _, c := range rec.Columns() {
		n += Data(c.Data())
	}
	return n
}

// Data is the size of d's buffers, its children's and its dictionary's.
func Data(d arrow.ArrayData) int64 {
	var n int64
	for _, b := range d.Buffers() {
		if b != nil {
			n += int64(b.Len())
		}
	}
	for _, c := range d.Children() {
		n += Data(c)
	}
	if dict, ok := d.Dictionary().(*array.Data); ok && dict != nil { // a typed nil when absent
		n += Data(dict)
	}
	return n
}
