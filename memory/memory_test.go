package memory_test

import (
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/hados-io/hados/device"
	_ "github.com/hados-io/hados/device/soft"
	"github.com/hados-io/hados/memory"
)

func openDevice(t *testing.T, cfg string) device.Device {
	t.Helper()
	set, err := device.OpenString(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { set.Close() })
	return set.Devices()[0]
}

// pools returns a device pool on each memory mode and a host pool; each is
// checked for leaks when the test ends.
func pools(t *testing.T) map[string]*memory.Pool {
	t.Helper()
	out := map[string]*memory.Pool{
		"host-visible": memory.NewDevicePool(openDevice(t, "soft:memory=64MiB"), memory.PoolOptions{}),
		"discrete":     memory.NewDevicePool(openDevice(t, "soft:memory=64MiB,mode=discrete"), memory.PoolOptions{}),
		"host":         memory.NewHostPool(memory.PoolOptions{}, true),
	}
	for name, p := range out {
		p := p
		name := name
		t.Cleanup(func() {
			if s := p.Stats(); s.InUseBytes != 0 || s.LiveBuffers != 0 {
				t.Errorf("%s pool not back to zero: %+v", name, s)
			}
			if err := p.Close(); err != nil {
				t.Errorf("%s: %v", name, err)
			}
		})
	}
	return out
}

func TestPoolAllocFree(t *testing.T) {
	for name, p := range pools(t) {
		t.Run(name, func(t *testing.T) {
			var bufs []*memory.Buffer
			for _, n := range []uint64{1, 63, 64, 65, 1000, 4096, 1 << 20, 1<<20 + 1, 5 << 20} {
				b, err := p.Alloc(nil, n)
				if err != nil {
					t.Fatalf("alloc %d: %v", n, err)
				}
				if b.Size != n || b.Addr%memory.Alignment != 0 {
					t.Fatalf("alloc %d: %+v", n, b)
				}
				if host := b.Bytes(); name == "discrete" {
					if host != nil {
						t.Fatal("discrete buffer has a host view")
					}
				} else if len(host) != int(n) {
					t.Fatalf("host view of %d bytes, want %d", len(host), n)
				} else {
					host[0], host[n-1] = 1, 2 // writable
				}
				bufs = append(bufs, b)
			}
			seen := map[device.Addr]bool{}
			for _, b := range bufs {
				if seen[b.Addr] {
					t.Fatalf("address 0x%x handed out twice", b.Addr)
				}
				seen[b.Addr] = true
			}
			s := p.Stats()
			if s.LiveBuffers != len(bufs) || s.InUseBytes == 0 || s.LargeBytes == 0 {
				t.Fatalf("stats: %+v", s)
			}
			for _, b := range bufs {
				if err := b.Free(); err != nil {
					t.Fatal(err)
				}
			}
			if err := bufs[0].Free(); !errors.Is(err, memory.ErrDoubleFree) {
				t.Fatalf("double free: %v", err)
			}
			if _, err := p.Alloc(nil, 0); !errors.Is(err, device.ErrInvalid) {
				t.Fatalf("alloc 0: %v", err)
			}
		})
	}
}

func TestQuota(t *testing.T) {
	p := pools(t)["discrete"]
	task := memory.NewAccount("task 7", 1<<20, p.Account())
	a, err := p.Alloc(task, 512<<10)
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Alloc(task, 768<<10)
	var qe *memory.QuotaError
	if !errors.Is(err, memory.ErrQuotaExceeded) || !errors.As(err, &qe) || qe.Account != "task 7" ||
		qe.Requested != 1<<20 || qe.InUse != 512<<10 || qe.Limit != 1<<20 {
		t.Fatalf("over quota: %v %+v", err, qe)
	}
	if !strings.Contains(err.Error(), "task 7 requested 1.0 MiB with 512.0 KiB of 1.0 MiB in use") {
		t.Fatalf("message: %v", err)
	}
	// the device's own limit applies above the task's
	big := memory.NewAccount("task 8", 0, p.Account())
	if _, err := p.Alloc(big, 100<<20); !errors.As(err, &qe) || qe.Account != "device 0" {
		t.Fatalf("over device limit: %v", err)
	}
	if task.Stats().QuotaExceeded != 1 || big.InUse() != 0 {
		t.Fatalf("stats: %+v %+v", task.Stats(), big.Stats())
	}
	if err := task.Close(); err == nil || !strings.Contains(err.Error(), "leak") {
		t.Fatalf("closing an account that holds memory: %v", err)
	}
	a.Free()
	if task.InUse() != 0 || p.Account().InUse() != 0 {
		t.Fatal("not back to zero")
	}
	big.Close()
}

