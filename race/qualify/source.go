package qualify

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/hados-io/hados/race/plan"
)

// Source is one formatted plan to qualify.
type Source struct {
	Name string
	Text string
}

// maxLine bounds one event-log line (Spark plans of wide queries are large).
const maxLine = plan.MaxTextBytes + 1<<20

// Read loads the plans of the files and directories named: a directory
// contributes its *.txt files (formatted plans) and its event logs (files
// whose first byte is '{'), recursively, in name order.
func Read(paths ...string) ([]Source, error) {
	var out []Source
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			srcs, err := readFile(p, true)
			if err != nil {
				return nil, err
			}
			out = append(out, srcs...)
			continue
		}
		var files []string
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && !strings.HasSuffix(path, ".sql") && !strings.HasSuffix(path, ".md") && !strings.HasSuffix(path, ".tsv") {
				files = append(files, path)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		sort.Strings(files)
		for _, f := range files {
			srcs, err := readFile(f, false)
			if err != nil {
				return nil, err
			}
			out = append(out, srcs...)
		}
	}
	return out, nil
}

// readFile reads a plan file or an event log; explicit files are always
// taken as plans, files found in a directory only when they look like one.
func readFile(path string, explicit bool) ([]Source, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	br := bufio.NewReader(f)
	head, _ := br.Peek(1)
	if len(head) == 1 && head[0] == '{' {
		return ReadEventLog(path, br)
	}
	b, err := io.ReadAll(io.LimitReader(br, plan.MaxTextBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if !explicit && !bytes.HasPrefix(bytes.TrimSpace(b), []byte("== Physical Plan ==")) {
		return nil, nil // not a plan: skipped
	}
	return []Source{{Name: path, Text: string(b)}}, nil
}

// event is the part of a Spark listener event qualify reads.
type event struct {
	Event       string `json:"Event"`
	ExecutionID *int64 `json:"executionId"`
	Plan        string `json:"physicalPlanDescription"`
}

// ReadEventLog reads a Spark event log: one JSON event per line. Each SQL
// execution yields the last plan it printed, named name#executionId. A
// malformed line is an error naming the file and line.
func ReadEventLog(name string, r io.Reader) ([]Source, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	latest := map[int64]string{}
	var order []int64
	line := 0
	for sc.Scan() {
		line++
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 || !bytes.Contains(text, []byte("physicalPlanDescription")) {
			continue
		}
		var ev event
		if err := json.Unmarshal(text, &ev); err != nil {
			return nil, fmt.Errorf("%s:%d: event log: %v", name, line, err)
		}
		if ev.Plan == "" || !strings.Contains(ev.Event, "SQL") {
			continue
		}
		id := int64(-line)
		if ev.ExecutionID != nil {
			id = *ev.ExecutionID
		}
		if _, seen := latest[id]; !seen {
			order = append(order, id)
		}
		latest[id] = ev.Plan
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: event log: %v", name, line+1, err)
	}
	out := make([]Source, 0, len(order))
	for _, id := range order {
		out = append(out, Source{Name: fmt.Sprintf("%s#%d", name, id), Text: latest[id]})
	}
	return out, nil
}
