package reliability

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/hados-io/hados/internal/linediff"
	"github.com/hados-io/hados/internal/tpchgen"
	"github.com/hados-io/hados/race/exec"
	"github.com/hados-io/hados/race/planbuilder"
	"github.com/hados-io/hados/race/rules"
)

// DefaultQueries are the TPC-H queries a workload tries: all of them.
// Reference sets aside the ones the executor cannot run yet, so the
// workload grows as the executor does; list fewer to focus.
var DefaultQueries = []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22}

// DefaultSF is the scale factor of the default workload: 60 thousand
// lineitem rows, under a second to generate, a query in tens to hundreds
// of milliseconds.
const DefaultSF = 0.01

// WorkloadOptions configure NewWorkload. Zero values take the defaults.
type WorkloadOptions struct {
	Dir     string  // the warehouse, generated here unless Existing
	SF      float64 // scale factor (default DefaultSF)
	Queries []int   // TPC-H query numbers (default DefaultQueries)
	// Existing: Dir already holds the generated tables at SF; do not
	// generate them again.
	Existing bool
}

// Query is one TPC-H query of a workload.
type Query struct {
	Number int
	Plan   *rules.Result // converted by RACE; read-only
	want   string        // canonical rows of the reference run
	rows   int
}

// Name is "Q<n>".
func (q *Query) Name() string { return "Q" + strconv.Itoa(q.Number) }

// Rows is the reference result's row count.
func (q *Query) Rows() int { return q.rows }

// Workload is a generated warehouse and the queries over it. It owns no
// memory beyond the Go heap; the warehouse directory is the caller's.
type Workload struct {
	Dir     string
	SF      float64
	Queries []*Query      // the executable queries, once Reference ran
	Skipped map[int]error // queries the executor cannot run yet, with its reason
}

// NewWorkload generates the warehouse (unless opts.Existing) and converts
// the queries' plans.
func NewWorkload(ctx context.Context, opts WorkloadOptions) (*Workload, error) {
	if opts.Dir == "" {
		return nil, errors.New("reliability: a workload needs a warehouse directory")
	}
	if opts.SF == 0 {
		opts.SF = DefaultSF
	}
	if opts.Queries == nil {
		opts.Queries = DefaultQueries
	}
	if !opts.Existing {
		if err := os.MkdirAll(opts.Dir, 0o700); err != nil {
			return nil, err
		}
		if _, err := tpchgen.Generate(ctx, tpchgen.Options{SF: opts.SF, Out: opts.Dir}); err != nil {
			return nil, fmt.Errorf("reliability: generate the warehouse: %w", err)
		}
	}
	w := &Workload{Dir: opts.Dir, SF: opts.SF, Skipped: map[int]error{}}
	for _, n := range opts.Queries {
		p, err := planbuilder.TPCH(n, planbuilder.Options{})
		if err != nil {
			return nil, fmt.Errorf("reliability: Q%d: build the plan: %w", n, err)
		}
		res, err := rules.Run(p, rules.DefaultOptions(), nil)
		if err != nil {
			return nil, fmt.Errorf("reliability: Q%d: convert the plan: %w", n, err)
		}
		w.Queries = append(w.Queries, &Query{Number: n, Plan: res})
	}
	return w, nil
}

// Reference runs every query once with env (whose runtime must be
// healthy; its Warehouse is the workload's) and keeps its rows as the answer
// later runs must give. Queries the executor reports as not executable are
// moved to Skipped; any other error is returned.
func (w *Workload) Reference(ctx context.Context, env exec.Env) error {
	env.Warehouse = w.Dir
	var keep []*Query
	for _, q := range w.Queries {
		out, err := exec.Run(ctx, env, q.Plan)
		if errors.Is(err, exec.ErrNotExecutable) {
			w.Skipped[q.Number] = err
			continue
		}
		if err != nil {
			return fmt.Errorf("reliability: %s on a healthy device: %w", q.Name(), err)
		}
		q.want, q.rows = Canonical(out), rowCount(out)
		out.Release()
		keep = append(keep, q)
	}
	w.Queries = keep
	return nil
}

// Outcome is what one run of a query did.
type Outcome struct {
	Query   int
	Device  string // the Env's device ("" when the executor spread the tasks)
	Latency time.Duration
	Err     error // nil when the rows came back (right or wrong)
	Cause   Cause
	// Wrong holds a description of the difference when rows came back
	// but differ from the reference.
	Wrong string
	// Retries counts the task attempts beyond one per task: tasks the
	// executor ran again after a device error (known only on success).
	Retries int
}

// Run executes q with env (its Warehouse is the workload's) and compares
// its rows with the reference. It never returns rows: the outcome says
// what happened.
func (w *Workload) Run(ctx context.Context, env exec.Env, q *Query) Outcome {
	env.Warehouse = w.Dir
	start := time.Now()
	out, err := exec.Run(ctx, env, q.Plan)
	o := Outcome{Query: q.Number, Device: env.Device, Latency: time.Since(start), Err: err, Cause: Classify(err)}
	if err != nil {
		if o.Cause == Unknown && ctx.Err() != nil {
			o.Cause = Cancelled // whatever broke, the caller had given up first
		}
		return o
	}
	for _, s := range out.Stages {
		o.Retries += max(0, s.Attempts-s.Tasks)
	}
	got := Canonical(out)
	out.Release()
	if got != q.want {
		o.Wrong = diff(q.want, got)
	}
	return o
}

// Canonical prints a result's rows, one per line, columns separated by
// '|', the rows sorted: two results are the same multiset of rows exactly
// when their canonical forms are equal. Floating-point values are printed
// to 12 significant digits, so that the order a parallel sum adds in does
// not count as a difference.
func Canonical(r *exec.Result) string {
	var rows []string
	var b strings.Builder
	for _, rec := range r.Records {
		for i := 0; i < int(rec.NumRows()); i++ {
			b.Reset()
			for c, col := range rec.Columns() {
				if c > 0 {
					b.WriteByte('|')
				}
				b.WriteString(cell(col, i))
			}
			rows = append(rows, b.String())
		}
	}
	sort.Strings(rows)
	header := ""
	if r.Schema != nil {
		header = r.Schema.String() + "\n"
	}
	return header + strings.Join(rows, "\n")
}

func cell(col arrow.Array, i int) string {
	if col.IsNull(i) {
		return "NULL"
	}
	switch a := col.(type) {
	case *array.Float64:
		return strconv.FormatFloat(a.Value(i), 'g', 12, 64)
	case *array.Float32:
		return strconv.FormatFloat(float64(a.Value(i)), 'g', 12, 32)
	}
	return col.ValueStr(i)
}

func rowCount(r *exec.Result) int {
	n := 0
	for _, rec := range r.Records {
		n += int(rec.NumRows())
	}
	return n
}

// diff describes the first difference between two canonical results.
func diff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	if i, w, g, differ := linediff.First(wl, gl); differ {
		return fmt.Sprintf("%d lines, reference %d; first difference at line %d: got %q, want %q", len(gl), len(wl), i+1, g, w)
	}
	return "results differ"
}
