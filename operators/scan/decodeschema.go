package scan

import (
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/schema"
)

// decodeMetadata returns the metadata the decoder is given: md itself, or
// a shallow copy whose schema drops the DECIMAL annotation of the top-level
// INT32 and INT64 columns and the DATE annotation of INT32 ones. pqarrow
// decodes an annotated decimal column into decimal128 (16 bytes a value,
// one conversion per value) that the scan then narrows to decimal64, and a
// DATE column into a second buffer it copies the int32 values into;
// unannotated, both decode to plain integers that pqarrow hands over
// without a copy, and which convert relabels (INT64 decimals, dates) or
// widens (INT32 decimals) at no or little cost.
//
// Only flat schemas whose columns keep all their typing in the logical type
// (or have none) are rewritten, since the copy rebuilds every top-level
// node from its logical type; any other schema is decoded as written. The
// scan's own view of the file (fileSchema, statistics, pruning) always
// uses md.
func decodeMetadata(md *metadata.FileMetaData) *metadata.FileMetaData {
	root := md.Schema.Root()
	fields := make(schema.FieldList, root.NumFields())
	changed := false
	for i := range fields {
		p, ok := root.Field(i).(*schema.PrimitiveNode)
		if !ok {
			return md
		}
		logical := p.LogicalType()
		if logical == nil || (logical.IsNone() && p.ConvertedType() != schema.ConvertedTypes.None) {
			return md // typed by a converted type alone: not rebuilt
		}
		if plainInteger(logical, p.PhysicalType()) {
			logical, changed = schema.NoLogicalType{}, true
		}
		n, err := schema.NewPrimitiveNodeLogical(p.Name(), p.RepetitionType(), logical, p.PhysicalType(), p.TypeLength(), p.FieldID())
		if err != nil {
			return md
		}
		n.ColumnOrder = p.ColumnOrder
		fields[i] = n
	}
	if !changed {
		return md
	}
	g, err := schema.NewGroupNode(root.Name(), root.RepetitionType(), fields, root.FieldID())
	if err != nil {
		return md
	}
	cp := *md
	cp.Schema = schema.NewSchema(g)
	return &cp
}

// plainInteger reports whether a column of this logical and physical type
// is decoded as its plain integers (see decodeMetadata).
func plainInteger(logical schema.LogicalType, physical parquet.Type) bool {
	switch logical.(type) {
	case schema.DecimalLogicalType:
		return physical == parquet.Types.Int32 || physical == parquet.Types.Int64
	case schema.DateLogicalType:
		return physical == parquet.Types.Int32
	}
	return false
}
