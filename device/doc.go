// Package device is hados's view of accelerators: the Device and Queue
// interfaces every driver implements, the driver registry, the device
// configuration syntax (HADOS_DEVICES) and the set of devices a process
// opens from it.
//
// # Drivers
//
// A driver registers by name in its package's init, as database/sql drivers
// do. Two come with hados: "soft", the software DPU (package device/soft,
// a native C engine), and "plugin", which loads a vendor driver shared
// object with dlopen (package device/cdev). Both speak the versioned C
// driver interface in include/hados_driver.h; a plugin built against
// another ABI version is refused with an error that says so.
//
// # Programs and queues
//
// Work reaches a device as programs: ordered lists of ops (DMA copies,
// fills, checksums, compression, and later the query kernels). A program
// runs on one engine core; programs submitted to a queue may run in
// parallel on different cores and complete in any order, each with a
// Completion carrying its tag, per-op results and timing. The DMA engine
// (package dma) builds transfers on top of this.
//
// # Memory and ownership
//
// Device memory is addressed by Addr, never by host pointers. Alloc hands
// the caller an allocation it must Free; Close releases everything. Host
// buffers named by a submitted program are pinned by the queue until the
// completion is polled, so the caller may not reuse them before that.
//
// # Configuration
//
// ParseSpecs reads "soft:count=2,memory=4GiB,cores=2,mode=discrete;
// plugin:/opt/vendor/libdpu.so:count=1". Each device gets a stable address
// "0", "1", … in configuration order: the addresses Spark's resource
// discovery hands to tasks.
//
// # Errors
//
// Every error wraps one of the sentinels (ErrInvalid, ErrNoMemory,
// ErrNotSupported, ErrIO, ErrDeviceLost, ErrClosed, ErrQueueFull,
// ErrFault, ErrMismatch, ErrHang…) and names the device and the call.
// Misuse (double free, an address out of range, use after Close) is an
// error, never a crash.
package device
