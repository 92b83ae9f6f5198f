package device

import (
	"encoding/binary"
	"errors"
	"strings"
	"testing"
)

func TestJoinEncode(t *testing.T) {
	key := Column{VType: VTI64, Length: 10, Data: 0x1000}
	cases := []struct {
		name string
		j    Join
		err  string
	}{
		{"one key", Join{Rows: 10, Keys: []Column{key}}, ""},
		{"null-safe", Join{Rows: 10, Keys: []Column{key, key}, NullSafe: []bool{false, true}}, ""},
		{"no keys", Join{Rows: 10}, "0 keys"},
		{"too many keys", Join{Rows: 10, Keys: make([]Column, MaxJoinKeys+1)}, "17 keys"},
		{"flags mismatch", Join{Rows: 10, Keys: []Column{key}, NullSafe: []bool{true, true}}, "2 null-safe flags for 1 keys"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, err := c.j.Encode()
			if c.err != "" {
				if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want ErrInvalid naming %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			checkJoinBytes(t, &c.j, b)
		})
	}
}

// checkJoinBytes checks an encoded descriptor field by field.
func checkJoinBytes(t *testing.T, j *Join, b []byte) {
	t.Helper()
	le := binary.LittleEndian
	if len(b) != SizeofJoinHeader+SizeofColumn*len(j.Keys) {
		t.Fatalf("%d bytes for %d keys", len(b), len(j.Keys))
	}
	if le.Uint32(b) != JoinMagic || le.Uint32(b[4:]) != RelationalVersion || int(le.Uint32(b[8:])) != len(b) ||
		int(le.Uint32(b[12:])) != len(j.Keys) || le.Uint64(b[16:]) != j.Rows {
		t.Fatalf("header % x", b[:24])
	}
	for k := range MaxJoinKeys {
		want := uint32(0)
		if k < len(j.Keys) && j.NullSafe != nil && j.NullSafe[k] {
			want = JoinKeyNullSafe
		}
		if got := le.Uint32(b[24+4*k:]); got != want {
			t.Fatalf("key %d flags %d, want %d", k, got, want)
		}
	}
	for k, c := range j.Keys {
		e := b[SizeofJoinHeader+SizeofColumn*k:]
		if VType(le.Uint32(e)) != c.VType || le.Uint64(e[8:]) != c.Length || Addr(le.Uint64(e[40:])) != c.Data {
			t.Fatalf("key %d column % x", k, e[:SizeofColumn])
		}
	}
}

func TestJoinOutRoundTrip(t *testing.T) {
	o := JoinOut{ProbeRows: 0x100, BuildRows: 0x200, Capacity: 77, Flags: ProbeFirstMatch | ProbeUnmatched, EndRow: 90, NextRow: 3, NextMatch: 5}
	got, err := DecodeJoinOut(o.Encode())
	if err != nil || got != o {
		t.Fatalf("round trip %+v, %v; want %+v", got, err, o)
	}
	if _, err := DecodeJoinOut(make([]byte, SizeofJoinOut-1)); !errors.Is(err, ErrInvalid) {
		t.Fatalf("short join_out: %v", err)
	}
}

// FuzzJoinEncode: any key count, flags and row count either encode to a
// well-formed descriptor or give ErrInvalid, and any bytes decode as a
// join_out (or give ErrInvalid) without a panic.
func FuzzJoinEncode(f *testing.F) {
	f.Add(uint8(1), uint8(0), uint8(1), uint64(10), []byte{})
	f.Add(uint8(3), uint8(5), uint8(3), uint64(1<<40), make([]byte, SizeofJoinOut))
	f.Add(uint8(0), uint8(0), uint8(0), uint64(0), []byte{1, 2, 3})
	f.Add(uint8(17), uint8(0xff), uint8(17), uint64(1), make([]byte, 80))
	f.Fuzz(func(t *testing.T, nkeys, nullSafe, nflags uint8, rows uint64, out []byte) {
		j := Join{Rows: rows, Keys: make([]Column, nkeys%24)}
		for k := range j.Keys {
			j.Keys[k] = Column{VType: VType(k % 7), Length: rows, Data: Addr(k * 64)}
		}
		if nflags%24 != 0 {
			j.NullSafe = make([]bool, nflags%24)
			for k := range j.NullSafe {
				j.NullSafe[k] = nullSafe>>(k%8)&1 == 1
			}
		}
		b, err := j.Encode()
		valid := len(j.Keys) >= 1 && len(j.Keys) <= MaxJoinKeys && (j.NullSafe == nil || len(j.NullSafe) == len(j.Keys))
		if valid != (err == nil) {
			t.Fatalf("%d keys, %d flags: error %v", len(j.Keys), len(j.NullSafe), err)
		}
		if err != nil && !errors.Is(err, ErrInvalid) {
			t.Fatalf("error %v is not ErrInvalid", err)
		}
		if err == nil {
			checkJoinBytes(t, &j, b)
		}
		o, err := DecodeJoinOut(out)
		if (err == nil) != (len(out) >= SizeofJoinOut) {
			t.Fatalf("%d bytes: %v", len(out), err)
		}
		if err == nil {
			re := o.Encode()
			back, _ := DecodeJoinOut(re)
			if back != o {
				t.Fatalf("re-encode %+v, got %+v", o, back)
			}
		}
	})
}
