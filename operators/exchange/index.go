package exchange

import (
	"encoding/binary"
	"fmt"
	"os"
)

// An index file holds n+1 big-endian int64 offsets into its data file, like
// Spark's IndexShuffleBlockResolver: partition p's blocks occupy
// [offset[p], offset[p+1]). The first offset is 0 and the last the data
// file's size; there is no header, so n is the file size / 8 - 1.

// encodeIndex returns the bytes of an index for offsets.
func encodeIndex(offsets []int64) []byte {
	b := make([]byte, 8*len(offsets))
	for i, o := range offsets {
		binary.BigEndian.PutUint64(b[8*i:], uint64(o))
	}
	return b
}

// parseIndex decodes and checks an index against the size of its data file.
// The error is a *CorruptError naming file and the offending offset.
func parseIndex(b []byte, dataSize int64, file string) ([]int64, error) {
	bad := func(off int64, format string, args ...any) error {
		return &CorruptError{File: file, Partition: -1, Offset: off, Reason: fmt.Sprintf(format, args...)}
	}
	if len(b)%8 != 0 || len(b) < 16 {
		return nil, bad(0, "index of %d bytes is not n+1 >= 2 int64 offsets", len(b))
	}
	offsets := make([]int64, len(b)/8)
	for i := range offsets {
		offsets[i] = int64(binary.BigEndian.Uint64(b[8*i:]))
		switch {
		case i == 0 && offsets[0] != 0:
			return nil, bad(0, "first offset is %d, want 0", offsets[0])
		case i > 0 && offsets[i] < offsets[i-1]:
			return nil, bad(int64(8*i), "offset of partition %d (%d) is below the previous one (%d)", i, offsets[i], offsets[i-1])
		}
	}
	if last := offsets[len(offsets)-1]; last != dataSize {
		return nil, bad(int64(len(b)-8), "index ends at %d but the data file has %d bytes", last, dataSize)
	}
	return offsets, nil
}

// readIndex reads the index file of a data file of the given size.
func readIndex(path string, dataSize int64) ([]int64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("exchange: read shuffle index: %w", err)
	}
	return parseIndex(b, dataSize, path)
}
