package spill

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/hados-io/hados/operators/exchange"
)

// Manager owns one private directory of spill files: a task's, on one
// device. NewManager makes it inside the configured spill directory; Close
// removes it with every file the manager's writers created. Two managers
// never share a directory, so the files of concurrent tasks cannot collide.
//
// Methods are safe for concurrent use; the Writers, Runs and Readers it
// hands out are not (each belongs to one operator).
type Manager struct {
	dir   string // the manager's own directory (under the configured one)
	codec exchange.Codec
	dev   uint64 // device number the Spill probe reports

	totals *Totals // also counts the runs, if set

	mu      sync.Mutex
	seq     int                  // runs created so far: numbers the file names
	writers map[*Writer]struct{} // not yet finished or aborted
	runs    map[*Run]struct{}    // finished and not removed
	stats   Stats
	closed  bool
}

// Stats counts what a manager has written to disk so far (removed runs
// included): finished runs, data and index files, on-disk bytes and rows.
type Stats struct {
	Runs  int64 `json:"runs"`
	Files int64 `json:"files"`
	Bytes int64 `json:"bytes"`
	Rows  int64 `json:"rows"`
}

// Add returns s + o.
func (s Stats) Add(o Stats) Stats {
	return Stats{Runs: s.Runs + o.Runs, Files: s.Files + o.Files, Bytes: s.Bytes + o.Bytes, Rows: s.Rows + o.Rows}
}

// NewManager creates dir (mode 0700, with its parents) if it is missing and
// a private directory of the manager inside it. codec compresses the runs.
func NewManager(dir string, codec exchange.Codec) (*Manager, error) {
	if dir == "" {
		return nil, errors.New("spill: no spill directory given")
	}
	if codec > exchange.NoCompression {
		return nil, fmt.Errorf("spill: %w: codec %s", exchange.ErrNotSupported, codec)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("spill: create spill directory: %w", err)
	}
	own, err := os.MkdirTemp(dir, fmt.Sprintf("hados-%d-*", os.Getpid()))
	if err != nil {
		return nil, fmt.Errorf("spill: create a directory in %s: %w", dir, err)
	}
	// MkdirTemp already uses 0700; say so explicitly against a lax umask.
	if err := os.Chmod(own, 0o700); err != nil {
		os.Remove(own)
		return nil, fmt.Errorf("spill: %w", err)
	}
	return &Manager{dir: own, codec: codec, writers: map[*Writer]struct{}{}, runs: map[*Run]struct{}{}}, nil
}

// Dir is the manager's private directory (removed by Close).
func (m *Manager) Dir() string { return m.dir }

// Codec is how the manager's runs are compressed.
func (m *Manager) Codec() exchange.Codec { return m.codec }

// SetDevice sets the device number the Spill probe reports for this
// manager's runs (0 unless set; a task's manager is per device).
func (m *Manager) SetDevice(dev uint64) {
	m.mu.Lock()
	m.dev = dev
	m.mu.Unlock()
}

// ReportTo makes the manager add every finished run to t as well (a
// runtime's per-device totals).
func (m *Manager) ReportTo(t *Totals) {
	m.mu.Lock()
	m.totals = t
	m.mu.Unlock()
}

// Create starts a run of records with the given schema, written by the
// named operator (the name appears in the file names and errors). The
// writer must end with Finish or Abort.
func (m *Manager) Create(operator string, schema *arrow.Schema) (*Writer, error) {
	if schema == nil {
		return nil, errors.New("spill: create: nil schema")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, errors.New("spill: create: manager is closed")
	}
	m.seq++
	w := &Writer{m: m, operator: operator, schema: schema, num: m.seq,
		prefix: filepath.Join(m.dir, fmt.Sprintf("%s-%06d", fileWord(operator), m.seq))}
	m.writers[w] = struct{}{}
	return w, nil
}

// fileWord keeps the letters, digits, '-' and '_' of an operator name.
func fileWord(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
			b.WriteRune(r)
		}
		if b.Len() >= 40 {
			break
		}
	}
	if b.Len() == 0 {
		return "spill"
	}
	return b.String()
}

// Stats returns what the manager has written so far.
func (m *Manager) Stats() Stats {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.stats
}

// finished records a finished run.
func (m *Manager) finished(w *Writer, r *Run) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.writers, w)
	m.runs[r] = struct{}{}
	s := Stats{Runs: 1, Files: int64(r.Files()), Bytes: r.bytes, Rows: r.rows}
	m.stats = m.stats.Add(s)
	if m.totals != nil {
		m.totals.add(r.operator, s)
	}
}

func (m *Manager) forgetWriter(w *Writer) {
	m.mu.Lock()
	delete(m.writers, w)
	m.mu.Unlock()
}

func (m *Manager) forgetRun(r *Run) {
	m.mu.Lock()
	delete(m.runs, r)
	m.mu.Unlock()
}

func (m *Manager) device() uint64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.dev
}

// Close aborts unfinished writers and removes the manager's directory with
// every run in it. Runs and readers of the manager must not be used after
// (an open reader's file is gone from the directory but stays readable
// until the reader closes). It is idempotent.
func (m *Manager) Close() error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil
	}
	m.closed = true
	writers := make([]*Writer, 0, len(m.writers))
	for w := range m.writers {
		writers = append(writers, w)
	}
	clear(m.runs)
	m.mu.Unlock()
	for _, w := range writers {
		w.Abort()
	}
	if err := os.RemoveAll(m.dir); err != nil {
		return fmt.Errorf("spill: remove %s: %w", m.dir, err)
	}
	return nil
}
