package main

/*
#include "hados.h"
static inline hados_plan *hd_plan_handle(uintptr_t h) { return (hados_plan *)h; }
*/
import "C"

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"unsafe"

	"github.com/hados-io/hados/hados"
	"github.com/hados-io/hados/race/exec"
	"github.com/hados-io/hados/race/plan"
	"github.com/hados-io/hados/race/rules"
)

// maxPlanBytes bounds a plan's text: Spark's largest TPC-DS plans are a
// few hundred KiB.
const maxPlanBytes = 64 << 20

// planState is what a hados_plan handle holds: the converted plan and
// what was decided about it. It is immutable once built (tasks on many
// threads read it; its stages are described once, on first use) and owns
// no memory outside Go.
type planState struct {
	rs         *runtimeState
	res        *rules.Result
	warehouse  string
	explain    string
	fallbacks  []byte // JSON
	inputs     int
	offloaded  bool
	executable bool

	stagesOnce sync.Once // stages
	stageList  []exec.StageInfo
	stagesErr  error
}

// newPlan imports and converts a plan's text under the runtime's
// configuration with the given overrides.
func newPlan(rs *runtimeState, text []byte, set func(func(k, v string) error) error) (*planState, error) {
	cfg := rs.rt.Config()
	ps := &planState{rs: rs, warehouse: rs.warehouse}
	name := "plan"
	err := set(func(k, v string) error {
		switch k {
		case keyWarehouse:
			ps.warehouse = v
			return nil
		case keyPlanName:
			name = v
			return nil
		}
		if !isPlannerKey(k) {
			return invalidf("hados_plan_create: %s is not a planner key (set it at hados_init)", k)
		}
		return cfg.Set(k, v)
	})
	if err != nil {
		return nil, err
	}
	p, err := importPlan(name, text, ps.warehouse)
	if err != nil {
		return nil, err
	}
	opts, err := plannerOptions(cfg)
	if err != nil {
		return nil, err
	}
	if ps.res, err = rules.Run(p, opts, nil); err != nil {
		return nil, invalidf("hados_plan_create: %v", err)
	}
	var b strings.Builder
	if err := ps.res.WriteText(&b); err != nil {
		return nil, err
	}
	ps.explain = b.String()
	fb := ps.res.Fallbacks()
	if fb == nil {
		fb = []rules.Fallback{}
	}
	if ps.fallbacks, err = json.Marshal(fb); err != nil {
		return nil, err
	}
	ps.inputs = len(hostInputs(ps.res.Root))
	ps.offloaded, ps.executable = ps.res.Offloaded(), executable(ps.res)
	return ps, nil
}

// importPlan reads the plan IR's JSON when the text starts with '{', else
// Spark's EXPLAIN FORMATTED text (as `hados run` does: the columns the
// text leaves untyped, such as an empty relation's or a partition
// column's, typed from the warehouse's files when there is one).
func importPlan(name string, text []byte, warehouse string) (*plan.Plan, error) {
	if t := bytes.TrimLeft(text, " \t\r\n"); len(t) > 0 && t[0] == '{' {
		p, err := plan.DecodeJSON(bytes.NewReader(t))
		if err != nil {
			return nil, invalidf("hados_plan_create: plan JSON: %v", err)
		}
		if p.Name == "" {
			p.Name = name
		}
		return p, nil
	}
	var opts plan.ImportOptions
	if warehouse != "" {
		cat, err := exec.WarehouseCatalog(warehouse)
		if err != nil {
			return nil, invalidf("hados_plan_create: %v", err)
		}
		opts.Catalog = cat
	}
	p, err := plan.ImportSparkWith(name, bytes.NewReader(text), opts)
	if err != nil {
		return nil, invalidf("hados_plan_create: plan text: %v", err)
	}
	return p, nil
}

// isPlannerKey reports the keys a plan may override: the planner's, which
// are per query in Spark too (SQL configuration), unlike device keys.
func isPlannerKey(k string) bool {
	switch k {
	case "spark.hados.enabled", "spark.hados.strategy", "spark.hados.whitelist", "spark.sql.ansi.enabled":
		return true
	}
	return strings.HasPrefix(k, "spark.hados.expression.") && strings.HasSuffix(k, ".enabled")
}

// plannerOptions maps the configuration onto the planner's options (the
// same mapping as `hados explain`'s).
func plannerOptions(cfg hados.Config) (rules.Options, error) {
	o := rules.DefaultOptions()
	o.Enabled, o.ANSI = cfg.Enabled, cfg.ANSI
	o.Whitelist, o.DisabledExpressions = cfg.Whitelist, cfg.DisabledExpressions
	s, err := rules.ParseStrategy(cfg.Strategy)
	if err != nil {
		return o, invalidf("hados_plan_create: %v", err)
	}
	o.Strategy = s
	return o, nil
}

// hostInputs lists the RowToColumnar transitions whose child stays on the
// host, depth first, left to right: the executor reads input i where the
// i-th of them stands.
func hostInputs(n *rules.Node) []*rules.Node {
	var out []*rules.Node
	var walk func(*rules.Node)
	walk = func(n *rules.Node) {
		if n == nil {
			return
		}
		if isHostInput(n) {
			out = append(out, n)
			return
		}
		for _, c := range n.Children {
			walk(c)
		}
	}
	walk(n)
	return out
}

