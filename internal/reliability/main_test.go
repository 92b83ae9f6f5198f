package reliability

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"sync"
	"testing"

	"go.uber.org/goleak"
)

// The workload is generated once per test binary, into a directory removed
// after the tests.
var shared struct {
	once sync.Once
	dir  string
	sf   float64
	err  error
}

// sizes are the default run and the bigger one of HADOS_RELIABILITY_LARGE=1.
type size struct {
	sf     float64
	rounds int  // times each query runs in a row of the matrix
	all    bool // all 22 queries, not matrixQueries
}

func testSize() size {
	if on, _ := strconv.ParseBool(os.Getenv("HADOS_RELIABILITY_LARGE")); on {
		return size{sf: 0.1, rounds: 3, all: true}
	}
	return size{sf: DefaultSF, rounds: 1}
}

// warehouse generates (once) the TPC-H tables the tests read.
func warehouse(t testing.TB) (string, float64) {
	t.Helper()
	shared.once.Do(func() {
		shared.sf = testSize().sf
		if shared.dir, shared.err = os.MkdirTemp("", "hados-reliability-"); shared.err != nil {
			return
		}
		_, shared.err = NewWorkload(context.Background(), WorkloadOptions{Dir: shared.dir, SF: shared.sf, Queries: []int{}})
	})
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	return shared.dir, shared.sf
}

type mainRun struct{ m *testing.M }

func (r mainRun) Run() int {
	code := r.m.Run()
	if shared.dir != "" {
		if err := os.RemoveAll(shared.dir); err != nil {
			fmt.Fprintln(os.Stderr, err)
			code = 1
		}
	}
	return code
}

func TestMain(m *testing.M) { goleak.VerifyTestMain(mainRun{m}) }
