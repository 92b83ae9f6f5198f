package tpchdata

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"

	"github.com/hados-io/hados/internal/tpchgen"
)

// MarkerFile is the name of the file, inside a data directory, that records
// what Ensure generated there.
const MarkerFile = ".hados-tpch.json"

// marker is the content of MarkerFile.
type marker struct {
	SF     float64 `json:"sf"`
	Schema string  `json:"schema"`
	Seed   uint64  `json:"seed"`
}

func markerOf(s Spec) marker {
	return marker{SF: s.SF, Schema: s.Schema.String(), Seed: s.Seed}
}

func (m marker) String() string {
	return fmt.Sprintf("SF %g (schema %s, seed %d)", m.SF, m.Schema, m.Seed)
}

// decodeMarker parses a marker file's content; name is used in errors.
func decodeMarker(name string, data []byte) (marker, error) {
	var m marker
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return marker{}, fmt.Errorf("tpchdata: %s: not a data marker: %w", name, err)
	}
	if dec.More() {
		return marker{}, fmt.Errorf("tpchdata: %s: trailing data after the marker object", name)
	}
	if math.IsNaN(m.SF) || math.IsInf(m.SF, 0) || m.SF <= 0 {
		return marker{}, fmt.Errorf("tpchdata: %s: scale factor must be > 0, got %v", name, m.SF)
	}
	s, err := tpchgen.ParseSchema(m.Schema)
	if err != nil {
		return marker{}, fmt.Errorf("tpchdata: %s: %w", name, err)
	}
	m.Schema = s.String()
	return m, nil
}

// readMarker reads dir's marker; found is false when there is none.
func readMarker(dir string) (m marker, found bool, err error) {
	path := filepath.Join(dir, MarkerFile)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return marker{}, false, nil
	}
	if err != nil {
		return marker{}, false, fmt.Errorf("tpchdata: %w", err)
	}
	m, err = decodeMarker(path, data)
	return m, err == nil, err
}

func writeMarker(dir string, m marker) error {
	data, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("tpchdata: encode marker: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, MarkerFile), append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("tpchdata: write marker: %w", err)
	}
	return nil
}
