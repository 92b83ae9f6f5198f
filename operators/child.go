package operators

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
)

// Driving a child operator: the steps every operator that reads its whole
// input (Sort, TopN) takes the same way.

// openChild compiles child first when it can be compiled (a FilterProject
// computing sort keys), then opens it.
func openChild(ctx context.Context, child Operator) error {
	if c, ok := child.(interface{ Compile() error }); ok {
		if err := c.Compile(); err != nil {
			return err
		}
	}
	return child.Open(ctx)
}

// readInput reads child to its end, counts the rows in st.RowsIn and hands
// every non-empty batch to take, which then owns it (empty batches are
// released here). It stops at the first error of child or take.
func readInput(ctx context.Context, child Operator, st *Stats, take func(arrow.Record) error) error {
	for {
		rec, err := child.Next(ctx)
		if err != nil {
			return err
		}
		if rec == nil {
			return nil
		}
		if rec.NumRows() == 0 {
			rec.Release()
			continue
		}
		st.RowsIn += rec.NumRows()
		if err := take(rec); err != nil {
			return err
		}
	}
}

// releaseRecords releases every record of recs.
func releaseRecords(recs []arrow.Record) {
	for _, r := range recs {
		r.Release()
	}
}
