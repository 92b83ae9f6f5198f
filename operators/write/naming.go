package write

import (
	"fmt"
	"path"
)

// fileName is Spark's name for the counter-th file of a task:
// part-<split:05d>-<taskID>.c<counter:03d><codec ext>.parquet, e.g.
// part-00000-0b6d…-e1.c000.snappy.parquet.
func fileName(split int, taskID string, counter int, codecExt string) string {
	return fmt.Sprintf("part-%05d-%s.c%03d%s.parquet", split, taskID, counter, codecExt)
}

// relPath joins a partition directory path (possibly "") and a file name
// with slashes.
func relPath(partitionPath, name string) string {
	if partitionPath == "" {
		return name
	}
	return path.Join(partitionPath, name)
}

// tempDirName is the name, under Dir/_temporary, of a task attempt's own
// directory; the random suffix keeps two attempts of one task apart.
func tempDirName(taskID string, split int, attempt string) string {
	return fmt.Sprintf("%s-%05d-%s", taskID, split, attempt)
}

// temporaryDir is the directory under Options.Dir holding every task's
// uncommitted files; like Spark's, its leading underscore hides it from
// Spark's and DuckDB's Hive-partition readers.
const temporaryDir = "_temporary"
