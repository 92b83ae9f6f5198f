package operators_test

import (
	"testing"

	"github.com/hados-io/hados/device"
	_ "github.com/hados-io/hados/device/soft"
	"github.com/hados-io/hados/dma"
	"github.com/hados-io/hados/memory"
	"github.com/hados-io/hados/operators"
)

// newTarget opens a software DPU with a pool, a DMA engine and a host pool,
// and checks at the end that every byte came back.
func newTarget(tb testing.TB, cfg string) *operators.Target {
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
