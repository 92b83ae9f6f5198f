// Package safepath confines file names that come from plans and command
// lines to a directory.
//
// A query plan names table directories ("lineitem", "warehouse/orders") and
// the CLI takes an output path (`hados run --output`). Those names are data,
// not trusted code: a plan shipped by a client may say "../../etc/passwd",
// "/root/.ssh/id_rsa", or name a directory inside the warehouse that is a
// symbolic link to somewhere else. A Root is the directory such names are
// resolved under, and Resolve is the single place that decides whether a
// name stays inside it.
//
// Resolve refuses, with an error naming the path and the root:
//
//   - empty names and names holding a NUL byte (ErrInvalid);
//   - absolute names (ErrAbsolute);
//   - names whose ".." elements climb above the root (ErrEscape);
//   - names that pass through a symbolic link whose target lies outside
//     the root, or whose target does not exist and so cannot be checked
//     (ErrEscape).
//
// Links that stay inside the root are followed, and the returned path is the
// one with those links evaluated, so the caller opens exactly the file that
// was checked. Components that do not exist yet (an output file, a directory
// the caller is about to create) are appended as written: nothing outside
// the root can be reached through a name that does not exist.
//
// Resolve checks the file system at the moment it is called. A process that
// can write inside the root and swap a directory for a link between the check
// and the open can still win that race; callers that must withstand such a
// local attacker open files through os.OpenRoot(r.Dir()) instead, which
// checks every step at open time. Resolve is the check for names from plans,
// where the attacker controls the name, not the disk.
//
// A Root is a small immutable value: copy it freely and use it from any
// number of goroutines. It owns no resources.
package safepath
