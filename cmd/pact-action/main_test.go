package main

import (
	"math"
	"runtime/debug"
	"testing"
)

// TestTuneMemory: a run's soft memory limit is memoryLimit, unless
// GOMEMLIMIT sets one (the runtime has then read it already). It changes
// the process's limit, so it runs alone.
func TestTuneMemory(t *testing.T) {
	before := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(before)
	for _, tc := range []struct {
		env  string
		want int64
	}{{"", memoryLimit}, {"1GiB", math.MaxInt64}} {
		debug.SetMemoryLimit(math.MaxInt64)
		tuneMemory(func(k string) string {
			if k == "GOMEMLIMIT" {
				return tc.env
			}
			return ""
		})
		if got := debug.SetMemoryLimit(-1); got != tc.want {
			t.Errorf("GOMEMLIMIT=%q: limit %d, want %d", tc.env, got, tc.want)
		}
	}
}
