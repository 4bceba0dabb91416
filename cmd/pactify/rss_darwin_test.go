package main

import (
	"os"
	"syscall"
)

// peakRSSKiB is the peak resident set of a process that ended, in KiB
// (macOS's getrusage counts it in bytes).
func peakRSSKiB(ps *os.ProcessState) int64 {
	return ps.SysUsage().(*syscall.Rusage).Maxrss / 1024
}
