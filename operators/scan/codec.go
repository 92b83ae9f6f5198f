package scan

import (
	"sync"

	"github.com/hados-io/hados/internal/csnappy"
)

// Snappy pages are decoded by C.
//
// Decompressing snappy pages is about half of the scan's CPU time (Q6's
// columns of lineitem). This package's init registers internal/csnappy in
// arrow-go's codec registry for Snappy, process-wide: every snappy page
// arrow-go reads — through pqarrow's page reader or inflate.go's helpers,
// in any scan or any other reader in the process — is then decoded by the
// software DPU's C decoder (device/soft/codec_snappy.h) in place, into the
// buffer the reader gives it, with no extra copy; encoding (the writer)
// stays arrow-go's. A corrupt page fails to decode with an error the scan
// reports as ErrCorrupt naming the file and row group, as before.

var snappyCodec struct {
	mu      sync.Mutex
	restore func() // non-nil while the C codec is registered
}

func init() { setCSnappy(true) }

// setCSnappy registers (on) or unregisters the C Snappy decoder; tests and
// same-run comparisons switch it between scans, never during one.
func setCSnappy(on bool) {
	snappyCodec.mu.Lock()
	defer snappyCodec.mu.Unlock()
	switch {
	case on && snappyCodec.restore == nil:
		if restore, err := csnappy.Register(); err == nil {
			snappyCodec.restore = restore
		}
	case !on && snappyCodec.restore != nil:
		snappyCodec.restore()
		snappyCodec.restore = nil
	}
}
