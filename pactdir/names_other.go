//go:build !linux

package pactdir

import (
	"errors"
	"io"
	"os"
)

// eachName calls fn with the name of every entry of the directory f but
// . and .., read in batches so that the names of a large pact are let go
// as they come. name is valid only during the call.
func eachName(f *os.File, fn func(name []byte)) error {
	var b []byte
	for {
		names, err := f.Readdirnames(1024)
		for _, name := range names {
			b = append(b[:0], name...)
			fn(b)
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}
