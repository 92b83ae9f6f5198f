package soft_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang/snappy"
	"github.com/pierrec/lz4/v4"

	"github.com/hados-io/hados/device"
	_ "github.com/hados-io/hados/device/soft"
)

func open(t testing.TB, cfg string) device.Device {
	t.Helper()
	set, err := device.OpenString(cfg)
	if err != nil {
		t.Fatalf("open %q: %v", cfg, err)
	}
	t.Cleanup(func() {
		if err := set.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return set.Devices()[0]
}

func alloc(t testing.TB, d device.Device, n uint64) device.Addr {
	t.Helper()
	a, err := d.Alloc(n)
	if err != nil {
		t.Fatalf("alloc %d: %v", n, err)
	}
	t.Cleanup(func() { d.Free(a) })
	return a
}

// run submits one program and waits for its completion.
func run(t testing.TB, q device.Queue, ops ...device.Op) device.Completion {
	t.Helper()
	if err := q.Submit(device.Program{Ops: ops, Tag: 7}); err != nil {
		t.Fatalf("submit: %v", err)
	}
	var c [1]device.Completion
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		n, err := q.Poll(c[:], 100*time.Millisecond)
		if err != nil {
			t.Fatalf("poll: %v", err)
		}
		if n == 1 {
			if c[0].Tag != 7 {
				t.Fatalf("tag %d, want 7", c[0].Tag)
			}
			return c[0]
		}
	}
	t.Fatal("program did not complete in 10s")
	return device.Completion{}
}

func queue(t testing.TB, d device.Device, depth int) device.Queue {
	t.Helper()
	q, err := d.NewQueue(depth)
	if err != nil {
		t.Fatalf("queue: %v", err)
	}
	t.Cleanup(func() { q.Close() })
	return q
}

func TestInfo(t *testing.T) {
	d := open(t, "soft:memory=64MiB,cores=3,mode=discrete,simd=avx2,queue_depth=8,spin_us=0,pin=off")
	info := d.Info()
	if info.Driver != "soft" || info.Address != "0" || info.Mode != device.Discrete || info.Cores != 3 ||
		info.MemoryBytes != 64<<20 || info.MaxQueueDepth != 8 || info.AllocAlign != 64 {
		t.Fatalf("info = %+v", info)
	}
	if info.SIMD != "avx2" && info.SIMD != "scalar" {
		t.Fatalf("simd=avx2 gave %q", info.SIMD)
	}
	if msg, err := d.SelfTest(); err != nil || !strings.HasPrefix(msg, "ok") {
		t.Fatalf("self-test: %q, %v", msg, err)
	}
}

func TestBadConfig(t *testing.T) {
	for _, tc := range []struct{ cfg, want string }{
		{"soft:memory=0", "memory=0"},
		{"soft:memory=lots", "memory=lots"},
		{"soft:memory=12XB", "memory=12XB"},
		{"soft:cores=0", "cores=0"},
		{"soft:cores=1000", "cores=1000"},
		{"soft:mode=fast", "mode=fast"},
		{"soft:bogus=1", "unknown option bogus"},
		{"soft:queue_depth=0", "queue_depth=0"},
		{"soft:spin_us=10001", "spin_us=10001"},
		{"soft:spin_us=fast", "spin_us=fast"},
		{"soft:pin=yes", "pin=yes"},
		{"soft:dma_error_rate=2", "dma_error_rate=2"},
		{"soft:hang_after=-1", "hang_after=-1"},
		{"soft:simd=sse9", "simd=sse9"},
		{"soft:memory=512", "below the 1 MiB minimum"},
		{"soft:memory=nan", "memory=nan"},
		{"soft:memory=0x100000", "memory=0x100000"},
		{"soft:memory=1e9", "memory=1e9"},
		{"soft:memory=-1GiB", "memory=-1GiB"},
		{"soft:memory=18446744073709549568", "memory=18446744073709549568"},
		{"soft:memory=17TiB", "maximum of one device"},
	} {
		_, err := device.OpenString(tc.cfg)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, device.ErrInvalid) {
			t.Errorf("%s: err = %v, want ErrInvalid mentioning %q", tc.cfg, err, tc.want)
		}
	}
}

