// Package ranges renders a long list in ranges, on a few goroutines, and
// hands the ranges back in order, holding a few of them at a time however
// long the list: STATE.yml's tasks, which projection renders a range at a
// time and joins. It knows nothing of what it renders: projection's
// render tests hold the joined ranges to the reference render, for every
// plan.
package ranges

import "sync"

// Plan is how a list is rendered: ranges of PerRange items, rendered by up
// to Workers goroutines at once (1: in the calling one, in turn).
type Plan struct{ PerRange, Workers int }

// Rendered is a range as its renderer wrote it: its bytes, and End, what
// the renderer says of where the range ended (a writer's state to resume
// from).
type Rendered[M any] struct {
	Buf []byte
	End M
}

// Ranges renders the ranges of a list in order, up to plan.Workers at a
// time: worker j renders ranges j, j+Workers, … into one of its buffers
// (buffers of them), and is at most one range ahead of the reader, so what
// is held is a few ranges per worker however large the list or its items
// (maxBytes), and nothing is allocated once the buffers have grown: fresh
// buffers for every range would be garbage made while the heap is at its
// highest.
type Ranges[M any] struct {
	render func(buf []byte, lo, hi int) Rendered[M]
	plan   Plan
	// starts holds where each range starts, and the list's length last.
	starts []int
	out    []chan Rendered[M]
	free   []chan []byte
	done   chan struct{}
	wg     sync.WaitGroup
	// buf is the one range buffer a plan of one worker reuses.
	buf []byte
}

// Start cuts a list of n items into ranges (rangeStarts) and starts rendering
// them: render writes items lo to hi (excluded) into buf, which it may
// grow, and size says how many bytes of text item i holds.
func Start[M any](n int, plan Plan, size func(i int) int, render func(buf []byte, lo, hi int) Rendered[M]) *Ranges[M] {
	plan.PerRange = max(plan.PerRange, 1)
	r := &Ranges[M]{render: render, plan: plan, starts: rangeStarts(n, plan.PerRange, size)}
	if plan.Workers <= 1 || r.Count() < 2 {
		r.plan.Workers = 1
		return r
	}
	r.done = make(chan struct{})
	r.out = make([]chan Rendered[M], plan.Workers)
	r.free = make([]chan []byte, plan.Workers)
	for j := range plan.Workers {
		r.out[j] = make(chan Rendered[M], 1)
		r.free[j] = make(chan []byte, buffers)
	}
	for j := range plan.Workers {
		r.wg.Go(func() { r.work(j) })
	}
	return r
}

// Count is the number of ranges.
func (r *Ranges[M]) Count() int { return len(r.starts) - 1 }

func (r *Ranges[M]) renderRange(buf []byte, i int) Rendered[M] {
	return r.render(buf, r.starts[i], r.starts[i+1])
}

// maxBytes bounds a range by its items' texts as well as by their number:
// a range ends with the item that brings its texts to maxBytes. A text
// rendered takes up to four times its bytes (one that starts with a byte
// order mark is escaped whole), and a render holds a few ranges per
// worker: ranges of 1024 tasks of long reasons were hundreds of megabytes
// each (TestRenderHoldsAFewRanges). The usual tasks have about 76 bytes
// of texts (a generated log's), 80 KB a range: none of them ends early.
const maxBytes = 256 << 10

// rangeStarts is where each range of a list of n items starts, then n: a range
// ends after perRange items, or after the item that brings the size of
// its items to maxBytes.
func rangeStarts(n, perRange int, size func(i int) int) []int {
	starts := make([]int, 1, n/perRange+2)
	k, sum := 0, 0
	for i := range n {
		if k == perRange || sum >= maxBytes {
			starts = append(starts, i)
			k, sum = 0, 0
		}
		k++
		sum += size(i)
	}
	if n > 0 {
		starts = append(starts, n)
	}
	return starts
}

// buffers is how many buffers a worker renders into in turn: one it
// renders into, one waiting in its channel, one the reader is emitting.
const buffers = 3

func (r *Ranges[M]) work(j int) {
	made := 0
	for i := j; i < r.Count(); i += r.plan.Workers {
		var buf []byte
		if made < buffers {
			made++
		} else {
			select {
			case buf = <-r.free[j]:
			case <-r.done:
				return
			}
		}
		select {
		case r.out[j] <- r.renderRange(buf, i):
		case <-r.done:
			return
		}
	}
}

// Next returns range i; the reader asks for them in order.
func (r *Ranges[M]) Next(i int) Rendered[M] {
	if r.plan.Workers == 1 {
		return r.renderRange(r.buf, i)
	}
	return <-r.out[i%r.plan.Workers]
}

// Recycle hands range i's buffer back once its bytes are used. It never
// blocks: a worker has no more buffers than its channel holds.
func (r *Ranges[M]) Recycle(i int, buf []byte) {
	if r.plan.Workers == 1 {
		r.buf = buf
		return
	}
	r.free[i%r.plan.Workers] <- buf
}

// Stop ends the workers, who may be a range ahead of a reader that stopped
// early, and returns when none is left.
func (r *Ranges[M]) Stop() {
	if r.done != nil {
		close(r.done)
		r.wg.Wait()
	}
}
