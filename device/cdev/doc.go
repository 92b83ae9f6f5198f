// Package cdev bridges Go to C drivers: it wraps a hados_driver_vtable
// (device/include/hados_driver.h) as a device.Driver, and registers the
// "plugin" driver that loads vendor drivers with dlopen.
//
// It is one of the few packages that import "C". Every vtable call goes
// through a C trampoline that also copies the driver's thread-local error
// message, so the message belongs to the call that failed even when the
// goroutine moves between threads.
//
// Host memory named by a submitted program (device.Op.Host) is pinned with
// runtime.Pinner and its address handed to the driver; the pin is released
// when the program's completion is polled or the queue is closed. The ops
// array is C memory freed when Submit returns (drivers copy it); the
// results array is C memory freed at completion. No Go pointer is stored in
// C memory without a pin.
//
// A plugin library is loaded once per path, shared by the devices opened
// from it, and closed with the last of them.
package cdev
