package dma_test

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/hados-io/hados/device"
	_ "github.com/hados-io/hados/device/soft"
	"github.com/hados-io/hados/dma"
	"github.com/hados-io/hados/memory"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

type rig struct {
	dev  device.Device
	pool *memory.Pool
	eng  *dma.Engine
}

// newRig opens a device, a pool and an engine, and checks at the end that
// nothing leaked: pool back to zero, device memory free.
func newRig(t testing.TB, cfg string, opts dma.Options) *rig {
	t.Helper()
	set, err := device.OpenString(cfg)
	if err != nil {
		t.Fatal(err)
	}
	r := &rig{dev: set.Devices()[0]}
	r.pool = memory.NewDevicePool(r.dev, memory.PoolOptions{})
	if opts.Codec != device.CodecNone {
		opts.Scratch = r.pool
	}
	r.eng, err = dma.New(r.dev, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := r.eng.Close(); err != nil {
			t.Errorf("engine close: %v", err)
		}
		if s := r.pool.Stats(); s.LiveBuffers != 0 {
			t.Errorf("pool: %d live buffers", s.LiveBuffers)
		}
		if err := r.pool.Close(); err != nil {
			t.Error(err)
		}
		if tel, err := r.dev.Telemetry(); err == nil && tel.MemUsedBytes != 0 {
			t.Errorf("device memory in use at the end: %d", tel.MemUsedBytes)
		}
		set.Close()
	})
	return r
}

func (r *rig) buf(t testing.TB, n uint64) *memory.Buffer {
	t.Helper()
	b, err := r.pool.Alloc(nil, n)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Free() })
	return b
}

func (r *rig) checksum(t testing.TB, a device.Addr, n uint64) uint64 {
	t.Helper()
	c, err := r.eng.Exec(context.Background(), device.Program{Ops: []device.Op{{Code: device.OpChecksum, Src: a, Len: n}}})
	if err != nil {
		t.Fatal(err)
	}
	return c.Results[0]
}

func randomBytes(n int, seed uint64) []byte {
	rng := rand.New(rand.NewPCG(seed, 1))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return b
}

func TestRoundTrip(t *testing.T) {
	for _, mode := range []string{"discrete", "host-visible"} {
		t.Run(mode, func(t *testing.T) {
			r := newRig(t, "soft:memory=64MiB,cores=2,mode="+mode, dma.Options{ChunkSize: 64 << 10})
			ctx := context.Background()
			for _, n := range []int{1, 100, 64 << 10, 64<<10 + 1, 1 << 20, 3<<20 + 17} {
				src := randomBytes(n, uint64(n))
				b := r.buf(t, uint64(n))
				if err := r.eng.Copy(ctx, dma.H2D, dma.Segment{Host: src, Dev: b.Addr}); err != nil {
					t.Fatalf("h2d %d: %v", n, err)
				}
				if got, want := r.checksum(t, b.Addr, uint64(n)), device.Checksum(src); got != want {
					t.Fatalf("%d bytes: device checksum %x, want %x", n, got, want)
				}
				dst := make([]byte, n)
				if err := r.eng.Copy(ctx, dma.D2H, dma.Segment{Host: dst, Dev: b.Addr}); err != nil {
					t.Fatalf("d2h %d: %v", n, err)
				}
				if !bytes.Equal(src, dst) {
					t.Fatalf("%d bytes: round trip differs", n)
				}
			}
			s := r.eng.Stats()
			if s.H2D.Transfers != 6 || s.H2D.Bytes != s.D2H.Bytes || s.H2D.Programs < 6 || s.H2D.Errors != 0 {
				t.Fatalf("stats: %+v", s.H2D)
			}
		})
	}
}

