package memory

import (
	"flag"
	"os"
	"sync"
	"testing"
)

// AllocateUninit is Allocate without the clearing: the bytes it returns hold
// whatever the pool's block held before. It is for buffers the caller
// overwrites whole before anything reads them (a kernel's output, the target
// of a copy, a decompressed page); anything read before it is written must
// come from Allocate. Freed with Free like any other allocation.
//
// So that a caller relying on zeros by mistake fails loudly and
// deterministically, the bytes are filled with PoisonByte instead when
// poisoning is on: by default in test binaries except while they run
// benchmarks, and wherever HADOS_POISON_UNINIT=1 (=0 turns it off).
func (a *Allocator) AllocateUninit(size int) []byte {
	b := a.allocate(size)
	if Poisoning() {
		Poison(b)
	}
	return b
}

// Poison fills b with PoisonByte (scratch memory recycled without
// clearing does so where Poisoning says).
func Poison(b []byte) {
	for i := range b {
		b[i] = PoisonByte
	}
}

// PoisonByte fills uninitialised allocations when poisoning is on.
const PoisonByte = 0xA5

// Uninit is implemented by allocators offering AllocateUninit; callers that
// overwrite whole buffers test for it and fall back to Allocate.
type Uninit interface {
	AllocateUninit(size int) []byte
}

var poisonOnce = sync.OnceValue(func() bool {
	switch os.Getenv("HADOS_POISON_UNINIT") {
	case "1":
		return true
	case "0":
		return false
	}
	if !testing.Testing() {
		return false
	}
	f := flag.Lookup("test.bench")
	return f == nil || f.Value.String() == ""
})

// Poisoning reports whether uninitialised memory is poisoned (see
// AllocateUninit), so that other recycled scratch memory — buffers handed
// out without clearing, and buffers given back — can be poisoned the same
// way and any read of bytes nobody wrote, or of a buffer after it was
// given back, shows up in tests. It is decided once, on the first call
// (after the test flags are parsed).
func Poisoning() bool { return poisonOnce() }
