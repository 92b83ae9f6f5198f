package soft

// Test hook for the aggregation state (soft_agg.c). Test files cannot use
// cgo, so these unexported helpers let agg_test.go drive soft_agg_create,
// _update, _merge, _emit and _free directly on registers built from Go
// values, before (and independently of) the pipeline interpreter. Nothing
// outside the package's tests calls them.
//
// Memory: every C buffer a call builds (registers, string bytes, the spec)
// is allocated and released within that call; a hookState is released
// with free, a hookDev with close. No Go pointer is stored in C memory.

/*
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "soft_pipeline.h"

const hados_driver_vtable *hados_soft_driver_entry(void);

static void hk_msg(char *msg) { snprintf(msg, 512, "%s", soft_last_error()); }

static int hk_open(const char *cfg, hados_device **out, char *msg) {
  int s = hados_soft_driver_entry()->open(cfg, 0, out);
  if (s) hk_msg(msg);
  return s;
}
static void hk_close(hados_device *d) { hados_soft_driver_entry()->close(d); }
static uint64_t hk_heap_used(hados_device *d) {
  soft_device *sd = (soft_device *)d;
  pthread_mutex_lock(&sd->heap.mu);
  uint64_t u = sd->heap.used;
  pthread_mutex_unlock(&sd->heap.mu);
  return u;
}
static int hk_alloc(hados_device *d, uint64_t n, uint64_t *addr, void **host, char *msg) {
  int s = hados_soft_driver_entry()->alloc(d, n, addr);
  if (s) { hk_msg(msg); return s; }
  soft_device *sd = (soft_device *)d;
  *host = sd->mem + (*addr - sd->base);
  memset(*host, 0xA5, n);
  return 0;
}
static void hk_free(hados_device *d, uint64_t addr) { hados_soft_driver_entry()->free(d, addr); }

static int hk_create(hados_device *d, const hados_agg_spec *spec, uint64_t budget, soft_agg_state **out, char *msg) {
  int s = soft_agg_create((soft_device *)d, spec, budget, out);
  if (s) hk_msg(msg);
  return s;
}
static int hk_update(soft_agg_state *st, soft_reg **keys, soft_reg **args, soft_reg **args2, uint32_t n,
                     const uint16_t *sel, uint32_t sel_n, char *msg) {
  soft_vec v = {.n = n, .sel = sel, .sel_n = sel ? sel_n : n};
  int s = soft_agg_update(st, (const soft_reg *const *)keys, (const soft_reg *const *)args,
                          (const soft_reg *const *)args2, &v);
  if (s) hk_msg(msg);
  return s;
}
static int hk_merge(soft_agg_state *dst, soft_agg_state *src, char *msg) {
  int s = soft_agg_merge(dst, src);
  if (s) hk_msg(msg);
  return s;
}
static int hk_emit(hados_device *d, soft_agg_state *st, const hados_agg_out *out, uint64_t *n, char *msg) {
  int s = soft_agg_emit((soft_device *)d, st, out, n);
  if (s) hk_msg(msg);
  return s;
}
static int hk_roundtrip(hados_device *d, soft_agg_state *st) {
  return soft_agg_from_addr((soft_device *)d, soft_agg_addr((soft_device *)d, st)) == st;
}
// Benchmark driver: folds `vectors` full vectors cycling through nvec
// prepared ones; with distinct > 0, first rewrites key 0 (I64) of the
// vector with pseudo-random keys in [0, distinct); dry: no update.
// *cpu_ns receives the thread's CPU time (robust on a busy machine).
static int hk_bench(soft_agg_state *st, soft_reg ***keys, soft_reg ***args, soft_reg ***args2, uint32_t nvec, uint32_t n,
                    uint64_t vectors, uint64_t distinct, int dry, uint64_t *cpu_ns, char *msg) {
  soft_vec v = {.n = n, .sel = NULL, .sel_n = n};
  struct timespec t0, t1;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
  for (uint64_t it = 0; it < vectors; it++) {
    uint32_t k = (uint32_t)(it % nvec);
    if (distinct) {
      int64_t *kv = (int64_t *)keys[k][0]->data;
      for (uint32_t i = 0; i < n; i++) kv[i] = (int64_t)((((it * n + i) * 0x9E3779B97F4A7C15ULL) >> 11) % distinct);
    }
    if (dry) continue;
    int s = soft_agg_update(st, (const soft_reg *const *)keys[k], (const soft_reg *const *)args[k],
                            (const soft_reg *const *)args2[k], &v);
    if (s) {
      hk_msg(msg);
      return s;
    }
  }
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
  *cpu_ns = (uint64_t)(t1.tv_sec - t0.tv_sec) * 1000000000u + (uint64_t)(t1.tv_nsec - t0.tv_nsec);
  return 0;
}
static hados_column *hk_out_col(hados_agg_out *o, uint64_t i) { return &o->cols[i]; }
*/
import "C"

