package ranges

import (
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// TestRangeStarts: a range ends after PerRange items, or after the item that
// brings its size to maxBytes, whichever comes first.
func TestRangeStarts(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		n, perRange int
		size        func(int) int
		want        []int
	}{
		{0, 3, func(int) int { return 1 }, []int{0}},
		{7, 3, func(int) int { return 1 }, []int{0, 3, 6, 7}},
		{6, 3, func(int) int { return 1 }, []int{0, 3, 6}},
		{5, 10, func(i int) int { return maxBytes / 2 }, []int{0, 2, 4, 5}},
		{4, 10, func(i int) int { return map[int]int{1: maxBytes}[i] }, []int{0, 2, 4}},
	} {
		if got := rangeStarts(tc.n, tc.perRange, tc.size); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("rangeStarts(%d, %d) = %v, want %v", tc.n, tc.perRange, got, tc.want)
		}
	}
}

// items renders items lo to hi as their numbers, the range's last one as
// its end.
func items(buf []byte, lo, hi int) Rendered[int] {
	for i := lo; i < hi; i++ {
		buf = fmt.Appendf(buf, "%d ", i)
	}
	return Rendered[int]{Buf: buf, End: hi - 1}
}

// TestRangesInOrder: whatever the plan, the ranges come back in order,
// each rendered whole, and their buffers go round.
func TestRangesInOrder(t *testing.T) {
	t.Parallel()
	const n = 100
	var want strings.Builder
	for i := range n {
		fmt.Fprintf(&want, "%d ", i)
	}
	for _, plan := range []Plan{{1, 1}, {1, 4}, {3, 2}, {7, 3}, {200, 4}, {0, 2}} {
		r := Start(n, plan, func(int) int { return 1 }, items)
		var got []byte
		for i := range r.Count() {
			rendered := r.Next(i)
			got = append(got, rendered.Buf...)
			if rendered.End != r.starts[i+1]-1 {
				t.Errorf("plan %+v, range %d: ends at %d, want %d", plan, i, rendered.End, r.starts[i+1]-1)
			}
			r.Recycle(i, rendered.Buf[:0])
		}
		r.Stop()
		if string(got) != want.String() {
			t.Errorf("plan %+v: rendered %q", plan, got)
		}
	}
}

// TestStopEndsTheWorkers: a reader that stops after any range leaves no
// worker running once Stop returns, however far ahead they were. Not
// parallel: it reads every goroutine's stack.
func TestStopEndsTheWorkers(t *testing.T) {
	for _, plan := range []Plan{{1, 2}, {1, 4}, {2, 3}} {
		for stop := range 6 {
			r := Start(20, plan, func(int) int { return 1 }, items)
			for i := range stop {
				r.Recycle(i, r.Next(i).Buf)
			}
			r.Stop()
			if n := workers(); n != 0 {
				t.Fatalf("plan %+v, stopped after %d ranges: %d workers still run", plan, stop, n)
			}
		}
	}
}

// workers is how many goroutines are in a worker's code.
func workers() int {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return strings.Count(string(buf[:n]), "ranges.(*Ranges[...]).work(")
		}
		buf = make([]byte, 2*len(buf))
	}
}