func TestScatterGatherAndD2D(t *testing.T) {
	r := newRig(t, "soft:memory=32MiB,mode=discrete", dma.Options{})
	ctx := context.Background()
	a, b := r.buf(t, 3000), r.buf(t, 3000)
	parts := [][]byte{randomBytes(1000, 1), randomBytes(1000, 2), randomBytes(1000, 3)}
	segs := make([]dma.Segment, 3)
	for i, p := range parts {
		segs[i] = dma.Segment{Host: p, Dev: a.Addr + device.Addr(1000*i)}
	}
	f, err := r.eng.Submit(ctx, dma.H2D, segs...)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	if moved, _, _ := f.Bytes(); moved != 3000 {
		t.Fatalf("moved %d", moved)
	}
	if st := r.eng.Stats(); st.H2D.Programs != 1 {
		t.Fatalf("three small segments took %d programs, want one scatter-gather program", st.H2D.Programs)
	}
	if err := r.eng.Copy(ctx, dma.D2D, dma.Segment{Dev: b.Addr, Src: a.Addr, Len: 3000}); err != nil {
		t.Fatal(err)
	}
	if r.checksum(t, b.Addr, 3000) != device.Checksum(bytes.Join(parts, nil)) {
		t.Fatal("d2d copy differs")
	}
}

func TestZeroCopyElision(t *testing.T) {
	r := newRig(t, "soft:memory=16MiB,mode=host-visible", dma.Options{})
	b := r.buf(t, 1<<20)
	copy(b.Bytes(), randomBytes(1<<20, 9))
	if err := r.eng.Copy(context.Background(), dma.H2D, dma.Segment{Host: b.Bytes(), Dev: b.Addr}); err != nil {
		t.Fatal(err)
	}
	s := r.eng.Stats().H2D
	if s.ElidedBytes != 1<<20 || s.Programs != 0 || s.LinkBytes != 0 {
		t.Fatalf("a transfer of device memory onto itself was not elided: %+v", s)
	}
	// in discrete mode nothing is elided: every byte moves
	d := newRig(t, "soft:memory=16MiB,mode=discrete", dma.Options{})
	db := d.buf(t, 1<<20)
	if err := d.eng.Copy(context.Background(), dma.H2D, dma.Segment{Host: make([]byte, 1<<20), Dev: db.Addr}); err != nil {
		t.Fatal(err)
	}
	if s := d.eng.Stats().H2D; s.ElidedBytes != 0 || s.Bytes != 1<<20 || s.LinkBytes != 1<<20 {
		t.Fatalf("discrete: %+v", s)
	}
}

func TestLinkCompression(t *testing.T) {
	text := bytes.Repeat([]byte("l_shipdate <= date '1998-12-01' - interval '90' day; "), 60000)
	noise := randomBytes(1<<20, 5)
	for _, codec := range []device.Codec{device.CodecLZ4, device.CodecSnappy} {
		t.Run(codec.String(), func(t *testing.T) {
			r := newRig(t, "soft:memory=64MiB,mode=discrete", dma.Options{Codec: codec, ChunkSize: 512 << 10})
			ctx := context.Background()
			for _, data := range [][]byte{text, noise} {
				b := r.buf(t, uint64(len(data)))
				if err := r.eng.Copy(ctx, dma.H2D, dma.Segment{Host: data, Dev: b.Addr}); err != nil {
					t.Fatal(err)
				}
				if r.checksum(t, b.Addr, uint64(len(data))) != device.Checksum(data) {
					t.Fatal("h2d with compression corrupted data")
				}
				back := make([]byte, len(data))
				if err := r.eng.Copy(ctx, dma.D2H, dma.Segment{Host: back, Dev: b.Addr}); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(back, data) {
					t.Fatal("d2h with compression corrupted data")
				}
			}
			s := r.eng.Stats()
			if s.H2D.LinkBytes >= s.H2D.Bytes || s.D2H.LinkBytes >= s.D2H.Bytes {
				t.Fatalf("compression did not shrink the link traffic: h2d %d/%d d2h %d/%d", s.H2D.LinkBytes, s.H2D.Bytes,
					s.D2H.LinkBytes, s.D2H.Bytes)
			}
			if s.Codec != codec.String() {
				t.Fatalf("codec %q", s.Codec)
			}
		})
	}
	if _, err := dma.New(nil, dma.Options{Codec: device.CodecLZ4}); err == nil {
		t.Fatal("codec without scratch accepted")
	}
}

