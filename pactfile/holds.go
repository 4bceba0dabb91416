package pactfile

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// Holds reports whether r holds exactly the bytes write writes, compared
// while both stream and stopped at the first difference, so that a large
// file (STATE.yml of a million events) is never held whole to tell that it
// is what a writer would write. An error of write, or of reading r other
// than its end, is returned.
func Holds(r io.Reader, write func(io.Writer) error) (bool, error) {
	c := &comparer{r: bufio.NewReaderSize(r, 256<<10)}
	switch err := write(c); {
	case errors.Is(err, errDiffers):
		return false, nil
	case err != nil:
		return false, err
	}
	_, err := c.r.ReadByte()
	if errors.Is(err, io.EOF) {
		return true, nil
	}
	return false, err
}

// errDiffers stops a comparison at the first difference.
var errDiffers = errors.New("differs")

// comparer is a writer that checks what is written against r.
type comparer struct {
	r   *bufio.Reader
	buf []byte
}

func (c *comparer) Write(p []byte) (int, error) {
	for done := 0; done < len(p); {
		n := min(len(p)-done, 64<<10)
		if cap(c.buf) < n {
			c.buf = make([]byte, n)
		}
		if _, err := io.ReadFull(c.r, c.buf[:n]); err != nil || !bytes.Equal(c.buf[:n], p[done:done+n]) {
			if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
				return done, err
			}
			return done, errDiffers
		}
		done += n
	}
	return len(p), nil
}
