package pactdir

import (
	"io"
	"sync"
	"sync/atomic"
)

// Progress counts how far a long load has come, so that a command line can
// show it. The loader updates it; anyone may read it at the same time. All
// methods do nothing on a nil Progress.
type Progress struct {
	mu    sync.Mutex
	stage string
	unit  string
	total int64
	done  atomic.Int64
}

// Start begins a stage of total units ("B", "files"; 0 when unknown).
func (p *Progress) Start(stage string, total int64, unit string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.stage, p.total, p.unit = stage, total, unit
	p.done.Store(0)
	p.mu.Unlock()
}

// Add counts n more units done.
func (p *Progress) Add(n int64) {
	if p != nil {
		p.done.Add(n)
	}
}

// Read returns the current stage and how far it has come.
func (p *Progress) Read() (stage string, done, total int64, unit string) {
	if p == nil {
		return "", 0, 0, ""
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stage, p.done.Load(), p.total, p.unit
}

// countingReader counts what is read on p, and moves p on to the stage then
// at the end of the input.
type countingReader struct {
	r    io.Reader
	p    *Progress
	then string
	done bool
}

func (c *countingReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.p.Add(int64(n))
	if err == io.EOF && !c.done {
		c.done = true
		c.p.Start(c.then, 0, "")
	}
	return n, err
}
