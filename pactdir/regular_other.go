//go:build !unix

package pactdir

// openNonBlocking: opening a named pipe does not block on these systems.
const openNonBlocking = 0
