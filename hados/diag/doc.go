// Package diag is the device diagnostic behind `hados diag`: the driver's
// self-test; memory pattern tests (walking ones, random, address in
// address) over a region of device memory with a host readback against the
// Go reference; conformance of every data kernel (checksum, fill, copy,
// compare, the LZ4 and Snappy compression engine) against the Go reference
// and the Go codec libraries; DMA bandwidth and latency host→device,
// device→host and device→device at several sizes, each beside this
// machine's single-thread memcpy bandwidth measured in the same run (the
// ratio is printed); queue submit-to-complete latency; and telemetry.
//
// Bandwidths are the best of many timed transfers on warm buffers, the way
// memory bandwidth tools report them; latencies are medians and
// percentiles. A failed check fails the report (and the CLI exits
// non-zero); the bandwidth figures are information, not a pass criterion.
package diag
