package plan

// BuildSide is the side of a hash join built into its hash table, the
// typed form of JoinInfo.BuildSide's "left" and "right" that the planner
// (package rules) and the plan builder share.
type BuildSide uint8

// The build sides.
const (
	BuildRight BuildSide = iota
	BuildLeft
)

// String is the side as JoinInfo.BuildSide spells it: "left" or "right".
func (b BuildSide) String() string {
	if b == BuildLeft {
		return "left"
	}
	return "right"
}
