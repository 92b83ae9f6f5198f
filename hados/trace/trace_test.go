package trace

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/hados-io/hados/dma"
	"github.com/hados-io/hados/hados"
)

const transfers = 40

// TestMain doubles as the traced workload: with HADOS_TRACE_CHILD set, the
// test binary opens a software DPU, says "ready", waits for "go", runs a
// known number of DMA transfers, says how many programs ran, and exits.
func TestMain(m *testing.M) {
	if os.Getenv("HADOS_TRACE_CHILD") == "1" {
		os.Exit(child())
	}
	os.Exit(m.Run())
}

func child() int {
	cfg := hados.DefaultConfig()
	cfg.Devices = "soft:memory=64MiB,mode=discrete"
	rt, err := hados.Open(cfg, hados.Options{})
	if err != nil {
		fmt.Println("error", err)
		return 1
	}
	defer rt.Close()
	u := rt.Units()[0]
	buf, err := u.Pool.Alloc(nil, 64<<10)
	if err != nil {
		fmt.Println("error", err)
		return 1
	}
	defer buf.Free()
	host := make([]byte, 64<<10)
	fmt.Println("ready")
	in := bufio.NewScanner(os.Stdin)
	in.Scan()
	for i := 0; i < transfers; i++ {
		if err := u.DMA.Copy(context.Background(), dma.H2D, dma.Segment{Host: host, Dev: buf.Addr}); err != nil {
			fmt.Println("error", err)
			return 1
		}
	}
	tel, _ := u.Device.Telemetry()
	fmt.Println("done", tel.ProgramsCompleted)
	return 0
}

// TestTraceChild attaches to a child process running a workload and checks
// that the traced counts equal the work done.
func TestTraceChild(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), "HADOS_TRACE_CHILD=1")
	stdin, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	lines := bufio.NewScanner(out)
	if !lines.Scan() || lines.Text() != "ready" {
		t.Fatalf("child: %q", lines.Text())
	}
	tr, err := Attach(cmd.Process.Pid, "")
	if errors.Is(err, ErrNoPrivilege) {
		t.Skipf("eBPF unavailable here: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	fmt.Fprintln(stdin, "go")
	if !lines.Scan() || !strings.HasPrefix(lines.Text(), "done ") {
		t.Fatalf("child: %q", lines.Text())
	}
	var programs uint64
	fmt.Sscanf(lines.Text(), "done %d", &programs)
	cmd.Wait()

	sum := NewSummary(5)
	var dmaH2D, progs uint64
	for {
		e, ok, err := tr.Next(time.Now().Add(500 * time.Millisecond))
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		r := Decode(e)
		sum.Add(r)
		if r.Kind == "dma" && r.What == "h2d" {
			dmaH2D++
			if r.Bytes != 64<<10 {
				t.Errorf("traced transfer of %d bytes", r.Bytes)
			}
		}
		if r.Kind == "program" {
			progs++
		}
	}
	if dmaH2D != transfers || progs != programs {
		t.Fatalf("traced %d h2d transfers (want %d) and %d programs (want %d)", dmaH2D, transfers, progs, programs)
	}
	var text strings.Builder
	sum.WriteText(&text, time.Second)
	if !strings.Contains(text.String(), "dma h2d") || !strings.Contains(text.String(), "latency (log2 buckets)") {
		t.Fatalf("summary:\n%s", text.String())
	}
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestAttachErrors(t *testing.T) {
	if _, err := Attach(1<<30, ""); err == nil {
		t.Fatal("attached to a process that does not exist")
	}
	if _, err := Attach(os.Getpid(), "/bin/true"); err == nil || errors.Is(err, ErrNoPrivilege) && false {
		t.Fatal("attached to an executable without hados probes")
	} else if !errors.Is(err, ErrNoPrivilege) && !strings.Contains(err.Error(), "none of hados's probe functions") {
		t.Fatalf("executable without probes: %v", err)
	}
}