func TestAllocFree(t *testing.T) {
	d := open(t, "soft:memory=8MiB")
	a, err := d.Alloc(100)
	if err != nil || a == 0 || a%64 != 0 {
		t.Fatalf("alloc: %x %v", a, err)
	}
	b, err := d.Alloc(1 << 20)
	if err != nil || b == a {
		t.Fatalf("alloc: %x %v", b, err)
	}
	if tel, _ := d.Telemetry(); tel.MemUsedBytes != 128+1<<20 {
		t.Fatalf("used %d", tel.MemUsedBytes)
	}
	if err := d.Free(a); err != nil {
		t.Fatal(err)
	}
	if err := d.Free(a); !errors.Is(err, device.ErrInvalid) || !strings.Contains(err.Error(), "double free") {
		t.Fatalf("double free: %v", err)
	}
	if err := d.Free(12345); !errors.Is(err, device.ErrInvalid) {
		t.Fatalf("free of junk: %v", err)
	}
	if _, err := d.Alloc(0); !errors.Is(err, device.ErrInvalid) {
		t.Fatalf("alloc 0: %v", err)
	}
	if _, err := d.Alloc(1 << 30); !errors.Is(err, device.ErrNoMemory) {
		t.Fatalf("alloc too much: %v", err)
	}
	if err := d.Free(b); err != nil {
		t.Fatal(err)
	}
	// Coalescing: after everything is freed, the whole region is one extent.
	c, err := d.Alloc(8 << 20)
	if err != nil {
		t.Fatalf("alloc of the whole device after frees: %v", err)
	}
	d.Free(c)
	if tel, _ := d.Telemetry(); tel.MemUsedBytes != 0 || tel.Allocs != tel.Frees {
		t.Fatalf("telemetry after frees: %+v", tel)
	}
}

func TestAllocatorRandomised(t *testing.T) {
	d := open(t, "soft:memory=16MiB")
	rng := rand.New(rand.NewPCG(1, 2))
	live := map[device.Addr]uint64{}
	for i := 0; i < 5000; i++ {
		if len(live) > 0 && rng.IntN(2) == 0 {
			for a := range live {
				if err := d.Free(a); err != nil {
					t.Fatal(err)
				}
				delete(live, a)
				break
			}
			continue
		}
		n := uint64(rng.IntN(64<<10) + 1)
		a, err := d.Alloc(n)
		if errors.Is(err, device.ErrNoMemory) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		for b, m := range live { // no overlap
			if a < b+device.Addr(m) && b < a+device.Addr(n) {
				t.Fatalf("allocation [%x,+%d) overlaps [%x,+%d)", a, n, b, m)
			}
		}
		live[a] = n
	}
	for a := range live {
		d.Free(a)
	}
	if tel, _ := d.Telemetry(); tel.MemUsedBytes != 0 {
		t.Fatalf("leak: %d bytes in use", tel.MemUsedBytes)
	}
}

func TestMapModes(t *testing.T) {
	hv := open(t, "soft:memory=4MiB,mode=host-visible")
	a := alloc(t, hv, 4096)
	m, err := hv.Map(a, 4096)
	if err != nil || len(m) != 4096 {
		t.Fatalf("map: %v", err)
	}
	for i := range m {
		m[i] = byte(i)
	}
	c := run(t, queue(t, hv, 4), device.Op{Code: device.OpChecksum, Src: a, Len: 4096})
	if c.Err != nil || c.Results[0] != device.Checksum(m) {
		t.Fatalf("checksum of mapped writes: %v %x", c.Err, c.Results)
	}
	if _, err := hv.Map(a+device.Addr(8<<20), 16); !errors.Is(err, device.ErrFault) {
		t.Fatalf("map out of range: %v", err)
	}
	disc := open(t, "soft:memory=4MiB,mode=discrete")
	b := alloc(t, disc, 4096)
	if _, err := disc.Map(b, 4096); !errors.Is(err, device.ErrNotSupported) || !strings.Contains(err.Error(), "discrete") {
		t.Fatalf("map on discrete: %v", err)
	}
}

