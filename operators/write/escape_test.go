package write

import (
	"strings"
	"testing"
)

func TestEscapePathName(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"plain-value_1.5 x", "plain-value_1.5 x"},
		{"a/b", "a%2Fb"},
		{"a=b", "a%3Db"},
		{"100%", "100%25"},
		{"12:30:00", "12%3A30%3A00"},
		{`"#'*?\{[]^`, "%22%23%27%2A%3F%5C%7B%5B%5D%5E"},
		{"tab\there\nnl", "tab%09here%0Anl"},
		{"\x7f\x01", "%7F%01"},
		{"日本/語", "日本%2F語"},
		{"}<>|!@$&()+,;~`", "}<>|!@$&()+,;~`"}, // not escaped off Windows
	} {
		if got := EscapePathName(tc.in); got != tc.want {
			t.Errorf("EscapePathName(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if got := UnescapePathName(tc.want); got != tc.in {
			t.Errorf("UnescapePathName(%q) = %q, want %q", tc.want, got, tc.in)
		}
	}
}

func TestUnescapePathNameLenient(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"%", "%"},
		{"%4", "%4"},
		{"%zz", "%zz"},
		{"a%4x", "a%4x"},
		{"%41%", "A%"},
		{"%e9", "é"}, // %XX is the character U+00XX, as in Java
	} {
		if got := UnescapePathName(tc.in); got != tc.want {
			t.Errorf("UnescapePathName(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestPartitionPathSegment(t *testing.T) {
	for _, tc := range []struct {
		col, val string
		null     bool
		want     string
	}{
		{"d", "2024-01-01", false, "d=2024-01-01"},
		{"d", "", false, "d=__HIVE_DEFAULT_PARTITION__"},
		{"d", "x", true, "d=__HIVE_DEFAULT_PARTITION__"},
		{"a=b", "c/d", false, "a%3Db=c%2Fd"},
	} {
		if got := PartitionPathSegment(tc.col, tc.val, tc.null); got != tc.want {
			t.Errorf("PartitionPathSegment(%q, %q, %v) = %q, want %q", tc.col, tc.val, tc.null, got, tc.want)
		}
	}
}

// FuzzEscapePathName checks that an escaped value is one safe path
// component that unescapes back to the input.
func FuzzEscapePathName(f *testing.F) {
	for _, s := range []string{"", "a/b", "100%", "%41", "日本", "..", "\x00\x7f", "a=b:c", "%%2F"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e := EscapePathName(s)
		if strings.ContainsAny(e, "/\\:=\n") {
			t.Fatalf("EscapePathName(%q) = %q keeps a separator", s, e)
		}
		for i := 0; i < len(e); i++ {
			if e[i] < 0x80 && e[i] != '%' && escapeSet[e[i]] {
				t.Fatalf("EscapePathName(%q) = %q keeps byte %#x", s, e, e[i])
			}
		}
		if u := UnescapePathName(e); u != s {
			t.Fatalf("UnescapePathName(EscapePathName(%q)) = %q", s, u)
		}
		if EscapePathName(s) != e {
			t.Fatal("not deterministic")
		}
		seg := PartitionPathSegment("c", s, false)
		if !strings.HasPrefix(seg, "c=") || strings.Count(seg, "=") != 1 || strings.Contains(seg, "/") {
			t.Fatalf("PartitionPathSegment(c, %q) = %q", s, seg)
		}
	})
}

// FuzzUnescapePathName feeds arbitrary directory names to the decoder: it
// must not panic, and escaping what it returns must give a name that decodes
// to the same string.
func FuzzUnescapePathName(f *testing.F) {
	for _, s := range []string{"", "%", "%4", "%41", "%zz%2F", "a%3Db", "%e9%", "__HIVE_DEFAULT_PARTITION__"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		u := UnescapePathName(s)
		if again := UnescapePathName(EscapePathName(u)); again != u {
			t.Fatalf("UnescapePathName(EscapePathName(%q)) = %q", u, again)
		}
	})
}
