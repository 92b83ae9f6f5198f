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

func TestAllocatorDeviceAndBuffer(t *testing.T) {
	p := memory.NewHostPool(memory.PoolOptions{}, false)
	defer p.Close()
	a := memory.NewHostAllocator(p, nil)
	if d, ok := a.Device(); ok || d != nil {
		t.Fatalf("a host allocator reports device %v", d)
	}
	b, err := a.AllocateBuffer(1000)
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Bytes()) != 1000 || b.Addr == 0 {
		t.Fatalf("buffer of %d bytes at %#x, want 1000 at a nonzero address", len(b.Bytes()), b.Addr)
	}
	if a.Account().InUse() < 1000 {
		t.Fatalf("account charged %d, want at least 1000", a.Account().InUse())
	}
	if err := b.Free(); err != nil {
		t.Fatal(err)
	}
	if _, err := a.AllocateBuffer(0); err == nil {
		t.Fatal("AllocateBuffer(0) succeeded")
	}
}