func TestRetries(t *testing.T) {
	r := newRig(t, "soft:memory=32MiB,mode=discrete,dma_error_rate=0.3,seed=11", dma.Options{ChunkSize: 64 << 10, Retries: 20})
	data := randomBytes(2<<20, 3)
	b := r.buf(t, uint64(len(data)))
	if err := r.eng.Copy(context.Background(), dma.H2D, dma.Segment{Host: data, Dev: b.Addr}); err != nil {
		t.Fatalf("with retries: %v", err)
	}
	s := r.eng.Stats().H2D
	if s.Retries == 0 || s.Errors != 0 {
		t.Fatalf("stats: %+v", s)
	}
	if tel, _ := r.dev.Telemetry(); tel.FaultsInjected != s.Retries {
		t.Fatalf("%d faults injected, %d retries", tel.FaultsInjected, s.Retries)
	}

	always := newRig(t, "soft:memory=8MiB,dma_error_rate=1", dma.Options{Retries: 2})
	b2 := always.buf(t, 64)
	err := always.eng.Copy(context.Background(), dma.H2D, dma.Segment{Host: make([]byte, 64), Dev: b2.Addr})
	if !errors.Is(err, device.ErrIO) || !strings.Contains(err.Error(), "after 2 retries") {
		t.Fatalf("persistent DMA error: %v", err)
	}
	if s := always.eng.Stats().H2D; s.Errors != 1 || s.Retries != 2 {
		t.Fatalf("stats: %+v", s)
	}
}

func TestWatchdog(t *testing.T) {
	r := newRig(t, "soft:memory=8MiB,hang_after=0", dma.Options{Watchdog: 150 * time.Millisecond, PollInterval: 10 * time.Millisecond})
	b := r.buf(t, 64)
	start := time.Now()
	err := r.eng.Copy(context.Background(), dma.H2D, dma.Segment{Host: make([]byte, 64), Dev: b.Addr})
	if !errors.Is(err, device.ErrHang) || !strings.Contains(err.Error(), "did not complete within 150ms") {
		t.Fatalf("hung device: %v", err)
	}
	if time.Since(start) > 5*time.Second {
		t.Fatal("watchdog too slow")
	}
	if _, err := r.eng.Submit(context.Background(), dma.H2D, dma.Segment{Host: make([]byte, 64), Dev: b.Addr}); !errors.Is(err, device.ErrHang) {
		t.Fatalf("submit after hang: %v", err)
	}
	if r.eng.Stats().Hangs != 1 {
		t.Fatal("hang not counted")
	}
}

func TestDeviceLost(t *testing.T) {
	r := newRig(t, "soft:memory=8MiB,lost_after=0", dma.Options{})
	b := r.buf(t, 64)
	err := r.eng.Copy(context.Background(), dma.H2D, dma.Segment{Host: make([]byte, 64), Dev: b.Addr})
	if !errors.Is(err, device.ErrDeviceLost) {
		t.Fatalf("lost device: %v", err)
	}
}

func TestCancellation(t *testing.T) {
	r := newRig(t, "soft:memory=64MiB,cores=1,mode=discrete", dma.Options{ChunkSize: 4096, QueueDepth: 1, Queues: 1})
	data := make([]byte, 32<<20)
	b := r.buf(t, uint64(len(data)))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := r.eng.Copy(ctx, dma.H2D, dma.Segment{Host: data, Dev: b.Addr}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled before start: %v", err)
	}
	ctx, cancel = context.WithTimeout(context.Background(), 5*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := r.eng.Copy(ctx, dma.H2D, dma.Segment{Host: data, Dev: b.Addr})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("cancelled mid-way: %v", err)
	}
	if time.Since(start) > 2*time.Second {
		t.Fatalf("cancellation took %v", time.Since(start))
	}
	if r.eng.Stats().InFlight != 0 {
		t.Fatal("programs still in flight after Copy returned")
	}
}

