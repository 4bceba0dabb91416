package projection

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"unicode/utf8"
)

// Log is a parsed log.jsonl: the events of known v1 types in file order, the
// lines that could not be read, and any init line that asks for a newer major.
type Log struct {
	Events    []Event
	Malformed []Malformed
	Claims    []VersionClaim
	// Lines is the number of lines in the file, blank ones included.
	Lines int
}

var lineSeed = maphash.MakeSeed()

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// Parse reads a whole log. It returns an error only when the reader fails;
// every defect of the content is recorded in the Log instead.
func Parse(r io.Reader) (*Log, error) {
	log := &Log{}
	err := ScanLines(r, func(n int, line []byte, tooLong bool) {
		log.Lines = n
		log.add(n, line, tooLong)
	})
	return log, err
}

// ParseBytes parses a log held in memory.
func ParseBytes(b []byte) *Log {
	log, _ := Parse(bytes.NewReader(b)) // a bytes.Reader never fails
	return log
}

// ScanLines calls fn for every line of r with its 1-based number, the line
// without its terminator (LF or CRLF) and, for a line over MaxLineBytes, only
// tooLong set. A leading UTF-8 BOM is dropped. The slice is only valid during
// the call.
func ScanLines(r io.Reader, fn func(n int, line []byte, tooLong bool)) error {
	br := bufio.NewReaderSize(r, 256<<10)
	n := 0
	first := true
	for {
		line, tooLong, err := readLine(br)
		if len(line) == 0 && !tooLong && errors.Is(err, io.EOF) {
			return nil
		}
		n++
		if first {
			line = bytes.TrimPrefix(line, utf8BOM)
			first = false
		}
		fn(n, line, tooLong)
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// readLine returns one line without its terminator. A line longer than
// MaxLineBytes is consumed but not kept.
func readLine(br *bufio.Reader) (line []byte, tooLong bool, err error) {
	var long []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			if !tooLong {
				long = append(long, chunk...)
				if len(long) > MaxLineBytes {
					tooLong, long = true, nil
				}
			}
			continue
		}
		if tooLong {
			return nil, true, err
		}
		if long != nil {
			chunk = append(long, chunk...)
		}
		chunk = bytes.TrimSuffix(chunk, []byte("\n"))
		chunk = bytes.TrimSuffix(chunk, []byte("\r"))
		if len(chunk) > MaxLineBytes {
			return nil, true, err
		}
		return chunk, false, err
	}
}

func isBlank(line []byte) bool {
	for _, c := range line {
		if c != ' ' && c != '\t' && c != '\r' {
			return false
		}
	}
	return true
}

func (l *Log) add(n int, line []byte, tooLong bool) {
	if tooLong {
		l.Malformed = append(l.Malformed, Malformed{Line: n, Message: fmt.Sprintf("line is longer than the %d-byte bound", MaxLineBytes)})
		return
	}
	if isBlank(line) {
		return
	}
	if !utf8.Valid(line) {
		l.Malformed = append(l.Malformed, Malformed{Line: n, Message: "line is not valid UTF-8"})
		return
	}
	ev, claim, skip, msg := decodeLine(line)
	if msg != "" {
		l.Malformed = append(l.Malformed, Malformed{Line: n, Message: msg})
		return
	}
	if claim != nil {
		claim.Line = n
		l.Claims = append(l.Claims, *claim)
	}
	if skip {
		return
	}
	ev.Line = n
	ev.hash = maphash.Bytes(lineSeed, line)
	l.Events = append(l.Events, ev)
}
