package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"

	"github.com/pact-action/pact-action/internal/cmdline"
	"github.com/pact-action/pact-action/internal/version"
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
	switch {
	case len(args) == 0:
		err = runAction(ctx, stdout, getenv, logger)
	case args[0] == "check" && len(args) > 1:
		err = runLocal(ctx, args[1:], stdout)
	case args[0] == "doctor":
		err = runDoctor(ctx, args[1:], stdout, getenv, logger)
	case args[0] == "help" || args[0] == "--help" || args[0] == "-h":
		_, err = io.WriteString(stdout, helpText)
	case args[0] == "--version" && len(args) == 1:
		_, err = io.WriteString(stdout, version.Line("pact-action"))
	default:
		err = usagef("unknown arguments %q", args)
	}
	return exitCode(err, stderr)
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

const helpText = `pact-action — enforce the Pact protocol v1 on pull requests

In a GitHub workflow (no arguments): reads the runner environment and the
action inputs (mode, token, check-name, pact-dir, fail-on) and runs check
mode or bot mode.

Local preview, no token needed:
  pact-action check --local DIR [--base REV | --base-log FILE] [--branch NAME]
                    [--pact-dir .pact] [--fail-on error|warning|never] [--format text|json|sarif]
    Judges DIR's pact as the check would: everything pactify validate judges,
    plus append-only against REV's log (git show REV:<pact-dir>/log.jsonl) and
    Rule 2 for the features on branch NAME (default: DIR's current branch).

Is this repository really protected? (read-only token in GITHUB_TOKEN or GH_TOKEN)
  pact-action doctor [--repo owner/name] [--format text|json] [--check-name pact]
                     [--pact-dir DIR]
    Reads branch protection, rulesets, workflows and .github/pact.yml of the
    default branch and prints one line per check (✓ ✗ ! ?) with the fix.

pact-action --version prints the version.

Exit codes: 0 mergeable (doctor: no ✗); 1 violations (doctor: a ✗);
2 usage or operational error; 4 waiting for reviews (only when no check run
carries the block).
`
