package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"

	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/internal/cmdline"
	"github.com/pact-action/pact-action/internal/prose"
)

// Exit codes, documented in docs/pactify.md.
const (
	exitOK        = 0
	exitViolation = 1 // error findings (or warnings, under fail-on: warning)
	exitUsage     = 2 // bad arguments or configuration, or GitHub could not be reached
	exitWaiting   = 4 // no violation, but tasks wait for review and no check run carries the block
)

// usageError is an invocation that cannot run as given; both binaries
// share it.
type usageError = cmdline.UsageError

func usagef(format string, args ...any) error { return cmdline.Usagef(format, args...) }

// verdictError carries the exit code a verdict asks for; what to say was
// already said with the verdict.
type verdictError struct{ code int }

func (e *verdictError) Error() string { return fmt.Sprintf("verdict exit code %d", e.code) }

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	_ = stdin
	level := slog.LevelInfo
	if getenv("RUNNER_DEBUG") == "1" || getenv("PACT_DEBUG") != "" {
		level = slog.LevelDebug
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	slog.SetDefault(logger)
	var err error
	if len(args) == 0 && inWorkflow(getenv) {
		// The GitHub Action: the runner's environment is its whole input.
		err = runAction(ctx, stdout, getenv, logger)
	} else {
		err = cmdline.Execute(ctx, commands(stdout, stderr, getenv, logger), args, stdout, stderr)
	}
	return exitCode(err, stderr)
}

// inWorkflow reports whether the runner started the process: GitHub sets
// GITHUB_ACTIONS=true in every job and container action. A person who
// types pact-action with no arguments gets the reference instead (exit 0),
// as with gh; GITHUB_EVENT_NAME alone still asks for the action, for a
// runner that sets only the event.
func inWorkflow(getenv func(string) string) bool {
	return getenv("GITHUB_ACTIONS") == "true" || getenv("GITHUB_EVENT_NAME") != ""
}

// exitCode maps errors to exit codes in one place.
func exitCode(err error, stderr io.Writer) int {
	var (
		usage   *usageError
		verdict *verdictError
	)
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &verdict):
		return verdict.code
	case errors.As(err, &usage):
		fmt.Fprintf(stderr, "pact-action: %s\nRun `pact-action help` for usage.\n", usage.Msg)
		return exitUsage
	}
	fmt.Fprintf(stderr, "pact-action: %s\n", err)
	return exitUsage
}

// exitLine is the last line of the text output when a verdict exits
// non-zero, since a shell or `go run` shows only the number ("exit status
// 4"); "" when it exits 0.
func exitLine(err error, c checks.Counts) string {
	var v *verdictError
	if !errors.As(err, &v) {
		return ""
	}
	switch {
	case v.code == exitViolation && c.Errors > 0:
		return fmt.Sprintf("exit %d: violations block the merge (%s)", v.code, prose.Plural(c.Errors, "error"))
	case v.code == exitViolation:
		return fmt.Sprintf("exit %d: --fail-on warning fails on warnings (%s)", v.code, prose.Plural(c.Warnings, "warning"))
	case v.code == exitWaiting:
		return fmt.Sprintf("exit %d: waiting for reviews (%s); not a violation, but not mergeable yet", v.code, prose.Plural(c.Pending, "task"))
	}
	return fmt.Sprintf("exit %d", v.code)
}
