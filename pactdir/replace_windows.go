//go:build windows

package pactdir

import (
	"errors"

	"golang.org/x/sys/windows"
)

// renameRetryable: Windows refuses to rename over a file another process
// has open without FILE_SHARE_DELETE (most editors and tools open files so;
// antivirus and indexers open new files for a moment) until it is closed.
func renameRetryable(err error) bool {
	return errors.Is(err, windows.ERROR_SHARING_VIOLATION) || errors.Is(err, windows.ERROR_ACCESS_DENIED) ||
		errors.Is(err, windows.ERROR_LOCK_VIOLATION)
}
