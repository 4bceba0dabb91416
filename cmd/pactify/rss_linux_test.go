package main

import (
	"os"
	"syscall"
)

// peakRSSKiB is the peak resident set of a process that ended, in KiB
// (Linux's getrusage counts it so).
func peakRSSKiB(ps *os.ProcessState) int64 {
	return ps.SysUsage().(*syscall.Rusage).Maxrss
}
