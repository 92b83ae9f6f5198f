package tpchpipes_test

import (
	"context"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hados-io/hados/internal/tpchpipes"
	"github.com/hados-io/hados/operators"
	"github.com/hados-io/hados/operators/optest"
)

func newTarget(tb testing.TB, cfg string) *operators.Target {
	return optest.NewTarget(tb, cfg)
}

// TestLayoutsAgree: Q1 and Q6 over the Dict layout (int8-coded
// dictionaries in device memory) give exactly the Plain layout's results
// (which operators' TestTPCHQ1Q6 checks against a reference), on a
// host-visible and a discrete device (whose dictionaries are uploaded).
func TestLayoutsAgree(t *testing.T) {
	for _, mode := range []string{"host-visible", "discrete"} {
		t.Run(mode, func(t *testing.T) {
			tgt := newTarget(t, "soft:memory=512MiB,cores=2,mode="+mode)
			ps, precs := tpchpipes.LineitemLayout(t, tgt, 0.01, tpchpipes.Plain)
			ds, drecs := tpchpipes.LineitemLayout(t, tgt, 0.01, tpchpipes.Dict)
			if _, ok := ds.Field(ds.FieldIndices("l_discount")[0]).Type.(*arrow.DictionaryType); !ok {
				t.Fatalf("Dict layout: l_discount is %s", ds.Field(ds.FieldIndices("l_discount")[0]).Type)
			}
			ctx := context.Background()
			for _, q := range []struct {
				name string
				mk   func(testing.TB, *operators.Target, *arrow.Schema, []arrow.Record) *operators.HashAggregate
			}{{"q1", tpchpipes.Q1}, {"q6", tpchpipes.Q6}} {
				pout, err := operators.Collect(ctx, q.mk(t, tgt, ps, precs))
				if err != nil {
					t.Fatal(err)
				}
				dout, err := operators.Collect(ctx, q.mk(t, tgt, ds, drecs))
				if err != nil {
					t.Fatalf("%s over dictionaries: %v", q.name, err)
				}
				p, d := optest.SortedRows(pout), optest.SortedRows(dout)
				if strings.Join(p, "\n") != strings.Join(d, "\n") || len(p) == 0 {
					t.Errorf("%s: plain\n%s\ndict\n%s", q.name, strings.Join(p, "\n"), strings.Join(d, "\n"))
				}
			}
		})
	}
}

func TestDictEncode(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	b := array.NewStringBuilder(mem)
	b.AppendValues([]string{"R", "A", "R", "", "N"}, []bool{true, true, true, false, true})
	arr := b.NewArray()
	b.Release()
	d, err := tpchpipes.DictEncode(mem, arr)
	arr.Release()
	if err != nil {
		t.Fatal(err)
	}
	defer d.Release()
	if got := d.String(); got != `{ dictionary: ["R" "A" "N"]
  indices: [0 1 0 (null) 2] }` {
		t.Errorf("DictEncode: %s", got)
	}
	b = array.NewStringBuilder(mem)
	for i := 0; i < 200; i++ {
		b.Append(string(rune('A' + i)))
	}
	arr = b.NewArray()
	b.Release()
	defer arr.Release()
	if _, err := tpchpipes.DictEncode(mem, arr); err == nil || !strings.Contains(err.Error(), "more than 128 distinct") {
		t.Errorf("200 distinct values: %v", err)
	}
}
