package tpchdata

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/hados-io/hados/internal/tpchgen"
)

// Spec identifies a generated data set.
type Spec struct {
	// SF is the scale factor (> 0).
	SF float64
	// Schema selects the column types; the comparison harness uses
	// tpchgen.Standard (decimal(15,2) money).
	Schema tpchgen.Schema
	// Seed makes the data deterministic.
	Seed uint64
}

// Ensure makes dir hold the eight TPC-H tables for spec and reports whether
// it had to generate them. Generation uses every core (tpchgen's default);
// progress, if not nil, receives tpchgen's progress callbacks.
//
// It is an error when dir carries a marker for a different spec, or when the
// generator fails (a failed run leaves no partial table visible).
func Ensure(ctx context.Context, dir string, spec Spec, progress func(table string, done, total int64)) (generated bool, err error) {
	if dir == "" {
		return false, errors.New("tpchdata: no data directory given")
	}
	m, found, err := readMarker(dir)
	if err != nil {
		return false, err
	}
	if found && m != markerOf(spec) {
		return false, fmt.Errorf("tpchdata: %s holds TPC-H %s, not the requested %s: use another directory or delete it",
			dir, m, markerOf(spec))
	}
	complete, err := Complete(dir)
	if err != nil {
		return false, err
	}
	if complete {
		return false, nil
	}
	opt := tpchgen.Options{SF: spec.SF, Out: dir, Schema: spec.Schema, Seed: spec.Seed, Progress: progress}
	if _, err := tpchgen.Generate(ctx, opt); err != nil {
		return false, fmt.Errorf("tpchdata: generate SF %g into %s: %w", spec.SF, dir, err)
	}
	if err := writeMarker(dir, markerOf(spec)); err != nil {
		return true, err
	}
	return true, nil
}

// Complete reports whether every TPC-H table has at least one Parquet file
// under dir. A missing dir is simply incomplete.
func Complete(dir string) (bool, error) {
	for _, t := range tpchgen.TableNames() {
		files, err := filepath.Glob(filepath.Join(dir, t, "*.parquet"))
		if err != nil {
			return false, fmt.Errorf("tpchdata: bad data directory %q: %w", dir, err)
		}
		if len(files) == 0 {
			if _, err := os.Stat(dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return false, fmt.Errorf("tpchdata: %w", err)
			}
			return false, nil
		}
	}
	return true, nil
}
