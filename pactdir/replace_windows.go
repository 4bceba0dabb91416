//go:build windows

package pactdir

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// renameRetryable: Windows refuses to rename over a file another process
// has open without FILE_SHARE_DELETE (most editors and tools open files so;
// antivirus and indexers open new files for a moment) until it is closed.
func renameRetryable(err error) bool {
	return errors.Is(err, windows.ERROR_SHARING_VIOLATION) || errors.Is(err, windows.ERROR_ACCESS_DENIED) ||
		errors.Is(err, windows.ERROR_LOCK_VIOLATION)
}

// makeReplaceable clears the read-only attribute of name of dir, which
// Windows will not rename over (ERROR_ACCESS_DENIED, which would be retried
// as if another program held the file and then blamed on one), so that a
// read-only STATE.yml is replaced as on every other system; the new file
// keeps the old one's permission bits (prepare), read-only included.
// restore puts the attribute back when the rename fails after all.
func makeReplaceable(dir *os.Root, name string) (restore func()) {
	fi, err := dir.Lstat(name)
	if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o200 != 0 {
		return func() {}
	}
	if dir.Chmod(name, fi.Mode().Perm()|0o200) != nil {
		return func() {}
	}
	return func() { _ = dir.Chmod(name, fi.Mode().Perm()) }
}
