// Package layout holds no code: its test keeps the architecture honest. It
// checks that only the allow-listed packages use cgo, and that imports
// between the layers point down only:
//
//	device ← memory ← dma ← operators ← hados ← race ← cgo, cmd
//
// with package metrics reading the snapshots of device, memory and dma and
// imported only by hados, cgo and cmd.
package layout
