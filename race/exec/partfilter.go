package exec

import (
	"github.com/hados-io/hados/operators"
	"github.com/hados-io/hados/race/rules"
)

// partitionFilter applies a scan's partition filters (rules puts them in
// the scan's payload: Spark drops them from the Filter above once it
// prunes partitions with them) to the rows of op, whose partition columns
// hold the values in the file's path. A file whose partition fails the
// filter is read and its rows dropped on the device.
func (b *builder) partitionFilter(n *rules.Node, op operators.Operator) (operators.Operator, error) {
	if n.Device == nil || n.Device.Filter == nil {
		return op, nil
	}
	pl, err := b.payload(n)
	if err != nil {
		return nil, closeAfter(op, err)
	}
	fp, err := operators.NewFilterProject(b.target, op, pl.Filter, nil, nil)
	if err != nil {
		return nil, closeAfter(op, err)
	}
	return b.track(label(n)+" partition filter", fp), nil
}
