package hados

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/hados-io/hados/device"
	"github.com/hados-io/hados/hados/sched"
	"github.com/hados-io/hados/operators/exchange"
)

// Config is the runtime's configuration. Its keys mirror a Spark plugin's
// (spark.hados.*): the same names work in a properties file (ConfigFile),
// in Spark's own configuration handed over by the executor plugin, and,
// for the most common ones, in environment variables.
type Config struct {
	Devices       string         // spark.hados.devices (HADOS_DEVICES): device configuration
	MetricsListen string         // spark.hados.metrics.listen: the /metrics endpoint
	Codec         device.Codec   // spark.hados.dma.codec: link compression none|lz4|snappy
	ChunkSize     uint64         // spark.hados.dma.chunkSize: bytes per DMA program
	QueueDepth    int            // spark.hados.dma.queueDepth: programs in flight per queue
	Queues        int            // spark.hados.dma.queues: hardware queues per device
	Retries       int            // spark.hados.dma.retries: resubmissions of a failed descriptor
	Watchdog      time.Duration  // spark.hados.dma.watchdog: a program overdue this long means a hang
	LockHost      bool           // spark.hados.memory.lockHost: mlock pinned host staging memory
	LogLevel      string         // spark.hados.log.level: debug|info|warn|error
	SchedMode     sched.Policy   // spark.hados.scheduler.mode: FIFO|FAIR for tasks sharing a device
	SchedPools    []sched.Pool   // spark.hados.scheduler.pools: name:weight:minShare,…
	SpillDir      string         // spark.hados.spill.dir (HADOS_SPILL_DIR): where tasks spill to disk
	SpillCodec    exchange.Codec // spark.hados.spill.codec: lz4|snappy|none
	// TaskMaxFailures is spark.hados.task.maxFailures: attempts of a query
	// task failing with a retryable device error before its query fails
	// (as Spark's spark.task.maxFailures; race/exec's Env.MaxFailures
	// defaults to it).
	TaskMaxFailures int

	// Planner (race/rules).
	Enabled   bool     // spark.hados.enabled: false keeps every query on the host
	Strategy  string   // spark.hados.strategy: all-or-nothing|cost
	Whitelist []string // spark.hados.whitelist: operators whose fallback keeps the query offloaded
	// DisabledExpressions holds the Spark function names set by
	// spark.hados.expression.<name>.enabled=false.
	DisabledExpressions map[string]bool
	ANSI                bool // spark.sql.ansi.enabled (Spark's own key): ANSI mode falls back
}

// DefaultConfig is the configuration with nothing set.
func DefaultConfig() Config {
	return Config{
		Devices:         device.DefaultSpec,
		MetricsListen:   "127.0.0.1:9464",
		Codec:           device.CodecNone,
		Retries:         3,
		Watchdog:        30 * time.Second,
		LockHost:        true,
		LogLevel:        "info",
		SpillDir:        DefaultSpillDir(),
		SpillCodec:      exchange.LZ4,
		TaskMaxFailures: 4,
		Enabled:         true,
		Strategy:        "all-or-nothing",
		Whitelist:       []string{"TakeOrderedAndProject", "CollectLimit", "GlobalLimit"},
	}
}

// DefaultSpillDir is where tasks spill when spark.hados.spill.dir is not
// set: hados-spill in the system's temporary directory.
func DefaultSpillDir() string { return filepath.Join(os.TempDir(), "hados-spill") }

