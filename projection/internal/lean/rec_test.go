package lean

import (
	"testing"
	"unsafe"
)

// TestRecSize holds the compact event of the lean reading to its size:
// a 2M-event log keeps 2M of them until the replay (docs/performance.md),
// so a field added to rec shows here first.
func TestRecSize(t *testing.T) {
	t.Parallel()
	if got := unsafe.Sizeof(rec{}); got != 48 {
		t.Errorf("rec takes %d bytes, want 48", got)
	}
	// An assign's payload, one per task, kept with the recs: no pointer,
	// so the collector does not scan its blocks.
	if got := unsafe.Sizeof(assignX{}); got != 16 {
		t.Errorf("assignX takes %d bytes, want 16", got)
	}
}
