package soft_test

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strings"
	"testing"

	"github.com/hados-io/hados/device"
)

// The harness of the pipeline tests: a device (host-visible, or discrete
// where every byte crosses COPY ops), a bump allocator over one device
// block, Arrow-layout encoding of Go values into input columns, and the
// decoding of SINK_PROJECT output columns back into Go values.

// val is one value of any pipeline type; null rows ignore the rest.
type val struct {
	null bool
	i    int64    // BOOL (0/1), I32, I64
	f    float64  // F64
	x    *big.Int // I128
	s    string   // STR
}

func (v val) String() string {
	switch {
	case v.null:
		return "null"
	case v.x != nil:
		return v.x.String()
	case v.s != "":
		return fmt.Sprintf("%q", v.s)
	}
	return fmt.Sprintf("i=%d f=%v", v.i, v.f)
}

// vcol is a column of Go values.
type vcol struct {
	vt   device.VType
	vals []val
}

// env is a device, a queue and a block of device memory handed out by a
// bump allocator. The block is freed by the test's cleanup.
type env struct {
	t        testing.TB
	d        device.Device
	q        device.Queue
	discrete bool
	base     device.Addr
	size     uint64
	next     uint64
}

func newEnv(t testing.TB, cfg string, block uint64) *env {
	d := open(t, cfg)
	e := &env{t: t, d: d, q: queue(t, d, 8), discrete: d.Info().Mode == device.Discrete, size: block}
	e.base = alloc(t, d, block)
	return e
}

func (e *env) reset() { e.next = 0 }

func (e *env) alloc(n uint64) device.Addr {
	e.t.Helper()
	n = (n + 63) &^ 63
	if n == 0 {
		n = 64
	}
	if e.next+n > e.size {
		e.t.Fatalf("test block of %d bytes exhausted", e.size)
	}
	a := e.base + device.Addr(e.next)
	e.next += n
	return a
}

func (e *env) write(a device.Addr, b []byte) {
	e.t.Helper()
	if len(b) == 0 {
		return
	}
	if !e.discrete {
		m, err := e.d.Map(a, uint64(len(b)))
		if err != nil {
			e.t.Fatal(err)
		}
		copy(m, b)
		return
	}
	if c := run(e.t, e.q, device.Op{Code: device.OpCopyH2D, Dst: a, Len: uint64(len(b)), Host: b}); c.Err != nil {
		e.t.Fatal(c.Err)
	}
}

func (e *env) read(a device.Addr, n uint64) []byte {
	e.t.Helper()
	b := make([]byte, n)
	if n == 0 {
		return b
	}
	if !e.discrete {
		m, err := e.d.Map(a, n)
		if err != nil {
			e.t.Fatal(err)
		}
		copy(b, m)
		return b
	}
	if c := run(e.t, e.q, device.Op{Code: device.OpCopyD2H, Src: a, Len: n, Host: b}); c.Err != nil {
		e.t.Fatal(c.Err)
	}
	return b
}

func (e *env) put(b []byte) device.Addr {
	a := e.alloc(uint64(len(b)))
	e.write(a, b)
	return a
}

func setBit(b []byte, i int, on bool) {
	if on {
		b[i/8] |= 1 << (i % 8)
	} else {
		b[i/8] &^= 1 << (i % 8)
	}
}

func bitAt(b []byte, i int) bool { return b[i/8]>>(i%8)&1 == 1 }

func i128Bytes(x *big.Int) []byte {
	m := new(big.Int).Set(x)
	if m.Sign() < 0 {
		m.Add(m, new(big.Int).Lsh(big.NewInt(1), 128))
	}
	b := make([]byte, 16)
	mb := m.Bytes()
	for i := range mb {
		b[i] = mb[len(mb)-1-i]
	}
	return b
}

func i128From(b []byte) *big.Int {
	be := make([]byte, 16)
	for i := range be {
		be[i] = b[15-i]
	}
	x := new(big.Int).SetBytes(be)
	if b[15]&0x80 != 0 {
		x.Sub(x, new(big.Int).Lsh(big.NewInt(1), 128))
	}
	return x
}

// colEnc says how a test column is laid out.
type colEnc struct {
	offset int  // Arrow offset: this many leading elements precede row 0
	dict   bool // STR: dictionary-encoded
	large  bool // STR: int64 offsets
	fixed  bool // I32, I64, F64, I128: dictionary-encoded (pipeline ops only)
	codes  int  // dict / fixed: code width: 0 int32, 1 int8, 2 uint8, 3 int16 (int32 when the values do not fit)
}

