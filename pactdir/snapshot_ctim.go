//go:build linux || openbsd || solaris

package pactdir

import (
	"io/fs"
	"syscall"
)

// changeNanos is the file's change time (st_ctim), which no program can
// set back.
func changeNanos(fi fs.FileInfo) (int64, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return st.Ctim.Nano(), true
}
