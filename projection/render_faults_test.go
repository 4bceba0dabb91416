package projection

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/pact-action/pact-action/projection/internal/ranges"
)

// Faults of the writer a render hands STATE.yml to (docs/pactify.md, "When
// a write fails"): whichever write fails, the render says so, writes
// nothing after it, and leaves none of its range workers running.

// largeTrickyState is a state of at least n tasks (every value one of
// renderTricky, made unique), enough for the default plan to render its
// tasks in ranges on several workers once n ≥ 2048.
func largeTrickyState(n int) *State {
	vals := make([]string, n)
	for i := range vals {
		vals[i] = renderTricky[i%len(renderTricky)] + strconv.Itoa(i/len(renderTricky))
	}
	return trickyState(vals)
}

// failingWriter fails its k-th Write (from 1) and every one after it,
// keeping what the writes before it wrote and counting the writes after.
type failingWriter struct {
	k, writes, after int
	panics           bool
	got              bytes.Buffer
}

var errNoSpace = syscall.ENOSPC

func (w *failingWriter) Write(p []byte) (int, error) {
	w.writes++
	switch {
	case w.writes > w.k:
		w.after++
		return 0, errNoSpace
	case w.writes == w.k && w.panics:
		panic(errNoSpace)
	case w.writes == w.k:
		// Half of it, as a full disk takes what fits.
		n, _ := w.got.Write(p[:len(p)/2])
		return n, errNoSpace
	}
	return w.got.Write(p)
}

// renderWorkers is how many goroutines are in a range worker's code: once
// a render has returned, none may be (its stop waits for every worker's
// function to have returned).
func renderWorkers() int {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return strings.Count(string(buf[:n]), "ranges.(*Ranges[...]).work(")
		}
		buf = make([]byte, 2*len(buf))
	}
}

// renderWith is Render in ranges of plan.
func renderWith(w io.Writer, s *State, plan ranges.Plan) error {
	var err error
	renderChunksWith(s, func(b []byte) bool {
		_, err = w.Write(b)
		return err == nil
	}, plan)
	return err
}

// TestRenderWriteFails fails the k-th write of a render for every k, of a
// state large enough for several ranges and workers (the default plan on
// 3000 tasks among them), and a writer that panics at the k-th: the error
// (or the panic) comes back, what was written is a prefix of the render,
// nothing is written after the failure, and no worker is left running. Not
// parallel: it reads every goroutine's stack.
func TestRenderWriteFails(t *testing.T) {
	large, small := largeTrickyState(3000), largeTrickyState(120)
	if len(large.TaskOrder) < 2*defaultRenderPlan(0).PerRange {
		t.Fatalf("%d tasks: too few for the default plan's workers", len(large.TaskOrder))
	}
	if p := defaultRenderPlan(len(large.TaskOrder)); p.Workers < 2 {
		t.Logf("GOMAXPROCS=%d: the default plan renders in one goroutine here", runtime.GOMAXPROCS(0))
	}
	cases := []struct {
		name string
		s    *State
		plan ranges.Plan
	}{
		{"default plan, 3000 tasks", large, defaultRenderPlan(len(large.TaskOrder))},
		{"ranges of 512 on 4 workers, 3000 tasks", large, ranges.Plan{PerRange: 512, Workers: 4}},
		{"ranges of 3 on 4 workers", small, ranges.Plan{PerRange: 3, Workers: 4}},
		{"ranges of 1 on 2 workers", small, ranges.Plan{PerRange: 1, Workers: 2}},
		{"ranges of 5 in turn", small, ranges.Plan{PerRange: 5, Workers: 1}},
	}
	if workers := renderWorkers(); workers != 0 {
		t.Fatalf("%d range workers run before any render", workers)
	}
	for _, c := range cases {
		want := RenderBytes(c.s)
		var all failingWriter
		all.k = 1 << 30
		if err := renderWith(&all, c.s, c.plan); err != nil || !bytes.Equal(all.got.Bytes(), want) {
			t.Fatalf("%s: without a failure: %v, %d bytes of %d", c.name, err, all.got.Len(), len(want))
		}
		if all.writes < 4 {
			t.Fatalf("%s: %d writes: too few to fail in the ranges", c.name, all.writes)
		}
		for k := 1; k <= all.writes; k++ {
			for _, panics := range []bool{false, true} {
				w := &failingWriter{k: k, panics: panics}
				recovered, err := func() (recovered any, err error) {
					defer func() { recovered = recover() }()
					return nil, renderWith(w, c.s, c.plan)
				}()
				switch {
				case panics && recovered != errNoSpace:
					t.Fatalf("%s: a writer panicking at write %d of %d: recovered %v", c.name, k, all.writes, recovered)
				case !panics && !errors.Is(err, errNoSpace):
					t.Fatalf("%s: write %d of %d failed, the render returned %v", c.name, k, all.writes, err)
				case w.after != 0:
					t.Fatalf("%s: write %d of %d failed, and the render wrote %d more times", c.name, k, all.writes, w.after)
				case !bytes.HasPrefix(want, w.got.Bytes()):
					t.Fatalf("%s: write %d of %d failed, and what was written is not the render's first bytes", c.name, k, all.writes)
				}
				if workers := renderWorkers(); workers != 0 {
					t.Fatalf("%s: write %d of %d failed (panic: %v), and %d range workers still run", c.name, k, all.writes, panics, workers)
				}
			}
		}
		t.Logf("%s: %d tasks, failed at each of %d writes", c.name, len(c.s.TaskOrder), all.writes)
	}
}

// TestRenderMatchesStopsAnywhere: RenderMatches on a file that differs
// from the render at any range (a byte changed, or cut there) is false,
// and leaves no range worker running. Not parallel: it reads every
// goroutine's stack.
func TestRenderMatchesStopsAnywhere(t *testing.T) {
	s := largeTrickyState(3000)
	want := RenderBytes(s)
	if !RenderMatches(s, want) {
		t.Fatal("RenderMatches is false on the state's own render")
	}
	checked := 0
	for at := 0; at < len(want); at += len(want)/37 + 1 {
		flip := append([]byte(nil), want...)
		flip[at] ^= 0x20
		if RenderMatches(s, flip) || RenderMatches(s, want[:at]) {
			t.Fatalf("RenderMatches is true on a file that differs at byte %d of %d", at, len(want))
		}
		if workers := renderWorkers(); workers != 0 {
			t.Fatalf("RenderMatches stopped at byte %d, and %d range workers still run", at, workers)
		}
		checked++
	}
	t.Logf("%d places of %d bytes", checked, len(want))
}
