package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"

	"github.com/pact-action/pact-action/action"
	"github.com/pact-action/pact-action/internal/cmdline"
)

// Exit codes, documented in docs/pactify.md; a verdict's are action's
// (action.VerdictError).
const (
	exitOK        = 0
	exitViolation = action.ExitViolation // error findings (or warnings, under fail-on: warning)
	exitUsage     = 2                    // bad arguments or configuration, or GitHub could not be reached
	exitWaiting   = action.ExitWaiting   // no violation, but tasks wait for review and no check run carries the block
)

func usagef(format string, args ...any) error { return cmdline.Usagef(format, args...) }

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
		err = action.RunWorkflow(ctx, getenv, stdout, logger)
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
		usage   *cmdline.UsageError
		verdict *action.VerdictError
	)
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &verdict):
		return verdict.Code
	case errors.As(err, &usage):
		fmt.Fprintf(stderr, "pact-action: %s\nRun `pact-action help` for usage.\n", usage.Msg)
		return exitUsage
	}
	fmt.Fprintf(stderr, "pact-action: %s\n", action.ErrorLine(err))
	return exitUsage
}
