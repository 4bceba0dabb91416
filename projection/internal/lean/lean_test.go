package lean

import (
	"math"
	"testing"
)

// TestReservedEventsAreCapped: the size a caller gives is the file
// system's word (a sparse file says a terabyte): the table of event ids it
// reserves is capped, and a size of nothing reserves nothing.
func TestReservedEventsAreCapped(t *testing.T) {
	t.Parallel()
	for size, want := range map[int64]uint32{-1: 0, 0: 0, 224 * 1000: 1000, 1 << 40: maxReservedEvents, math.MaxInt64: maxReservedEvents} {
		if got := reservedEvents(size); got != want {
			t.Errorf("a log of %d bytes reserves for %d events, want %d", size, got, want)
		}
	}
}