import (
	"fmt"
	"time"
	"unsafe"
)

// aggVal is one value of any register type: I32, I64 and BOOL in I, F64 in
// F, I128 in W, STR in S.
type aggVal struct {
	Null bool
	I    int64
	F    float64
	W    i128
	S    string
}

// i128 is a two's complement 128-bit integer.
type i128 struct {
	Hi int64
	Lo uint64
}

// hookCol is a register's rows (Vals[row], row < vector size). With
// Intern, equal strings share their bytes, as the views of a dictionary
// column do.
type hookCol struct {
	VT     uint32
	Vals   []aggVal
	Intern bool
}

// hookAgg mirrors hados_agg.
type hookAgg struct {
	Func, Flags, Arg, Arg2 uint16
	In, Out                uint32
}

// hookSpec mirrors hados_agg_spec (key k is register k).
type hookSpec struct {
	Keys    []uint32
	KeyMin  []int64  // optional
	KeyCard []uint64 // optional
	Aggs    []hookAgg
}

// hookError is a failed engine call: the HADOS_E_* status and its message.
type hookError struct {
	Status int
	Msg    string
}

func (e *hookError) Error() string { return fmt.Sprintf("status %d: %s", e.Status, e.Msg) }

func hookErr(s C.int, msg *[512]C.char) error {
	if s == 0 {
		return nil
	}
	return &hookError{Status: int(s), Msg: C.GoString(&msg[0])}
}

// hookDev is an opened software DPU (host-visible). Release with close.
type hookDev struct{ h *C.hados_device }

func hookOpen(memBytes uint64) (*hookDev, error) {
	var msg [512]C.char
	cfg := C.CString(fmt.Sprintf("memory=%d,cores=1", memBytes))
	defer C.free(unsafe.Pointer(cfg))
	var h *C.hados_device
	if err := hookErr(C.hk_open(cfg, &h, &msg[0]), &msg); err != nil {
		return nil, err
	}
	return &hookDev{h: h}, nil
}

func (d *hookDev) close()           { C.hk_close(d.h) }
func (d *hookDev) heapUsed() uint64 { return uint64(C.hk_heap_used(d.h)) }

// hookState is an aggregation state on d. Release with free.
type hookState struct {
	d  *hookDev
	st *C.soft_agg_state
}

