package pactdir

import (
	"strings"

	"github.com/pact-action/pact-action/checks"
)

// ReplaceBlock puts block (without markers) between the pact markers of text,
// appending a new marked block when text has none. Text outside the markers
// is never touched, so running init again changes nothing else.
//
// A marker counts only on a line of its own (trailing spaces, tabs or a CR
// allowed), so prose that quotes the markers is left alone. The block
// replaced is the first complete one: the first end marker and the nearest
// begin marker above it. A stray begin marker without an end (a hand edit)
// therefore never swallows the text after it.
func ReplaceBlock(text, block string) string {
	marked := checks.BlockBegin + "\n" + strings.TrimRight(block, "\n") + "\n" + checks.BlockEnd
	if begin, end, ok := findBlock(text); ok {
		return text[:begin] + marked + text[end:]
	}
	switch {
	case text == "":
		return marked + "\n"
	case strings.HasSuffix(text, "\n\n"):
		return text + marked + "\n"
	case strings.HasSuffix(text, "\n"):
		return text + "\n" + marked + "\n"
	}
	return text + "\n\n" + marked + "\n"
}

// findBlock returns the offsets of the first complete managed block: from
// the start of its begin marker line to the end of its end marker (whatever
// follows the end marker on its line, the line terminator included, is kept).
func findBlock(text string) (begin, end int, ok bool) {
	begin = -1
	for off := 0; off < len(text); {
		line := text[off:]
		next := len(text)
		if i := strings.IndexByte(line, '\n'); i >= 0 {
			line, next = line[:i], off+i+1
		}
		switch strings.TrimRight(line, " \t\r") {
		case checks.BlockBegin:
			begin = off
		case checks.BlockEnd:
			if begin >= 0 {
				return begin, off + len(checks.BlockEnd), true
			}
		}
		off = next
	}
	return 0, 0, false
}
