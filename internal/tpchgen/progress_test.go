package tpchgen

import (
	"strings"
	"testing"
)

func TestProgressBar(t *testing.T) {
	var b strings.Builder
	p := ProgressBar(&b)
	p("orders", 0, 200)
	p("orders", 1, 200) // same percentage: not redrawn
	p("orders", 100, 200)
	p("region", 5, 5)
	p("orders", 200, 200)
	want := "\rorders    [..............................]   0% 0/200 rows" +
		"\rorders    [###############...............]  50% 100/200 rows" +
		"\rregion    [##############################] 100% 5/5 rows\n" +
		"\rorders    [##############################] 100% 200/200 rows\n"
	if got := b.String(); got != want {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
}
