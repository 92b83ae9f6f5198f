package tpchgen

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Summary reports what Generate wrote.
type Summary struct {
	Tables  []TableSummary
	Elapsed time.Duration
}

// TableSummary lists one table's row count, files (full paths, in order)
// and total size in bytes.
type TableSummary struct {
	Name  string
	Rows  int64
	Files []string
	Bytes int64
}

// Rows returns the row count of a table in the summary (0 if absent).
func (s Summary) Rows(table string) int64 {
	for _, t := range s.Tables {
		if t.Name == table {
			return t.Rows
		}
	}
	return 0
}

// partName is the file name of part i of a table.
func partName(i int) string { return fmt.Sprintf("part-%05d.parquet", i) }

// job is one part file to write.
type job struct {
	table  *tableSpec
	run    *tableRun
	part   int
	lo, hi int64 // unit range
	tmp    string
	size   int64
	rows   int64
}

// tableRun is the state of one table during a Generate call.
type tableRun struct {
	dir        string
	createdDir bool
	total      int64
	done       int64
	jobs       []*job
}

// Generate writes the selected tables under opt.Out as Parquet files,
// Out/<table>/part-NNNNN.parquet, in parallel.
//
// Files are first written under hidden temporary names and only renamed to
// their final names once every file of the run has been written, so a
// failed or cancelled run leaves no new Parquet file visible (and removes
// the directories it created). A successful run removes part files of an
// earlier run that it did not rewrite. The error of a cancelled run wraps
// ctx.Err().
func Generate(ctx context.Context, opt Options) (Summary, error) {
	start := time.Now()
	r, err := opt.resolve(true)
	if err != nil {
		return Summary{}, err
	}
	if err := os.MkdirAll(r.Out, 0o755); err != nil {
		return Summary{}, fmt.Errorf("tpchgen: cannot create output directory: %w", err)
	}
	g := newGen(r.Options)

	var (
		states = make([]*tableRun, len(r.tables))
		jobs   []*job
	)
	for i, t := range r.tables {
		st := &tableRun{dir: filepath.Join(r.Out, t.name)}
		states[i] = st
		if _, err := os.Stat(st.dir); errors.Is(err, os.ErrNotExist) {
			st.createdDir = true
		}
		if err := os.MkdirAll(st.dir, 0o755); err != nil {
			cleanup(states)
			return Summary{}, fmt.Errorf("tpchgen: cannot create table directory: %w", err)
		}
		for p, ur := range t.split(g, t.units(g.card), int64(rowGroupsPerFile*r.RowGroupRows)) {
			j := &job{table: t, run: st, part: p, lo: ur.lo, hi: ur.hi}
			st.total += ur.rows
			st.jobs = append(st.jobs, j)
			jobs = append(jobs, j)
		}
	}

	err = runJobs(ctx, g, r, jobs)
	if err != nil {
		cleanup(states)
		return Summary{}, err
	}
	sum, err := commit(r, states)
	if err != nil {
		cleanup(states)
		return Summary{}, err
	}
	sum.Elapsed = time.Since(start)
	return sum, nil
}

// runJobs writes every job's temporary file with r.Workers goroutines. The
// first error cancels the others.
func runJobs(ctx context.Context, g *gen, r resolved, jobs []*job) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var (
		progressMu sync.Mutex
		wg         sync.WaitGroup
		queue      = make(chan *job)
	)
	report := func(j *job, rows int64) {
		progressMu.Lock()
		defer progressMu.Unlock()
		j.run.done += rows
		if r.Progress != nil {
			r.Progress(j.table.name, j.run.done, j.run.total)
		}
	}
	for w := 0; w < r.Workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range queue {
				dir, final := j.run.dir, partName(j.part)
				tmp, size, rows, err := writePart(ctx, g, j.table, r, dir, final, j.lo, j.hi,
					func(n int64) { report(j, n) })
				if err != nil {
					cancel(err)
					continue
				}
				j.tmp, j.size, j.rows = tmp, size, rows
			}
		}()
	}
feed:
	for _, j := range jobs {
		select {
		case queue <- j:
		case <-ctx.Done():
			break feed
		}
	}
	close(queue)
	wg.Wait()
	if err := context.Cause(ctx); err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return fmt.Errorf("tpchgen: generation stopped: %w", err)
		}
		return err
	}
	return nil
}

// commit renames every temporary file to its final name, removes stale
// part files of earlier runs and builds the summary.
func commit(r resolved, states []*tableRun) (Summary, error) {
	var sum Summary
	for i, st := range states {
		ts := TableSummary{Name: r.tables[i].name}
		keep := map[string]bool{}
		for _, j := range st.jobs {
			final := filepath.Join(st.dir, partName(j.part))
			if err := os.Rename(j.tmp, final); err != nil {
				return Summary{}, fmt.Errorf("tpchgen: %w", err)
			}
			j.tmp = ""
			keep[filepath.Base(final)] = true
			ts.Files = append(ts.Files, final)
			ts.Rows += j.rows
			ts.Bytes += j.size
		}
		if err := removeStaleParts(st.dir, keep); err != nil {
			return Summary{}, err
		}
		sum.Tables = append(sum.Tables, ts)
	}
	return sum, nil
}

// removeStaleParts deletes part-*.parquet files in dir not named in keep.
func removeStaleParts(dir string, keep map[string]bool) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("tpchgen: %w", err)
	}
	for _, e := range entries {
		n := e.Name()
		if !e.IsDir() && strings.HasPrefix(n, "part-") && strings.HasSuffix(n, ".parquet") && !keep[n] {
			if err := os.Remove(filepath.Join(dir, n)); err != nil {
				return fmt.Errorf("tpchgen: removing stale file: %w", err)
			}
		}
	}
	return nil
}

// cleanup removes leftover temporary files and the table directories this
// run created (if they are empty).
func cleanup(states []*tableRun) {
	for _, st := range states {
		if st == nil {
			continue
		}
		for _, j := range st.jobs {
			if j.tmp != "" {
				os.Remove(j.tmp)
			}
		}
		if st.createdDir {
			os.Remove(st.dir)
		}
	}
}
