package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/pact-action/pact-action/internal/cmdline"
	"github.com/pact-action/pact-action/pactdir"
	"github.com/pact-action/pact-action/report"
)

// Exit codes, documented in docs/pactify.md.
const (
	exitOK          = 0
	exitInvalid     = 1 // validate found an error, or a verb was refused
	exitUsage       = 2 // bad arguments, or an I/O failure
	exitUnsupported = 3 // the log needs a newer protocol major: upgrade
	// exitInterrupted is a writer interrupted (Ctrl-C) before it wrote
	// anything: the code a shell gives a command SIGINT ended, so a
	// script stops as it would for any interrupted command.
	exitInterrupted = 130
)

// errInterrupted is a writer an interrupt (Ctrl-C) stopped before its first
// write (cli.interrupted).
var errInterrupted = errors.New("interrupted before anything was written: nothing was recorded, and every file is as it was")

// usageError is a command line that cannot be run as given; both binaries
// share it.
type usageError = cmdline.UsageError

func usagef(format string, args ...any) error { return cmdline.Usagef(format, args...) }

// refusal is a verb the protocol does not allow right now; nothing was
// written.
type refusal struct {
	msg, hint string
}

func (e *refusal) Error() string { return e.msg }

// unsupportedError is the fail-closed refusal on a newer protocol major.
type unsupportedError struct{ msg string }

// unsupportedHint is what to do about an unsupported major, shown under
// every verb's fail-closed refusal.
const unsupportedHint = "install a pactify release that supports this protocol_version; until then no verb but help will touch this pact"

func (e *unsupportedError) Error() string { return e.msg }

// invalidError means validate printed its findings and some are errors.
var errInvalid = errors.New("the pact has error findings")

// exitCode maps a verb's error to the process exit code, in one place, and
// tells the user what happened and what to do. A message may quote a task
// id or a path of the log, which someone else wrote and which can hold a
// terminal's escape sequence or a line break (in CI, a line of its own is
// a workflow command), so it is written through report.Plain.
func exitCode(err error, stderr io.Writer) int {
	var (
		usage        *usageError
		refused      *refusal
		unsupported  *unsupportedError
		osErr        *pactdir.OSError
		unterminated *pactdir.UnterminatedError
	)
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, errInvalid):
		return exitInvalid
	case errors.Is(err, errInterrupted):
		fmt.Fprintf(stderr, "pactify: %s\n", errInterrupted)
		return exitInterrupted
	case errors.As(err, &unsupported):
		fmt.Fprintf(stderr, "pactify: %s\nhint: %s\n", report.Plain(unsupported.msg), unsupportedHint)
		return exitUnsupported
	case errors.As(err, &refused):
		fmt.Fprintf(stderr, "pactify: refused: %s\nhint: %s\n", report.Plain(refused.msg), report.Plain(refused.hint))
		return exitInvalid
	case errors.As(err, &unterminated):
		fmt.Fprintf(stderr, "pactify: refused: %s\nhint: %s\n", report.Plain(err.Error()), report.Plain(unterminatedHint(unterminated.Path)))
		return exitInvalid
	case errors.As(err, &osErr):
		// What the system refused, in its own sentence, and what to do.
		fmt.Fprintf(stderr, "pactify: %s\nhint: %s\n", report.Plain(err.Error()), osErr.Hint())
		return exitUsage
	case errors.As(err, &usage):
		fmt.Fprintf(stderr, "pactify: %s\nRun `pactify help` for the verb reference.\n", report.Plain(usage.Msg))
		return exitUsage
	}
	fmt.Fprintf(stderr, "pactify: %s\n", report.Plain(err.Error()))
	return exitUsage
}

// unterminatedHint is what to do about a log whose last line has no line
// break (docs/pactify.md, "When an append fails").
func unterminatedHint(log string) string {
	return fmt.Sprintf("look at the end of %s (`tail -c 300 %s`): if it is the start of a line a failed write cut off, "+
		"that line was never recorded: cut the file back to just after its last line break and change nothing else; "+
		"if it is a whole event a hand edit left without its line break, add the line break. Then run the command again", log, log)
}
