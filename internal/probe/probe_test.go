package probe

import "testing"

func TestReasonCodes(t *testing.T) {
	for i, r := range Reasons[1:] {
		if ReasonCode(r) != uint64(i+1) {
			t.Errorf("%s: code %d", r, ReasonCode(r))
		}
	}
	if ReasonCode("no-such-reason") != 0 {
		t.Error("unknown reason got a code")
	}
	// the probes must stay callable and cheap; calling them is the test that
	// they exist in every binary that links hados
	ProgramSubmitted(0, 1, 1, 0, 0)
	ProgramDone(0, 1, 1, 0, 10)
	TransferSubmitted(0, 0, 8, 0, 0)
	TransferDone(0, 0, 8, 10, 0)
	AllocFailed(0, 8, 1, 0, 0)
	Fallback(1, 1, 0, 0, 0)
	Spill(0, 8, 1, 0, 0)
}
