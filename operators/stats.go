package operators

// Stats counts what an operator did.
type Stats struct {
	RowsIn  int64 `json:"rows_in"`
	RowsOut int64 `json:"rows_out"`
	Batches int64 `json:"batches"`
}
