package tpchdata

import (
	"strings"
	"testing"
)

func TestDecodeMarker(t *testing.T) {
	tests := []struct {
		in      string
		want    marker
		wantErr string
	}{
		{in: `{"sf":1,"schema":"standard","seed":0}`, want: marker{SF: 1, Schema: "standard"}},
		{in: `{"sf":0.01,"schema":"Spark-Test","seed":7}`, want: marker{SF: 0.01, Schema: "spark-test", Seed: 7}},
		{in: `{"sf":1,"schema":""}`, want: marker{SF: 1, Schema: "standard"}},
		{in: ``, wantErr: "not a data marker"},
		{in: `[1]`, wantErr: "not a data marker"},
		{in: `{"sf":1,"schema":"standard","extra":1}`, wantErr: `unknown field "extra"`},
		{in: `{"sf":1,"schema":"standard"} {}`, wantErr: "trailing data"},
		{in: `{"sf":0,"schema":"standard"}`, wantErr: "scale factor must be > 0"},
		{in: `{"sf":-2,"schema":"standard"}`, wantErr: "scale factor must be > 0"},
		{in: `{"sf":1,"schema":"weird"}`, wantErr: `unknown schema "weird"`},
		{in: `{"sf":1,"seed":-1}`, wantErr: "not a data marker"},
	}
	for _, tt := range tests {
		got, err := decodeMarker("m.json", []byte(tt.in))
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), "m.json") {
				t.Errorf("decodeMarker(%s) error = %v, want one naming m.json and containing %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("decodeMarker(%s) = %+v, %v, want %+v", tt.in, got, err, tt.want)
		}
	}
}

// FuzzDecodeMarker: any bytes either fail with an error or give a marker
// with a positive scale factor and a known schema; nothing panics.
func FuzzDecodeMarker(f *testing.F) {
	for _, s := range []string{`{"sf":1,"schema":"standard","seed":0}`, `{"sf":1e400}`, `{`, `null`, `{"sf":0.01,"schema":"spark-test"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := decodeMarker("fuzz", data)
		if err != nil {
			return
		}
		if !(m.SF > 0) || (m.Schema != "standard" && m.Schema != "spark-test") {
			t.Fatalf("decodeMarker(%q) accepted %+v", data, m)
		}
	})
}
