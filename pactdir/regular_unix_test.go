//go:build unix

package pactdir

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// plantSpecial adds what only Unix can put in a checkout: a link to a
// device that never ends, a FIFO and a link to it, which block whoever
// opens them for reading.
func plantSpecial(t *testing.T, root string) []readCase {
	t.Helper()
	for _, err := range []error{
		os.Symlink("/dev/zero", filepath.Join(root, ".pact", "zero")),
		syscall.Mkfifo(filepath.Join(root, ".pact", "fifo"), 0o644),
		os.Symlink("fifo", filepath.Join(root, ".pact", "to-fifo")),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	return []readCase{
		{name: ".pact/zero", err: ErrNotRegular},
		{name: ".pact/fifo", err: ErrNotRegular},
		{name: ".pact/to-fifo", err: ErrNotRegular},
	}
}