// ConfigKey documents one configuration key.
type ConfigKey struct {
	Name    string
	Env     string
	Default string
	Doc     string
	set     func(*Config, string) error
	// setKey, for a prefix key (Name holds a <name> placeholder), sets a
	// concrete key matching it.
	setKey func(c *Config, key, value string) error
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
	{Name: "spark.hados.dma.queues", Default: "1", Doc: "Hardware queues per device, each with a poller (the software DPU's cores serve every queue; a driver whose queues each feed one core wants one per core).",
		set: func(c *Config, v string) (err error) { c.Queues, err = parseInt(v, 1, 256); return }},
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
	{Name: "spark.hados.scheduler.mode", Default: "FIFO", Doc: "Order in which tasks sharing a device get its engine cores: FIFO or FAIR (as spark.scheduler.mode).",
		set: func(c *Config, v string) (err error) { c.SchedMode, err = sched.ParsePolicy(v); return }},
	{Name: "spark.hados.scheduler.pools", Default: "", Doc: "FAIR pools as name:weight:minShare, comma-separated (as fairscheduler.xml); unknown pools get weight 1.",
		set: func(c *Config, v string) (err error) { c.SchedPools, err = parsePools(v); return }},
	{Name: "spark.hados.spill.dir", Env: "HADOS_SPILL_DIR", Default: "$TMPDIR/hados-spill",
		Doc: "Directory for the spill files of operators that outgrow their task's device memory quota; each task gets a private subdirectory (mode 0700), removed when it ends. Empty disables spilling.",
		set: func(c *Config, v string) error { c.SpillDir = v; return nil }},
	{Name: "spark.hados.spill.codec", Default: "lz4", Doc: "Compression of spill files: lz4, snappy or none.",
		set: func(c *Config, v string) (err error) { c.SpillCodec, err = exchange.ParseCodec(v); return }},
	{Name: "spark.hados.task.maxFailures", Default: "4",
		Doc: "Attempts of a query task failing with a retryable device error (DMA error, lost or hung device, exhausted device memory) before the query fails, each on the next device; as spark.task.maxFailures.",
		set: func(c *Config, v string) (err error) { c.TaskMaxFailures, err = parseInt(v, 1, 1000); return }},
	{Name: "spark.hados.log.level", Env: "HADOS_LOG_LEVEL", Default: "info", Doc: "Log level: debug, info, warn or error.",
		set: func(c *Config, v string) error {
			switch v {
			case "debug", "info", "warn", "error":
				c.LogLevel = v
				return nil
			}
			return fmt.Errorf("want debug, info, warn or error")
		}},
	{Name: "spark.hados.enabled", Default: "true", Doc: "Offload queries to the device at all; false keeps every query on the host.",
		set: func(c *Config, v string) (err error) { c.Enabled, err = strconv.ParseBool(v); return }},
	{Name: "spark.hados.strategy", Default: "all-or-nothing",
		Doc: "Offload decision: all-or-nothing (a query falls back whole if any non-whitelisted operator does) or cost (keep each device region only where DMA plus device time beats the host).",
		set: func(c *Config, v string) error {
			if v != "all-or-nothing" && v != "cost" {
				return fmt.Errorf("want all-or-nothing or cost")
			}
			c.Strategy = v
			return nil
		}},
	{Name: "spark.hados.whitelist", Default: "TakeOrderedAndProject,CollectLimit,GlobalLimit",
		Doc: "Comma-separated Spark operators whose fallback does not send the query back to the host.",
		set: func(c *Config, v string) error {
			c.Whitelist = nil
			for _, w := range strings.Split(v, ",") {
				if w = strings.TrimSpace(w); w != "" {
					c.Whitelist = append(c.Whitelist, w)
				}
			}
			return nil
		}},
	{Name: "spark.hados.expression.<name>.enabled", Default: "true",
		Doc: "false keeps operators using the Spark function <name> (e.g. substr, LIKE, CheckOverflow) on the host.",
		set: func(*Config, string) error {
			return fmt.Errorf("set spark.hados.expression.NAME.enabled for a function NAME")
		},
		setKey: func(c *Config, key, v string) error {
			name := strings.TrimSuffix(strings.TrimPrefix(key, "spark.hados.expression."), ".enabled")
			on, err := strconv.ParseBool(v)
			if err != nil {
				return err
			}
			m := map[string]bool{}
			for k := range c.DisabledExpressions {
				m[k] = true
			}
			delete(m, name)
			if !on {
				m[name] = true
			}
			c.DisabledExpressions = m
			return nil
		}},
	{Name: "spark.sql.ansi.enabled", Default: "false",
		Doc: "Spark's ANSI mode; when true, operators with arithmetic, casts or sums fall back (the device follows non-ANSI semantics).",
		set: func(c *Config, v string) (err error) { c.ANSI, err = strconv.ParseBool(v); return }},
}

// matchPrefixKey reports whether key instantiates the prefix key pattern
// ("spark.hados.expression.<name>.enabled").
func matchPrefixKey(pattern, key string) bool {
	i := strings.Index(pattern, "<name>")
	if i < 0 {
		return false
	}
	pre, suf := pattern[:i], pattern[i+len("<name>"):]
	return len(key) > len(pre)+len(suf) && strings.HasPrefix(key, pre) && strings.HasSuffix(key, suf)
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
		if k.setKey != nil && matchPrefixKey(k.Name, key) {
			if err := k.setKey(c, key, value); err != nil {
				return fmt.Errorf("%w: configuration %s=%q: %v", device.ErrInvalid, key, value, err)
			}
			return nil
		}
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

// parsePools parses "etl:3:1,bi:1:2" (name:weight[:minShare]).
func parsePools(s string) ([]sched.Pool, error) {
	var out []sched.Pool
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		parts := strings.Split(item, ":")
		if len(parts) < 2 || len(parts) > 3 || parts[0] == "" {
			return nil, fmt.Errorf("pool %q: want name:weight[:minShare]", item)
		}
		p := sched.Pool{Name: parts[0]}
		var err error
		if p.Weight, err = parseInt(parts[1], 1, 1<<20); err != nil {
			return nil, fmt.Errorf("pool %s weight: %v", p.Name, err)
		}
		if len(parts) == 3 {
			if p.MinShare, err = parseInt(parts[2], 0, 1<<20); err != nil {
				return nil, fmt.Errorf("pool %s minShare: %v", p.Name, err)
			}
		}
		out = append(out, p)
	}
	return out, nil
}

func parseInt(s string, lo, hi int) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < lo || n > hi {
		return 0, fmt.Errorf("want an integer in [%d, %d]", lo, hi)
	}
	return n, nil
}