func TestConcurrentAlloc(t *testing.T) {
	p := pools(t)["host-visible"]
	task := memory.NewAccount("task", 8<<20, p.Account())
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				b, err := p.Alloc(task, uint64(64+(g*977+i*131)%200000))
				if errors.Is(err, memory.ErrQuotaExceeded) {
					continue
				}
				if err != nil {
					t.Error(err)
					return
				}
				b.Bytes()[0] = byte(g)
				if err := b.Free(); err != nil {
					t.Error(err)
				}
			}
		}(g)
	}
	wg.Wait()
	if s := task.Stats(); s.InUse != 0 || s.Peak > 8<<20 {
		t.Fatalf("task: %+v", s)
	}
	task.Close()
}

func TestPoolCloseReportsLeak(t *testing.T) {
	d := openDevice(t, "soft:memory=16MiB")
	p := memory.NewDevicePool(d, memory.PoolOptions{})
	p.Alloc(nil, 100)
	p.Alloc(nil, 2<<20)
	if err := p.Close(); err == nil || !strings.Contains(err.Error(), "2 live buffers") {
		t.Fatalf("close with live buffers: %v", err)
	}
	if tel, _ := d.Telemetry(); tel.MemUsedBytes != 0 {
		t.Fatalf("device memory still used after pool close: %d", tel.MemUsedBytes)
	}
	if _, err := p.Alloc(nil, 1); !errors.Is(err, device.ErrClosed) {
		t.Fatalf("alloc after close: %v", err)
	}
}

func TestDeviceOutOfMemory(t *testing.T) {
	d := openDevice(t, "soft:memory=8MiB,mode=discrete")
	p := memory.NewDevicePool(d, memory.PoolOptions{Limit: 1 << 40})
	defer p.Close()
	if _, err := p.Alloc(nil, 16<<20); !errors.Is(err, memory.ErrQuotaExceeded) {
		t.Fatalf("beyond the device: %v", err) // the root account is capped at the device's memory
	}
	d2 := openDevice(t, "soft:memory=8MiB,alloc_fail_after=0")
	p2 := memory.NewDevicePool(d2, memory.PoolOptions{})
	defer p2.Close()
	if _, err := p2.Alloc(nil, 64); !errors.Is(err, device.ErrNoMemory) {
		t.Fatalf("injected device failure: %v", err)
	}
	if p2.Account().InUse() != 0 {
		t.Fatal("failed allocation was charged")
	}
}

func TestArrowAllocator(t *testing.T) {
	ps := pools(t)
	if _, err := memory.NewDeviceAllocator(ps["discrete"], nil); !errors.Is(err, device.ErrNotSupported) {
		t.Fatalf("device allocator on a discrete device: %v", err)
	}
	dev, err := memory.NewDeviceAllocator(ps["host-visible"], nil)
	if err != nil {
		t.Fatal(err)
	}
	for name, alloc := range map[string]*memory.Allocator{"device": dev, "host": memory.NewHostAllocator(ps["host"], nil)} {
		t.Run(name, func(t *testing.T) {
			ib := array.NewInt64Builder(alloc)
			sb := array.NewStringBuilder(alloc)
			for i := 0; i < 100000; i++ {
				if i%10 == 0 {
					ib.AppendNull()
					sb.AppendNull()
					continue
				}
				ib.Append(int64(i))
				sb.Append("v" + strings.Repeat("x", i%7))
			}
			ints, strs := ib.NewInt64Array(), sb.NewStringArray()
			ib.Release()
			sb.Release()
			if ints.Len() != 100000 || ints.NullN() != 10000 || ints.Value(99999) != 99999 || strs.Value(8) != "vx" {
				t.Fatalf("arrays: %d %d", ints.Len(), ints.NullN())
			}
			if alloc.Allocated() == 0 {
				t.Fatal("nothing allocated")
			}
			ints.Release()
			strs.Release()
			if n := alloc.Allocated(); n != 0 {
				t.Fatalf("%d bytes still allocated after release", n)
			}
		})
	}
}

