package pactdir

import (
	"errors"
	"fmt"
	"io/fs"
)

// What the operating system refused, said in words a user can act on: each
// condition a writer meets on a real disk (a read-only file system, no space
// left, a file-size limit, no permission) gets its own true sentence and
// what to do about it, instead of the bare system message or, worse, a
// sentence about another condition. The system calls' errors differ by
// platform (oserror_*.go); the sentences are the same everywhere.

// condition is one of the operating-system conditions OSError names.
type condition int

// The conditions OSError names.
const (
	readOnly   condition = iota + 1 // a read-only file system (or write-protected medium)
	noSpace                         // no space left on the device, or the disk quota spent
	fileTooBig                      // the file would exceed the process's file-size limit
	permission                      // permission denied
	// notPermitted is an operation the system refuses whatever the
	// permission bits (EPERM): an immutable or append-only file or
	// directory (chattr +i or +a, chflags uchg).
	notPermitted
)

// OSError is a read or write of a pact file that the operating system
// refused for a reason the user can remedy: condition says which.
type OSError struct {
	Op   string // what was being done: "write", "append to", "create", ...
	Path string // slash-separated, as findings name files
	// Note is what the failure left (for example, that nothing was
	// recorded); it may be empty.
	Note      string
	condition condition
	Err       error // the system's error
}

func (e *OSError) Error() string {
	msg := fmt.Sprintf("%s %s: %s", e.Op, e.Path, e.condition.what())
	if e.Note != "" {
		msg += "; " + e.Note
	}
	return msg
}

// Hint is what to do about the error.
func (e *OSError) Hint() string { return e.condition.todo() }

func (e *OSError) Unwrap() error { return e.Err }

func (c condition) what() string {
	switch c {
	case readOnly:
		return "the file system is read-only"
	case noSpace:
		return "no space is left on the device (or the disk quota is spent)"
	case fileTooBig:
		return "the file would exceed the file-size limit of this process (ulimit -f) or of the file system"
	case permission:
		return "permission denied"
	case notPermitted:
		return "the operation is not permitted, whatever the permission bits (the file or its directory is marked immutable or append-only, for example)"
	}
	return "the operating system refused"
}

func (c condition) todo() string {
	switch c {
	case readOnly:
		return "run pactify in a checkout it can write (not a read-only mount or medium), then run the command again"
	case noSpace:
		return "free some space on the disk that holds the repository, then run the command again"
	case fileTooBig:
		return "raise the file-size limit (`ulimit -f unlimited` in the shell that runs pactify), then run the command again"
	case permission:
		return "make the pact directory and its files writable by the user running pactify (or run it as their owner), then run the command again"
	case notPermitted:
		return "clear the immutable or append-only flag of the pact directory and its files (`lsattr -d .pact .pact/* .pact/tasks` and `chattr -i` on Linux, `ls -lO` and `chflags nouchg` on macOS), then run the command again"
	}
	return ""
}

// conditionOf names the condition behind err, or 0 when it is none of
// them.
func conditionOf(err error) condition {
	if err == nil {
		return 0
	}
	for _, c := range platformConditions {
		for _, target := range c.errs {
			if errors.Is(err, target) {
				return c.cond
			}
		}
	}
	if errors.Is(err, fs.ErrPermission) {
		return permission
	}
	return 0
}

// osError is err as an OSError when it is one of the conditions, else err
// wrapped with op and path as before.
func osError(op, path string, err error) error {
	if c := conditionOf(err); c != 0 {
		return &OSError{Op: op, Path: path, condition: c, Err: err}
	}
	return fmt.Errorf("%s %s: %w", op, path, err)
}

// SystemError is err, what the system answered to op on path, in the
// sentences of OSError when it is one of its conditions (with note, what
// the failure left), else wrapped with op, path and note: for a command
// that writes a file outside a pact directory (git's merge driver) and
// must say a full disk or a file-size limit as every writer does.
func SystemError(op, path, note string, err error) error {
	if note == "" {
		return osError(op, path, err)
	}
	return noted(osError(op, path, err), note)
}

// noted is err with note added to what an OSError says it left, or to the
// message of any other error.
func noted(err error, note string) error {
	var oe *OSError
	if errors.As(err, &oe) {
		cp := *oe
		if cp.Note == "" {
			cp.Note = note
		} else {
			cp.Note += "; " + note
		}
		return &cp
	}
	return fmt.Errorf("%w; %s", err, note)
}
