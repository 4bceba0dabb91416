package pactdir

import (
	"errors"
	"io/fs"
	"strings"
	"testing"
)

// TestOSErrorSentences: each condition of the system is said as itself,
// with what to do, and never as "not a regular file"; any other error
// stays what it was.
func TestOSErrorSentences(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		err        error
		cond       condition
		what, todo string
	}{
		{fs.ErrPermission, permission, "permission denied", "writable"},
		{&fs.PathError{Op: "open", Path: "x", Err: fs.ErrPermission}, permission, "permission denied", "writable"},
	} {
		got := openError("write", ".pact/STATE.yml", c.err)
		var oe *OSError
		if !errors.As(got, &oe) || oe.condition != c.cond || !strings.Contains(got.Error(), c.what) ||
			!strings.Contains(oe.Hint(), c.todo) || errors.Is(got, ErrNotRegular) || !errors.Is(got, c.err) {
			t.Errorf("openError(%v) = %v; want %q, hint with %q", c.err, got, c.what, c.todo)
		}
	}
	for _, c := range platformConditions {
		for _, e := range c.errs {
			got := openError("write", ".pact/STATE.yml", &fs.PathError{Op: "open", Path: "x", Err: e})
			var oe *OSError
			if !errors.As(got, &oe) || oe.condition != c.cond || errors.Is(got, ErrNotRegular) || strings.Contains(got.Error(), "regular file") {
				t.Errorf("openError(%v) = %v; want condition %d", e, got, c.cond)
			}
			if !strings.Contains(got.Error(), c.cond.what()) || oe.Hint() != c.cond.todo() || c.cond.todo() == "" {
				t.Errorf("openError(%v) = %v, hint %q", e, got, oe.Hint())
			}
		}
	}
	// Five conditions, five sentences.
	seen := map[string]bool{}
	for _, c := range []condition{readOnly, noSpace, fileTooBig, permission, notPermitted} {
		if seen[c.what()] || seen[c.todo()] {
			t.Errorf("condition %d says what another says", c)
		}
		seen[c.what()], seen[c.todo()] = true, true
	}
	other := errors.New("a loop of links")
	if got := openError("write", ".pact/STATE.yml", other); !errors.Is(got, ErrNotRegular) {
		t.Errorf("openError(other) = %v, want ErrNotRegular", got)
	}
	if got := osError("write", "f", other); errors.As(got, new(*OSError)) || !errors.Is(got, other) {
		t.Errorf("osError(other) = %v", got)
	}
}
