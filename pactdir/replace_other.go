//go:build !windows

package pactdir

import "os"

// renameRetryable: elsewhere a rename replaces a file whoever has it open,
// so nothing is worth retrying.
func renameRetryable(error) bool { return false }

// makeReplaceable: elsewhere a rename replaces a file whatever its
// permission bits (the directory's decide), so there is nothing to do.
func makeReplaceable(*os.Root, string) (restore func()) { return func() {} }
