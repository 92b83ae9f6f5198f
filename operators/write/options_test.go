package write

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
)

func TestBadOptions(t *testing.T) {
	dir := t.TempDir()
	ntz := arrow.NewSchema([]arrow.Field{{Name: "t", Type: &arrow.TimestampType{Unit: arrow.Microsecond}}}, nil)
	dup := arrow.NewSchema([]arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Int32}, {Name: "a", Type: arrow.PrimitiveTypes.Int32}}, nil)
	withList := arrow.NewSchema([]arrow.Field{{Name: "l", Type: arrow.ListOf(arrow.PrimitiveTypes.Int32)}, {Name: "u", Type: arrow.BinaryTypes.BinaryView}}, nil)
	for _, tc := range []struct {
		name string
		opt  Options
		is   error
		msg  string
	}{
		{"empty dir", Options{Schema: metaSchema}, ErrInvalidOptions, "Options.Dir is empty"},
		{"nil schema", Options{Dir: dir}, ErrInvalidOptions, "Options.Schema"},
		{"unknown codec", Options{Dir: dir, Schema: metaSchema, Codec: "gzip"}, ErrInvalidOptions, `unknown codec "gzip"`},
		{"unknown partition column", Options{Dir: dir, Schema: metaSchema, PartitionBy: []string{"nope"}}, ErrInvalidOptions, `partition column "nope" is not in the schema (columns: id, name, amount)`},
		{"partition twice", Options{Dir: dir, Schema: metaSchema, PartitionBy: []string{"name", "name"}}, ErrInvalidOptions, `"name" is listed twice`},
		{"ambiguous partition", Options{Dir: dir, Schema: dup, PartitionBy: []string{"a"}}, ErrInvalidOptions, "ambiguous"},
		{"all partition", Options{Dir: dir, Schema: metaSchema, PartitionBy: []string{"id", "name", "amount"}}, ErrInvalidOptions, "every column is a partition column"},
		{"binary partition", Options{Dir: dir, Schema: allTypes, PartitionBy: []string{"bin"}}, ErrNotSupported, `partition column "bin" has type binary`},
		{"negative rows", Options{Dir: dir, Schema: metaSchema, RowGroupRows: -1}, ErrInvalidOptions, "RowGroupRows is negative"},
		{"negative page", Options{Dir: dir, Schema: metaSchema, PageBytes: -5}, ErrInvalidOptions, "PageBytes is negative"},
		{"negative max rows", Options{Dir: dir, Schema: metaSchema, MaxFileRows: -5}, ErrInvalidOptions, "MaxFileRows"},
		{"negative split", Options{Dir: dir, Schema: metaSchema, Split: -1}, ErrInvalidOptions, "Split"},
		{"timestamp type", Options{Dir: dir, Schema: metaSchema, TimestampType: "millis"}, ErrInvalidOptions, `unknown TimestampType "millis"`},
		{"int96 ntz", Options{Dir: dir, Schema: ntz, TimestampType: "int96"}, ErrInvalidOptions, `column "t" of type timestamp_ntz`},
		{"time zone", Options{Dir: dir, Schema: metaSchema, TimeZone: "Mars/Olympus"}, ErrInvalidOptions, "TimeZone"},
		{"task id slash", Options{Dir: dir, Schema: metaSchema, TaskID: "../x"}, ErrInvalidOptions, "TaskID"},
		{"task id dot", Options{Dir: dir, Schema: metaSchema, TaskID: ".hidden"}, ErrInvalidOptions, "TaskID"},
		{"bloom unknown", Options{Dir: dir, Schema: metaSchema, BloomFilters: map[string]BloomOptions{"x": {}}}, ErrInvalidOptions, `bloom filter column "x" is not in the schema`},
		{"bloom partition", Options{Dir: dir, Schema: metaSchema, PartitionBy: []string{"name"}, BloomFilters: map[string]BloomOptions{"name": {}}}, ErrInvalidOptions, "is a partition column"},
		{"bloom fpp", Options{Dir: dir, Schema: metaSchema, BloomFilters: map[string]BloomOptions{"id": {FPP: 1.5}}}, ErrInvalidOptions, "FPP 1.5 is not in (0, 1)"},
		{"bloom ndv", Options{Dir: dir, Schema: metaSchema, BloomFilters: map[string]BloomOptions{"id": {NDV: -1}}}, ErrInvalidOptions, "NDV is negative"},
		{"bloom nested", Options{Dir: dir, Schema: withList, BloomFilters: map[string]BloomOptions{"l": {}}}, ErrInvalidOptions, "nested type"},
		{"unstorable type", Options{Dir: dir, Schema: withList}, ErrNotSupported, `column "u" of type binary_view cannot be stored`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, err := NewWriter(context.Background(), tc.opt)
			if err == nil {
				w.Abort()
				t.Fatal("NewWriter accepted the options")
			}
			if !errors.Is(err, tc.is) || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("error %q, want %v containing %q", err, tc.is, tc.msg)
			}
		})
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("rejected writers left %d entries in Dir", len(entries))
	}
}

// TestDefaults checks the Spark-like defaults NewWriter fills in.
func TestDefaults(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	w := mustWriter(t, Options{Dir: dir, Schema: metaSchema})
	defer w.Abort()
	c := w.cfg
	if c.Codec != "snappy" || c.RowGroupBytes != 128<<20 || c.PageBytes != 1<<20 || c.TimestampType != "micros" || c.TimeZone != "UTC" {
		t.Errorf("defaults: codec %s rowgroup %d page %d ts %s tz %s", c.Codec, c.RowGroupBytes, c.PageBytes, c.TimestampType, c.TimeZone)
	}
	if len(c.TaskID) != 36 {
		t.Errorf("default TaskID %q is not a UUID", c.TaskID)
	}
	if !w.props.StatisticsEnabled() || !w.props.PageIndexEnabled() || !w.props.StoreDecimalAsInteger() {
		t.Error("statistics, page index and integer decimals must be on by default")
	}
}
