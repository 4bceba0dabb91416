package pactfile

import (
	"bufio"
	"errors"
	"io"
)

// Git's conflict markers (docs/semantics.md §8): where a merge could not
// join two versions of a file, git writes both between lines that start
// with at least seven '<', '|' (the ancestor's version, in the diff3
// style), '=' and '>', each alone on its line or followed by a space and
// a label. No line a writer of ours writes starts so (a log line is a JSON
// object; STATE.yml's text is indented or quoted), so such a line in the
// log or STATE.yml is a merge in progress, or one left unresolved.

// markerSize is the shortest marker git writes (its default
// conflict-marker-size; a larger one starts with it too).
const markerSize = 7

// IsConflictMarker reports whether line (without its terminator) is one
// of git's conflict markers.
func IsConflictMarker(line []byte) bool {
	if len(line) < markerSize {
		return false
	}
	c := line[0]
	if c != '<' && c != '|' && c != '=' && c != '>' {
		return false
	}
	n := 0
	for n < len(line) && line[n] == c {
		n++
	}
	return n >= markerSize && (n == len(line) || line[n] == ' ' || line[n] == '\r')
}

// ConflictMarkerLine is the number of the first line of b that is a
// conflict marker, as SplitLines numbers lines, or 0 when none is.
func ConflictMarkerLine(b []byte) int {
	for n, line := range Lines(b) {
		if IsConflictMarker(line) {
			return n
		}
	}
	return 0
}

// FindConflictMarker is ConflictMarkerLine of what r reads, holding no
// more than a few KiB of it: only the start of each line is looked at.
func FindConflictMarker(r io.Reader) (int, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	n, start := 0, true
	for {
		chunk, err := br.ReadSlice('\n')
		if start {
			if n++; n == 1 {
				chunk = TrimBOM(chunk)
			}
			line := chunk
			if len(line) > 0 && line[len(line)-1] == '\n' {
				line = line[:len(line)-1]
			}
			if IsConflictMarker(line) {
				return n, nil
			}
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			start = false // the rest of a long line
		case errors.Is(err, io.EOF):
			return 0, nil
		case err != nil:
			return 0, err
		default:
			start = true
		}
	}
}