func TestArrowAllocatorQuota(t *testing.T) {
	p := pools(t)["host-visible"]
	task := memory.NewAccount("task 3", 256<<10, p.Account())
	alloc, _ := memory.NewDeviceAllocator(p, task)
	b := array.NewInt64Builder(alloc)
	err := memory.Catch(func() error {
		for i := 0; i < 1<<20; i++ {
			b.Append(int64(i))
		}
		return nil
	})
	if !errors.Is(err, memory.ErrQuotaExceeded) || !strings.Contains(err.Error(), "task 3") {
		t.Fatalf("builder over quota: %v", err)
	}
	b.Release()
	if alloc.Allocated() != 0 || task.InUse() != 0 {
		t.Fatalf("after release: %d allocated, %d charged", alloc.Allocated(), task.InUse())
	}
	func() {
		defer func() {
			if r := recover(); r == nil || !strings.Contains(r.(error).Error(), "does not own") {
				t.Fatalf("free of a foreign slice: %v", r)
			}
		}()
		alloc.Free(make([]byte, 8))
	}()
}

func TestTranslate(t *testing.T) {
	ps := pools(t)
	p := ps["host-visible"]
	for _, n := range []uint64{100, 3 << 20} { // a class block and a large block
		b, err := p.Alloc(nil, n)
		if err != nil {
			t.Fatal(err)
		}
		addr, ok := p.Translate(b.Bytes())
		if !ok || addr != b.Addr {
			t.Fatalf("%d bytes: translate %x %v, want %x", n, addr, ok, b.Addr)
		}
		if a2, ok := p.Translate(b.Bytes()[10:20]); !ok || a2 != b.Addr+10 {
			t.Fatalf("sub-slice: %x %v", a2, ok)
		}
		b.Free()
	}
	if _, ok := p.Translate(make([]byte, 64)); ok {
		t.Fatal("Go memory translated")
	}
	if _, ok := p.Translate(nil); ok {
		t.Fatal("nil translated")
	}
	d, _ := ps["discrete"].Alloc(nil, 64)
	defer d.Free()
	if _, ok := ps["discrete"].Translate(make([]byte, 8)); ok {
		t.Fatal("discrete pool translated host memory")
	}
}

func TestAccountAfterCloseAndOverRelease(t *testing.T) {
	root := memory.NewAccount("root", 100, nil)
	a := memory.NewAccount("task", 50, root)
	a.Close()
	if err := a.Reserve(1); !errors.Is(err, device.ErrClosed) {
		t.Fatalf("reservation on a closed account: %v", err)
	}
	b := memory.NewAccount("task 2", 50, root)
	b.Reserve(10)
	b.Release(20) // a caller bug: the counts stop at zero
	if b.InUse() != 0 || root.InUse() != 0 {
		t.Fatalf("over-release wrapped: %d %d", b.InUse(), root.InUse())
	}
	if err := b.Reserve(40); err != nil {
		t.Fatalf("after an over-release: %v", err)
	}
}

func TestFreeAfterPoolClose(t *testing.T) {
	d := openDevice(t, "soft:memory=8MiB")
	p := memory.NewDevicePool(d, memory.PoolOptions{})
	b, _ := p.Alloc(nil, 64)
	p.Close()
	if err := b.Free(); !errors.Is(err, device.ErrClosed) || strings.Contains(err.Error(), "twice") {
		t.Fatalf("free after the pool closed: %v", err)
	}
}
