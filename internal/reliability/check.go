package reliability

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/hados-io/hados/hados"
)

// CheckIdle returns an error naming every device whose pool still charges
// memory to an account or holds live buffers, or whose DMA engine still has
// programs in flight. Call it when every query has ended, before Close (the
// pool keeps freed slabs for reuse: the device's own allocator only drops
// to zero at Close, which reports leaks too).
func CheckIdle(rt *hados.Runtime) error {
	var errs []error
	for _, u := range rt.Units() {
		addr := u.Device.Info().Address
		ps := u.Pool.Stats()
		if ps.InUseBytes != 0 || ps.LiveBuffers != 0 {
			errs = append(errs, fmt.Errorf("device %s: %d bytes in use in %d live buffers after every query ended", addr, ps.InUseBytes, ps.LiveBuffers))
		}
		for _, a := range u.Pool.Account().Children() {
			if a.InUse != 0 {
				errs = append(errs, fmt.Errorf("device %s: account %s still holds %d bytes", addr, a.Name, a.InUse))
			}
		}
		if u.DMA != nil {
			if n := u.DMA.Stats().InFlight; n != 0 {
				errs = append(errs, fmt.Errorf("device %s: %d DMA programs in flight after every query ended", addr, n))
			}
		}
	}
	return errors.Join(errs...)
}

// CheckNoFiles returns an error naming the files left under dirs (missing
// directories count as empty).
func CheckNoFiles(dirs ...string) error {
	var left []string
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			if err != nil {
				return err
			}
			if !d.IsDir() {
				left = append(left, path)
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	if len(left) > 0 {
		if len(left) > 10 {
			left = append(left[:10], fmt.Sprintf("… %d more", len(left)-10))
		}
		return fmt.Errorf("files left behind: %v", left)
	}
	return nil
}

// Counts are what a runtime's devices and DMA engines report about faults.
type Counts struct {
	Injected   uint64 // faults the devices injected
	Programs   uint64 // device programs submitted
	DMARetries uint64 // DMA descriptors resubmitted after an I/O error
	Hangs      uint64 // times the DMA watchdog declared a device hung
}

// FaultCounts sums the counters of every device of rt (call it before
// Close).
func FaultCounts(rt *hados.Runtime) Counts {
	var c Counts
	for _, u := range rt.Units() {
		if tel, err := u.Device.Telemetry(); err == nil {
			c.Injected += tel.FaultsInjected
			c.Programs += tel.ProgramsSubmitted
		}
		if u.DMA != nil {
			ds := u.DMA.Stats()
			c.DMARetries += ds.H2D.Retries + ds.D2H.Retries + ds.D2D.Retries + ds.Exec.Retries
			c.Hangs += ds.Hangs
		}
	}
	return c
}
