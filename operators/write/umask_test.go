//go:build unix

package write

import "syscall"

func umask(m int) int { return syscall.Umask(m) }
