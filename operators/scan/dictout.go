package scan

import (
	"fmt"
	"slices"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// String columns handed on as dictionaries (Options.DictColumns).
//
// A wholly dictionary-encoded string column (dictread.go, dictpage.go) is
// decoded to dictionary indices anyway; expanding them into dense utf8
// (expandIndices) writes every row's bytes and offsets, ~10% of TPC-H
// Q19's CPU, when the consumer — a device pipeline, which reads
// dictionary<int32, utf8> columns as views into the dictionary — often
// only compares the values or gathers the few surviving rows. So a
// column named in Options.DictColumns comes out as
// dictionary<int32, utf8|binary>: the row group's dictionary once, in the
// decode allocator's memory, shared (retained) by every batch of the row
// group (pqarrow's dictionary reader, which the scan uses when row ranges
// cut a row group, gives each batch a copy of it), and per batch an int32
// index buffer (4 bytes a row) in which a
// null slot's index is 0 and every valid slot's index was checked against
// the dictionary (an index outside it is an error wrapping ErrCorrupt).
//
// The type of a column must not change from record to record, and
// Scanner.Schema must say what the records hold: a column is output as a
// dictionary only when every file of the scan has it and reads it as a
// dictionary (dictReadLeaves: every chunk of it in the file is wholly
// dictionary encoded, and it decodes as the required type); otherwise it
// is dense in every file, as without the option. Index width is int32 for
// the same reason: a narrower one would depend on each row group's
// dictionary size, which the footer does not give.

// dictOutput switches Options.DictColumns on (off: every column dense;
// tests and A/B).
var dictOutput = true

// dictOutBatches counts the column batches output as dictionaries,
// process wide (tests check the path is taken).
var dictOutBatches atomic.Int64

// planDictOutput decides which of Options.DictColumns come out as
// dictionaries (see above) and types them so in s.out and s.schema. It
// runs after readFooters.
func (s *Scanner) planDictOutput() {
	if !dictOutput || len(s.opt.DictColumns) == 0 || len(s.files) == 0 {
		return
	}
	fields := s.schema.Fields()
	changed := false
	for i := range s.out {
		c := &s.out[i]
		if c.Partition || !slices.Contains(s.opt.DictColumns, c.Name) {
			continue
		}
		if id := c.arrow.ID(); id != arrow.STRING && id != arrow.BINARY {
			continue
		}
		all := true
		for _, f := range s.files {
			fc := f.schema.lookup(c.Name)
			if fc == nil || fc.leaf < 0 || fc.read == nil || !arrow.TypeEqual(fc.read, c.arrow) || !slices.Contains(f.dictLeaves, fc.leaf) {
				all = false
				break
			}
			for j, o := range s.out { // two names of one file column (by case) share its decoding: dense
				if j != i && !o.Partition && f.schema.lookup(o.Name) == fc {
					all = false
				}
			}
		}
		if !all {
			continue
		}
		c.dict = &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: c.arrow}
		fields[i].Type = c.dict
		changed = true
	}
	if changed {
		s.schema = arrow.NewSchema(fields, nil)
	}
}

// checkDictColumns checks every name of Options.DictColumns is a required
// column.
func checkDictColumns(o *Options) error {
	for _, name := range o.DictColumns {
		if !slices.ContainsFunc(o.Columns, func(c Column) bool { return c.Name == name }) {
			return fmt.Errorf("%w: dictionary column %s is not a required column", ErrOptions, name)
		}
	}
	return nil
}

// dictIndices returns d (a dictionary with int32 indices, possibly a
// slice, whose indices may be anything in null slots and are unchecked) as
// an array of type typ over the same dictionary, with its own index and
// validity buffers from mem: null slots' indices are 0, and a valid
// slot's index outside the dictionary is an error wrapping ErrCorrupt.
// The caller releases the result (d is not consumed).
func dictIndices(mem memory.Allocator, d *array.Dictionary, typ *arrow.DictionaryType) (arrow.Array, error) {
	idx, ok := d.Indices().(*array.Int32)
	if !ok {
		return nil, fmt.Errorf("%w: dictionary indices of type %s", ErrCorrupt, d.Indices().DataType())
	}
	dict := d.Dictionary()
	if !arrow.TypeEqual(dict.DataType(), typ.ValueType) {
		return nil, fmt.Errorf("%w: dictionary of %s, the scan outputs %s", ErrSchemaMismatch, dict.DataType(), typ.ValueType)
	}
	if dict.NullN() > 0 {
		return nil, fmt.Errorf("%w: a dictionary with null entries", ErrCorrupt)
	}
	dn := uint32(dict.Len())
	ix := idx.Int32Values()
	n := len(ix)
	nulls := d.NullN()
	valid, voff := d.NullBitmapBytes(), d.Data().Offset()

	idxBuf := memory.NewResizableBuffer(mem)
	defer idxBuf.Release()
	idxBuf.Resize(n * arrow.Int32SizeBytes)
	out := arrow.Int32Traits.CastFromBytes(idxBuf.Bytes())[:n:n]
	copy(out, ix)
	var validity *memory.Buffer
	if nulls > 0 {
		for i := range out {
			if !bitutil.BitIsSet(valid, voff+i) {
				out[i] = 0
			}
		}
		validity = copyValidity(mem, valid, voff, n)
		defer validity.Release()
	}
	if k, bad := outOfRange(out, int(dn), valid, voff, nulls); bad {
		return nil, badIndex(k, int(dn))
	}
	data := array.NewDataWithDictionary(typ, n, []*memory.Buffer{validity, idxBuf}, nulls, 0, dict.Data().(*array.Data))
	defer data.Release()
	dictOutBatches.Add(1)
	return array.MakeFromData(data), nil
}

