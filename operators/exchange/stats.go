package exchange

import "time"

// Stats counts what a ShuffleWriter wrote or a ShuffleReader read.
type Stats struct {
	Records         int64         // Arrow records written or returned
	Rows            int64         // rows in those records
	Blocks          int64         // shuffle blocks written or read
	Spills          int64         // writer only: in-memory buffers spilled to disk
	IPCBytes        int64         // uncompressed Arrow IPC stream bytes
	CompressedBytes int64         // block payload bytes after compression
	FileBytes       int64         // bytes written to or read from data and index files
	Duration        time.Duration // time spent inside Write/Close or Next
}

// CompressionRatio is IPCBytes / CompressedBytes (0 when nothing was written).
func (s Stats) CompressionRatio() float64 {
	if s.CompressedBytes == 0 {
		return 0
	}
	return float64(s.IPCBytes) / float64(s.CompressedBytes)
}
