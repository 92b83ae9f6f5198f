package scan

import (
	"testing"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/schema"
)

func TestDecodeMetadata(t *testing.T) {
	prim := func(name string, lt schema.LogicalType, pt parquet.Type, n int) schema.Node {
		return schema.MustPrimitive(schema.NewPrimitiveNodeLogical(name, parquet.Repetitions.Optional, lt, pt, n, -1))
	}
	md := func(fields ...schema.Node) *metadata.FileMetaData {
		return &metadata.FileMetaData{Schema: schema.NewSchema(schema.MustGroup(schema.NewGroupNode("schema", parquet.Repetitions.Required, fields, -1)))}
	}
	flat := md(prim("d64", schema.NewDecimalLogicalType(15, 2), parquet.Types.Int64, -1),
		prim("d32", schema.NewDecimalLogicalType(9, 2), parquet.Types.Int32, -1),
		prim("d38", schema.NewDecimalLogicalType(38, 2), parquet.Types.FixedLenByteArray, 16),
		prim("s", schema.StringLogicalType{}, parquet.Types.ByteArray, -1),
		prim("dt", schema.DateLogicalType{}, parquet.Types.Int32, -1))
	got := decodeMetadata(flat)
	if got == flat {
		t.Fatal("flat schema with integer decimals not rewritten")
	}
	for i, want := range []bool{false, false, true, true, false} { // does the column keep its logical type?
		kept := !got.Schema.Column(i).LogicalType().IsNone()
		if kept != want || got.Schema.Column(i).PhysicalType() != flat.Schema.Column(i).PhysicalType() {
			t.Errorf("column %d: logical %v, physical %v", i, got.Schema.Column(i).LogicalType(), got.Schema.Column(i).PhysicalType())
		}
	}
	if !flat.Schema.Column(0).LogicalType().Equals(schema.NewDecimalLogicalType(15, 2)) {
		t.Error("the original schema changed")
	}
	noDecimal := md(prim("i", schema.NewIntLogicalType(32, true), parquet.Types.Int32, -1))
	nested := md(prim("d64", schema.NewDecimalLogicalType(15, 2), parquet.Types.Int64, -1),
		schema.MustGroup(schema.NewGroupNode("g", parquet.Repetitions.Optional, schema.FieldList{prim("x", nil, parquet.Types.Int32, -1)}, -1)))
	for name, m := range map[string]*metadata.FileMetaData{"no decimal": noDecimal, "nested": nested} {
		if decodeMetadata(m) != m {
			t.Errorf("%s: rewritten", name)
		}
	}
}
