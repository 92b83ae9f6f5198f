package soft_test

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/hados-io/hados/device"
)

// randVCol is a random column of n rows of type vt with the given null
// rate; strings share prefixes and vary in length, doubles include NaN,
// -0.0 and infinities.
func randVCol(r *rand.Rand, vt device.VType, n int, nullRate float64) vcol {
	c := vcol{vt: vt, vals: make([]val, n)}
	for i := range c.vals {
		v := &c.vals[i]
		if r.Float64() < nullRate {
			v.null = true
			continue
		}
		switch vt {
		case device.VTBool:
			v.i = int64(r.IntN(2))
		case device.VTI32:
			v.i = int64(int32(r.Uint32() >> r.IntN(32)))
			if r.IntN(2) == 0 {
				v.i = int64(r.IntN(7) - 3)
			}
		case device.VTI64:
			v.i = int64(r.Uint64() >> r.IntN(64))
			if r.IntN(2) == 0 {
				v.i = int64(r.IntN(7) - 3)
			}
		case device.VTF64:
			specials := []float64{math.NaN(), math.Copysign(0, -1), 0, math.Inf(1), math.Inf(-1), 1.5, -1.5}
			if r.IntN(3) == 0 {
				v.f = specials[r.IntN(len(specials))]
			} else {
				v.f = r.NormFloat64() * 1e6
			}
		case device.VTI128:
			x := new(big.Int).Lsh(big.NewInt(r.Int64N(1<<62)), uint(r.IntN(64)))
			if r.IntN(2) == 0 {
				x.Neg(x)
			}
			if r.IntN(3) == 0 {
				x = big.NewInt(int64(r.IntN(5) - 2))
			}
			v.x = x
		default:
			prefixes := []string{"", "a", "ab", "abc", "zz", "aaaaaaaaaaaaaaaaaaaaaa"}
			v.s = prefixes[r.IntN(len(prefixes))] + strings.Repeat(string(rune('a'+r.IntN(3))), r.IntN(4))
			if r.IntN(20) == 0 {
				v.s += strings.Repeat("x", 40+r.IntN(60))
			}
		}
	}
	return c
}

var allVTypes = []device.VType{device.VTBool, device.VTI32, device.VTI64, device.VTF64, device.VTI128, device.VTStr}

// encodings of a column for the layouts a type supports.
func encodingsOf(vt device.VType) []colEnc {
	encs := []colEnc{{}, {offset: 3}}
	if vt == device.VTStr {
		encs = append(encs, colEnc{large: true}, colEnc{dict: true, offset: 1}, colEnc{large: true, offset: 5})
	}
	return encs
}

// runGather gathers rows of cols into fresh output columns.
func (e *env) runGather(cols []device.Column, rows uint64, idx []int32, strBytes int) ([]vcol, uint64, error) {
	e.t.Helper()
	desc, err := (&device.Gather{Rows: rows, Columns: cols}).Encode()
	if err != nil {
		e.t.Fatal(err)
	}
	var outs []device.Column
	for _, c := range cols {
		outs = append(outs, e.outColumn(c.VType, len(idx), strBytes))
	}
	ib := make([]byte, 4*len(idx)+4)
	for i, x := range idx {
		binary.LittleEndian.PutUint32(ib[4*i:], uint32(x))
	}
	ia, da, oa := e.put(ib), e.put(desc), e.put(device.EncodeColumns(outs, uint64(len(idx))))
	c := run(e.t, e.q, device.Op{Code: device.OpGather, Src: da, Len: uint64(len(desc)), Args: [4]uint64{uint64(ia), uint64(len(idx)), uint64(oa)}})
	if c.Err != nil {
		return nil, c.Results[0], c.Err
	}
	res := make([]vcol, len(outs))
	for j, o := range outs {
		res[j] = e.readColumn(o, int(c.Results[0]))
	}
	return res, c.Results[0], nil
}

// TestGatherOp gathers random row numbers (with -1 rows) of every value
// type and layout and compares with the input rows.
func TestGatherOp(t *testing.T) {
	for _, mode := range []string{"host-visible", "discrete"} {
		e := newEnv(t, "soft:memory=64MiB,cores=1,mode="+mode, 48<<20)
		for _, vt := range allVTypes {
			for ei, enc := range encodingsOf(vt) {
				for _, n := range []int{0, 1, 9, 1000} {
					e.reset()
					r := rand.New(rand.NewPCG(uint64(n), uint64(vt)*10+uint64(ei)))
					in := randVCol(r, vt, n, 0.2)
					col := e.putColumn(in, enc)
					idx := make([]int32, 2*n+3)
					for i := range idx {
						idx[i] = -1
						if n > 0 && r.IntN(5) != 0 {
							idx[i] = int32(r.IntN(n))
						}
					}
					name := fmt.Sprintf("%s/%v/%+v/%d", mode, vt, enc, n)
					got, res, err := e.runGather([]device.Column{col}, uint64(n), idx, 64*len(idx)+200*n)
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					if res != uint64(len(idx)) {
						t.Fatalf("%s: result %d, want %d", name, res, len(idx))
					}
					for i, x := range idx {
						want := val{null: true}
						if x >= 0 {
							want = in.vals[x]
						}
						if !sameVal(vt, got[0].vals[i], want) {
							t.Fatalf("%s: row %d (input row %d): got %v, want %v", name, i, x, got[0].vals[i], want)
						}
					}
				}
			}
		}
	}
}

