package hados

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/hados-io/hados/device"
)

// Config is the runtime's configuration. Its keys mirror a Spark plugin's
// (spark.hados.*): the same names work in a properties file (ConfigFile),
// in Spark's own configuration handed over by the executor plugin, and,
// for the most common ones, in environment variables.
type Config struct {
	Devices       string        // spark.hados.devices (HADOS_DEVICES): device configuration
	MetricsListen string        // spark.hados.metrics.listen: the /metrics endpoint
	Codec         device.Codec  // spark.hados.dma.codec: link compression none|lz4|snappy
	ChunkSize     uint64        // spark.hados.dma.chunkSize: bytes per DMA program
	QueueDepth    int           // spark.hados.dma.queueDepth: programs in flight per queue
	Retries       int           // spark.hados.dma.retries: resubmissions of a failed descriptor
	Watchdog      time.Duration // spark.hados.dma.watchdog: a program overdue this long means a hang
	LockHost      bool          // spark.hados.memory.lockHost: mlock pinned host staging memory
	LogLevel      string        // spark.hados.log.level: debug|info|warn|error
}

// DefaultConfig is the configuration with nothing set.
func DefaultConfig() Config {
	return Config{
		Devices:       device.DefaultSpec,
		MetricsListen: "127.0.0.1:9464",
		Codec:         device.CodecNone,
		Retries:       3,
		Watchdog:      30 * time.Second,
		LockHost:      true,
		LogLevel:      "info",
	}
}

// ConfigKey documents one configuration key.
type ConfigKey struct {
	Name    string
	Env     string
	Default string
	Doc     string
	set     func(*Config, string) error
}

var configKeys = []ConfigKey{
	{Name: "spark.hados.devices", Env: "HADOS_DEVICES", Default: device.DefaultSpec,
		Doc: "Devices to open: `soft:count=2,memory=4GiB,cores=2,mode=discrete;plugin:/path/driver.so`.",
		set: func(c *Config, v string) error {
			if _, err := device.ParseSpecs(v); err != nil {
				return err
			}
			c.Devices = v
			return nil
		}},
	{Name: "spark.hados.metrics.listen", Env: "HADOS_METRICS_LISTEN", Default: "127.0.0.1:9464",
		Doc: "Address of the Prometheus /metrics endpoint (loopback unless set otherwise).",
		set: func(c *Config, v string) error { c.MetricsListen = v; return nil }},
	{Name: "spark.hados.dma.codec", Default: "none", Doc: "Link compression of DMA transfers: none, lz4 or snappy.",
		set: func(c *Config, v string) (err error) { c.Codec, err = device.ParseCodec(v); return }},
	{Name: "spark.hados.dma.chunkSize", Default: "2MiB", Doc: "Most bytes one DMA program moves.",
		set: func(c *Config, v string) (err error) { c.ChunkSize, err = ParseBytes(v); return }},
	{Name: "spark.hados.dma.queueDepth", Default: "16", Doc: "DMA programs in flight per hardware queue.",
		set: func(c *Config, v string) (err error) { c.QueueDepth, err = parseInt(v, 1, 1<<16); return }},
	{Name: "spark.hados.dma.retries", Default: "3", Doc: "Resubmissions of a DMA descriptor that failed with an I/O error.",
		set: func(c *Config, v string) (err error) { c.Retries, err = parseInt(v, 0, 1000); return }},
	{Name: "spark.hados.dma.watchdog", Default: "30s", Doc: "A device program overdue this long declares the device hung.",
		set: func(c *Config, v string) error {
			d, err := time.ParseDuration(v)
			if err != nil || d <= 0 {
				return fmt.Errorf("want a positive duration such as 30s")
			}
			c.Watchdog = d
			return nil
		}},
	{Name: "spark.hados.memory.lockHost", Default: "true", Doc: "mlock pinned host staging memory (best effort).",
		set: func(c *Config, v string) (err error) { c.LockHost, err = strconv.ParseBool(v); return }},
	{Name: "spark.hados.log.level", Env: "HADOS_LOG_LEVEL", Default: "info", Doc: "Log level: debug, info, warn or error.",
		set: func(c *Config, v string) error {
			switch v {
			case "debug", "info", "warn", "error":
				c.LogLevel = v
				return nil
			}
			return fmt.Errorf("want debug, info, warn or error")
		}},
}

