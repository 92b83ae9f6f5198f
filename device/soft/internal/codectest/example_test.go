package codectest_test

import (
	"bytes"
	"fmt"

	"github.com/hados-io/hados/device/soft/internal/codectest"
	"github.com/pierrec/lz4/v4"
)

// A block compressed by the C engine decodes with pierrec/lz4, as on the
// device-to-host path of link compression.
func Example() {
	data := bytes.Repeat([]byte("lineitem|orders|"), 64)
	block, err := codectest.LZ4Compress(data)
	if err != nil {
		panic(err)
	}
	out := make([]byte, len(data))
	n, err := lz4.UncompressBlock(block, out)
	fmt.Println(len(data), "->", len(block), "bytes;", bytes.Equal(out[:n], data), err)
	// Output: 1024 -> 30 bytes; true <nil>
}
