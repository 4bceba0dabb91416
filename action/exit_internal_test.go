package action

import (
	"errors"
	"testing"

	"github.com/pact-action/pact-action/checks"
)

// TestVerdictExit: errors always fail (unless fail-on never), warnings
// only under fail-on warning, and waiting only when no check run carries
// the block; the text preview's last line names the code and why.
func TestVerdictExit(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		counts checks.Counts
		failOn failOn
		posted bool
		code   int // 0: no error
		line   string
	}{
		{checks.Counts{}, failOnError, false, 0, ""},
		{checks.Counts{Errors: 1}, failOnError, true, ExitViolation, "exit 1: violations block the merge (1 error)"},
		{checks.Counts{Errors: 2}, failOnNever, false, 0, ""},
		{checks.Counts{Warnings: 1}, failOnError, false, 0, ""},
		{checks.Counts{Warnings: 2}, failOnWarning, true, ExitViolation, "exit 1: --fail-on warning fails on warnings (2 warnings)"},
		{checks.Counts{Pending: 1}, failOnError, true, 0, ""},
		{checks.Counts{Pending: 3}, failOnError, false, ExitWaiting, "exit 4: waiting for reviews (3 tasks); not a violation, but not mergeable yet"},
		{checks.Counts{Errors: 1, Pending: 1}, failOnError, false, ExitViolation, "exit 1: violations block the merge (1 error)"},
		{checks.Counts{Pending: 1}, failOnNever, false, 0, ""},
	} {
		err := verdictExit(tc.counts, tc.failOn, tc.posted)
		code := 0
		var v *VerdictError
		if errors.As(err, &v) {
			code = v.Code
		} else if err != nil {
			t.Fatalf("verdictExit(%+v, %s, %v) = %v, not a *VerdictError", tc.counts, tc.failOn, tc.posted, err)
		}
		if line := exitLine(err, tc.counts); code != tc.code || line != tc.line {
			t.Errorf("verdictExit(%+v, %s, posted %v) = exit %d %q; want %d %q", tc.counts, tc.failOn, tc.posted, code, line, tc.code, tc.line)
		}
	}
}
