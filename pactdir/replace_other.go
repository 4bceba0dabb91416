//go:build !windows

package pactdir

// renameRetryable: elsewhere a rename replaces a file whoever has it open,
// so nothing is worth retrying.
func renameRetryable(error) bool { return false }