func TestCopyAndChecksum(t *testing.T) {
	for _, simd := range []string{"scalar", "avx2", "avx512"} {
		t.Run(simd, func(t *testing.T) {
			d := open(t, "soft:memory=16MiB,mode=discrete,simd="+simd)
			q := queue(t, d, 16)
			rng := rand.New(rand.NewPCG(3, 4))
			for _, n := range []int{0, 1, 7, 8, 9, 63, 64, 65, 4095, 1 << 20, 3<<20 + 5} {
				src := make([]byte, n)
				for i := range src {
					src[i] = byte(rng.Uint32())
				}
				a := alloc(t, d, uint64(n)+1)
				dst := make([]byte, n)
				c := run(t, q,
					device.Op{Code: device.OpCopyH2D, Dst: a, Host: src, Len: uint64(n)},
					device.Op{Code: device.OpChecksum, Src: a, Len: uint64(n)},
					device.Op{Code: device.OpCopyD2H, Src: a, Host: dst, Len: uint64(n)})
				if c.Err != nil {
					t.Fatalf("n=%d: %v", n, c.Err)
				}
				if !bytes.Equal(src, dst) {
					t.Fatalf("n=%d: round trip differs", n)
				}
				if want := device.Checksum(src); c.Results[1] != want {
					t.Fatalf("n=%d: checksum %x, want %x", n, c.Results[1], want)
				}
			}
		})
	}
}

func TestPatterns(t *testing.T) {
	for _, simd := range []string{"scalar", "avx512"} {
		d := open(t, "soft:memory=4MiB,mode=discrete,simd="+simd)
		q := queue(t, d, 4)
		const n = 64 << 10
		a := alloc(t, d, n)
		for kind := uint64(0); kind <= device.PatternAddress; kind++ {
			host := make([]byte, n)
			c := run(t, q,
				device.Op{Code: device.OpPatternWrite, Dst: a, Len: n, Args: [4]uint64{kind, 99}},
				device.Op{Code: device.OpPatternCheck, Src: a, Len: n, Args: [4]uint64{kind, 99}},
				device.Op{Code: device.OpCopyD2H, Src: a, Host: host, Len: n})
			if c.Err != nil {
				t.Fatalf("%s kind %d: %v", simd, kind, c.Err)
			}
			for i := uint64(0); i < n/8; i++ {
				if got, want := binary.LittleEndian.Uint64(host[8*i:]), device.PatternWord(kind, i, 99, uint64(a)); got != want {
					t.Fatalf("%s kind %d word %d: %x, want %x", simd, kind, i, got, want)
				}
			}
			// corrupt one word: the check names its address
			bad := []byte{1, 2, 3, 4, 5, 6, 7, 8}
			c = run(t, q,
				device.Op{Code: device.OpCopyH2D, Dst: a + 800, Host: bad, Len: 8},
				device.Op{Code: device.OpPatternCheck, Src: a, Len: n, Args: [4]uint64{kind, 99}})
			if !errors.Is(c.Err, device.ErrMismatch) || c.FailedOp != 1 || c.Results[1] != 800 {
				t.Fatalf("corrupted pattern: %v op %d result %d", c.Err, c.FailedOp, c.Results)
			}
		}
	}
}

func TestFillCompare(t *testing.T) {
	d := open(t, "soft:memory=4MiB,mode=discrete")
	q := queue(t, d, 4)
	a, b := alloc(t, d, 1000), alloc(t, d, 1000)
	host := make([]byte, 1000)
	c := run(t, q,
		device.Op{Code: device.OpFill, Dst: a, Len: 1000, Args: [4]uint64{0x0102030405060708}},
		device.Op{Code: device.OpCopyD2D, Dst: b, Src: a, Len: 1000},
		device.Op{Code: device.OpCompare, Dst: b, Src: a, Len: 1000},
		device.Op{Code: device.OpCopyD2H, Src: b, Host: host, Len: 1000})
	if c.Err != nil {
		t.Fatal(c.Err)
	}
	for i, v := range host {
		if v != byte(8-i%8) {
			t.Fatalf("fill byte %d = %d", i, v)
		}
	}
	c = run(t, q,
		device.Op{Code: device.OpCopyH2D, Dst: b + 997, Host: []byte{0}, Len: 1},
		device.Op{Code: device.OpCompare, Dst: b, Src: a, Len: 1000})
	if !errors.Is(c.Err, device.ErrMismatch) || c.Results[1] != 997 || !strings.Contains(c.Err.Error(), "offset 997") {
		t.Fatalf("compare: %v %v", c.Err, c.Results)
	}
}

