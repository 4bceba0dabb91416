//go:build unix

package pactdir

import "syscall"

// platformConditions are the system's errors behind each condition.
var platformConditions = []struct {
	cond condition
	errs []error
}{
	{readOnly, []error{syscall.EROFS}},
	{noSpace, []error{syscall.ENOSPC, syscall.EDQUOT}},
	{fileTooBig, []error{syscall.EFBIG}},
	{notPermitted, []error{syscall.EPERM}},
}
