package device

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParseSpecs(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []Spec
	}{
		{"", []Spec{{Driver: "soft", Count: 1}}},
		{"  soft ", []Spec{{Driver: "soft", Count: 1}}},
		{"soft:count=2,memory=4GiB,cores=2,mode=discrete", []Spec{{Driver: "soft", Count: 2,
			Options: []Option{{"memory", "4GiB"}, {"cores", "2"}, {"mode", "discrete"}}}}},
		{"soft:memory=1GiB;soft:mode=discrete", []Spec{
			{Driver: "soft", Count: 1, Options: []Option{{"memory", "1GiB"}}},
			{Driver: "soft", Count: 1, Options: []Option{{"mode", "discrete"}}}}},
		{"plugin:/opt/v/lib.so", []Spec{{Driver: "plugin", Path: "/opt/v/lib.so", Count: 1}}},
		{"plugin:/opt/v:x/lib.so:count=3,memory=1G", []Spec{{Driver: "plugin", Path: "/opt/v:x/lib.so", Count: 3,
			Options: []Option{{"memory", "1G"}}}}},
	} {
		got, err := ParseSpecs(tc.in)
		if err != nil {
			t.Errorf("%q: %v", tc.in, err)
			continue
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q:\n got %+v\nwant %+v", tc.in, got, tc.want)
		}
		// String renders a spec that parses back to itself
		for _, s := range got {
			back, err := ParseSpecs(s.String())
			if err != nil || !reflect.DeepEqual(back[0], s) {
				t.Errorf("%q: round trip of %q: %+v %v", tc.in, s.String(), back, err)
			}
		}
	}
}

func TestParseSpecsErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"soft;", "entry 2 is empty"},
		{":memory=1", "missing driver name"},
		{"so ft", "driver name"},
		{"soft:memory", `option "memory": want key=value`},
		{"soft:memory=", "want key=value"},
		{"soft:=1", "want key=value"},
		{"soft:count=0", "count=0"},
		{"soft:count=65", "count=65"},
		{"soft:count=x", "count=x"},
		{"soft:memory=1,memory=2", "given twice"},
		{"plugin", "plugin needs a path"},
		{"plugin:", "plugin needs a path"},
		{"plugin: :count=1", "plugin needs a path"},
		{"soft:count=40;soft:count=40", "more than 64 devices"},
		{"soft:me mory=1", "option name"},
		{strings.Repeat("x", 70000), "more than"},
	} {
		_, err := ParseSpecs(tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, ErrInvalid) {
			t.Errorf("%.40q: %v, want ErrInvalid mentioning %q", tc.in, err, tc.want)
		}
	}
}

func FuzzParseSpecs(f *testing.F) {
	for _, s := range []string{"", "soft", "soft:count=2,memory=4GiB", "plugin:/a/b.so:count=1", "a;b;c", "soft:x=1,,y=2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		specs, err := ParseSpecs(s)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("error without ErrInvalid: %v", err)
			}
			return
		}
		total := 0
		for _, sp := range specs {
			if sp.Count < 1 || sp.Driver == "" {
				t.Fatalf("bad spec %+v", sp)
			}
			total += sp.Count
			if _, err := ParseSpecs(sp.String()); err != nil {
				t.Fatalf("spec %q does not re-parse: %v", sp.String(), err)
			}
		}
		if total > MaxDevices {
			t.Fatalf("%d devices", total)
		}
	})
}

type fakeDriver struct{ fail bool }

type fakeDevice struct {
	Device
	info   Info
	closed *int
}

func (d fakeDevice) Info() Info   { return d.info }
func (d fakeDevice) Close() error { *d.closed++; return nil }

var fakeClosed int

func (f fakeDriver) Open(spec Spec, index int, address string) (Device, error) {
	if f.fail && index == 1 {
		return nil, errors.New("boom")
	}
	return fakeDevice{info: Info{Address: address, Driver: spec.Driver}, closed: &fakeClosed}, nil
}

func init() {
	Register("fake-test", fakeDriver{})
	Register("fake-failing", fakeDriver{fail: true})
}

func TestSet(t *testing.T) {
	set, err := OpenString("fake-test:count=3")
	if err != nil {
		t.Fatal(err)
	}
	if d, err := set.Get("2"); err != nil || d.Info().Address != "2" {
		t.Fatalf("get 2: %v", err)
	}
	for _, bad := range []string{"3", "-1", "01", "x", ""} {
		if _, err := set.Get(bad); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "have 0..2") {
			t.Errorf("get %q: %v", bad, err)
		}
	}
	fakeClosed = 0
	set.Close()
	set.Close()
	if fakeClosed != 3 {
		t.Fatalf("closed %d devices, want 3", fakeClosed)
	}
	// a failure part-way closes what was opened
	fakeClosed = 0
	if _, err := OpenString("fake-failing:count=3"); err == nil || !strings.Contains(err.Error(), "open device 1") {
		t.Fatalf("failing open: %v", err)
	}
	if fakeClosed != 1 {
		t.Fatalf("closed %d devices after a failed open, want 1", fakeClosed)
	}
}

func TestRegisterTwicePanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("no panic")
		}
	}()
	Register("fake-test", fakeDriver{})
}
