package operators

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hados-io/hados/operators/exchange"
)

// writePartitions splits rec by ids (a partition 0..n-1 a row) and hands
// each non-empty partition p to write(p, part), which must not keep part:
// every part is released here, also after an error. A failed split is
// reported as what: err. rec stays the caller's.
func writePartitions(what string, rec arrow.Record, ids []int32, n int, write func(p int, part arrow.Record) error) error {
	parts, err := exchange.Partition(rec, ids, n, memory.DefaultAllocator)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	for p, r := range parts {
		if r == nil {
			continue
		}
		if err == nil {
			err = write(p, r)
		}
		r.Release()
	}
	return err
}