func (d *hookDev) create(spec hookSpec, budget uint64) (*hookState, error) {
	var cs C.hados_agg_spec
	cs.n_keys = C.uint32_t(len(spec.Keys))
	cs.n_aggs = C.uint32_t(len(spec.Aggs))
	for k, vt := range spec.Keys {
		if k >= len(cs.key_regs) {
			break
		}
		cs.key_regs[k] = C.uint16_t(k)
		cs.key_vtypes[k] = C.uint32_t(vt)
		if k < len(spec.KeyCard) {
			cs.key_min[k] = C.int64_t(spec.KeyMin[k])
			cs.key_card[k] = C.uint64_t(spec.KeyCard[k])
		}
	}
	for j, a := range spec.Aggs {
		if j >= len(cs.aggs) {
			break
		}
		cs.aggs[j] = C.hados_agg{_func: C.uint16_t(a.Func), flags: C.uint16_t(a.Flags), arg: C.uint16_t(a.Arg),
			arg2: C.uint16_t(a.Arg2), in_vtype: C.uint32_t(a.In), out_vtype: C.uint32_t(a.Out)}
	}
	var msg [512]C.char
	var st *C.soft_agg_state
	if err := hookErr(C.hk_create(d.h, &cs, C.uint64_t(budget), &st, &msg[0]), &msg); err != nil {
		return nil, err
	}
	if C.hk_roundtrip(d.h, st) == 0 {
		C.soft_agg_free(st)
		return nil, fmt.Errorf("soft_agg_from_addr(soft_agg_addr(state)) is not the state")
	}
	return &hookState{d: d, st: st}, nil
}

func (s *hookState) free() { C.soft_agg_free(s.st) }

// runs puts the state into runs mode (soft_agg_runs).
func (s *hookState) runs() { C.soft_agg_runs(s.st) }

// cMem collects C allocations of one hook call.
type cMem []unsafe.Pointer

func (m *cMem) alloc(n int) unsafe.Pointer {
	p := C.calloc(C.size_t(max(n, 1)), 1)
	if p == nil {
		panic("agg test hook: out of C memory")
	}
	*m = append(*m, p)
	return p
}

func (m *cMem) release() {
	for _, p := range *m {
		C.free(p)
	}
}

// reg builds a C register holding c's rows; nil for a column with VT 0.
func (m *cMem) reg(c hookCol) *C.soft_reg {
	if c.VT == 0 {
		return nil
	}
	n := len(c.Vals)
	r := (*C.soft_reg)(m.alloc(int(C.sizeof_soft_reg)))
	if n == 0 { // an empty vector still gets valid pointers
		r.vtype = C.uint32_t(c.VT)
		r.all_valid = 1
		r.valid = (*C.uint8_t)(m.alloc(16))
		r.data = m.alloc(16)
		return r
	}
	r.vtype = C.uint32_t(c.VT)
	valid := unsafe.Slice((*byte)(m.alloc(n)), n)
	all := true
	for i, v := range c.Vals {
		if !v.Null {
			valid[i] = 1
		} else {
			all = false
		}
	}
	if all && n%2 == 0 { // exercise both: the flag, and explicit validity bytes
		r.all_valid = 1
	}
	r.valid = (*C.uint8_t)(unsafe.Pointer(&valid[0]))
	switch c.VT {
	case 1: // BOOL
		b := unsafe.Slice((*byte)(m.alloc(n)), n)
		for i, v := range c.Vals {
			b[i] = byte(v.I & 1)
		}
		r.data = unsafe.Pointer(&b[0])
	case 2: // I32
		p := m.alloc(4 * n)
		x := unsafe.Slice((*int32)(p), max(n, 1))
		for i, v := range c.Vals {
			x[i] = int32(v.I)
		}
		r.data = p
	case 3: // I64
		p := m.alloc(8 * n)
		x := unsafe.Slice((*int64)(p), max(n, 1))
		for i, v := range c.Vals {
			x[i] = v.I
		}
		r.data = p
	case 4: // F64
		p := m.alloc(8 * n)
		x := unsafe.Slice((*float64)(p), max(n, 1))
		for i, v := range c.Vals {
			x[i] = v.F
		}
		r.data = p
	case 5: // I128
		p := m.alloc(16 * n)
		x := unsafe.Slice((*uint64)(p), max(2*n, 1))
		for i, v := range c.Vals {
			x[2*i], x[2*i+1] = v.W.Lo, uint64(v.W.Hi)
		}
		r.data = p
	case 6: // STR
		total := 0
		for _, v := range c.Vals {
			total += len(v.S)
		}
		bytes := unsafe.Slice((*byte)(m.alloc(total)), max(total, 1))
		views := unsafe.Slice((*C.soft_str)(m.alloc(n*int(C.sizeof_soft_str))), max(n, 1))
		pos := 0
		seen := map[string]int{}
		for i, v := range c.Vals {
			at, ok := seen[v.S]
			if !ok || !c.Intern {
				at = pos
				copy(bytes[pos:], v.S)
				pos += len(v.S)
				seen[v.S] = at
			}
			views[i].ptr = (*C.uint8_t)(unsafe.Add(unsafe.Pointer(&bytes[0]), at))
			views[i].len = C.uint32_t(len(v.S))
		}
		if !c.Intern && total == n { // one byte per row laid out in row order: the str1 hint (when every row has one)
			r.str1 = 1
			for _, v := range c.Vals {
				if len(v.S) != 1 {
					r.str1 = 0
				}
			}
		}
		r.data = unsafe.Pointer(&views[0])
	}
	return r
}