func TestBadSegments(t *testing.T) {
	r := newRig(t, "soft:memory=8MiB", dma.Options{})
	b := r.buf(t, 64)
	for _, tc := range []struct {
		dir dma.Direction
		seg dma.Segment
	}{
		{dma.H2D, dma.Segment{Host: make([]byte, 8), Dev: b.Addr, Len: 16}},
		{dma.H2D, dma.Segment{Host: make([]byte, 8)}},
		{dma.D2D, dma.Segment{Host: make([]byte, 8), Dev: b.Addr, Src: b.Addr}},
		{dma.D2D, dma.Segment{Dev: b.Addr, Len: 8}},
		{dma.Direction(9), dma.Segment{Dev: b.Addr, Len: 8}},
	} {
		if _, err := r.eng.Submit(context.Background(), tc.dir, tc.seg); !errors.Is(err, device.ErrInvalid) {
			t.Errorf("%v %+v: %v", tc.dir, tc.seg, err)
		}
	}
	// a device fault (address outside the device) is reported, not a crash
	err := r.eng.Copy(context.Background(), dma.H2D, dma.Segment{Host: make([]byte, 8), Dev: b.Addr + device.Addr(1<<30)})
	if !errors.Is(err, device.ErrFault) {
		t.Errorf("out of range: %v", err)
	}
	r.eng.Close()
	if _, err := r.eng.Submit(context.Background(), dma.H2D, dma.Segment{Host: make([]byte, 8), Dev: b.Addr}); !errors.Is(err, device.ErrClosed) {
		t.Errorf("submit after close: %v", err)
	}
}

func TestConcurrentTransfers(t *testing.T) {
	r := newRig(t, "soft:memory=64MiB,cores=2,mode=discrete", dma.Options{ChunkSize: 32 << 10, QueueDepth: 4})
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			b, err := r.pool.Alloc(nil, 300<<10)
			if err != nil {
				t.Error(err)
				return
			}
			defer b.Free()
			for i := 0; i < 10; i++ {
				src := randomBytes(300<<10, uint64(g*100+i))
				dst := make([]byte, len(src))
				if err := r.eng.Copy(context.Background(), dma.H2D, dma.Segment{Host: src, Dev: b.Addr}); err != nil {
					t.Error(err)
					return
				}
				if err := r.eng.Copy(context.Background(), dma.D2H, dma.Segment{Host: dst, Dev: b.Addr}); err != nil {
					t.Error(err)
					return
				}
				if !bytes.Equal(src, dst) {
					t.Errorf("goroutine %d: data differs", g)
					return
				}
			}
		}(g)
	}
	wg.Wait()
}

// TestWatchdogSlowProgram: a program that is only slow (already running)
// when the watchdog fires must not have its scratch reused or be reported
// finished to a caller who then frees what it writes — Close waits for it.
func TestWatchdogSlowProgram(t *testing.T) {
	r := newRig(t, "soft:memory=8MiB", dma.Options{Watchdog: 50 * time.Millisecond, PollInterval: 5 * time.Millisecond})
	b := r.buf(t, 64)
	host := make([]byte, 8)
	_, err := r.eng.Exec(context.Background(), device.Program{Ops: []device.Op{
		{Code: device.OpFill, Dst: b.Addr, Len: 8, Args: [4]uint64{0x42}},
		{Code: device.OpSleep, Args: [4]uint64{uint64(200 * time.Millisecond)}},
		{Code: device.OpCopyD2H, Src: b.Addr, Host: host, Len: 8}}})
	if !errors.Is(err, device.ErrHang) || !strings.Contains(err.Error(), "a device program") {
		t.Fatalf("slow program: %v", err)
	}
	if err := r.eng.Close(); err != nil { // waits for the device to let go
		t.Fatal(err)
	}
	if host[0] != 0x42 { // the program finished before Close returned
		t.Fatalf("host[0] = %#x after Close", host[0])
	}
}
