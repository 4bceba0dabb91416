package projection

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/pact-action/pact-action/pactfile"
)

// linesAgree reports how scanLines (through readers that hand out the
// bytes whole, one at a time and in halves), Read with and without events
// disagree with pactfile.SplitLines, the one definition of a log line, on
// b: "" when they agree. Lines over MaxLineBytes are compared as too long.
func linesAgree(b []byte) string {
	want := pactfile.SplitLines(b)
	readers := map[string]func() io.Reader{"whole": func() io.Reader { return bytes.NewReader(b) },
		"halves": func() io.Reader { return iotest.HalfReader(bytes.NewReader(b)) }}
	if len(b) < 64<<10 {
		readers["one byte at a time"] = func() io.Reader { return iotest.OneByteReader(bytes.NewReader(b)) }
	}
	for name, r := range readers {
		var got []string
		err := scanLines(r(), func(n int, line []byte, tooLong bool) {
			if n != len(got)+1 {
				got = append(got, fmt.Sprintf("line number %d after %d lines", n, len(got)))
			}
			if tooLong {
				got = append(got, "too long")
			} else {
				got = append(got, string(line))
			}
		})
		if err != nil {
			return fmt.Sprintf("scanLines (%s): %v", name, err)
		}
		if len(got) != len(want) {
			return fmt.Sprintf("scanLines (%s) reads %d lines, pactfile.SplitLines %d", name, len(got), len(want))
		}
		for i, w := range want {
			size := len(w) // measured with any BOM
			if i == 0 && bytes.HasPrefix(b, []byte(pactfile.BOM)) {
				size += len(pactfile.BOM)
			}
			if size > MaxLineBytes {
				w = []byte("too long")
			}
			if got[i] != string(w) {
				return fmt.Sprintf("scanLines (%s) line %d is %.80q, pactfile.SplitLines says %.80q", name, i+1, got[i], w)
			}
		}
	}
	if n := parseBytes(b).Lines; n != len(want) {
		return fmt.Sprintf("Parse counts %d lines, pactfile.SplitLines %d", n, len(want))
	}
	lean, _, err := Read(bytes.NewReader(b), ReadOptions{})
	if err != nil {
		return fmt.Sprintf("Read without events: %v", err)
	}
	if lean.Lines != len(want) {
		return fmt.Sprintf("Read without events counts %d lines, pactfile.SplitLines %d", lean.Lines, len(want))
	}
	return ""
}

// TestLinesAgreeWithPactfile: the log's readers here cut lines as pactfile
// does, on the line-level edge cases of the differential tests.
func TestLinesAgreeWithPactfile(t *testing.T) {
	t.Parallel()
	files := parseFiles(t)
	files["lone cr"] = []byte("\r")
	files["lf cr lf"] = []byte(okInit + "\n\r\n" + okInit)
	files["cr before the next line"] = []byte(okInit + "\n\r" + okInit + "\n")
	files["bom, cr"] = []byte(pactfile.BOM + "\r")
	files["bom twice"] = []byte(pactfile.BOM + pactfile.BOM + okInit + "\n")
	files["only newlines"] = []byte(strings.Repeat("\n", 10))
	for name, b := range files {
		if msg := linesAgree(b); msg != "" {
			t.Errorf("%s: %s", name, msg)
		}
	}
}

// FuzzLinesAgreeWithPactfile holds scanLines and Read, with and without
// events, to pactfile's definition of a log line on any bytes.
//
//	go test ./projection -run '^$' -fuzz '^FuzzLinesAgreeWithPactfile$' -fuzztime 30s
func FuzzLinesAgreeWithPactfile(f *testing.F) {
	for _, s := range []string{"", "\n", "\r", "a\r\n", "a\n\r", pactfile.BOM, pactfile.BOM + "\r\n", okInit + "\n" + okInit, "\r\n\r\n\r"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if msg := linesAgree(b); msg != "" {
			t.Fatalf("%q: %s", b, msg)
		}
	})
}