func (m *cMem) regs(cols []hookCol) **C.soft_reg {
	if cols == nil {
		return nil
	}
	arr := unsafe.Slice((**C.soft_reg)(m.alloc(8*len(cols))), max(len(cols), 1))
	same := map[*aggVal]*C.soft_reg{} // columns sharing their values share one register
	for i, c := range cols {
		if len(c.Vals) > 0 && c.VT != 0 {
			if r, ok := same[&c.Vals[0]]; ok {
				arr[i] = r
				continue
			}
		}
		arr[i] = m.reg(c)
		if len(c.Vals) > 0 && c.VT != 0 {
			same[&c.Vals[0]] = arr[i]
		}
	}
	return &arr[0]
}

// update folds a vector of n rows (sel: selected rows, nil = all) into s.
// args[j] / args2[j] with VT 0 are absent registers.
func (s *hookState) update(keys, args, args2 []hookCol, n int, sel []uint16) error {
	var m cMem
	defer m.release()
	var csel *C.uint16_t
	if sel != nil {
		p := unsafe.Slice((*uint16)(m.alloc(2*len(sel))), max(len(sel), 1))
		copy(p, sel)
		csel = (*C.uint16_t)(unsafe.Pointer(&p[0]))
	}
	var msg [512]C.char
	st := C.hk_update(s.st, m.regs(keys), m.regs(args), m.regs(args2), C.uint32_t(n), csel, C.uint32_t(len(sel)), &msg[0])
	return hookErr(st, &msg)
}

func (s *hookState) merge(src *hookState) error {
	var msg [512]C.char
	return hookErr(C.hk_merge(s.st, src.st, &msg[0]), &msg)
}