// TestGatherOpErrors covers string capacity (E_NOMEM with the bytes
// needed), bad row numbers, nulls into a column without validity, and a
// bad descriptor.
func TestGatherOpErrors(t *testing.T) {
	e := newEnv(t, "soft:memory=16MiB,cores=1", 8<<20)
	in := vcol{vt: device.VTStr, vals: []val{{s: "hello"}, {s: "world!"}, {null: true}}}
	col := e.putColumn(in, colEnc{})
	_, res, err := e.runGather([]device.Column{col}, 3, []int32{0, 1, 1, 2}, 4)
	if !errIs(err, device.ErrNoMemory, "string bytes") || res != 17 {
		t.Fatalf("short string capacity: result %d, err %v (want E_NOMEM, 17 bytes needed)", res, err)
	}
	if _, _, err := e.runGather([]device.Column{col}, 3, []int32{0, 3}, 64); !errIs(err, device.ErrInvalid, "row number 3 at 1 is outside [0, 3)") {
		t.Fatalf("row out of range: %v", err)
	}
	if _, _, err := e.runGather([]device.Column{col}, 3, []int32{-2}, 64); !errIs(err, device.ErrInvalid, "row number -2") {
		t.Fatalf("row -2: %v", err)
	}
	// An output column without a validity bitmap cannot take a null row.
	desc, _ := (&device.Gather{Rows: 3, Columns: []device.Column{col}}).Encode()
	out := e.outColumn(device.VTStr, 2, 64)
	out.Validity = 0
	ia, da, oa := e.put([]byte{0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff}), e.put(desc), e.put(device.EncodeColumns([]device.Column{out}, 2))
	c := run(t, e.q, device.Op{Code: device.OpGather, Src: da, Len: uint64(len(desc)), Args: [4]uint64{uint64(ia), 2, uint64(oa)}})
	if !errIs(c.Err, device.ErrInvalid, "no validity bitmap") {
		t.Fatalf("null into a column without validity: %v", c.Err)
	}
	// Type mismatch between input and output.
	out = e.outColumn(device.VTI64, 2, 0)
	oa = e.put(device.EncodeColumns([]device.Column{out}, 2))
	c = run(t, e.q, device.Op{Code: device.OpGather, Src: da, Len: uint64(len(desc)), Args: [4]uint64{uint64(ia), 2, uint64(oa)}})
	if !errIs(c.Err, device.ErrInvalid, "type i64") && !errIs(c.Err, device.ErrInvalid, "type I64") {
		t.Fatalf("output type mismatch: %v", c.Err)
	}
	// Bad magic, too few bytes.
	bad := append([]byte(nil), desc...)
	bad[0] ^= 1
	ba := e.put(bad)
	c = run(t, e.q, device.Op{Code: device.OpGather, Src: ba, Len: uint64(len(bad)), Args: [4]uint64{uint64(ia), 1, uint64(oa)}})
	if !errIs(c.Err, device.ErrInvalid, "bad magic") {
		t.Fatalf("bad magic: %v", c.Err)
	}
	c = run(t, e.q, device.Op{Code: device.OpGather, Src: da, Len: 30, Args: [4]uint64{uint64(ia), 1, uint64(oa)}})
	if !errIs(c.Err, device.ErrInvalid, "size field") {
		t.Fatalf("short descriptor: %v", c.Err)
	}
}

// TestGatherOpStringLengths gathers strings of every length from 0 to 100
// bytes (each byte distinct, so a copy that overlaps wrongly shows), with
// nulls and -1 rows, in random order over more rows than the gather
// prefetches ahead, for every string layout: the inline short copies and
// the two-stage prefetch of GATHER.
func TestGatherOpStringLengths(t *testing.T) {
	e := newEnv(t, "soft:memory=64MiB,cores=1", 48<<20)
	const n = 404
	in := vcol{vt: device.VTStr, vals: make([]val, n)}
	for i := range in.vals {
		if i%7 == 3 {
			in.vals[i].null = true
			continue
		}
		b := make([]byte, i%101)
		for j := range b {
			b[j] = byte(33 + (i+j*5)%90)
		}
		in.vals[i].s = string(b)
	}
	for ei, enc := range encodingsOf(device.VTStr) {
		e.reset()
		r := rand.New(rand.NewPCG(uint64(ei), 7))
		col := e.putColumn(in, enc)
		idx := make([]int32, 3*n)
		for i := range idx {
			idx[i] = int32(r.IntN(n+n/10)) - int32(n/10)
			if idx[i] < 0 {
				idx[i] = -1
			}
		}
		got, res, err := e.runGather([]device.Column{col}, n, idx, 110*len(idx))
		if err != nil || res != uint64(len(idx)) {
			t.Fatalf("%+v: result %d, %v", enc, res, err)
		}
		for i, x := range idx {
			want := val{null: true}
			if x >= 0 {
				want = in.vals[x]
			}
			if !sameVal(device.VTStr, got[0].vals[i], want) {
				t.Fatalf("%+v: row %d (input row %d): got %q, want %q", enc, i, x, got[0].vals[i].s, want.s)
			}
		}
	}
}
