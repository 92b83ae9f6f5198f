package main

import (
	"bytes"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hados-io/hados/bench/conformance"
	duckdbh "github.com/hados-io/hados/bench/duckdb"
)

// writeRevenue writes a one-row, one-column decimal(38,4) result, as hados
// would for Q6, to path.
func writeRevenue(t *testing.T, path string, d conformance.Decimal) {
	t.Helper()
	typ := &arrow.Decimal128Type{Precision: 38, Scale: int32(d.Scale)}
	schema := arrow.NewSchema([]arrow.Field{{Name: "revenue", Type: typ, Nullable: true}}, nil)
	b := array.NewDecimal128Builder(memory.DefaultAllocator, typ)
	defer b.Release()
	b.Append(decimal128.FromBigInt(d.Unscaled))
	col := b.NewArray()
	defer col.Release()
	rec := array.NewRecord(schema, []arrow.Array{col}, 1)
	defer rec.Release()
	var buf bytes.Buffer
	w := ipc.NewWriter(&buf, ipc.WithSchema(schema))
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestPrepareThenCompare: -prepare generates the data and echoes the query
// list; -compare then finds Q6's right answer a match, a wrong one a
// mismatch naming the row, and a missing Q1 result an error.
func TestPrepareThenCompare(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	var out bytes.Buffer
	if err := run(t.Context(), []string{"-data", data, "-sf", "0.001", "-queries", "6,1", "-prepare", "-quiet"}, &out, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	var dl dataLine
	decode(t, strings.TrimSpace(out.String()), &dl)
	if dl.Kind != "data" || len(dl.Queries) != 2 || dl.Queries[0] != 6 || dl.Queries[1] != 1 || !dl.Generated {
		t.Fatalf("prepare printed %+v", dl)
	}

	db, err := duckdbh.Open(1)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.AttachParquetViews(data); err != nil {
		t.Fatal(err)
	}
	rows, _, err := db.QueryRows(duckdbh.TPCHQuery(6))
	if err != nil {
		t.Fatal(err)
	}
	right, err := conformance.ParseDecimal(rows[0][0].(string))
	if err != nil {
		t.Fatal(err)
	}

	results := t.TempDir()
	for _, tt := range []struct {
		name    string
		revenue conformance.Decimal
		want    string
		diff    string
	}{
		{"right", right, compareMatch, ""},
		{"wrong", conformance.Decimal{Unscaled: new(big.Int).Neg(right.Unscaled), Scale: right.Scale}, compareMismatch, "row 1: got"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			writeRevenue(t, filepath.Join(results, resultFile(6)), tt.revenue)
			var out bytes.Buffer
			args := []string{"-data", data, "-sf", "0.001", "-queries", "6,1", "-runs", "1", "-source", "parquet", "-compare", results, "-quiet"}
			if err := run(t.Context(), args, &out, &bytes.Buffer{}); err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSpace(out.String()), "\n")
			var q6, q1 queryLine
			decode(t, lines[2], &q6)
			decode(t, lines[3], &q1)
			if q6.Query != 6 || q6.Compare != tt.want || !strings.Contains(q6.Diff, tt.diff) {
				t.Errorf("Q6 line %+v, want compare %q with diff containing %q", q6, tt.want, tt.diff)
			}
			if q1.Query != 1 || q1.Compare != compareError || !strings.Contains(q1.Diff, "no hados result") || !strings.Contains(q1.Diff, "q1.arrow") {
				t.Errorf("Q1 line %+v, want an error about the missing q1.arrow", q1)
			}
		})
	}
}
