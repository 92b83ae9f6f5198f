// Command cgo builds libhados.so (go build -buildmode=c-shared ./cgo, or
// make cshared): the C ABI a Spark executor plugin (through JNI or the
// Panama FFI) or a native engine links. The header is include/hados.h;
// docs/c-abi.md explains every function, ownership and threading, and
// examples/executor is a C program that plays a Spark executor.
//
// # The lifecycle
//
// The ABI mirrors a Spark executor plugin. hados_init opens a runtime
// (device discovery) with spark.hados.* configuration. hados_plan_create
// converts a query stage's physical plan with RACE and keeps the decision,
// explain text and fallback reasons. hados_task_begin starts a task on the
// devices Spark's scheduler assigned, with its fraction of each device, a
// memory quota and a FAIR pool; hados_task_set_input hands it the host rows
// a RowToColumnar transition reads; hados_task_execute runs it (race/exec)
// and returns its output as an Arrow C stream; hados_task_metrics reports
// what it did; hados_task_end releases it; hados_shutdown cancels what is
// still running, waits for it, returns all device memory and closes the
// devices.
//
// A task runs the whole plan (stage 0: hados's executor runs its stages
// and shuffles), or one partition of one stage when the host engine
// schedules the stages and shuffles itself (stages.go lists them from
// race/exec.Stages; the task runs race/exec.RunStage with the producing
// stages' outputs as its input streams).
//
// # Crossing the boundary
//
// Go values cross as runtime/cgo Handles, never Go pointers. Every handle
// is registered with its kind (handles.go), so a NULL, stale, forged or
// wrong-kind handle is an error status with a message, never a crash.
// Every export runs its body through call (status.go): the thread's last
// error (thread-local, in C) is cleared, a panic becomes
// HADOS_ERR_INTERNAL, an error becomes its status by what it wraps
// (invalid, unsupported, cancelled, memory, device).
//
// Data crosses only as Arrow C streams. Inputs are imported (moved) with
// arrow-go's cdata package and read as an operator (input.go) that owns
// the stream until the task ends. The executor writes a task's output
// straight into malloc'd memory (arrow-go's mallocator, passed as
// exec.Env.ResultAllocator) so no Go pointer reaches C and the buffers
// outlive the task and the runtime; it is exported by our own stream
// (stream.c, stream.go): its private data is a checked handle, so every
// callback is safe after release and release is idempotent; arrays and
// schemas are exported by cdata, whose release callbacks are idempotent
// too.
//
// # Ownership
//
// A runtimeState (runtime.go) owns the hados.Runtime and registers the
// handles of its plans and tasks: shutdown ends and invalidates them, so
// nothing outlives the runtime but the streams the caller holds. A
// planState (plan.go) is immutable plain data shared by tasks on many
// threads. A taskState (task.go) owns its hados.Task (the memory accounts
// of its quota) and its input streams; end releases both.
package main
