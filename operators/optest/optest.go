// Package optest opens operator targets for tests: a software DPU with a
// device pool, a task account, a DMA engine and a host pool, closed when
// the test ends with a check that every byte came back. Test support: it
// takes a testing.TB.
package optest

import (
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/hados-io/hados/device"
	_ "github.com/hados-io/hados/device/soft" // the software DPU
	"github.com/hados-io/hados/dma"
	"github.com/hados-io/hados/memory"
	"github.com/hados-io/hados/operators"
)

// NewTarget opens the device cfg names (e.g. "soft:memory=64MiB,cores=1")
// as an operator target. The test's cleanup closes it and reports bytes
// still held by the task's account.
func NewTarget(tb testing.TB, cfg string) *operators.Target {
	tb.Helper()
	set, err := device.OpenString(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	d := set.Devices()[0]
	t := &operators.Target{Device: d, Pool: memory.NewDevicePool(d, memory.PoolOptions{}), Host: memory.NewHostPool(memory.PoolOptions{}, false)}
	t.Account = memory.NewAccount("task", 0, t.Pool.Account())
	if t.DMA, err = dma.New(d, dma.Options{}); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := t.DMA.Close(); err != nil {
			tb.Error(err)
		}
		if n := t.Account.InUse(); n != 0 {
			tb.Errorf("task account holds %d bytes at the end", n)
		}
		if err := t.Pool.Close(); err != nil {
			tb.Error(err)
		}
		if err := t.Host.Close(); err != nil {
			tb.Error(err)
		}
		set.Close()
	})
	return t
}

// SortedRows renders records as sorted lines of their column values
// ("v1|v2|…|") and releases them: for comparing results whose row order
// does not matter.
func SortedRows(recs []arrow.Record) []string {
	var out []string
	for _, r := range recs {
		for i := 0; i < int(r.NumRows()); i++ {
			var b strings.Builder
			for _, c := range r.Columns() {
				b.WriteString(c.ValueStr(i))
				b.WriteByte('|')
			}
			out = append(out, b.String())
		}
		r.Release()
	}
	sort.Strings(out)
	return out
}
