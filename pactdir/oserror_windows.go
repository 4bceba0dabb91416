//go:build windows

package pactdir

import "golang.org/x/sys/windows"

// platformConditions are the system's errors behind each Condition.
var platformConditions = []struct {
	cond Condition
	errs []error
}{
	{ReadOnly, []error{windows.ERROR_WRITE_PROTECT}},
	{NoSpace, []error{windows.ERROR_DISK_FULL, windows.ERROR_HANDLE_DISK_FULL}},
	{FileTooBig, []error{windows.ERROR_FILE_TOO_LARGE}},
}
