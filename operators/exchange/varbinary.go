package exchange

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// varBinary reads the values of a string or binary array (32- or 64-bit
// offsets) as byte slices without copying. The slices alias the array's
// buffers and are valid while the array is.
type varBinary struct {
	off32 []int32
	off64 []int64
	data  []byte
}

func (v varBinary) value(i int) []byte {
	if v.off32 != nil {
		return v.data[v.off32[i]:v.off32[i+1]]
	}
	return v.data[v.off64[i]:v.off64[i+1]]
}

// asVarBinary returns a reader for string, binary, large string and large
// binary arrays, and false for any other array.
func asVarBinary(col arrow.Array) (varBinary, bool) {
	var v varBinary
	switch a := col.(type) {
	case *array.String:
		v.off32 = a.ValueOffsets()
	case *array.Binary:
		v.off32 = a.ValueOffsets()
	case *array.LargeString:
		v.off64 = a.ValueOffsets()
	case *array.LargeBinary:
		v.off64 = a.ValueOffsets()
	default:
		return v, false
	}
	if bufs := col.Data().Buffers(); len(bufs) > 2 && bufs[2] != nil {
		v.data = bufs[2].Bytes()
	}
	return v, true
}
