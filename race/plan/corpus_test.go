package plan

import (
	"github.com/hados-io/hados/internal/testkit"

	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

func sharedDir(t testing.TB) string { return testkit.SharedDir(t, "spark-plans") }

func corpusFiles(t testing.TB) []string {
	shared := sharedDir(t)
	var files []string
	for _, suite := range []string{"tpch", "tpcds"} {
		m, err := filepath.Glob(filepath.Join(shared, "spark-plans", suite, "*.explain.txt"))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) == 0 {
		t.Skip("no *.explain.txt files in the shared corpus")
	}
	return files
}

func TestCorpusComplete(t *testing.T) {
	n := map[string]int{}
	for _, f := range corpusFiles(t) {
		n[filepath.Base(filepath.Dir(f))]++
	}
	if n["tpch"] != 22 || n["tpcds"] < 100 {
		t.Errorf("corpus has %d TPC-H and %d TPC-DS plans, want 22 and about 100", n["tpch"], n["tpcds"])
	}
}

// corpusStats counts what the importer could not model.
type corpusStats struct {
	nodes, unknownOps, exprs, opaque, attrs, untyped int
	opaqueSamples, untypedSamples                    map[string]int
}

func (s *corpusStats) add(p *Plan) {
	_ = p.Walk(func(n *Node) error {
		s.nodes++
		if n.Op == OpUnknown {
			s.unknownOps++
		}
		for _, a := range n.Output {
			s.attrs++
			if !a.Type.IsKnown() {
				s.untyped++
				s.untypedSamples[p.Name+": "+a.String()]++
			}
		}
		n.Exprs(func(e *Expr) {
			_ = e.Walk(func(x *Expr) error {
				s.exprs++
				if x.Kind == ExprOpaque && !x.Type.IsKnown() {
					s.opaque++
					s.opaqueSamples[p.Name+": "+clip(x.Raw)]++
				}
				return nil
			})
		})
		return nil
	})
}

// TestImportCorpus imports every plan of Spark's TPC-H and TPC-DS
// plan-stability suites, checks that each survives the JSON round trip,
// and that conditions, keys, functions and results print back exactly as
// Spark printed them (InSet excepted: it prints as IN). It logs how much
// stayed unknown.
func TestImportCorpus(t *testing.T) {
	files := corpusFiles(t)
	st := &corpusStats{opaqueSamples: map[string]int{}, untypedSamples: map[string]int{}}
	printed, differ := 0, 0
	overflowChecked, overflowLiteral := 0, 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(filepath.Dir(f)) + "/" + filepath.Base(f)
		p, err := ParseSparkText(name, string(data))
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		st.add(p)
		c, m := checkOverflowTypes(t, p)
		overflowChecked += c
		overflowLiteral += m
		roundTrip(t, p)
		n, d := printBack(t, p)
		printed += n
		differ += d
	}
	t.Logf("%d files, %d nodes (%d unknown ops), %d exprs (%d opaque), %d output attrs (%d untyped), %d printed expressions (%d differ)",
		len(files), st.nodes, st.unknownOps, st.exprs, st.opaque, st.attrs, st.untyped, printed, differ)
	t.Logf("decimal typing: %d CheckOverflow results checked against Spark, %d differ on a folded literal operand", overflowChecked, overflowLiteral)
	if overflowLiteral*20 > overflowChecked {
		t.Errorf("too many literal-operand decimal mismatches: %d of %d", overflowLiteral, overflowChecked)
	}
	if st.opaque > 0 || st.unknownOps > 0 {
		t.Errorf("corpus has %d opaque expressions and %d unknown operators", st.opaque, st.unknownOps)
	}
	if testing.Verbose() {
		for _, m := range []map[string]int{st.opaqueSamples, st.untypedSamples} {
			keys := make([]string, 0, len(m))
			for k := range m {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				t.Logf("  unknown: %s", k)
			}
		}
	}
}

var reFieldItem = regexp.MustCompile(`^([A-Z][A-Za-z ]*?)(?: \[[0-9]+\])? ?: ?(.*)$`)

// printBack reparses each printed expression of p's sections and compares
// Expr.String with the text.
func printBack(t *testing.T, p *Plan) (n, differ int) {
	ix := newAttrIndex()
	_ = p.Walk(func(nd *Node) error {
		for _, list := range [][]Attr{nd.Output, nd.Input} {
			for _, a := range list {
				ix.add(a.Name, a.ID)
			}
		}
		if nd.Agg != nil {
			for _, a := range nd.Agg.AggAttrs {
				ix.add(a.Name, a.ID)
			}
		}
		return nil
	})
	check := func(nd *Node, text string) {
		n++
		e, err := parseExpr(text, ix)
		if err != nil {
			t.Errorf("%s (%d): %v in %q", p.Name, nd.ID, err, clip(text))
			return
		}
		if got := e.String(); got != text {
			differ++
			if !strings.Contains(text, " INSET ") {
				t.Errorf("%s (%d): prints back as\n%s\nnot\n%s", p.Name, nd.ID, got, text)
			}
		}
	}
	_ = p.Walk(func(nd *Node) error {
		for _, line := range strings.Split(nd.Raw, "\n")[1:] {
			m := reFieldItem.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			switch m[1] {
			case "Condition", "Join condition":
				if m[2] != "None" {
					check(nd, m[2])
				}
			case "Output", "Results", "Functions", "Keys", "Left keys", "Right keys", "PushedFilters", "PartitionFilters":
				items, err := splitList(m[2])
				if err != nil {
					t.Errorf("%s (%d): %v", p.Name, nd.ID, err)
				}
				for _, it := range items {
					check(nd, it)
				}
			}
		}
		return nil
	})
	return n, differ
}

// checkOverflowTypes validates the decimal typing rules against Spark
// itself: older plans print CheckOverflow(e, DecimalType(p,s), …) where
// decimal(p,s) is the type Spark computed for the arithmetic e. A literal
// operand folded from a widening cast or a constant expression (1.200000
// for 1.2, 0.500000 for 50/100.0) cannot always be told from one the query
// wrote; such mismatches are counted, others fail.
func checkOverflowTypes(t *testing.T, p *Plan) (checked, literalMismatch int) {
	_ = p.Walk(func(n *Node) error {
		n.Exprs(func(e *Expr) {
			_ = e.Walk(func(x *Expr) error {
				if x.Kind != ExprCall || x.Name != "CheckOverflow" || len(x.Args) < 2 {
					return nil
				}
				inner := x.Args[0]
				if !inner.Type.IsKnown() {
					return nil
				}
				checked++
				if inner.Type == x.Args[1].Type {
					return nil
				}
				for _, a := range inner.Args {
					if a.Kind == ExprLiteral {
						literalMismatch++
						t.Logf("%s (%d): literal operand: %s typed %v, Spark says %v", p.Name, n.ID, clip(inner.String()), inner.Type, x.Args[1].Type)
						return nil
					}
				}
				t.Errorf("%s (%d): %s typed %v, Spark says %v", p.Name, n.ID, clip(inner.String()), inner.Type, x.Args[1].Type)
				return nil
			})
		})
		return nil
	})
	return checked, literalMismatch
}
