package scan

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	hmem "github.com/hados-io/hados/memory"
)

// TestDecodeAllocSkipsClearing checks pqarrow's allocator hands out
// uninitialised (in tests: poisoned) memory when Options.Alloc can, so the
// scan's suite, which runs on such allocators, decodes into poison and
// would see any byte pqarrow reads without writing.
func TestDecodeAllocSkipsClearing(t *testing.T) {
	a := testAlloc(t)
	d := decodeAllocator(a)
	b := d.Allocate(100)
	for i, v := range b {
		if v != hmem.PoisonByte {
			t.Fatalf("byte %d = %#x, want the poison %#x", i, v, hmem.PoisonByte)
		}
	}
	b = d.Reallocate(300, b) // the part Reallocate adds is cleared
	for i, v := range b[100:] {
		if v != 0 {
			t.Fatalf("reallocated byte %d = %#x, want 0", 100+i, v)
		}
	}
	d.Free(b)
	if a.Allocated() != 0 {
		t.Fatalf("%d bytes still allocated", a.Allocated())
	}

	g := memory.NewGoAllocator() // no AllocateUninit: used as is
	if _, ok := decodeAllocator(g).(decodeAlloc); ok {
		t.Fatal("a Go allocator was wrapped")
	}
}

// TestPageAllocRecyclesPoisoned: page buffers come back from the scratch
// cache uncleared — poisoned in tests, when handed out and when given
// back — and Reallocate keeps their bytes.
func TestPageAllocRecyclesPoisoned(t *testing.T) {
	var a pageAlloc
	b := a.Allocate(1000)
	if len(b) != 1000 || cap(b)&(cap(b)-1) != 0 {
		t.Fatalf("len %d cap %d, want 1000 and a power of two", len(b), cap(b))
	}
	for i, v := range b {
		if v != hmem.PoisonByte {
			t.Fatalf("byte %d = %#x, want the poison", i, v)
		}
	}
	for i := range b {
		b[i] = byte(i)
	}
	b = a.Reallocate(5000, b)
	for i := range 1000 {
		if b[i] != byte(i) {
			t.Fatalf("Reallocate lost byte %d", i)
		}
	}
	a.Free(b)
	if a.Allocate(0) != nil {
		t.Fatal("Allocate(0) is not empty")
	}
	a.Free(nil)
}
