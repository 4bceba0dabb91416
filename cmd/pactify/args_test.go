package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/pact-action/pact-action/projection"
)

func TestParseSeat(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		want projection.Seat
		err  string
	}{
		{in: "claude-opus:reviewer:CLAUDE.md", want: projection.Seat{ID: "claude-opus", Roles: []string{"reviewer"}, Entry: "CLAUDE.md"}},
		{in: "w1:worker, reviewer ,:docs/W1.md", want: projection.Seat{ID: "w1", Roles: []string{"worker", "reviewer"}, Entry: "docs/W1.md"}},
		{in: "a:worker", err: "exactly three fields"},
		{in: "a:worker:A.md:B.md", err: "exactly three fields"},
		{in: "A:worker:A.md", err: "must match"},
		{in: "-a:worker:A.md", err: "must match"},
		{in: ":worker:A.md", err: "must match"},
		{in: "a::A.md", err: "at least one role"},
		{in: "a: , :A.md", err: "at least one role"},
		{in: "a:Worker:A.md", err: `role "Worker"`},
		{in: "a:worker:", err: "inside the repository"},
		{in: "a:worker:.", err: "inside the repository"},
		{in: "a:worker:..", err: "inside the repository"},
		{in: "a:worker:../A.md", err: "inside the repository"},
		{in: "a:worker:docs/../../A.md", err: "inside the repository"},
		{in: "a:worker:/etc/A.md", err: "inside the repository"},
	} {
		got, err := parseSeat(c.in)
		if c.err != "" {
			var u *usageError
			if !errors.As(err, &u) || !strings.Contains(err.Error(), c.err) {
				t.Errorf("parseSeat(%q) err = %v, want usage error containing %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("parseSeat(%q) = %+v, %v; want %+v", c.in, got, err, c.want)
		}
	}
}

func TestSplitList(t *testing.T) {
	t.Parallel()
	for in, want := range map[string][]string{
		"":               {},
		"worker":         {"worker"},
		" a , b,,c ,":    {"a", "b", "c"},
		",,":             {},
		"worker,worker,": {"worker", "worker"},
	} {
		if got := splitList(in); !reflect.DeepEqual(got, want) {
			t.Errorf("splitList(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestClock(t *testing.T) {
	t.Parallel()
	now, err := clock("2026-06-09T12:00:00.5+02:00")
	if err != nil {
		t.Fatal(err)
	}
	if got := now(); got.Location() != time.UTC || !got.Equal(time.Date(2026, 6, 9, 10, 0, 0, 5e8, time.UTC)) {
		t.Fatalf("PACT_NOW clock = %v", got)
	}
	real, err := clock("")
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(real()); d < 0 || d > time.Minute || real().Location() != time.UTC {
		t.Fatalf("wall clock is off by %v or not UTC", d)
	}
	var u *usageError
	if _, err := clock("2026-06-09"); !errors.As(err, &u) {
		t.Fatalf("a date without a time should be a usage error, got %v", err)
	}
}

func TestNewEventID(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for range 100 {
		id, err := newEventID()
		if err != nil || len(id) != 32 || strings.Trim(id, "0123456789abcdef") != "" || seen[id] {
			t.Fatalf("event id %q, %v", id, err)
		}
		seen[id] = true
	}
}

func TestExitCodeMessages(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		err    error
		code   int
		stderr string
	}{
		{nil, 0, ""},
		{errInvalid, 1, ""},
		{fmt.Errorf("wrapped: %w", errInvalid), 1, ""},
		{&refusal{"no", "do this"}, 1, "pactify: refused: no\nhint: do this\n"},
		{fmt.Errorf("ctx: %w", &refusal{"no", "do this"}), 1, "pactify: refused: no\nhint: do this\n"},
		{usagef("bad %s", "flag"), 2, "pactify: bad flag\nRun `pactify help` for the verb reference.\n"},
		{&unsupportedError{"too new"}, 3, "pactify: too new\nhint: " + unsupportedHint + "\n"},
		{errors.New("disk on fire"), 2, "pactify: disk on fire\n"},
	} {
		var buf bytes.Buffer
		if got := exitCode(c.err, &buf); got != c.code || buf.String() != c.stderr {
			t.Errorf("exitCode(%v) = %d, %q; want %d, %q", c.err, got, buf.String(), c.code, c.stderr)
		}
	}
}

// TestRunInProcess covers the verbs that need no working directory.
func TestRunInProcess(t *testing.T) {
	t.Parallel()
	getenv := func(string) string { return "" }
	var out, errOut bytes.Buffer
	if code := run(context.Background(), []string{"help"}, nil, &out, &errOut, getenv); code != 0 || out.String() != helpText || errOut.Len() != 0 {
		t.Fatalf("help: %d %q %q", code, out.String(), errOut.String())
	}
	for _, verb := range []string{"init", "join", "assign", "checkpoint", "accept", "changes", "merge", "status", "log", "validate", "version", "help"} {
		if !strings.Contains(helpText, "\n  "+verb+" ") && !strings.Contains(helpText, "\n  "+verb+"\n") {
			t.Errorf("help text does not list %s", verb)
		}
	}
	out.Reset()
	// No arguments at all is the reference, as gh and golangci-lint do.
	if code := run(context.Background(), nil, nil, &out, &errOut, getenv); code != 0 || out.String() != helpText || errOut.Len() != 0 {
		t.Fatalf("no verb: %d %q %q", code, out.String(), errOut.String())
	}
}
