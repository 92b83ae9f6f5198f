package plan

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata")

func marshal(t testing.TB, p *Plan) []byte {
	t.Helper()
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

// roundTrip checks that p survives MarshalJSON → DecodeJSON unchanged.
func roundTrip(t testing.TB, p *Plan) {
	t.Helper()
	first := marshal(t, p)
	back, err := DecodeJSON(bytes.NewReader(first))
	if err != nil {
		t.Fatalf("%s: decode: %v", p.Name, err)
	}
	if second := marshal(t, back); !bytes.Equal(first, second) {
		t.Fatalf("%s: JSON changed after a round trip", p.Name)
	}
}

func TestGoldenJSON(t *testing.T) {
	p := importFile(t, "testdata/tpch-q3.explain.txt")
	p.Name = "tpch/q3"
	got := marshal(t, p)
	const golden = "testdata/tpch-q3.golden.json"
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("JSON of tpch q3 differs from %s; rerun with -update and review the diff", golden)
	}
	roundTrip(t, p)
}

func TestJSONRoundTripSmall(t *testing.T) {
	roundTrip(t, importFile(t, "testdata/small.explain.txt"))
}

func TestDecodeJSONErrors(t *testing.T) {
	valid := string(marshal(t, importFile(t, "testdata/small.explain.txt")))
	tests := []struct {
		name, in, want string
	}{
		{"empty", "", "document"},
		{"malformed", "{", "document"},
		{"not an object", "[1,2]", "document"},
		{"no version", `{"root":{"id":1,"op":"Filter"}}`, "missing \"version\""},
		{"future version", `{"version":2,"root":{"id":1,"op":"Filter"}}`, "unsupported plan IR version 2"},
		{"no root", `{"version":1}`, "no root"},
		{"unknown field", `{"version":1,"root":{"id":1,"op":"Filter","bogus":1}}`, "bogus"},
		{"unknown op", `{"version":1,"root":{"id":1,"op":"Frob"}}`, "unknown operator"},
		{"unknown type", `{"version":1,"root":{"id":1,"op":"Filter","output":[{"name":"a","id":1,"type":"wibble","nullable":true}]}}`, "wibble"},
		{"unknown kind", `{"version":1,"root":{"id":1,"op":"Filter","filter":{"condition":{"kind":"magic","type":"int"}}}}`, "expression kind"},
		{"null child", `{"version":1,"root":{"id":1,"op":"Filter","children":[null]}}`, "null operator"},
		{"null arg", `{"version":1,"root":{"id":1,"op":"Filter","filter":{"condition":{"kind":"call","type":"int","args":[null]}}}}`, "null argument"},
		{"null list item", `{"version":1,"root":{"id":1,"op":"Project","project":{"list":[null]}}}`, "null expression"},
		{"trailing", valid + "{}", "document"},
		{"deep tree", `{"version":1,"root":` + strings.Repeat(`{"id":1,"op":"Filter","children":[`, maxTreeDepth+2) +
			`{"id":1,"op":"Filter"}` + strings.Repeat(`]}`, maxTreeDepth+2) + `}`, "deeper"},
	}
	for _, tt := range tests {
		_, err := DecodeJSON(strings.NewReader(tt.in))
		if err == nil {
			t.Errorf("%s: decoded", tt.name)
			continue
		}
		if !errors.Is(err, ErrSyntax) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %q, want it to mention %q", tt.name, err, tt.want)
		}
	}
}