// emit writes the groups into device columns of the given value types
// (capRows rows, strCap string bytes each) and reads them back. n is the
// groups written, or needed on E_NOMEM.
func (s *hookState) emit(vts []uint32, capRows, strCap uint64) (cols []hookCol, n uint64, err error) {
	d := s.d
	var addrs []C.uint64_t
	defer func() {
		for _, a := range addrs {
			C.hk_free(d.h, a)
		}
	}()
	var msg [512]C.char
	dev := func(size uint64) (C.uint64_t, unsafe.Pointer, error) {
		var a C.uint64_t
		var p unsafe.Pointer
		if err := hookErr(C.hk_alloc(d.h, C.uint64_t(max(size, 1)), &a, &p, &msg[0]), &msg); err != nil {
			return 0, nil, err
		}
		addrs = append(addrs, a)
		return a, p, nil
	}
	_, outP, err := dev(16 + uint64(len(vts))*uint64(C.sizeof_hados_column))
	if err != nil {
		return nil, 0, err
	}
	out := (*C.hados_agg_out)(outP)
	out.n_cols = C.uint64_t(len(vts))
	out.capacity_rows = C.uint64_t(capRows)
	type bufs struct{ valid, data, offs unsafe.Pointer }
	hb := make([]bufs, len(vts))
	for i, vt := range vts {
		c := C.hk_out_col(out, C.uint64_t(i))
		*c = C.hados_column{vtype: C.uint32_t(vt)}
		var e error
		if c.validity, hb[i].valid, e = dev((capRows + 7) / 8); e != nil {
			return nil, 0, e
		}
		size := capRows * 8
		switch vt {
		case 1:
			size = (capRows + 7) / 8
		case 2:
			size = capRows * 4
		case 5:
			size = capRows * 16
		case 6:
			size = strCap
			if c.offsets, hb[i].offs, e = dev((capRows + 1) * 4); e != nil {
				return nil, 0, e
			}
			c.capacity = C.uint64_t(strCap)
		}
		if c.data, hb[i].data, e = dev(size); e != nil {
			return nil, 0, e
		}
	}
	var cn C.uint64_t
	if err := hookErr(C.hk_emit(d.h, s.st, out, &cn, &msg[0]), &msg); err != nil {
		return nil, uint64(cn), err
	}
	n = uint64(cn)
	for i, vt := range vts {
		col := hookCol{VT: vt, Vals: make([]aggVal, n)}
		valid := unsafe.Slice((*byte)(hb[i].valid), (n+7)/8)
		for g := range n {
			v := &col.Vals[g]
			if valid[g/8]>>(g%8)&1 == 0 {
				v.Null = true
				continue
			}
			switch vt {
			case 1:
				v.I = int64(unsafe.Slice((*byte)(hb[i].data), (n+7)/8)[g/8] >> (g % 8) & 1)
			case 2:
				v.I = int64(unsafe.Slice((*int32)(hb[i].data), n)[g])
			case 3:
				v.I = unsafe.Slice((*int64)(hb[i].data), n)[g]
			case 4:
				v.F = unsafe.Slice((*float64)(hb[i].data), n)[g]
			case 5:
				w := unsafe.Slice((*uint64)(hb[i].data), 2*n)
				v.W = i128{Lo: w[2*g], Hi: int64(w[2*g+1])}
			case 6:
				offs := unsafe.Slice((*int32)(hb[i].offs), n+1)
				v.S = string(unsafe.Slice((*byte)(hb[i].data), max(strCap, 1))[offs[g]:offs[g+1]])
			}
		}
		cols = append(cols, col)
	}
	return cols, n, nil
}

// hookBench holds prepared full vectors (C memory) for benchmarks; release
// with free.
type hookBench struct {
	m                 cMem
	keys, args, args2 []**C.soft_reg
	n                 int
}

// prepare builds the vectors; each element of vecs is (keys, args, args2)
// of n rows.
func prepareBench(n int, vecs [][3][]hookCol) *hookBench {
	b := &hookBench{n: n}
	k := unsafe.Slice((***C.soft_reg)(b.m.alloc(8*len(vecs))), len(vecs))
	a := unsafe.Slice((***C.soft_reg)(b.m.alloc(8*len(vecs))), len(vecs))
	a2 := unsafe.Slice((***C.soft_reg)(b.m.alloc(8*len(vecs))), len(vecs))
	for i, v := range vecs {
		k[i], a[i], a2[i] = b.m.regs(v[0]), b.m.regs(v[1]), b.m.regs(v[2])
	}
	b.keys, b.args, b.args2 = k, a, a2
	return b
}

func (b *hookBench) free() { b.m.release() }

// run folds `vectors` vectors into s (see hk_bench) and returns the CPU
// time the calling thread spent.
func (b *hookBench) run(s *hookState, vectors, distinct uint64, dry bool) (time.Duration, error) {
	var msg [512]C.char
	d := C.int(0)
	if dry {
		d = 1
	}
	var cpu C.uint64_t
	err := hookErr(C.hk_bench(s.st, &b.keys[0], &b.args[0], &b.args2[0], C.uint32_t(len(b.keys)), C.uint32_t(b.n),
		C.uint64_t(vectors), C.uint64_t(distinct), d, &cpu, &msg[0]), &msg)
	return time.Duration(cpu), err
}
