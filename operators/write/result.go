package write

// Result lists the files a committed Writer made visible, sorted by RelPath.
type Result struct {
	Files []FileInfo
}

// Rows is the total number of rows in r's files.
func (r Result) Rows() int64 {
	var n int64
	for _, f := range r.Files {
		n += f.Rows
	}
	return n
}

// FileInfo describes one written Parquet file.
type FileInfo struct {
	// Path is the file's final path: filepath.Join(Options.Dir, RelPath).
	Path string
	// RelPath is slash-separated and relative to Options.Dir, e.g.
	// "d=2024-01-31/part-00003-<task>.c000.snappy.parquet".
	RelPath string
	// PartitionPath is the escaped directory part of RelPath ("" when the
	// output is not partitioned) and Partition its values, in PartitionBy
	// order.
	PartitionPath string
	Partition     []PartitionValue
	// Rows, Bytes and RowGroups count the file's rows, size and row groups.
	Rows      int64
	Bytes     int64
	RowGroups int
}