// dictCodes writes the dictionary codes of n elements (code -1: a null
// row, written as junk) with the narrowest width enc allows for card
// distinct values, and returns them with their column flags.
func dictCodes(enc colEnc, code []int, card int) ([]byte, uint32) {
	w, flags, max := 4, device.ColDict, math.MaxInt32
	switch enc.codes {
	case 1:
		w, flags, max = 1, flags|device.ColIdx8, math.MaxInt8
	case 2:
		w, flags, max = 1, flags|device.ColIdxU8, math.MaxUint8
	case 3:
		w, flags, max = 2, flags|device.ColIdx16, math.MaxInt16
	}
	if card > max+1 {
		w, flags = 4, device.ColDict
	}
	b := make([]byte, w*len(code)+8)
	for i, k := range code {
		if k < 0 {
			k = 0x5eadbeef // a null row's code is never read
		}
		switch w {
		case 1:
			b[i] = byte(k)
		case 2:
			binary.LittleEndian.PutUint16(b[2*i:], uint16(k))
		default:
			binary.LittleEndian.PutUint32(b[4*i:], uint32(k))
		}
	}
	return b, flags
}

// putColumn encodes c into device memory.
func (e *env) putColumn(c vcol, enc colEnc) device.Column {
	le := binary.LittleEndian
	n := len(c.vals) + enc.offset
	row := func(i int) val { // element i (leading elements are junk rows)
		if i < enc.offset {
			return val{null: i%2 == 0, i: 1, f: 1, x: big.NewInt(7), s: "junk"}
		}
		return c.vals[i-enc.offset]
	}
	col := device.Column{VType: c.vt, Length: uint64(len(c.vals)), Offset: uint64(enc.offset)}
	validity := make([]byte, (n+7)/8+8)
	nulls := 0
	for i := 0; i < n; i++ {
		v := row(i)
		setBit(validity, i, !v.null)
		if v.null && i >= enc.offset {
			nulls++
		}
	}
	col.NullCount = uint64(nulls)
	if nulls > 0 || enc.offset%3 == 1 { // sometimes a bitmap with no nulls
		col.Validity = e.put(validity)
	}
	switch c.vt {
	case device.VTBool:
		b := make([]byte, (n+7)/8+8)
		for i := 0; i < n; i++ {
			setBit(b, i, row(i).i != 0)
		}
		col.Data = e.put(b)
	case device.VTI32, device.VTI64, device.VTF64, device.VTI128:
		w := c.vt.Width()
		m := n
		var code []int
		if enc.fixed { // the distinct values (by their encoding) in first-seen order
			code = make([]int, n)
			seen := map[string]int{}
			vals := c.vals[:0:0]
			for i := 0; i < n; i++ {
				v := row(i)
				code[i] = -1
				if v.null {
					continue
				}
				k := v.String()
				if c.vt == device.VTF64 {
					k = fmt.Sprint(math.Float64bits(v.f))
				}
				j, ok := seen[k]
				if !ok {
					j = len(vals)
					seen[k] = j
					vals = append(vals, v)
				}
				code[i] = j
			}
			m = len(vals)
			row = func(i int) val { return vals[i] } // the values buffer is the dictionary
		}
		b := make([]byte, m*w+8)
		for i := 0; i < m; i++ {
			v := row(i)
			switch c.vt {
			case device.VTI32:
				le.PutUint32(b[4*i:], uint32(v.i))
			case device.VTI64:
				le.PutUint64(b[8*i:], uint64(v.i))
			case device.VTF64:
				le.PutUint64(b[8*i:], math.Float64bits(v.f))
			default:
				x := v.x
				if x == nil {
					x = new(big.Int)
				}
				copy(b[16*i:], i128Bytes(x))
			}
		}
		if enc.fixed {
			codes, flags := dictCodes(enc, code, m)
			col.Flags = flags
			col.Data = e.put(codes)
			col.DictData = e.put(b)
			col.DictLength = uint64(m)
			break
		}
		col.Data = e.put(b)
	default:
		if enc.dict {
			idx := map[string]int{}
			var dict []string
			code := make([]int, n)
			for i := 0; i < n; i++ {
				v := row(i)
				code[i] = -1
				if v.null {
					continue
				}
				k, ok := idx[v.s]
				if !ok {
					k = len(dict)
					idx[v.s] = k
					dict = append(dict, v.s)
				}
				code[i] = k
			}
			codes, flags := dictCodes(enc, code, len(dict))
			col.Flags = flags
			offs := make([]byte, 4*len(dict)+4)
			var data []byte
			for k, s := range dict {
				data = append(data, s...)
				le.PutUint32(offs[4*k+4:], uint32(len(data)))
			}
			col.Data = e.put(codes)
			col.DictOffsets = e.put(offs)
			col.DictData = e.put(append(data, 0))
			col.DictLength = uint64(len(dict))
			break
		}
		w := 4
		if enc.large {
			w = 8
			col.Flags = device.ColLarge
		}
		offs := make([]byte, w*(n+1))
		var data []byte
		for i := 0; i < n; i++ {
			data = append(data, row(i).s...)
			if w == 4 {
				le.PutUint32(offs[4*i+4:], uint32(len(data)))
			} else {
				le.PutUint64(offs[8*i+8:], uint64(len(data)))
			}
		}
		col.Offsets = e.put(offs)
		col.Data = e.put(append(data, 0))
	}
	return col
}

