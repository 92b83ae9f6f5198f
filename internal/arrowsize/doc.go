// Package arrowsize measures Arrow data the way hados's memory bounds
// count it: by the bytes of the buffers an array or record references.
//
// Operators that gather records in Go memory before they write them out
// (the exchange's shuffle writer, the spill writer) bound what they hold
// by this size. It is the length of every buffer of the array, of its
// children (struct fields, list values) and of its dictionary, whatever
// the array's offset and length: a slice of a larger array counts the
// whole buffers it keeps alive, which is what its memory costs. Buffers
// shared between columns are counted once per column.
package arrowsize
