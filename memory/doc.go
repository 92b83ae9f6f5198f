// Package memory manages device memory and pinned host memory for hados:
// pools, accounts with quotas, and arrow memory.Allocator implementations
// that place Arrow buffers straight into device memory.
//
// # Pools
//
// A Pool hands out 64-byte aligned blocks. Small requests are rounded up to
// a power-of-two size class (64 B … MaxClass, 1 MiB by default) and carved
// out of slabs the pool takes from its backing 4 MiB at a time, so the
// device allocator sees few, large requests; larger requests go to the
// backing directly. NewDevicePool backs a pool with a device's memory;
// NewHostPool with pinned host memory (anonymous mappings outside the Go
// heap, mlocked when permitted), which DMA may address while the garbage
// collector runs.
//
// # Accounts and quotas
//
// Every block is charged to an Account. Accounts form a tree: the pool's
// root account (limited to the device's memory), a Spark task's account
// under it (limited to the task's share, e.g. a quarter of the device for
// spark.task.resource.dpu.amount=0.25), operator accounts under that. A
// reservation must fit every account on the path to the root; otherwise
// Alloc returns a *QuotaError wrapping ErrQuotaExceeded that names the
// account and the sizes, and nothing is charged. Operators react by
// spilling or by failing with that error — never by crashing.
//
// # Ownership
//
// A Buffer belongs to whoever Alloc returned it to, who must Free it
// exactly once (a second Free is an error wrapping ErrDoubleFree). A Pool
// keeps its slabs until Close, which reports live buffers as a leak. An
// Account's Close reports memory it still holds. Tests assert that pools
// and allocators are back to zero.
//
// # Arrow
//
// Allocator implements arrow's memory.Allocator over a pool. arrow's
// interface has no error result, so a failed allocation panics with an
// *AllocError, as arrow's own allocators do; Catch turns it back into an
// error at an operator boundary. NewDeviceAllocator refuses discrete
// devices, whose memory the host cannot address: there Arrow data is built
// in a host pool and moved by DMA.
//
// Allocate zeroes what it hands out, as arrow expects. AllocateUninit does
// not, for buffers the caller overwrites whole (kernel outputs, copy and
// decompression targets): clearing them cost 8–30% of scans, sorts and
// gathers. In test binaries (and with HADOS_POISON_UNINIT=1) it fills them
// with PoisonByte instead, so code that reads bytes it never wrote fails
// every time rather than by chance. Poisoning tells other code recycling
// scratch memory uncleared to poison it the same way.
//
// Device returns a device allocator's device, and AllocateBuffer hands out
// uncleared pool Buffers charged to the allocator's account, for scratch
// that device programs name by address (a Parquet page the device
// decompresses, and its output).
package memory