func TestCodecs(t *testing.T) {
	d := open(t, "soft:memory=16MiB,mode=discrete")
	q := queue(t, d, 4)
	data := bytes.Repeat([]byte("hados moves columnar data to the DPU; "), 20000)
	n := uint64(len(data))
	src, scratch, back := alloc(t, d, n), alloc(t, d, 2*n), alloc(t, d, n)
	for _, codec := range []device.Codec{device.CodecLZ4, device.CodecSnappy} {
		// device compress -> host decompress with the Go library
		comp := make([]byte, 2*n)
		c := run(t, q,
			device.Op{Code: device.OpCopyH2D, Dst: src, Host: data, Len: n},
			device.Op{Code: device.OpCompress, Dst: scratch, Src: src, Len: n, Args: [4]uint64{uint64(codec), 2 * n}},
			device.Op{Code: device.OpCopyD2H, Flags: device.FlagLenFromPrev, Src: scratch, Host: comp, Len: 2 * n})
		if c.Err != nil {
			t.Fatalf("%s: %v", codec, c.Err)
		}
		clen := c.Results[1]
		if clen == 0 || clen >= n/4 {
			t.Fatalf("%s: compressed %d of %d bytes", codec, clen, n)
		}
		out := make([]byte, n)
		var err error
		var got int
		if codec == device.CodecLZ4 {
			got, err = lz4.UncompressBlock(comp[:clen], out)
		} else {
			var dec []byte
			dec, err = snappy.Decode(out, comp[:clen])
			got = len(dec)
		}
		if err != nil || got != len(data) || !bytes.Equal(out, data) {
			t.Fatalf("%s: Go library cannot decode the device's output: %v", codec, err)
		}
		// host compress with the Go library -> device decompress
		var hc []byte
		if codec == device.CodecLZ4 {
			hc = make([]byte, lz4.CompressBlockBound(len(data)))
			k, err := lz4.CompressBlock(data, hc, nil)
			if err != nil {
				t.Fatal(err)
			}
			hc = hc[:k]
		} else {
			hc = snappy.Encode(nil, data)
		}
		c = run(t, q,
			device.Op{Code: device.OpCopyH2D, Dst: scratch, Host: hc, Len: uint64(len(hc))},
			device.Op{Code: device.OpDecompress, Dst: back, Src: scratch, Len: uint64(len(hc)), Args: [4]uint64{uint64(codec), n}},
			device.Op{Code: device.OpCompare, Dst: back, Src: src, Len: n})
		if c.Err != nil || c.Results[1] != n {
			t.Fatalf("%s: device cannot decode the Go library's output: %v %v", codec, c.Err, c.Results)
		}
		// corrupt input is an error, not a crash
		junk := bytes.Repeat([]byte{0xff}, 64)
		c = run(t, q,
			device.Op{Code: device.OpCopyH2D, Dst: scratch, Host: junk, Len: 64},
			device.Op{Code: device.OpDecompress, Dst: back, Src: scratch, Len: 64, Args: [4]uint64{uint64(codec), n}})
		if !errors.Is(c.Err, device.ErrIO) {
			t.Fatalf("%s: corrupt input: %v", codec, c.Err)
		}
	}
}

func TestBadOps(t *testing.T) {
	d := open(t, "soft:memory=4MiB,mode=discrete")
	q := queue(t, d, 4)
	a := alloc(t, d, 64)
	for _, tc := range []struct {
		op   device.Op
		want error
	}{
		{device.Op{Code: device.OpFill, Dst: a, Len: 8 << 20}, device.ErrFault},
		{device.Op{Code: device.OpFill, Dst: 42, Len: 8}, device.ErrFault},
		{device.Op{Code: device.OpCopyD2D, Dst: a, Src: a + device.Addr(4<<20), Len: 8}, device.ErrFault},
		{device.Op{Code: device.OpPatternWrite, Dst: a + 1, Len: 8}, device.ErrInvalid},
		{device.Op{Code: device.OpCompress, Dst: a, Src: a, Len: 8, Args: [4]uint64{9, 8}}, device.ErrInvalid},
	} {
		if c := run(t, q, tc.op); !errors.Is(c.Err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.op.Code, c.Err, tc.want)
		}
	}
	if err := q.Submit(device.Program{Ops: []device.Op{{Code: 99}}}); !errors.Is(err, device.ErrInvalid) {
		t.Errorf("unknown opcode: %v", err)
	}
	if err := q.Submit(device.Program{Ops: []device.Op{{Code: device.OpCopyH2D, Dst: a, Len: 16, Host: make([]byte, 8)}}}); !errors.Is(err, device.ErrInvalid) {
		t.Errorf("short host buffer: %v", err)
	}
}

