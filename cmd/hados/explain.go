package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/hados-io/hados/race/exec"
	"github.com/hados-io/hados/race/plan"
	"github.com/hados-io/hados/race/rules"
)

// planWithOptions loads a plan file and the planner options of the
// configuration.
func (a *app) planWithOptions(path string) (*plan.Plan, rules.Options, error) {
	cfg, err := a.config()
	if err != nil {
		return nil, rules.Options{}, err
	}
	opts, err := exec.PlannerOptions(cfg)
	if err != nil {
		return nil, opts, err
	}
	p, err := loadPlan(path)
	return p, opts, err
}

// loadPlan imports a plan file: the IR's JSON when it starts with '{',
// else Spark's EXPLAIN FORMATTED text.
func loadPlan(path string) (*plan.Plan, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	br := bufio.NewReader(f)
	if head, _ := br.Peek(1); len(head) == 1 && head[0] == '{' {
		p, err := plan.DecodeJSON(br)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if p.Name == "" {
			p.Name = filepath.Base(path)
		}
		return p, nil
	}
	return plan.ImportSpark(filepath.Base(path), br)
}

func explainCmd(a *app) *cobra.Command {
	var asJSON, each bool
	cmd := &cobra.Command{
		Use:   "explain PLAN",
		Short: "Show how hados would run a Spark physical plan",
		Long: `explain reads a Spark physical plan (EXPLAIN FORMATTED text, or the plan IR's
JSON) and prints it as hados converts it: Dpu operators, inserted
ColumnarToRow/RowToColumnar transitions, the fused device pipelines, and each
operator that stays on the host with its reason. The spark.hados.* keys
(enabled, strategy, whitelist, expression.<name>.enabled) and
spark.sql.ansi.enabled of --config apply.

--after-each-rule prints the plan after every rule; --json prints JSON.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, opts, err := a.planWithOptions(args[0])
			if err != nil {
				return err
			}
			return explain(cmd.OutOrStdout(), p, opts, asJSON, each)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().BoolVar(&each, "after-each-rule", false, "print the plan after every rule")
	return cmd
}

// ruleStep is one --after-each-rule entry of the JSON output.
type ruleStep struct {
	Rule string          `json:"rule"`
	Plan rules.Explained `json:"plan"`
}

func explain(w io.Writer, p *plan.Plan, opts rules.Options, asJSON, each bool) error {
	var steps []ruleStep
	var after func(string, *rules.Result)
	if each {
		after = func(rule string, r *rules.Result) {
			if asJSON {
				steps = append(steps, ruleStep{Rule: rule, Plan: r.Explain()})
				return
			}
			fmt.Fprintf(w, "##### after rule %s\n", rule)
			r.WriteText(w)
			fmt.Fprintln(w)
		}
	}
	r, err := rules.Run(p, opts, after)
	if err != nil {
		return err
	}
	switch {
	case asJSON && each:
		return writeJSON(w, steps)
	case asJSON:
		return writeJSON(w, r.Explain())
	case each:
		return nil // the last step is the final plan
	}
	return r.WriteText(w)
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
