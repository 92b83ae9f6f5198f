package metrics

// Spill families: what operators wrote to local disk, per device and
// operator. Entries naming the same operator are summed into one series.

func collectSpill(e emitter, dev string, spills []SpillStats) {
	var order []string
	sum := map[string]SpillStats{}
	for _, s := range spills {
		m, ok := sum[s.Operator]
		if !ok {
			order = append(order, s.Operator)
		}
		m.Runs += s.Runs
		m.Files += s.Files
		m.Bytes += s.Bytes
		m.Rows += s.Rows
		sum[s.Operator] = m
	}
	for _, op := range order {
		s := sum[op]
		e.count(spillRuns, s.Runs, dev, op)
		e.count(spillFiles, s.Files, dev, op)
		e.count(spillBytes, s.Bytes, dev, op)
		e.count(spillRows, s.Rows, dev, op)
	}
}
