//go:build unix

package pactdir

import "syscall"

// openNonBlocking keeps open(2) of a FIFO from waiting for a writer.
const openNonBlocking = syscall.O_NONBLOCK