// outOfRange returns the first index of a valid slot of ix outside a
// dictionary of dn values, and true (bit voff+i of valid says slot i is
// valid; valid is unread when nulls is 0), or false when there is none:
// one pass finds the largest index, and the slots are looked at only when
// it is out of range.
func outOfRange(ix []int32, dn int, valid []byte, voff, nulls int) (int32, bool) {
	var hi uint32
	for _, k := range ix {
		hi = max(hi, uint32(k))
	}
	if len(ix) == 0 || hi < uint32(dn) {
		return 0, false
	}
	for i, k := range ix {
		if uint32(k) >= uint32(dn) && (nulls == 0 || bitutil.BitIsSet(valid, voff+i)) {
			return k, true
		}
	}
	return 0, false
}

// dictValues is the chunk's dictionary (c.dOffs, c.dBytes) as an array of
// c.typ in mem's memory, made once per chunk and released by close.
func (c *dictColumn) dictValues(mem memory.Allocator) arrow.Array {
	if c.dictArr != nil {
		return c.dictArr
	}
	dOffs := c.dOffs
	if len(dOffs) == 0 { // no dictionary page (a chunk of nulls only)
		dOffs = []int32{0}
	}
	n := len(dOffs) - 1
	offs := memory.NewResizableBuffer(mem)
	defer offs.Release()
	offs.Resize((n + 1) * arrow.Int32SizeBytes)
	copy(arrow.Int32Traits.CastFromBytes(offs.Bytes()), dOffs)
	vals := memory.NewResizableBuffer(mem)
	defer vals.Release()
	vals.Resize(len(c.dBytes))
	copy(vals.Bytes(), c.dBytes)
	data := array.NewData(c.typ, n, []*memory.Buffer{nil, offs, vals}, nil, 0, 0)
	defer data.Release()
	c.dictArr = array.MakeFromData(data)
	return c.dictArr
}

// cleanDictMeta marks, in the schema of withOwn's records, the
// dictionary columns nextDict made: their indices are already checked,
// null slots 0, in buffers of their own, so emit hands them on as they
// are instead of copying them (dictIndices).
var cleanDictMeta = arrow.NewMetadata([]string{cleanDictKey}, []string{"1"})

const cleanDictKey = "hados.scan.clean-dictionary"

// isCleanDict reports whether field f carries cleanDictMeta.
func isCleanDict(f arrow.Field) bool { return f.Metadata.FindKey(cleanDictKey) >= 0 }

// nextDict is next for a dictOut column: the n rows' indices decoded
// straight into an index buffer from mem, null slots 0, checked against
// the chunk's dictionary (dictValues), whose array the result shares. The
// caller releases the result.
func (c *dictColumn) nextDict(mem memory.Allocator, n int) (arrow.Array, error) {
	idxBuf := memory.NewResizableBuffer(mem)
	defer idxBuf.Release()
	idxBuf.Resize(n * arrow.Int32SizeBytes)
	ix := arrow.Int32Traits.CastFromBytes(idxBuf.Bytes())[:n:n]
	valid, nulls, err := c.indices(ix)
	if err != nil {
		return nil, err
	}
	dv := c.dictValues(mem)
	// a null's 0 may be outside an empty dictionary: outOfRange reads the
	// validity
	if k, bad := outOfRange(ix, dv.Len(), valid, 0, nulls); bad {
		return nil, c.indexErr(k, dv.Len())
	}
	var validity *memory.Buffer
	if nulls > 0 {
		validity = copyValidity(mem, valid, 0, n)
		defer validity.Release()
	}
	typ := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: c.typ}
	data := array.NewDataWithDictionary(typ, n, []*memory.Buffer{validity, idxBuf}, nulls, 0, dv.Data().(*array.Data))
	defer data.Release()
	dictOutBatches.Add(1)
	return array.MakeFromData(data), nil
}
