package tpchgen

import (
	"strings"
	"testing"
)

func TestDistributions(t *testing.T) {
	count := func(w weighted, word string) int {
		n := 0
		for _, s := range w.slots {
			if s == word {
				n++
			}
		}
		return n
	}
	for _, c := range []struct {
		name        string
		w           weighted
		total       int
		word        string
		wordWeight  int
		distinctNum int
	}{
		{"nouns", nouns, 0, "pinto beans", 20, 45},
		{"verbs", verbs, 0, "x-ray", 1, 40},
		{"adjectives", adjectives, 0, "special", 20, 29},
		{"adverbs", adverbs, 0, "furiously", 50, 28},
		{"prepositions", prepositions, 0, "according to", 50, 47},
		{"auxiliaries", auxiliaries, 18, "will have to", 1, 18},
		{"terminators", terminators, 55, ":", 1, 6},
		{"sentences", sentences, 11, "NPVPT", 1, 5},
	} {
		if got := count(c.w, c.word); got != c.wordWeight {
			t.Errorf("%s: %q has weight %d, want %d", c.name, c.word, got, c.wordWeight)
		}
		distinct := map[string]bool{}
		for _, s := range c.w.slots {
			distinct[s] = true
		}
		if len(distinct) != c.distinctNum {
			t.Errorf("%s: %d distinct words, want %d", c.name, len(distinct), c.distinctNum)
		}
		if c.total != 0 && len(c.w.slots) != c.total {
			t.Errorf("%s: total weight %d, want %d", c.name, len(c.w.slots), c.total)
		}
	}
}

func TestTextPool(t *testing.T) {
	p := buildTextPool(1, 1<<16)
	if len(p.text) != 1<<16 {
		t.Fatalf("pool of %d bytes", len(p.text))
	}
	if q := buildTextPool(1, 1<<16); q.text != p.text {
		t.Error("text pool is not deterministic")
	}
	for _, want := range []string{"special", "requests", "pinto beans", " the ", ". ", ", "} {
		if !strings.Contains(p.text, want) {
			t.Errorf("pool lacks %q", want)
		}
	}
	if strings.Contains(p.text, "  ") || strings.Contains(p.text, "::") {
		t.Error("pool has doubled separators")
	}
	r := rngAt(1, streamOrder, 0)
	for i := 0; i < 1000; i++ {
		if c := p.comment(&r, 10, 43); len(c) < 10 || len(c) > 43 {
			t.Fatalf("comment of length %d", len(c))
		}
	}
}

func TestAppendHelpers(t *testing.T) {
	for _, c := range []struct {
		v     int64
		width int
		want  string
	}{{0, 1, "0"}, {7, 3, "007"}, {42, 9, "000000042"}, {123456, 2, "123456"}} {
		if got := string(appendPadded(nil, c.v, c.width)); got != c.want {
			t.Errorf("appendPadded(%d, %d) = %q", c.v, c.width, got)
		}
	}
	r := rngAt(1, streamCustomer, 5)
	if got := string(appendPhone(nil, &r, 3)); len(got) != 15 || got[:3] != "13-" {
		t.Errorf("phone %q", got)
	}
	for i := 0; i < 200; i++ {
		v := appendVString(nil, &r, 10, 40)
		if len(v) < 10 || len(v) > 40 || strings.Trim(string(v), vstringAlphabet) != "" {
			t.Fatalf("v-string %q", v)
		}
	}
	if got := string(appendDate(nil, startDate)); got != "1992-01-01" {
		t.Errorf("startDate = %s", got)
	}
	if got := string(appendDate(nil, currentDate)); got != "1995-06-17" {
		t.Errorf("currentDate = %s", got)
	}
}

func TestKeyFormulas(t *testing.T) {
	for i, want := range []int64{1, 2, 3, 4, 5, 6, 7, 8, 33, 34} {
		if got := orderKey(int64(i)); got != want {
			t.Errorf("orderKey(%d) = %d, want %d", i, got, want)
		}
	}
	for r, want := range []int64{1, 2, 4, 5, 7, 8, 10} {
		if got := orderingCustomer(int64(r)); got != want {
			t.Errorf("orderingCustomer(%d) = %d, want %d", r, got, want)
		}
	}
	// P_RETAILPRICE in cents: 90000 + (pk/10)%20001 + 100*(pk%1000).
	for _, c := range []struct{ pk, want int64 }{{1, 90100}, {999, 189999}, {1000, 90100}, {20010, 93001}} {
		if got := retailPrice(c.pk); got != c.want {
			t.Errorf("retailPrice(%d) = %d, want %d", c.pk, got, c.want)
		}
	}
	// The four suppliers of a part are distinct at SF 1 (S = 10000).
	for pk := int64(1); pk <= 200000; pk += 997 {
		seen := map[int64]bool{}
		for i := int64(0); i < 4; i++ {
			s := partSupplier(pk, i, 10000)
			if s < 1 || s > 10000 || seen[s] {
				t.Fatalf("part %d: supplier %d repeated or out of range", pk, s)
			}
			seen[s] = true
		}
	}
}
