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
	done, equal, err := EqualNext(c.r, p, &c.buf)
	switch {
	case err != nil:
		return done, err
	case !equal:
		return done, errDiffers
	}
	return len(p), nil
}

// EqualNext compares p with the bytes r holds next, 64 KiB at a time,
// stopping at the first chunk that differs (or that r's end cuts short):
// done is how many bytes of p, in whole chunks, r held, equal whether it
// held all of p. buf is the caller's scratch space, grown as needed. A
// read error other than r's end is returned.
func EqualNext(r *bufio.Reader, p []byte, buf *[]byte) (done int, equal bool, err error) {
	for done < len(p) {
		n := min(len(p)-done, 64<<10)
		if cap(*buf) < n {
			*buf = make([]byte, n)
		}
		b := (*buf)[:n]
		if _, err := io.ReadFull(r, b); err != nil || !bytes.Equal(b, p[done:done+n]) {
			if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
				return done, false, err
			}
			return done, false, nil
		}
		done += n
	}
	return done, true, nil
}