// outColumn preallocates a project output column for rows rows.
func (e *env) outColumn(vt device.VType, rows int, strBytes int) device.Column {
	c := device.Column{VType: vt}
	c.Validity = e.alloc(uint64(rows+7) / 8)
	switch vt {
	case device.VTBool:
		c.Data = e.alloc(uint64(rows+7) / 8)
	case device.VTStr:
		c.Offsets = e.alloc(4 * uint64(rows+1))
		c.Data = e.alloc(uint64(strBytes))
		c.Capacity = uint64(strBytes)
	default:
		c.Data = e.alloc(uint64(rows * vt.Width()))
	}
	return c
}

// readColumn decodes rows rows of an output column.
func (e *env) readColumn(c device.Column, rows int) vcol {
	le := binary.LittleEndian
	out := vcol{vt: c.VType, vals: make([]val, rows)}
	if rows == 0 {
		return out
	}
	var validity []byte
	if c.Validity != 0 {
		validity = e.read(c.Validity, uint64(rows+7)/8)
	}
	var data, offs []byte
	switch c.VType {
	case device.VTBool:
		data = e.read(c.Data, uint64(rows+7)/8)
	case device.VTStr:
		offs = e.read(c.Offsets, 4*uint64(rows+1))
		data = e.read(c.Data, uint64(le.Uint32(offs[4*rows:])))
	default:
		data = e.read(c.Data, uint64(rows*c.VType.Width()))
	}
	for i := range out.vals {
		v := &out.vals[i]
		if validity != nil && !bitAt(validity, i) {
			v.null = true
			continue
		}
		switch c.VType {
		case device.VTBool:
			if bitAt(data, i) {
				v.i = 1
			}
		case device.VTI32:
			v.i = int64(int32(le.Uint32(data[4*i:])))
		case device.VTI64:
			v.i = int64(le.Uint64(data[8*i:]))
		case device.VTF64:
			v.f = math.Float64frombits(le.Uint64(data[8*i:]))
		case device.VTI128:
			v.x = i128From(data[16*i:])
		default:
			v.s = string(data[le.Uint32(offs[4*i:]):le.Uint32(offs[4*i+4:])])
		}
	}
	return out
}

// runPipeline encodes p, runs it over rows [rb, re) with sink state sink
// and returns the op's result and error.
func (e *env) runPipeline(p *device.Pipeline, rb, re uint64, sink device.Addr) (uint64, error) {
	e.t.Helper()
	desc, err := p.Encode()
	if err != nil {
		e.t.Fatalf("encode: %v", err)
	}
	return e.runDescriptor(desc, rb, re, sink)
}

func (e *env) runDescriptor(desc []byte, rb, re uint64, sink device.Addr) (uint64, error) {
	e.t.Helper()
	a := e.put(desc)
	c := run(e.t, e.q, device.Op{Code: device.OpPipeline, Src: a, Len: uint64(len(desc)), Args: [4]uint64{rb, re, uint64(sink)}})
	return c.Results[0], c.Err
}

// project runs p with a SINK_PROJECT of the registers regs (whose types
// are outs) and returns the output columns.
func (e *env) project(p *device.Pipeline, rows int, strBytes int) ([]vcol, error) {
	e.t.Helper()
	var cols []device.Column
	for _, r := range p.Project {
		cols = append(cols, e.outColumn(p.RegTypes[r], rows, strBytes))
	}
	out := e.put(device.EncodeColumns(cols, uint64(rows)))
	n, err := e.runPipeline(p, 0, uint64(rows), out)
	if err != nil {
		return nil, err
	}
	res := make([]vcol, len(cols))
	for j, c := range cols {
		res[j] = e.readColumn(c, int(n))
	}
	return res, nil
}

// sameVal compares a result with the reference (doubles bitwise but all
// NaNs equal).
func sameVal(vt device.VType, got, want val) bool {
	if got.null || want.null {
		return got.null == want.null
	}
	switch vt {
	case device.VTF64:
		if math.IsNaN(got.f) || math.IsNaN(want.f) {
			return math.IsNaN(got.f) && math.IsNaN(want.f)
		}
		return math.Float64bits(got.f) == math.Float64bits(want.f)
	case device.VTI128:
		return got.x != nil && want.x != nil && got.x.Cmp(want.x) == 0
	case device.VTStr:
		return got.s == want.s
	}
	return got.i == want.i
}

func errIs(err error, target error, substr string) bool {
	return errors.Is(err, target) && strings.Contains(err.Error(), substr)
}
