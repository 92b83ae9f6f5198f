package safepath_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/hados-io/hados/internal/safepath"
)

func Example() {
	warehouse, _ := os.MkdirTemp("", "warehouse")
	defer os.RemoveAll(warehouse)
	_ = os.Mkdir(filepath.Join(warehouse, "lineitem"), 0o755)

	root, err := safepath.New(warehouse)
	if err != nil {
		fmt.Println(err)
		return
	}
	dir, err := root.Resolve("lineitem")
	fmt.Println(filepath.Base(dir), err)
	_, err = root.Resolve("../../etc/passwd")
	fmt.Println(errors.Is(err, safepath.ErrEscape))
	_, err = root.Resolve("/etc/passwd")
	fmt.Println(errors.Is(err, safepath.ErrAbsolute))
	// Output:
	// lineitem <nil>
	// true
	// true
}
