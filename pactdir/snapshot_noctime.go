//go:build !(linux || openbsd || solaris || darwin || freebsd || netbsd || dragonfly)

package pactdir

import "io/fs"

// changeNanos: no change time here (Windows' FileInfo has none), so the
// snapshot's key does without, and an edit in place that keeps the size,
// the last bytes and the modification time is not noticed
// (docs/pactify.md, "The writers' snapshot").
func changeNanos(fs.FileInfo) (int64, bool) { return 0, false }
