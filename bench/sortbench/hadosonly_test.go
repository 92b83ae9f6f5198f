package sortbench

import (
	"context"
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/hados-io/hados/bench/internal/measure"
	"github.com/hados-io/hados/bench/internal/vsduckdb"
	"github.com/hados-io/hados/operators"
	"github.com/hados-io/hados/operators/expr"
	"github.com/hados-io/hados/operators/types"
)

// BenchmarkSortHadosOnly is the hados half of BenchmarkSortVsDuckDB's
// (string, bigint) sort alone, 5 runs in one device, each logged with its
// wall, CPU and system time and page faults (the first runs fault in
// device memory): for profiles. It runs only with
// HADOS_SORTBENCH_HADOSONLY=1.
func BenchmarkSortHadosOnly(b *testing.B) {
	if os.Getenv("HADOS_SORTBENCH_HADOSONLY") != "1" {
		b.Skip("set HADOS_SORTBENCH_HADOSONLY=1")
	}
	rows := 16 << 20
	if v := os.Getenv("HADOS_SORTBENCH_ROWS"); v != "" {
		rows, _ = strconv.Atoi(v)
	}
	p, err := vsduckdb.OpenPair(2, "5120MiB")
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	tgt := p.Target
	schema, recs := Generate(rows, true, tgt.OutputAllocator())
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	keys := []operators.SortKey{{Expr: expr.Column(0, "s", types.DataType{Kind: types.String})},
		{Expr: expr.Column(1, "k", types.DataType{Kind: types.Long})}}
	for i := 0; i < 5; i++ {
		var ru0, ru1 syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
		c0, t0 := measure.ProcessCPU(), time.Now()
		op, err := operators.NewSort(tgt, operators.NewRecordSource(schema, recs...), keys)
		if err != nil {
			b.Fatal(err)
		}
		out, err := operators.Collect(context.Background(), op)
		if err != nil {
			b.Fatal(err)
		}
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
		b.Logf("run %d: %v (CPU %v, sys %v, minflt %d)", i, time.Since(t0), measure.ProcessCPU()-c0,
			time.Duration(syscall.TimevalToNsec(ru1.Stime)-syscall.TimevalToNsec(ru0.Stime)), ru1.Minflt-ru0.Minflt)
		for _, r := range out {
			r.Release()
		}
	}
}
