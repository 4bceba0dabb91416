//go:build windows

package pactdir

import "golang.org/x/sys/windows"

// platformConditions are the system's errors behind each condition.
var platformConditions = []struct {
	cond condition
	errs []error
}{
	{readOnly, []error{windows.ERROR_WRITE_PROTECT}},
	{noSpace, []error{windows.ERROR_DISK_FULL, windows.ERROR_HANDLE_DISK_FULL}},
	{fileTooBig, []error{windows.ERROR_FILE_TOO_LARGE}},
}
