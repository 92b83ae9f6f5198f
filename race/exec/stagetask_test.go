package exec_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/hados-io/hados/device"
	"github.com/hados-io/hados/hados"
	"github.com/hados-io/hados/operators"
	"github.com/hados-io/hados/race/exec"
	"github.com/hados-io/hados/race/rules"
)

// hostEngine plays Spark's part when Spark schedules the stages and does
// the shuffles: it runs every task of every stage with exec.RunStage,
// keeps shuffle_map outputs by reduce partition (routing each batch by its
// partition column; a range exchange's rows all to partition 0, a valid
// if lopsided range partitioning), and feeds each consumer task its
// inputs. It returns the result stage's records.
type hostEngine struct {
	t       *testing.T
	rt      *hados.Runtime
	dir     string
	schemas map[int]*arrow.Schema
	whole   map[int][]arrow.Record         // broadcast, gather and result outputs
	parts   map[int]map[int][]arrow.Record // shuffle outputs by reduce partition
	tasks   int
}

func (h *hostEngine) release() {
	for _, rs := range h.whole {
		for _, r := range rs {
			r.Release()
		}
	}
	for _, m := range h.parts {
		for _, rs := range m {
			for _, r := range rs {
				r.Release()
			}
		}
	}
}

func (h *hostEngine) run(res *rules.Result) []string {
	t := h.t
	h.schemas, h.whole, h.parts = map[int]*arrow.Schema{}, map[int][]arrow.Record{}, map[int]map[int][]arrow.Record{}
	defer h.release()
	stages, err := exec.Stages(exec.Env{Runtime: h.rt, Warehouse: h.dir}, res)
	if err != nil {
		t.Fatal(err)
	}
	done := map[int]bool{}
	for _, st := range stages {
		for _, d := range st.Deps {
			if !done[d] {
				t.Fatalf("stage %d is listed before its dependency %d", st.ID, d)
			}
		}
		if st.Partitions < 1 {
			t.Fatalf("stage %d has %d partitions", st.ID, st.Partitions)
		}
		for p := 0; p < st.Partitions; p++ {
			h.task(res, st, p)
		}
		done[st.ID] = true
	}
	last := stages[len(stages)-1]
	if last.Kind != exec.StageResult {
		t.Fatalf("the last stage is %s, want the result", last.Kind)
	}
	return rows(&exec.Result{Records: h.whole[last.ID]})
}

func (h *hostEngine) task(res *rules.Result, st exec.StageInfo, p int) {
	t := h.t
	inputs := make([]operators.Operator, len(st.Inputs))
	for i, in := range st.Inputs {
		if in.Kind == exec.InputShuffle {
			inputs[i] = operators.NewRecordSource(h.schemas[in.Stage], h.parts[in.Stage][p]...)
		} else {
			inputs[i] = operators.NewRecordSource(h.schemas[in.Stage], h.whole[in.Stage]...)
		}
	}
	env := exec.Env{Runtime: h.rt, Warehouse: h.dir, Device: fmt.Sprint(p % 2), Inputs: inputs, TaskIDBase: int64(h.tasks) << 8}
	h.tasks++
	out, err := exec.RunStage(context.Background(), env, res, st.ID, p)
	if err != nil {
		t.Fatalf("stage %d (%s) partition %d: %v", st.ID, st.Name, p, err)
	}
	h.schemas[st.ID] = out.Schema
	if st.Kind != exec.StageShuffleMap {
		h.whole[st.ID] = append(h.whole[st.ID], out.Records...)
		return
	}
	if h.parts[st.ID] == nil {
		h.parts[st.ID] = map[int][]arrow.Record{}
	}
	for _, r := range out.Records {
		pid := 0
		if st.Shuffle.PartitionIDs {
			ids := r.Column(0).(*array.Int32)
			pid = int(ids.Value(0))
			for i := range ids.Len() {
				if int(ids.Value(i)) != pid {
					t.Fatalf("stage %d: a batch mixes partitions %d and %d", st.ID, pid, ids.Value(i))
				}
			}
			if pid < 0 || pid >= st.Shuffle.Partitions {
				t.Fatalf("stage %d: partition id %d of %d", st.ID, pid, st.Shuffle.Partitions)
			}
		}
		h.parts[st.ID][pid] = append(h.parts[st.ID][pid], r)
	}
}

