package exec_test

import (
	"context"
	"os"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/hados-io/hados/operators"
	"github.com/hados-io/hados/race/exec"
	"github.com/hados-io/hados/race/plan"
	"github.com/hados-io/hados/race/rules"
)

// BenchmarkEmptyStage is the fixed cost of one task of one stage: the
// host-rows Q6 plan's map stage (filter, project, partial aggregate,
// partition ids) over an empty input, as the C ABI runs it.
func BenchmarkEmptyStage(b *testing.B) {
	f, err := os.Open("../../examples/executor/q6-host-rows.json")
	if err != nil {
		b.Fatal(err)
	}
	p, err := plan.DecodeJSON(f)
	f.Close()
	if err != nil {
		b.Fatal(err)
	}
	opts := rules.DefaultOptions()
	opts.Whitelist = []string{"LocalTableScan"}
	res, err := rules.Run(p, opts, nil)
	if err != nil {
		b.Fatal(err)
	}
	rt := openRuntime(&testing.T{}, "soft:memory=256MiB", 3)
	stages, err := exec.Stages(exec.Env{Runtime: rt}, res)
	if err != nil {
		b.Fatal(err)
	}
	st := stages[0]
	dec := &arrow.Decimal128Type{Precision: 15, Scale: 2}
	in := arrow.NewSchema([]arrow.Field{{Name: "l_quantity", Type: dec, Nullable: true}, {Name: "l_extendedprice", Type: dec, Nullable: true},
		{Name: "l_discount", Type: dec, Nullable: true}, {Name: "l_shipdate", Type: arrow.FixedWidthTypes.Date32, Nullable: true}}, nil)
	b.ResetTimer()
	for range b.N {
		env := exec.Env{Runtime: rt, Inputs: []operators.Operator{operators.NewRecordSource(in)}}
		out, err := exec.RunStage(context.Background(), env, res, st.ID, 0)
		if err != nil {
			b.Fatal(err)
		}
		out.Release()
	}
}