func TestDistinctAddressRanges(t *testing.T) {
	set, err := device.OpenString("soft:memory=4MiB;soft:memory=4MiB")
	if err != nil {
		t.Fatal(err)
	}
	defer set.Close()
	d0, _ := set.Get("0")
	d1, _ := set.Get("1")
	a0, _ := d0.Alloc(64)
	a1, _ := d1.Alloc(64)
	if a0 == a1 {
		t.Fatalf("two devices handed out the same address %x", a0)
	}
	q := queue(t, d1, 2)
	if c := run(t, q, device.Op{Code: device.OpFill, Dst: a0, Len: 8}); !errors.Is(c.Err, device.ErrFault) {
		t.Fatalf("device 1 accepted device 0's address: %v", c.Err)
	}
	d0.Free(a0)
	d1.Free(a1)
}

func TestSleepBound(t *testing.T) {
	d := open(t, "soft:memory=4MiB")
	if c := run(t, queue(t, d, 2), device.Op{Code: device.OpSleep, Args: [4]uint64{1 << 62}}); !errors.Is(c.Err, device.ErrInvalid) {
		t.Fatalf("an endless sleep: %v", c.Err)
	}
}

func TestCloseWhileCreatingQueues(t *testing.T) {
	for i := 0; i < 20; i++ {
		set, err := device.OpenString("soft:memory=4MiB")
		if err != nil {
			t.Fatal(err)
		}
		d := set.Devices()[0]
		done := make(chan struct{})
		go func() {
			defer close(done)
			for j := 0; j < 50; j++ {
				q, err := d.NewQueue(2)
				if err != nil {
					if !errors.Is(err, device.ErrClosed) {
						t.Error(err)
					}
					return
				}
				if err := q.Submit(device.Program{Ops: []device.Op{{Code: device.OpNop}}}); err != nil && !errors.Is(err, device.ErrClosed) {
					t.Error(err)
				}
				var c [1]device.Completion
				q.Poll(c[:], time.Millisecond)
			}
		}()
		set.Close()
		<-done
	}
}

func TestQueueDepthAndClose(t *testing.T) {
	d := open(t, "soft:memory=4MiB,cores=1")
	q, err := d.NewQueue(2)
	if err != nil {
		t.Fatal(err)
	}
	sleep := device.Program{Ops: []device.Op{{Code: device.OpSleep, Args: [4]uint64{uint64(20 * time.Millisecond)}}}}
	for i := 0; i < 2; i++ {
		if err := q.Submit(sleep); err != nil {
			t.Fatal(err)
		}
	}
	if err := q.Submit(sleep); !errors.Is(err, device.ErrQueueFull) {
		t.Fatalf("third submit to a depth-2 queue: %v", err)
	}
	if err := q.Close(); err != nil {
		t.Fatal(err)
	}
	if err := q.Submit(sleep); !errors.Is(err, device.ErrClosed) {
		t.Fatalf("submit after close: %v", err)
	}
	if err := q.Close(); !errors.Is(err, device.ErrClosed) {
		t.Fatalf("second close: %v", err)
	}
	if _, err := d.NewQueue(0); !errors.Is(err, device.ErrInvalid) {
		t.Fatalf("depth 0: %v", err)
	}
	if _, err := d.NewQueue(1 << 30); !errors.Is(err, device.ErrInvalid) {
		t.Fatalf("huge depth: %v", err)
	}
}

func TestUseAfterClose(t *testing.T) {
	set, err := device.OpenString("soft:memory=4MiB")
	if err != nil {
		t.Fatal(err)
	}
	d := set.Devices()[0]
	q, _ := d.NewQueue(4)
	a, _ := d.Alloc(64)
	if err := set.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Alloc(64); !errors.Is(err, device.ErrClosed) {
		t.Errorf("alloc after close: %v", err)
	}
	if err := d.Free(a); !errors.Is(err, device.ErrClosed) {
		t.Errorf("free after close: %v", err)
	}
	if err := q.Submit(device.Program{}); !errors.Is(err, device.ErrClosed) {
		t.Errorf("submit after close: %v", err)
	}
	if _, err := d.Telemetry(); !errors.Is(err, device.ErrClosed) {
		t.Errorf("telemetry after close: %v", err)
	}
	if err := d.Close(); err != nil {
		t.Errorf("second close: %v", err)
	}
	if _, err := set.Get("0"); !errors.Is(err, device.ErrClosed) {
		t.Errorf("get after close: %v", err)
	}
}

