package device

import (
	"errors"
	"fmt"
	"strconv"
	"sync"
)

// Set is the group of devices a process opened from its configuration,
// addressed "0", "1", … in configuration order. The Set owns its devices:
// Close closes them all.
type Set struct {
	mu      sync.Mutex
	devices []Device
	closed  bool
}

// Open opens every device the specs name. If any fails, the ones already
// opened are closed and the error names the failing entry.
func Open(specs []Spec) (*Set, error) {
	s := &Set{}
	for _, spec := range specs {
		drv, err := Lookup(spec.Driver)
		if err != nil {
			s.Close()
			return nil, err
		}
		for i := 0; i < spec.Count; i++ {
			addr := strconv.Itoa(len(s.devices))
			d, err := drv.Open(spec, i, addr)
			if err != nil {
				s.Close()
				return nil, fmt.Errorf("open device %s (%s): %w", addr, spec, err)
			}
			s.devices = append(s.devices, d)
		}
	}
	return s, nil
}

// OpenString parses a configuration (see ParseSpecs) and opens it.
func OpenString(config string) (*Set, error) {
	specs, err := ParseSpecs(config)
	if err != nil {
		return nil, err
	}
	return Open(specs)
}

// Devices returns the open devices in address order.
func (s *Set) Devices() []Device {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Device(nil), s.devices...)
}

// Len is the number of devices.
func (s *Set) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.devices)
}

// Get returns the device with an address, or an error naming the valid range.
func (s *Set) Get(address string) (Device, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, fmt.Errorf("device set: %w", ErrClosed)
	}
	i, err := strconv.Atoi(address)
	if err != nil || i < 0 || i >= len(s.devices) || strconv.Itoa(i) != address {
		if len(s.devices) == 0 {
			return nil, fmt.Errorf("%w: device address %q: no devices are open", ErrInvalid, address)
		}
		return nil, fmt.Errorf("%w: device address %q out of range (have 0..%d)", ErrInvalid, address, len(s.devices)-1)
	}
	return s.devices[i], nil
}

// Close closes every device; it is idempotent.
func (s *Set) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	var errs []error
	for _, d := range s.devices {
		errs = append(errs, d.Close())
	}
	s.devices = nil
	return errors.Join(errs...)
}
