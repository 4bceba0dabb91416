package pactdir

import (
	"errors"
	"io"
	"strings"
	"testing"
)

// TestProgress: a stage starts from nothing, counts what is added, and a
// nil Progress (a load nobody watches) takes every call and reads empty.
func TestProgress(t *testing.T) {
	t.Parallel()
	p := &Progress{}
	p.Start("reading", 10, "B")
	p.Add(3)
	p.Add(4)
	if stage, done, total, unit := p.Read(); stage != "reading" || done != 7 || total != 10 || unit != "B" {
		t.Fatalf("Read() = %q %d %d %q, want reading 7 10 B", stage, done, total, unit)
	}
	p.Start("listing", 0, "")
	if stage, done, total, unit := p.Read(); stage != "listing" || done != 0 || total != 0 || unit != "" {
		t.Fatalf("after a new Start, Read() = %q %d %d %q", stage, done, total, unit)
	}
	var none *Progress
	none.Start("x", 1, "B")
	none.Add(1)
	if stage, done, total, unit := none.Read(); stage != "" || done != 0 || total != 0 || unit != "" {
		t.Fatalf("nil Progress reads %q %d %d %q", stage, done, total, unit)
	}
}

// TestCountingReader: every byte read is counted, and the end of the input
// moves the progress to the next stage once.
func TestCountingReader(t *testing.T) {
	t.Parallel()
	p := &Progress{}
	p.Start("reading", 5, "B")
	r := &countingReader{r: strings.NewReader("hello"), p: p, then: "replaying"}
	b, err := io.ReadAll(r)
	if err != nil || string(b) != "hello" {
		t.Fatalf("ReadAll = %q, %v", b, err)
	}
	if stage, done, _, _ := p.Read(); stage != "replaying" || done != 0 {
		t.Fatalf("after the end, Read() = %q %d, want replaying 0", stage, done)
	}
	p.Add(2)
	if _, err := r.Read(make([]byte, 1)); !errors.Is(err, io.EOF) {
		t.Fatalf("read past the end: %v", err)
	}
	if stage, done, _, _ := p.Read(); stage != "replaying" || done != 2 {
		t.Fatalf("a second EOF started the stage again: %q %d", stage, done)
	}
}
