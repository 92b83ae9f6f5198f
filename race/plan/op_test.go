package plan

import "testing"

// The enums' names are part of the JSON schema: they must round-trip and
// never change.
func TestEnumNames(t *testing.T) {
	for o := OpUnknown; o < opCount; o++ {
		b, _ := o.MarshalText()
		var back Op
		if err := back.UnmarshalText(b); err != nil || back != o {
			t.Errorf("Op %v: %v, %v", o, back, err)
		}
		if o != OpUnknown && ParseOp(o.String()) != o {
			t.Errorf("ParseOp(%q)", o)
		}
	}
	if OpHashAggregate.String() != "HashAggregate" || Op(200).String() != "Unknown" || ParseOp("Nope") != OpUnknown {
		t.Error("op names")
	}
	if !OpSortMergeJoin.IsJoin() || OpSort.IsJoin() || !OpSortAggregate.IsAggregate() || OpSort.IsAggregate() {
		t.Error("op classes")
	}
	for k := ExprOpaque; k < exprKindCount; k++ {
		b, _ := k.MarshalText()
		var back ExprKind
		if err := back.UnmarshalText(b); err != nil || back != k {
			t.Errorf("ExprKind %v: %v, %v", k, back, err)
		}
	}
	for i := range aggModeNames {
		m := AggMode(i)
		b, _ := m.MarshalText()
		var back AggMode
		if err := back.UnmarshalText(b); err != nil || back != m {
			t.Errorf("AggMode %v", m)
		}
	}
	for i := range joinTypeNames {
		j := JoinType(i)
		b, _ := j.MarshalText()
		var back JoinType
		if err := back.UnmarshalText(b); err != nil || back != j {
			t.Errorf("JoinType %v", j)
		}
	}
	for i := range partNames {
		p := PartitioningKind(i)
		b, _ := p.MarshalText()
		var back PartitioningKind
		if err := back.UnmarshalText(b); err != nil || back != p {
			t.Errorf("PartitioningKind %v", p)
		}
	}
	var m AggMode
	var j JoinType
	var p PartitioningKind
	var k ExprKind
	if m.UnmarshalText([]byte("x")) == nil || j.UnmarshalText([]byte("x")) == nil || p.UnmarshalText([]byte("x")) == nil || k.UnmarshalText([]byte("x")) == nil {
		t.Error("bad enum names accepted")
	}
}

// TestEmptyLeaf: the leaves that produce no rows.
func TestEmptyLeaf(t *testing.T) {
	child := &Node{Op: OpScan}
	for _, tc := range []struct {
		name string
		n    *Node
		want bool
	}{
		{"EmptyRelation", &Node{Op: OpEmptyRelation}, true},
		{"empty LocalTableScan", &Node{Op: OpLocalTableScan, Arguments: "<empty>, [a#1, b#2]"}, true},
		{"empty LocalTableScan (tree header)", &Node{Op: OpLocalTableScan, Header: "<empty>, [a#1]"}, true},
		{"LocalTableScan with rows", &Node{Op: OpLocalTableScan, Arguments: "[a#1, b#2]"}, false},
		{"a scan", &Node{Op: OpScan}, false},
		{"an operator with a child", &Node{Op: OpEmptyRelation, Children: []*Node{child}}, false},
		{"nil", nil, false},
	} {
		if got := tc.n.EmptyLeaf(); got != tc.want {
			t.Errorf("%s: EmptyLeaf %v, want %v", tc.name, got, tc.want)
		}
	}
}