// executable reports whether hados can run the plan with a caller feeding
// its host inputs: something is offloaded, no device operator is only
// planned, and every operator staying on the host sits below a host input
// (RACE's ExecutableToday, with the inputs' subtrees left to the caller).
func executable(res *rules.Result) bool {
	if !res.Offloaded() {
		return false
	}
	ok := true
	var walk func(*rules.Node)
	walk = func(n *rules.Node) {
		if n == nil || !ok || isHostInput(n) {
			return
		}
		if n.Kind == rules.KindHost || n.Planned {
			ok = false
			return
		}
		for _, c := range n.Children {
			walk(c)
		}
	}
	for _, t := range res.Trees() {
		walk(t)
	}
	return ok
}

// isHostInput reports a RowToColumnar whose child stays on the host.
func isHostInput(n *rules.Node) bool {
	return n.Kind == rules.RowToColumnar && len(n.Children) == 1 && !n.Children[0].Kind.OnDevice()
}

// hdgo_plan is hados_plan_create (abi.c wraps it to give the header's const types).
//
//export hdgo_plan
func hdgo_plan(rtp *C.hados_runtime, text *C.char, n C.size_t, keys, values **C.char, nkv C.size_t, out **C.hados_plan) C.int {
	return call(func() error {
		rs, err := runtimeOf("hados_plan_create", rtp)
		if err != nil {
			return err
		}
		if out == nil {
			return invalidf("hados_plan_create: out is NULL")
		}
		*out = nil
		if text == nil {
			return invalidf("hados_plan_create: plan is NULL")
		}
		if n == 0 || n > maxPlanBytes {
			return invalidf("hados_plan_create: plan length %d (want 1 to %d bytes)", uint64(n), maxPlanBytes)
		}
		src := C.GoBytes(unsafe.Pointer(text), C.int(n))
		ps, err := newPlan(rs, src, func(fn func(k, v string) error) error {
			return eachPair("hados_plan_create", keys, values, nkv, fn)
		})
		if err != nil {
			return err
		}
		h := newHandle(ps, "hados_plan")
		if err := rs.register(h, nil); err != nil {
			release(h)
			return fmt.Errorf("hados_plan_create: %w", err)
		}
		*out = C.hd_plan_handle(C.uintptr_t(h))
		return nil
	})
}

// planOf resolves a hados_plan handle for export fn.
func planOf(fn string, p *C.hados_plan) (*planState, error) {
	ps, err := lookup[*planState](handleOf(unsafe.Pointer(p)), "hados_plan")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", fn, err)
	}
	return ps, nil
}

//export hados_plan_decision
func hados_plan_decision(p *C.hados_plan, offloaded, executable *C.int) C.int {
	return call(func() error {
		ps, err := planOf("hados_plan_decision", p)
		if err != nil {
			return err
		}
		if offloaded != nil {
			*offloaded = cBool(ps.offloaded)
		}
		if executable != nil {
			*executable = cBool(ps.executable)
		}
		return nil
	})
}

func cBool(b bool) C.int {
	if b {
		return 1
	}
	return 0
}

// planString is the body of the exports returning one of a plan's texts.
func planString(fn string, p *C.hados_plan, out **C.char, text func(*planState) string) C.int {
	return call(func() error {
		ps, err := planOf(fn, p)
		if err != nil {
			return err
		}
		if out == nil {
			return invalidf("%s: out is NULL", fn)
		}
		*out = cString(text(ps))
		return nil
	})
}

//export hados_plan_explain
func hados_plan_explain(p *C.hados_plan, out **C.char) C.int {
	return planString("hados_plan_explain", p, out, func(ps *planState) string { return ps.explain })
}

//export hados_plan_fallbacks_json
func hados_plan_fallbacks_json(p *C.hados_plan, out **C.char) C.int {
	return planString("hados_plan_fallbacks_json", p, out, func(ps *planState) string { return string(ps.fallbacks) })
}

//export hados_plan_input_count
func hados_plan_input_count(p *C.hados_plan, out *C.size_t) C.int {
	return call(func() error {
		ps, err := planOf("hados_plan_input_count", p)
		if err != nil {
			return err
		}
		if out == nil {
			return invalidf("hados_plan_input_count: out is NULL")
		}
		*out = C.size_t(ps.inputs)
		return nil
	})
}

//export hados_plan_destroy
func hados_plan_destroy(pp **C.hados_plan) C.int {
	return call(func() error {
		if pp == nil {
			return invalidf("hados_plan_destroy: NULL handle pointer")
		}
		ps, err := planOf("hados_plan_destroy", *pp)
		if err != nil {
			return err
		}
		h := handleOf(unsafe.Pointer(*pp))
		if !release(handleOf(unsafe.Pointer(*pp))) {
			return fmt.Errorf("hados_plan_destroy: %w: already destroyed", errBadHandle)
		}
		ps.rs.forget(h)
		*pp = nil
		return nil
	})
}
