package main

/*
#include "hados.h"
*/
import "C"

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/hados-io/hados/race/exec"
)

// stageKinds and inputKinds map exec's names onto the header's constants.
var (
	stageKinds = map[string]C.int32_t{
		exec.StageShuffleMap: C.HADOS_STAGE_SHUFFLE_MAP, exec.StageBroadcast: C.HADOS_STAGE_BROADCAST,
		exec.StageGather: C.HADOS_STAGE_GATHER, exec.StageResult: C.HADOS_STAGE_RESULT,
	}
	inputKinds = map[string]C.int32_t{
		exec.InputShuffle: C.HADOS_INPUT_SHUFFLE, exec.InputBroadcast: C.HADOS_INPUT_BROADCAST,
		exec.InputGather: C.HADOS_INPUT_GATHER, exec.InputHost: C.HADOS_INPUT_HOST,
	}
)

// stages describes the plan's stages, computed once (counting a scan's
// partitions lists the warehouse).
func (ps *planState) stages(fn string) ([]exec.StageInfo, error) {
	ps.stagesOnce.Do(func() {
		if !ps.offloaded || !ps.executable {
			ps.stagesErr = fmt.Errorf("%w: plan %s is not executable by hados (see hados_plan_decision)", errUnsupported, ps.res.Plan.Name)
			return
		}
		ps.stageList, ps.stagesErr = exec.Stages(exec.Env{Runtime: ps.rs.rt, Warehouse: ps.warehouse}, ps.res)
	})
	if ps.stagesErr != nil {
		return nil, fmt.Errorf("%s: %w", fn, ps.stagesErr)
	}
	return ps.stageList, nil
}

// stageByID is the stage a task names (hados_task_begin's stage ≥ 1).
func (ps *planState) stageByID(id int) (*exec.StageInfo, error) {
	list, err := ps.stages("hados_task_begin")
	if err != nil {
		return nil, err
	}
	for i := range list {
		if list[i].ID == id {
			return &list[i], nil
		}
	}
	return nil, invalidf("hados_task_begin: plan %s has no stage %d (hados_plan_stage_count says how many; stage 0 runs the whole plan)", ps.res.Plan.Name, id)
}

// stageAt is stage i of the list, for export fn.
func stageAt(fn string, p *C.hados_plan, i C.size_t) (*exec.StageInfo, error) {
	ps, err := planOf(fn, p)
	if err != nil {
		return nil, err
	}
	list, err := ps.stages(fn)
	if err != nil {
		return nil, err
	}
	if uint64(i) >= uint64(len(list)) {
		return nil, invalidf("%s: stage index %d of %d stages", fn, uint64(i), len(list))
	}
	return &list[i], nil
}

//export hados_plan_stage_count
func hados_plan_stage_count(p *C.hados_plan, out *C.size_t) C.int {
	return call(func() error {
		ps, err := planOf("hados_plan_stage_count", p)
		if err != nil {
			return err
		}
		if out == nil {
			return invalidf("hados_plan_stage_count: out is NULL")
		}
		list, err := ps.stages("hados_plan_stage_count")
		if err != nil {
			return err
		}
		*out = C.size_t(len(list))
		return nil
	})
}

//export hados_plan_stage
func hados_plan_stage(p *C.hados_plan, i C.size_t, out *C.hados_stage) C.int {
	return call(func() error {
		if out == nil {
			return invalidf("hados_plan_stage: out is NULL")
		}
		s, err := stageAt("hados_plan_stage", p, i)
		if err != nil {
			return err
		}
		*out = C.hados_stage{id: int32Of(s.ID), kind: stageKinds[s.Kind], partitions: int32Of(s.Partitions),
			n_inputs: int32Of(len(s.Inputs))}
		if s.Shuffle != nil {
			out.shuffle_partitions = int32Of(s.Shuffle.Partitions)
			if s.Shuffle.PartitionIDs {
				out.partition_ids = 1
			}
		}
		return nil
	})
}

//export hados_plan_stage_input
func hados_plan_stage_input(p *C.hados_plan, i, j C.size_t, out *C.hados_stage_input) C.int {
	return call(func() error {
		if out == nil {
			return invalidf("hados_plan_stage_input: out is NULL")
		}
		s, err := stageAt("hados_plan_stage_input", p, i)
		if err != nil {
			return err
		}
		if uint64(j) >= uint64(len(s.Inputs)) {
			return invalidf("hados_plan_stage_input: input %d of stage %d, which has %d", uint64(j), s.ID, len(s.Inputs))
		}
		in := s.Inputs[j]
		*out = C.hados_stage_input{kind: inputKinds[in.Kind], stage: int32Of(in.Stage)}
		return nil
	})
}

//export hados_plan_stages_json
func hados_plan_stages_json(p *C.hados_plan, out **C.char) C.int {
	return call(func() error {
		ps, err := planOf("hados_plan_stages_json", p)
		if err != nil {
			return err
		}
		if out == nil {
			return invalidf("hados_plan_stages_json: out is NULL")
		}
		list, err := ps.stages("hados_plan_stages_json")
		if err != nil {
			return err
		}
		b, err := json.Marshal(list)
		if err != nil {
			return err
		}
		*out = cString(string(b))
		return nil
	})
}

// int32Of narrows a count that fits (stage ids, partitions, inputs).
func int32Of(v int) C.int32_t {
	return C.int32_t(min(v, math.MaxInt32))
}
