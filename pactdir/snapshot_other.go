//go:build !unix

package pactdir

import "io/fs"

// fileID: a FileInfo carries no identity of the file here (Windows finds
// one only through another call), so the snapshot's key does without.
func fileID(fs.FileInfo) (dev, ino uint64, ok bool) { return 0, 0, false }
