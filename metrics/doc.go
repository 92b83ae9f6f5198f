// Package metrics exports the counters of the hados runtime to Prometheus:
// what each device is doing, how its memory is used, and what the DMA
// engines move across the link.
//
// # Snapshots, read at scrape time
//
// The runtime layers keep their counters themselves, as cheap atomics, and
// hand out copies through Stats() methods: device.Telemetry and device.Info,
// memory.PoolStats and memory.AccountStats, dma.Stats with one DirStats and
// one latency histogram per direction. The runtime (package hados) gathers
// them into a Snapshot and implements Source. This package never reaches
// into the layers and never keeps a counter of its own: the collector calls
// Source.Snapshot exactly once per scrape and turns that snapshot into const
// metrics. A scrape therefore sees one consistent-enough picture (each
// layer's copy is taken without holding locks across the scrape), costs
// nothing between scrapes, and the layers need not know Prometheus exists.
//
// # Registries are injected
//
// Nothing is registered on prometheus.DefaultRegisterer. The caller creates
// a registry, calls Register(reg, src) (or registers NewCollector(src)
// itself next to its own collectors), and serves it with Handler or Serve.
// Tests use a fresh registry each; two runtimes in one process use two.
// The collector describes every family it may emit, so a registry checks
// each scrape against those descriptors; NewPedanticRegistry is used in the
// tests.
//
// # Names
//
// Families are named hados_<layer>_<what>_<unit>: the layer is device,
// memory or dma; sizes end in _bytes and durations in _seconds (base units,
// never KiB or ms); counters end in _total. Every series carries a device
// label, the device's stable address ("0", "1", … as Spark's resource
// scheduling uses them); the pinned host staging pool appears in the
// hados_memory_pool_* families as device="host" (HostDevice). Directions are
// h2d, d2h, d2d and exec (programs the DMA engine ran with Exec). Static
// facts (driver, mode, SIMD level, name, version; the link codec) live on
// info gauges whose value is 1, to be joined in queries, so the other series
// stay narrow. A quota of 0 means unlimited and has no _limit_bytes series.
// docs/metrics.md lists every family with its type, labels and meaning.
//
// Two series may never share a name and label values, so the collector
// protects the scrape from the snapshot: task accounts that share a name on
// one device are merged (summed) into one series, and a device whose address
// repeats (or is "host" while a host pool exists) is skipped and reported as
// an invalid metric, which the registry's Gather returns as an error and
// Handler logs while serving everything else. A label value that is not
// valid UTF-8, or a malformed latency histogram, is reported the same way.
// Collect never panics on snapshot contents.
//
// The DMA latency histogram converts the runtime's log2 buckets (1 µs,
// 2 µs, … about 33 s, then +Inf; counts per bucket) into Prometheus'
// cumulative buckets; the +Inf bucket is implicit in the count, which is the
// sum of the bucket counts.
//
// # Serving
//
// Handler wraps promhttp for a registry. Serve (or a Server) listens on
// 127.0.0.1:9464 unless told otherwise, serves GET /metrics and a small
// index page at GET /, and shuts down gracefully when its context is done.
// Loopback is the default because the metrics describe the machine's
// workload; a caller that passes a non-loopback address explicitly gets it
// (the CLI's --listen flag is that explicit choice), with a warning in the
// log. Listen errors such as a port already in use come back at once from
// Serve, naming the address.
//
// # Concurrency and ownership
//
// The collector is safe for concurrent scrapes if the Source is: Snapshot
// may be called from several goroutines at once. Snapshots belong to the
// Source; the collector only reads them during Collect and keeps nothing.
// A Server owns its listener and HTTP server for the duration of Serve and
// closes both before Serve returns; no goroutine outlives it.
package metrics
