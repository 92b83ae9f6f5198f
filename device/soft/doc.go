// Package soft is the software DPU: a native C engine behind hados's C
// driver interface (device/include/hados_driver.h), registered as the
// built-in device driver "soft".
//
// # What it is
//
// The engine is a device in every sense the rest of hados can observe. It
// owns a region of device memory (an anonymous mapping, on hugetlb pages or
// advised for transparent huge pages, optionally mlocked), managed by its
// own allocator and addressed by device addresses that are not host
// pointers: device N's memory starts at (N+1)<<40. It runs N engine cores,
// threads that take submitted programs from a FIFO work list and execute
// them, and it serves any number of submission/completion queues. Its
// kernels are C compiled with -O3 and instantiated for AVX-512, AVX2 and the
// baseline ISA; the widest the CPU supports is chosen when the device opens
// (or a lower one with simd=).
//
// In host-visible mode the host may Map device memory; in discrete mode Map
// fails and every byte must cross DMA (OpCopyH2D/OpCopyD2H), as with a PCIe
// card. Tests run both.
//
// # Configuration
//
// Options come from the device configuration (HADOS_DEVICES), e.g.
// "soft:count=2,memory=4GiB,cores=2,mode=discrete": memory, cores, mode,
// hugepages (auto|on|off), lock, simd (auto|avx512|avx2|scalar),
// queue_depth, spin_us, pin (auto|off), and the fault injection knobs dma_error_rate,
// alloc_fail_rate, alloc_fail_after, hang_after, lost_after and seed. An
// unknown option or a bad value is an error naming it.
//
// # Waiting for work
//
// An engine core that runs out of programs, and a queue's poll while one of
// its programs runs, spin for spin_us microseconds (default 50) before they
// sleep on a condition variable; a submit wakes a sleeping poll so that its
// wake-up overlaps the program. A device round trip (submit, run, complete,
// poll) otherwise chains three thread wake-ups, each tens of microseconds on
// a virtual machine whose idle vCPUs halt, and operators pay one per record:
// BenchmarkRoundTrip in package dma measures it. The spin yields the CPU
// every few microseconds, so runnable host threads go first; spin_us=0
// sleeps at once.
//
// # Engine cores and CPUs
//
// With pin=auto (the default), a device with as many engine cores (two or
// more) as the CPUs the process may use (its affinity mask) runs engine
// core i on the i-th of them; otherwise, and with pin=off, the OS places
// the cores (processes sharing a larger host would otherwise all pin to
// the same first CPUs). Left to the OS on a 2-vCPU machine, both engine
// cores of a device could share one vCPU for a whole run: the other vCPU
// never looks idle to the scheduler while a poller or a Go thread spins on
// it, so a program split over the two cores ran one part after the other
// (the fused Q6 took 13–14 ms instead of 8–9 in about one process in three;
// docs/PERFORMANCE.md). A device of one core is not pinned: the OS can then
// move it away from the host's busy threads.
//
// # Faults
//
// dma_error_rate makes copy ops fail with ErrIO at that probability (the
// DMA layer retries them); alloc_fail_rate and alloc_fail_after make
// allocations fail with ErrNoMemory; hang_after stops the engine after that
// many programs (the DMA layer's watchdog reports ErrHang); lost_after
// loses the device (every program and later call fails with ErrDeviceLost).
//
// # The same engine as a plugin
//
// The C sources build unchanged into a standalone driver .so with
// -DHADOS_SOFT_PLUGIN (see the plugin test), which device/cdev loads through
// "plugin:/path/to/libhados_soft.so" exactly as it would a vendor's.
//
// The kernels' results are defined in plain Go by device.Checksum and
// device.PatternWord, against which tests and diagnostics check the engine.
package soft
