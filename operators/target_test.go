package operators_test

import (
	"testing"

	"github.com/hados-io/hados/operators"
	"github.com/hados-io/hados/operators/optest"
)

// newTarget opens a software DPU with a pool, a DMA engine and a host pool,
// and checks at the end that every byte came back.
func newTarget(tb testing.TB, cfg string) *operators.Target {
	return optest.NewTarget(tb, cfg)
}