// ConfigKeys lists every configuration key, sorted by name.
func ConfigKeys() []ConfigKey {
	out := append([]ConfigKey(nil), configKeys...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Set sets one key. Unknown spark.hados.* keys are errors (a typo must not
// be silently ignored); other keys (Spark's own) are ignored.
func (c *Config) Set(key, value string) error {
	for _, k := range configKeys {
		if k.Name == key {
			if err := k.set(c, value); err != nil {
				return fmt.Errorf("%w: configuration %s=%q: %v", device.ErrInvalid, key, value, err)
			}
			return nil
		}
	}
	if strings.HasPrefix(key, "spark.hados.") {
		return fmt.Errorf("%w: unknown configuration key %s", device.ErrInvalid, key)
	}
	return nil
}

const maxConfigLine = 64 << 10

// ParseConfig reads a properties file in the format of Spark's
// spark-defaults.conf: one `key value` or `key=value` per line, `#` or `!`
// comments, blank lines ignored. name is used in error messages.
func ParseConfig(c *Config, name string, r io.Reader) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 4096), maxConfigLine)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" || text[0] == '#' || text[0] == '!' {
			continue
		}
		i := strings.IndexAny(text, "= \t:")
		if i <= 0 {
			return fmt.Errorf("%w: %s:%d: want `key value` or `key=value`, got %q", device.ErrInvalid, name, line, text)
		}
		key := text[:i]
		value := strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(text[i:]), "=:"))
		if err := c.Set(key, value); err != nil {
			return fmt.Errorf("%s:%d: %w", name, line, err)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%w: %s:%d: %v", device.ErrInvalid, name, line+1, err)
	}
	return nil
}

// LoadConfig builds the configuration: defaults, then the file named by
// path (or by HADOS_CONFIG when path is empty), then environment variables.
func LoadConfig(path string) (Config, error) {
	c := DefaultConfig()
	if path == "" {
		path = os.Getenv("HADOS_CONFIG")
	}
	if path != "" {
		f, err := os.Open(path)
		if err != nil {
			return c, fmt.Errorf("configuration file: %w", err)
		}
		defer f.Close()
		if err := ParseConfig(&c, path, f); err != nil {
			return c, err
		}
	}
	for _, k := range configKeys {
		if k.Env == "" {
			continue
		}
		if v, ok := os.LookupEnv(k.Env); ok {
			if err := k.set(&c, v); err != nil {
				return c, fmt.Errorf("%w: environment %s=%q: %v", device.ErrInvalid, k.Env, v, err)
			}
		}
	}
	return c, nil
}

// ParseBytes parses a byte size: a plain number or one with a unit B, KiB,
// MiB, GiB, TiB (also K, M, G, T, KB, MB, GB, TB, all binary).
func ParseBytes(s string) (uint64, error) {
	s = strings.TrimSpace(s)
	i := strings.IndexFunc(s, func(r rune) bool { return !(r >= '0' && r <= '9' || r == '.') })
	num, unit := s, ""
	if i >= 0 {
		num, unit = s[:i], strings.ToLower(strings.TrimSpace(s[i:]))
	}
	x, err := strconv.ParseFloat(num, 64)
	if err != nil || x < 0 {
		return 0, fmt.Errorf("size %q: want a number with an optional unit (KiB, MiB, GiB)", s)
	}
	mul := map[string]float64{"": 1, "b": 1, "k": 1 << 10, "kb": 1 << 10, "kib": 1 << 10, "m": 1 << 20, "mb": 1 << 20,
		"mib": 1 << 20, "g": 1 << 30, "gb": 1 << 30, "gib": 1 << 30, "t": 1 << 40, "tb": 1 << 40, "tib": 1 << 40}[unit]
	if mul == 0 {
		return 0, fmt.Errorf("size %q: unknown unit %q", s, unit)
	}
	if x*mul >= 1<<63 {
		return 0, fmt.Errorf("size %q is too large", s)
	}
	return uint64(x * mul), nil
}

func parseInt(s string, lo, hi int) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < lo || n > hi {
		return 0, fmt.Errorf("want an integer in [%d, %d]", lo, hi)
	}
	return n, nil
}
