package qualify

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/hados-io/hados/race/plan"
	"github.com/hados-io/hados/race/rules"
)

// Query is the verdict on one plan.
type Query struct {
	Name string `json:"name"`
	// Offloaded: the strategy runs part of the query on the device.
	Offloaded bool `json:"offloaded"`
	// FullyOffloadable: every operator is supported.
	FullyOffloadable bool `json:"fullyOffloadable"`
	// ExecutableToday: offloaded with today's device operators only.
	ExecutableToday bool `json:"executableToday"`
	Operators       int  `json:"operators"`
	Supported       int  `json:"supported"`
	// Share is Supported / Operators.
	Share float64 `json:"share"`
	// Reasons are the query's own fallbacks (not the strategy's).
	Reasons []ReasonCount `json:"reasons,omitempty"`
	Error   string        `json:"error,omitempty"`
}

// ReasonCount is a fallback reason with what it is about and a count.
type ReasonCount struct {
	Reason  rules.Reason `json:"reason"`
	Subject string       `json:"subject,omitempty"`
	Count   int          `json:"count"`
}

func (r ReasonCount) String() string {
	if r.Subject == "" {
		return string(r.Reason)
	}
	return string(r.Reason) + " (" + r.Subject + ")"
}

// Report is the verdict on many plans.
type Report struct {
	Queries          []Query       `json:"queries"`
	Total            int           `json:"total"`
	Errors           int           `json:"errors"`
	Offloaded        int           `json:"offloaded"`
	FullyOffloadable int           `json:"fullyOffloadable"`
	ExecutableToday  int           `json:"executableToday"`
	Operators        int           `json:"operators"`
	Supported        int           `json:"supported"`
	TopReasons       []ReasonCount `json:"topReasons,omitempty"`
}

// Qualify runs the rules over every source. The plans are imported twice:
// first alone, to learn a plan.Catalog of the tables' column types from all
// of them, then with that catalog, so that a partition column one plan
// prints untyped is typed by the plans that type it (see plan.Catalog).
func Qualify(srcs []Source, opts rules.Options) Report {
	var rep Report
	all := map[ReasonCount]int{}
	cat := LearnCatalog(srcs)
	for _, s := range srcs {
		q := one(s, opts, cat)
		rep.Queries = append(rep.Queries, q)
		rep.Total++
		if q.Error != "" {
			rep.Errors++
			continue
		}
		rep.Operators += q.Operators
		rep.Supported += q.Supported
		if q.Offloaded {
			rep.Offloaded++
		}
		if q.FullyOffloadable {
			rep.FullyOffloadable++
		}
		if q.ExecutableToday {
			rep.ExecutableToday++
		}
		for _, r := range q.Reasons {
			all[ReasonCount{Reason: r.Reason, Subject: r.Subject}] += r.Count
		}
	}
	rep.TopReasons = sorted(all)
	return rep
}

// LearnCatalog imports every source that imports and learns the column
// types of their scans' tables.
func LearnCatalog(srcs []Source) *plan.Catalog {
	cat := plan.NewCatalog()
	for _, s := range srcs {
		if p, err := plan.ParseSparkText(s.Name, s.Text); err == nil {
			cat.Learn(p)
		}
	}
	return cat
}

// One qualifies one plan on its own.
func One(s Source, opts rules.Options) Query { return one(s, opts, nil) }

// one qualifies one plan, typing what it leaves untyped from cat (nil: none).
func one(s Source, opts rules.Options, cat *plan.Catalog) Query {
	q := Query{Name: s.Name}
	p, err := plan.ImportSparkWith(s.Name, strings.NewReader(s.Text), plan.ImportOptions{Catalog: cat})
	if err == nil {
		var r *rules.Result
		if r, err = rules.Run(p, opts, nil); err == nil {
			c := r.Count()
			q.Offloaded, q.ExecutableToday = r.Offloaded(), r.ExecutableToday()
			q.Operators, q.Supported = c.Operators, c.Supported
			q.FullyOffloadable = c.Operators > 0 && c.Supported == c.Operators
			if c.Operators > 0 {
				q.Share = float64(c.Supported) / float64(c.Operators)
			}
			counts := map[ReasonCount]int{}
			for _, f := range r.Fallbacks() {
				if f.Support.Reason == rules.ReasonWholeQuery || f.Support.Reason == rules.ReasonCost {
					continue
				}
				subject := f.Support.Subject
				if subject == "" {
					subject = f.Operator
				}
				counts[ReasonCount{Reason: f.Support.Reason, Subject: subject}]++
			}
			q.Reasons = sorted(counts)
		}
	}
	if err != nil {
		q.Error = err.Error()
	}
	return q
}

func sorted(m map[ReasonCount]int) []ReasonCount {
	out := make([]ReasonCount, 0, len(m))
	for k, n := range m {
		k.Count = n
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return out[i].String() < out[j].String()
	})
	return out
}

// WriteTable prints the report as a table per query, then the totals and
// the top reasons (at most top of them; 0 means all).
func (r Report) WriteTable(w io.Writer, top int) error {
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "QUERY\tOFFLOADED\tFULLY\tTODAY\tSHARE\tREASONS")
	for _, q := range r.Queries {
		if q.Error != "" {
			fmt.Fprintf(tw, "%s\terror\t\t\t\t%s\n", q.Name, q.Error)
			continue
		}
		reasons := make([]string, 0, len(q.Reasons))
		for _, rc := range q.Reasons {
			reasons = append(reasons, fmt.Sprintf("%s x%d", rc, rc.Count))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%.0f%% (%d/%d)\t%s\n", q.Name, yesNo(q.Offloaded), yesNo(q.FullyOffloadable),
			yesNo(q.ExecutableToday), 100*q.Share, q.Supported, q.Operators, strings.Join(reasons, "; "))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	share := 0.0
	if r.Operators > 0 {
		share = 100 * float64(r.Supported) / float64(r.Operators)
	}
	fmt.Fprintf(w, "\nqueries %d: offloaded %d, fully offloadable %d, executable today %d, errors %d; operators supported %.1f%% (%d/%d)\n",
		r.Total, r.Offloaded, r.FullyOffloadable, r.ExecutableToday, r.Errors, share, r.Supported, r.Operators)
	if len(r.TopReasons) > 0 {
		fmt.Fprintln(w, "\ntop fallback reasons:")
		for i, rc := range r.TopReasons {
			if top > 0 && i == top {
				break
			}
			fmt.Fprintf(w, "%6d  %s\n", rc.Count, rc)
		}
	}
	return nil
}

func yesNo(v bool) string {
	if v {
		return "yes"
	}
	return "no"
}
