package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParseFlags(t *testing.T) {
	cfg, err := parseFlags([]string{"-data", "d", "-sf", "0.5", "-threads", "2", "-queries", "6,1", "-runs", "4", "-source", "parquet"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.dir != "d" || cfg.spec.SF != 0.5 || cfg.threads != 2 || !reflect.DeepEqual(cfg.queries, []int{6, 1}) ||
		cfg.runs != 4 || cfg.source != sourceParquet {
		t.Fatalf("parsed %+v", cfg)
	}
	cfg, err = parseFlags([]string{"-data", "d"}, io.Discard)
	if err != nil || cfg.spec.SF != 1 || cfg.threads != 1 || len(cfg.queries) != 22 || cfg.runs != 3 || cfg.source != sourceTables {
		t.Fatalf("defaults %+v, %v", cfg, err)
	}
}

func TestParseFlagsErrors(t *testing.T) {
	tests := []struct {
		args    []string
		wantErr string
	}{
		{[]string{}, "-data DIR is required"},
		{[]string{"-data", "d", "extra"}, `unexpected argument "extra"`},
		{[]string{"-data", "d", "-sf", "0"}, "-sf must be > 0"},
		{[]string{"-data", "d", "-sf", "NaN"}, "-sf must be > 0"},
		{[]string{"-data", "d", "-threads", "-1"}, "-threads must be >= 0"},
		{[]string{"-data", "d", "-runs", "0"}, "-runs must be >= 1"},
		{[]string{"-data", "d", "-source", "csv"}, `-source must be tables or parquet, got "csv"`},
		{[]string{"-data", "d", "-queries", "1,23"}, `-queries: duckdbh: query list "1,23", item 2`},
		{[]string{"-data", "d", "-schema", "odd"}, `-schema: tpchgen: invalid options: unknown schema "odd"`},
		{[]string{"-nosuchflag"}, "flag provided but not defined"},
	}
	for _, tt := range tests {
		_, err := parseFlags(tt.args, io.Discard)
		if err == nil || !errors.Is(err, errUsage) || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("parseFlags(%q) error = %v, want a usage error containing %q", tt.args, err, tt.wantErr)
		}
	}
	if _, err := parseFlags([]string{"-h"}, io.Discard); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("-h error = %v, want flag.ErrHelp", err)
	}
}

// TestRunEndToEnd generates SF 0.001 data, loads it both ways and times Q1
// and Q6, checking the JSON lines.
func TestRunEndToEnd(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	for _, source := range []string{sourceTables, sourceParquet} {
		t.Run(source, func(t *testing.T) {
			var out, errOut bytes.Buffer
			args := []string{"-data", dir, "-sf", "0.001", "-queries", "1,6", "-runs", "2", "-source", source, "-quiet"}
			if err := run(t.Context(), args, &out, &errOut); err != nil {
				t.Fatalf("run: %v\nstderr: %s", err, errOut.String())
			}
			lines := strings.Split(strings.TrimSpace(out.String()), "\n")
			if len(lines) != 5 {
				t.Fatalf("got %d lines, want data, load, two queries and done:\n%s", len(lines), out.String())
			}
			var done doneLine
			decode(t, lines[4], &done)
			if done.Kind != "done" || done.PeakRSS <= 0 {
				t.Errorf("done line %+v", done)
			}
			var data dataLine
			var load loadLine
			decode(t, lines[0], &data)
			decode(t, lines[1], &load)
			if data.Kind != "data" || data.SF != 0.001 || data.Dir != dir {
				t.Errorf("data line %+v", data)
			}
			if load.Kind != "load" || load.Source != source || load.Threads != 1 || !strings.HasPrefix(load.DuckDB, "v1.") {
				t.Errorf("load line %+v", load)
			}
			wantRows := map[int]int{1: 4, 6: 1}
			for i, q := range []int{1, 6} {
				var ql queryLine
				decode(t, lines[2+i], &ql)
				if ql.Kind != "query" || ql.Engine != "duckdb" || ql.Query != q || ql.Error != "" ||
					ql.Rows != wantRows[q] || ql.BestMS <= 0 || ql.BestMS > ql.MedianMS || ql.Runs != 2 {
					t.Errorf("query line %+v", ql)
				}
			}
		})
	}
}

func TestRunRejectsOtherData(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	if err := run(t.Context(), []string{"-data", dir, "-sf", "0.001", "-queries", "6", "-runs", "1", "-quiet"}, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	err := run(t.Context(), []string{"-data", dir, "-sf", "0.002", "-queries", "6", "-quiet"}, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "not the requested SF 0.002") {
		t.Fatalf("run with another SF: %v", err)
	}
}

func decode(t *testing.T, line string, v any) {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("line %s: %v", line, err)
	}
}
