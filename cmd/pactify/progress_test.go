package main

import (
	"bytes"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// writes hands every write of the progress line to the test, in order, so
// the test changes the progress only once the line it expects is drawn.
type writes chan string

func (w writes) Write(p []byte) (int, error) {
	w <- string(p)
	return len(p), nil
}

// none fails the test if anything was written.
func (w writes) none(t *testing.T) {
	t.Helper()
	select {
	case s := <-w:
		t.Errorf("wrote %q", s)
	default:
	}
}

// handClock is a progressClock the test drives: the line appears and is
// redrawn when the test says, and shows the time the test set.
type handClock struct {
	appear, redraw chan time.Time
	mu             sync.Mutex
	at             time.Time
}

func newHandClock() *handClock {
	return &handClock{appear: make(chan time.Time), redraw: make(chan time.Time), at: time.Date(2026, 6, 9, 10, 0, 0, 0, time.UTC)}
}

func (c *handClock) clock() progressClock {
	return progressClock{appear: c.appear, redraw: c.redraw, now: c.now}
}

func (c *handClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.at
}

func (c *handClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.at = c.at.Add(d)
}

func TestProgressLine(t *testing.T) {
	t.Parallel()
	t.Run("not a terminal: nothing", func(t *testing.T) {
		t.Parallel()
		out := make(writes, 10)
		// The line would appear at once, were one drawn.
		appear := make(chan time.Time, 1)
		appear <- time.Time{}
		pl := startProgress(out, false, progressClock{appear: appear, now: time.Now})
		pl.Start("reading .pact/log.jsonl", 100, "B")
		pl.stop()
		out.none(t)
		if len(appear) != 1 {
			t.Error("a progress line started on a stream that is not a terminal")
		}
	})
	t.Run("quick work: nothing", func(t *testing.T) {
		t.Parallel()
		out := make(writes, 10)
		pl := startProgress(out, true, newHandClock().clock())
		pl.stop()
		pl.stop() // twice is fine
		out.none(t)
	})
	t.Run("long work on a terminal: a line, redrawn, then erased", func(t *testing.T) {
		t.Parallel()
		out := make(writes, 10)
		clk := newHandClock()
		pl := startProgress(out, true, clk.clock())
		pl.Start("reading .pact/tasks", 4, "files")
		pl.Add(2)
		clk.appear <- clk.now()
		first := <-out
		pl.Add(1)
		clk.advance(2 * time.Second)
		clk.redraw <- clk.now()
		second := <-out
		pl.stop()
		erased := <-out
		out.none(t)
		// No newline, no escape sequence (colour): drawn in place, then erased.
		const line = "pactify: reading .pact/tasks 75% (3 of 4 files) (2s)"
		for _, w := range []struct{ got, want string }{
			{first, "\rpactify: reading .pact/tasks 50% (2 of 4 files) (0s)"},
			{second, "\r" + line},
			{erased, "\r" + strings.Repeat(" ", len(line)) + "\r"},
		} {
			if w.got != w.want {
				t.Errorf("wrote %q, want %q", w.got, w.want)
			}
		}
	})
}

func TestIsTerminal(t *testing.T) {
	t.Parallel()
	f, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if isTerminal(&bytes.Buffer{}) || isTerminal(f) {
		t.Error("a buffer or a regular file is not a terminal")
	}
}

func TestProgressText(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		stage       string
		done, total int64
		unit, want  string
	}{
		{"reading .pact/log.jsonl", 50 << 20, 200 << 20, "B", "pactify: reading .pact/log.jsonl 25% (50 of 200 MB)"},
		{"reading .pact/tasks", 3, 4, "files", "pactify: reading .pact/tasks 75% (3 of 4 files)"},
		{"replaying .pact/log.jsonl", 0, 0, "", "pactify: replaying .pact/log.jsonl…"},
		{"", 0, 0, "", "pactify: working…"},
	} {
		if got := progressText(tc.stage, tc.done, tc.total, tc.unit); got != tc.want {
			t.Errorf("progressText(%q, %d, %d, %q) = %q, want %q", tc.stage, tc.done, tc.total, tc.unit, got, tc.want)
		}
	}
}

func TestMemoryLimit(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ log, want int64 }{{0, 200 << 20}, {100 << 20, 200 << 20}, {400 << 20, 200 << 20}, {600 << 20, 300 << 20}} {
		if got := memoryLimit(tc.log); got != tc.want {
			t.Errorf("memoryLimit(%d) = %d, want %d", tc.log, got, tc.want)
		}
	}
}
