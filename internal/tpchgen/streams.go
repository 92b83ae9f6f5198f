package tpchgen

// Random streams, one per group of draws that belong together. Their values
// are part of the data's identity: renumbering them changes every
// generated value, so only append.
const (
	streamTextPool streamID = iota + 1
	streamRegion
	streamNation
	streamSupplier
	streamSupplierTag
	streamPart
	streamPartSupp
	streamCustomer
	streamOrder
	streamLine
	streamLineText
)
