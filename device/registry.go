package device

import (
	"fmt"
	"sort"
	"sync"
)

// Driver opens devices of one kind. Drivers register themselves by name in an
// init function, database/sql style; "soft" (package device/soft) and
// "plugin" (package device/cdev) are built in.
type Driver interface {
	// Open opens device number index (0-based within spec.Count) of an entry
	// and gives it the global address.
	Open(spec Spec, index int, address string) (Device, error)
}

var (
	driversMu sync.RWMutex
	drivers   = map[string]Driver{}
)

// Register makes a driver available by name. Registering a name twice or a
// nil driver is a programming error and panics, as in database/sql.
func Register(name string, d Driver) {
	driversMu.Lock()
	defer driversMu.Unlock()
	if d == nil {
		panic("device: Register driver is nil")
	}
	if _, dup := drivers[name]; dup {
		panic("device: Register called twice for driver " + name)
	}
	drivers[name] = d
}

// Drivers lists the registered driver names, sorted.
func Drivers() []string {
	driversMu.RLock()
	defer driversMu.RUnlock()
	names := make([]string, 0, len(drivers))
	for n := range drivers {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Lookup returns a registered driver.
func Lookup(name string) (Driver, error) {
	driversMu.RLock()
	d, ok := drivers[name]
	driversMu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("%w: unknown device driver %q (registered: %v)", ErrInvalid, name, Drivers())
	}
	return d, nil
}
