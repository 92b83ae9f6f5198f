package hados

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/hados-io/hados/device"
	"github.com/hados-io/hados/memory"
)

func TestTasks(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Devices = "soft:count=2,memory=64MiB"
	if err := cfg.Set("spark.hados.scheduler.mode", "FAIR"); err != nil {
		t.Fatal(err)
	}
	rt, err := Open(cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	task, err := rt.BeginTask(TaskSpec{ID: 7, Devices: []string{"1"}, Amount: 0.25, Pool: "etl"})
	if err != nil {
		t.Fatal(err)
	}
	tg := task.Targets()[0]
	if tg.Device.Info().Address != "1" || tg.Account.Limit() != 16<<20 {
		t.Fatalf("target: device %s, quota %d", tg.Device.Info().Address, tg.Account.Limit())
	}
	b, err := tg.Pool.Alloc(tg.Account, 8<<20)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tg.Pool.Alloc(tg.Account, 12<<20); !errors.Is(err, memory.ErrQuotaExceeded) || !strings.Contains(err.Error(), "task 7") {
		t.Fatalf("over the task's quarter of the device: %v", err)
	}
	rel, err := tg.Gate(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st := rt.Units()[1].Sched.Stats(); st.Busy != 1 || st.Running["etl"] != 1 {
		t.Fatalf("scheduler: %+v", st)
	}
	rel()
	if err := task.End(); err == nil || !strings.Contains(err.Error(), "leak") {
		t.Fatalf("ending a task that holds memory: %v", err)
	}
	b.Free()
	for _, bad := range []TaskSpec{{ID: 1, Devices: []string{"5"}}, {ID: 2, Amount: 1.5}, {ID: 3, Amount: -1}, {ID: 4, Quota: 1 << 40}} {
		if _, err := rt.BeginTask(bad); !errors.Is(err, device.ErrInvalid) {
			t.Errorf("%+v: %v", bad, err)
		}
	}
}
