package csnappy_test

import (
	"fmt"

	"github.com/golang/snappy"

	"github.com/hados-io/hados/internal/csnappy"
)

// Decode a Snappy block into a buffer of the decoded size: the result is
// that buffer, written by the C decoder.
func ExampleDecode() {
	block := snappy.Encode(nil, []byte("hados hados hados hados"))
	n, _ := csnappy.DecodedLen(block)
	out, err := csnappy.Decode(make([]byte, n), block)
	fmt.Println(string(out), err)

	_, err = csnappy.Decode(nil, block[:len(block)-1])
	fmt.Println(err != nil)
	// Output:
	// hados hados hados hados <nil>
	// true
}
