//go:build unix

package pactdir

import "syscall"

// platformConditions are the system's errors behind each Condition.
var platformConditions = []struct {
	cond Condition
	errs []error
}{
	{ReadOnly, []error{syscall.EROFS}},
	{NoSpace, []error{syscall.ENOSPC, syscall.EDQUOT}},
	{FileTooBig, []error{syscall.EFBIG}},
	{NotPermitted, []error{syscall.EPERM}},
}