// TestStagesByHostEngine runs the builder's TPC-H plans stage by stage
// as Spark would drive them through the C ABI, and compares the rows with
// hados running the whole plan.
func TestStagesByHostEngine(t *testing.T) {
	dir := warehouse(t)
	rt := runtime(t, "soft:memory=256MiB;soft:memory=256MiB,mode=discrete")
	qs := []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22}
	if testing.Short() {
		qs = []int{3, 13, 18}
	}
	for _, q := range qs {
		t.Run(fmt.Sprintf("q%d", q), func(t *testing.T) {
			res := convert(t, q)
			want := run(t, exec.Env{Runtime: rt, Warehouse: dir, Device: "0", Parallelism: 1, AdvisoryPartitionBytes: -1}, q)
			h := &hostEngine{t: t, rt: rt, dir: dir}
			got := h.run(res)
			if !ordered(res) {
				want, got = sorted(want), sorted(got)
			}
			if !sameRows(want, got) {
				t.Fatalf("Q%d by stages differs from the whole plan (%d rows, %d expected):\n%s", q, len(got), len(want), firstDiff(want, got))
			}
		})
	}
}

// ordered reports a plan whose result order is defined (a sort or TopN
// at the top, below transitions and projections).
func ordered(res *rules.Result) bool {
	for n := res.Root; n != nil; {
		switch n.Kind {
		case rules.DpuSort, rules.DpuTopN:
			return true
		}
		if len(n.Children) != 1 {
			return false
		}
		n = n.Children[0]
	}
	return false
}

// TestStagesDescribe checks Q3's stage DAG: two broadcasts and a scan
// feed the partial aggregation's map stage, whose shuffle the final
// aggregation reads, under a TopN gather and the result.
func TestStagesDescribe(t *testing.T) {
	dir := warehouse(t)
	rt := runtime(t, "soft:memory=256MiB")
	stages, err := exec.Stages(exec.Env{Runtime: rt, Warehouse: dir}, convert(t, 3))
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for _, s := range stages {
		kinds[s.Kind]++
		if s.Kind == exec.StageShuffleMap {
			if s.Shuffle == nil || s.Shuffle.Partitions != partitions || len(s.Output) == 0 || s.Output[0].Name != exec.PartitionColumn {
				t.Errorf("map stage %d: %+v", s.ID, s)
			}
		}
	}
	if kinds[exec.StageShuffleMap] == 0 || kinds[exec.StageResult] != 1 || stages[len(stages)-1].Kind != exec.StageResult {
		t.Errorf("stage kinds %v", kinds)
	}
}

// TestRunStageBadInput: a wrong stage, partition, input count or input
// columns is a clear error, and nothing leaks (the runtime checks).
func TestRunStageBadInput(t *testing.T) {
	dir := warehouse(t)
	rt := runtime(t, "soft:memory=256MiB")
	res := convert(t, 3)
	stages, err := exec.Stages(exec.Env{Runtime: rt, Warehouse: dir}, res)
	if err != nil {
		t.Fatal(err)
	}
	var reader exec.StageInfo // a stage reading a shuffle
	for _, s := range stages {
		if len(s.Inputs) > 0 && s.Inputs[0].Kind == exec.InputShuffle {
			reader = s
		}
	}
	if reader.ID == 0 {
		t.Fatal("Q3 has no stage reading a shuffle")
	}
	wrong := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.BinaryTypes.String}}, nil)
	for _, c := range []struct {
		name   string
		stage  int
		part   int
		inputs []operators.Operator
		want   string
	}{
		{"no such stage", 99, 0, nil, "has no stage 99"},
		{"partition out of range", reader.ID, 1 << 20, []operators.Operator{operators.NewRecordSource(wrong)}, "has partitions 0.."},
		{"inputs missing", reader.ID, 0, nil, fmt.Sprintf("reads %d inputs, 0 given", len(reader.Inputs))},
		{"wrong columns", reader.ID, 0, []operators.Operator{operators.NewRecordSource(wrong)}, "stage input 0"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := exec.RunStage(context.Background(), exec.Env{Runtime: rt, Warehouse: dir, Inputs: c.inputs}, res, c.stage, c.part)
			if err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, device.ErrInvalid) {
				t.Fatalf("got %v, want an invalid-argument error containing %q", err, c.want)
			}
		})
	}
}
