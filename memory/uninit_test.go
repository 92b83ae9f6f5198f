package memory_test

import (
	"testing"

	"github.com/hados-io/hados/memory"
)

func TestAllocateUninitPoisonsInTests(t *testing.T) {
	p := memory.NewHostPool(memory.PoolOptions{}, false)
	defer p.Close()
	a := memory.NewHostAllocator(p, nil)
	var u memory.Uninit = a
	b := u.AllocateUninit(100)
	if len(b) != 100 {
		t.Fatalf("len %d, want 100", len(b))
	}
	for i, v := range b {
		if v != memory.PoisonByte {
			t.Fatalf("byte %d = %#x, want the poison %#x (tests run with poisoning on)", i, v, memory.PoisonByte)
		}
	}
	if got := a.Allocated(); got != 100 {
		t.Fatalf("Allocated %d, want 100", got)
	}
	a.Free(b)
	z := a.Allocate(100) // may reuse the poisoned block: must come back zeroed
	for i, v := range z {
		if v != 0 {
			t.Fatalf("Allocate byte %d = %#x after a poisoned block was freed, want 0", i, v)
		}
	}
	a.Free(z)
	if got := a.Allocated(); got != 0 {
		t.Fatalf("Allocated %d after Free, want 0", got)
	}
}
