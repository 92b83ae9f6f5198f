package plan

import "testing"

func TestBuildSideString(t *testing.T) {
	for _, tc := range []struct {
		side BuildSide
		want string
	}{
		{BuildRight, "right"},
		{BuildLeft, "left"},
	} {
		if got := tc.side.String(); got != tc.want {
			t.Errorf("%d.String() = %q, want %q", tc.side, got, tc.want)
		}
	}
}