func TestFaultDMAError(t *testing.T) {
	d := open(t, "soft:memory=4MiB,dma_error_rate=1")
	q := queue(t, d, 4)
	a := alloc(t, d, 64)
	c := run(t, q, device.Op{Code: device.OpCopyH2D, Dst: a, Host: make([]byte, 64), Len: 64})
	if !errors.Is(c.Err, device.ErrIO) || !strings.Contains(c.Err.Error(), "injected") {
		t.Fatalf("dma_error_rate=1: %v", c.Err)
	}
	if tel, _ := d.Telemetry(); tel.FaultsInjected == 0 || tel.ProgramsFailed != 1 {
		t.Fatalf("telemetry: %+v", tel)
	}
}

func TestFaultAllocation(t *testing.T) {
	d := open(t, "soft:memory=4MiB,alloc_fail_after=2")
	alloc(t, d, 64)
	alloc(t, d, 64)
	if _, err := d.Alloc(64); !errors.Is(err, device.ErrNoMemory) || !strings.Contains(err.Error(), "injected") {
		t.Fatalf("third alloc: %v", err)
	}
	d2 := open(t, "soft:memory=4MiB,alloc_fail_rate=1")
	if _, err := d2.Alloc(64); !errors.Is(err, device.ErrNoMemory) {
		t.Fatalf("alloc_fail_rate=1: %v", err)
	}
}

func TestFaultHang(t *testing.T) {
	d := open(t, "soft:memory=4MiB,hang_after=1")
	q := queue(t, d, 4)
	run(t, q, device.Op{Code: device.OpNop})
	if err := q.Submit(device.Program{Ops: []device.Op{{Code: device.OpNop}}}); err != nil {
		t.Fatal(err)
	}
	var c [1]device.Completion
	if n, err := q.Poll(c[:], 100*time.Millisecond); n != 0 || err != nil {
		t.Fatalf("hung device completed a program: %d %v", n, err)
	}
	if tel, _ := d.Telemetry(); tel.Health != device.Degraded {
		t.Fatalf("health after hang: %v", tel.Health)
	}
	// closing a hung queue and device must not block
	if err := q.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestFaultLost(t *testing.T) {
	d := open(t, "soft:memory=4MiB,lost_after=1")
	q := queue(t, d, 4)
	run(t, q, device.Op{Code: device.OpNop})
	if c := run(t, q, device.Op{Code: device.OpNop}); !errors.Is(c.Err, device.ErrDeviceLost) {
		t.Fatalf("program on a lost device: %v", c.Err)
	}
	if _, err := d.Alloc(64); !errors.Is(err, device.ErrDeviceLost) {
		t.Fatalf("alloc on a lost device: %v", err)
	}
	if err := q.Submit(device.Program{}); !errors.Is(err, device.ErrDeviceLost) {
		t.Fatalf("submit on a lost device: %v", err)
	}
	if tel, _ := d.Telemetry(); tel.Health != device.Lost {
		t.Fatalf("health: %v", tel.Health)
	}
}

func TestConcurrentQueues(t *testing.T) {
	d := open(t, "soft:memory=32MiB,cores=2,mode=discrete")
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			q, err := d.NewQueue(8)
			if err != nil {
				t.Error(err)
				return
			}
			defer q.Close()
			a, err := d.Alloc(1 << 16)
			if err != nil {
				t.Error(err)
				return
			}
			defer d.Free(a)
			for i := 0; i < 50; i++ {
				src := bytes.Repeat([]byte{byte(g), byte(i)}, 1<<15)
				dst := make([]byte, len(src))
				c := run(t, q,
					device.Op{Code: device.OpCopyH2D, Dst: a, Host: src, Len: uint64(len(src))},
					device.Op{Code: device.OpCopyD2H, Src: a, Host: dst, Len: uint64(len(src))})
				if c.Err != nil || !bytes.Equal(src, dst) {
					t.Errorf("goroutine %d iteration %d: %v", g, i, c.Err)
					return
				}
			}
		}(g)
	}
	wg.Wait()
}
