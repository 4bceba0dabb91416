package action

import (
	"errors"
	"fmt"
	"strings"

	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/internal/cmdline"
	"github.com/pact-action/pact-action/internal/prose"
	"github.com/pact-action/pact-action/report"
)

// The exit codes a verdict asks for (docs/pactify.md, "Exit codes"):
// cmd/pact-action maps every error to its exit code in one place, and the
// local preview's text names the code on its last line.
const (
	// ExitViolation: error findings (or warnings, under fail-on:
	// warning); for doctor, a probe that failed.
	ExitViolation = 1
	// ExitWaiting: no violation, but tasks wait for review and no check
	// run carries the block.
	ExitWaiting = 4
)

// VerdictError carries the exit code a verdict asks for; what to say was
// already said with the verdict.
type VerdictError struct{ Code int }

func (e *VerdictError) Error() string { return fmt.Sprintf("verdict exit code %d", e.Code) }

func usagef(format string, args ...any) error { return cmdline.Usagef(format, args...) }

// failOn is the fail-on input (and check --local's --fail-on): which
// findings fail the job.
type failOn string

const (
	failOnError   failOn = "error"
	failOnWarning failOn = "warning"
	failOnNever   failOn = "never"
)

func parseFailOn(s string) (failOn, error) {
	switch f := failOn(strings.ToLower(strings.TrimSpace(s))); f {
	case "":
		return failOnError, nil
	case failOnError, failOnWarning, failOnNever:
		return f, nil
	}
	return "", usagef("fail-on must be error, warning or never, not %q", s)
}

// verdictExit decides the exit code of a verdict. Waiting fails the job only
// when no check run carries the block (checkPosted false): then the job is
// the only thing that can hold the merge.
func verdictExit(c checks.Counts, f failOn, checkPosted bool) error {
	switch {
	case f == failOnNever:
		return nil
	case c.Errors > 0, f == failOnWarning && c.Warnings > 0:
		return &VerdictError{ExitViolation}
	case c.Pending > 0 && !checkPosted:
		return &VerdictError{ExitWaiting}
	}
	return nil
}

// exitLine is the last line of the text output when a verdict exits
// non-zero, since a shell or `go run` shows only the number ("exit status
// 4"); "" when it exits 0.
func exitLine(err error, c checks.Counts) string {
	var v *VerdictError
	if !errors.As(err, &v) {
		return ""
	}
	switch {
	case v.Code == ExitViolation && c.Errors > 0:
		return fmt.Sprintf("exit %d: violations block the merge (%s)", v.Code, prose.Plural(c.Errors, "error"))
	case v.Code == ExitViolation:
		return fmt.Sprintf("exit %d: --fail-on warning fails on warnings (%s)", v.Code, prose.Plural(c.Warnings, "warning"))
	case v.Code == ExitWaiting:
		return fmt.Sprintf("exit %d: waiting for reviews (%s); not a violation, but not mergeable yet", v.Code, prose.Plural(c.Pending, "task"))
	}
	return fmt.Sprintf("exit %d", v.Code)
}

// ErrorLine is the one line the binary writes for an error it exits on.
// The error may quote a path or a task id of the pull request, which can
// hold a line break: on a line of its own in the job log, the runner would
// run the rest as a workflow command (docs/security.md), so it is one
// inert line (report.Plain).
func ErrorLine(err error) string { return report.Plain(err.Error()) }
