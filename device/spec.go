package device

import (
	"fmt"
	"strconv"
	"strings"
)

// Spec is one entry of a device configuration: a driver, how many devices of
// it to open, and the options handed to the driver.
type Spec struct {
	Driver  string   // "soft", "plugin", or another registered driver
	Path    string   // the shared object of a "plugin" entry
	Count   int      // devices to open from this entry (option count=, default 1)
	Options []Option // driver options in the order written, without count
}

// Option is a key=value driver option.
type Option struct{ Key, Value string }

// MaxDevices bounds how many devices one configuration may open.
const MaxDevices = 64

const maxSpecLen = 64 << 10

// OptionString renders the options as the driver's "k=v,k=v" config string.
func (s Spec) OptionString() string {
	parts := make([]string, len(s.Options))
	for i, o := range s.Options {
		parts[i] = o.Key + "=" + o.Value
	}
	return strings.Join(parts, ",")
}

// Option returns the value of a driver option and whether it was set.
func (s Spec) Option(key string) (string, bool) {
	for _, o := range s.Options {
		if o.Key == key {
			return o.Value, true
		}
	}
	return "", false
}

// String renders the spec in HADOS_DEVICES syntax.
func (s Spec) String() string {
	var b strings.Builder
	b.WriteString(s.Driver)
	if s.Driver == "plugin" {
		b.WriteString(":" + s.Path)
	}
	opts := s.OptionString()
	if s.Count != 1 {
		if opts != "" {
			opts = "," + opts
		}
		opts = "count=" + strconv.Itoa(s.Count) + opts
	}
	if opts != "" {
		b.WriteString(":" + opts)
	}
	return b.String()
}

// DefaultSpec is used when nothing configures devices: one software DPU
// sized from free memory.
const DefaultSpec = "soft"

// ParseSpecs parses a device configuration such as HADOS_DEVICES:
//
//	entry[;entry...]
//	entry   = soft[:options] | plugin:/path/to/driver.so[:options] | name[:options]
//	options = key=value[,key=value...]
//
// count=N opens N devices from one entry; the other options go to the driver
// (see the driver's documentation, e.g. soft: memory, cores, mode…). For a
// plugin, options follow the last ':' of the entry whose remainder holds '='.
// An empty string means DefaultSpec.
func ParseSpecs(s string) ([]Spec, error) {
	if len(s) > maxSpecLen {
		return nil, fmt.Errorf("%w: device configuration is %d bytes, more than %d", ErrInvalid, len(s), maxSpecLen)
	}
	if strings.TrimSpace(s) == "" {
		s = DefaultSpec
	}
	var specs []Spec
	total := 0
	for i, raw := range strings.Split(s, ";") {
		entry := strings.TrimSpace(raw)
		if entry == "" {
			return nil, fmt.Errorf("%w: device configuration %q: entry %d is empty", ErrInvalid, s, i+1)
		}
		spec, err := parseEntry(entry)
		if err != nil {
			return nil, fmt.Errorf("device configuration entry %d (%q): %w", i+1, entry, err)
		}
		total += spec.Count
		if total > MaxDevices {
			return nil, fmt.Errorf("%w: device configuration opens more than %d devices", ErrInvalid, MaxDevices)
		}
		specs = append(specs, spec)
	}
	return specs, nil
}

func parseEntry(entry string) (Spec, error) {
	spec := Spec{Count: 1}
	driver, rest, hasRest := strings.Cut(entry, ":")
	spec.Driver = strings.TrimSpace(driver)
	if spec.Driver == "" {
		return spec, fmt.Errorf("%w: missing driver name before ':'", ErrInvalid)
	}
	if !validName(spec.Driver) {
		return spec, fmt.Errorf("%w: driver name %q: want letters, digits, '_' or '-'", ErrInvalid, spec.Driver)
	}
	opts := ""
	if spec.Driver == "plugin" {
		if !hasRest || strings.TrimSpace(rest) == "" {
			return spec, fmt.Errorf("%w: plugin needs a path: plugin:/path/to/driver.so", ErrInvalid)
		}
		spec.Path = rest
		if i := strings.LastIndex(rest, ":"); i >= 0 && strings.Contains(rest[i+1:], "=") {
			spec.Path, opts = rest[:i], rest[i+1:]
		}
		spec.Path = strings.TrimSpace(spec.Path)
		if spec.Path == "" {
			return spec, fmt.Errorf("%w: plugin needs a path: plugin:/path/to/driver.so", ErrInvalid)
		}
	} else if hasRest {
		opts = rest
	}
	seen := map[string]bool{}
	for _, kv := range strings.Split(opts, ",") {
		kv = strings.TrimSpace(kv)
		if kv == "" {
			continue
		}
		k, v, ok := strings.Cut(kv, "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || k == "" || v == "" {
			return spec, fmt.Errorf("%w: option %q: want key=value", ErrInvalid, kv)
		}
		if !validName(k) {
			return spec, fmt.Errorf("%w: option name %q: want letters, digits, '_' or '-'", ErrInvalid, k)
		}
		if strings.ContainsAny(v, ";\x00") {
			return spec, fmt.Errorf("%w: option %s: value %q contains a forbidden character", ErrInvalid, k, v)
		}
		if seen[k] {
			return spec, fmt.Errorf("%w: option %s given twice", ErrInvalid, k)
		}
		seen[k] = true
		if k == "count" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > MaxDevices {
				return spec, fmt.Errorf("%w: count=%s: want an integer in [1, %d]", ErrInvalid, v, MaxDevices)
			}
			spec.Count = n
			continue
		}
		spec.Options = append(spec.Options, Option{k, v})
	}
	return spec, nil
}

func validName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, r := range s {
		if !(r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}
