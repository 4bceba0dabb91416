package main

import (
	"bytes"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a buffer the progress goroutine and the test share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestProgressLine(t *testing.T) {
	t.Parallel()
	t.Run("not a terminal: nothing", func(t *testing.T) {
		t.Parallel()
		var out syncBuffer
		pl := startProgress(&out, false, 0, time.Millisecond)
		pl.Start("reading .pact/log.jsonl", 100, "B")
		time.Sleep(20 * time.Millisecond)
		pl.stop()
		if out.String() != "" {
			t.Errorf("wrote %q to a stream that is not a terminal", out.String())
		}
	})
	t.Run("quick work: nothing", func(t *testing.T) {
		t.Parallel()
		var out syncBuffer
		pl := startProgress(&out, true, time.Hour, time.Millisecond)
		pl.stop()
		pl.stop() // twice is fine
		if out.String() != "" {
			t.Errorf("wrote %q for work shorter than the delay", out.String())
		}
	})
	t.Run("long work on a terminal: a line, redrawn, then erased", func(t *testing.T) {
		t.Parallel()
		var out syncBuffer
		pl := startProgress(&out, true, 0, time.Millisecond)
		pl.Start("reading .pact/tasks", 4, "files")
		pl.Add(2)
		deadline := time.Now().Add(5 * time.Second)
		for !strings.Contains(out.String(), "50% (2 of 4 files)") && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		pl.stop()
		got := out.String()
		if !strings.HasPrefix(got, "\rpactify: reading .pact/tasks 50% (2 of 4 files) (0s)") {
			t.Errorf("progress line %q", got)
		}
		if !strings.HasSuffix(got, "\r") || strings.Contains(got, "\n") {
			t.Errorf("the line is not erased, or has a newline: %q", got)
		}
		if strings.Contains(got, "\x1b") {
			t.Errorf("escape sequences (colour) in %q", got)
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
	for _, tc := range []struct{ log, want int64 }{{0, 200 << 20}, {100 << 20, 200 << 20}, {400 << 20, 300 << 20}} {
		if got := memoryLimit(tc.log); got != tc.want {
			t.Errorf("memoryLimit(%d) = %d, want %d", tc.log, got, tc.want)
		}
	}
}
