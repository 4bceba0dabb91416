package pactfile

import (
	"bytes"
	"iter"
	"strings"
)

// What a line of log.jsonl is (docs/semantics.md, pact v1 §2: one event per line). Every reader of
// the log numbers lines this way, so that a finding's line, the lines a pull
// request adds and the line the bot finds an event on are the same line:
//
//   - a line ends at LF; a CR right before the LF is not part of it (CRLF);
//   - the last line needs no LF, but a last line that is empty or a lone CR
//     is no line (a final newline makes no phantom empty line);
//   - a UTF-8 byte order mark at the start of the file is not part of line 1
//     (a file holding only one is one empty line).
//
// projection reads the log as a stream with a fast path of its own, held
// to these functions by its tests.

// BOM is the UTF-8 byte order mark a log may start with.
const BOM = "\xEF\xBB\xBF"

// CutLine cuts the first line off data: the line without its terminator,
// the data after it, and whether data held a line at all. It does not drop
// a BOM: only the file's first line starts after one (TrimBOM).
func CutLine(data []byte) (line, rest []byte, ok bool) {
	if i := bytes.IndexByte(data, '\n'); i >= 0 {
		line, rest, ok = data[:i], data[i+1:], true
	} else {
		line, ok = data, len(data) > 1 || (len(data) == 1 && data[0] != '\r')
	}
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	return line, rest, ok
}

// TrimBOM drops a byte order mark from the start of the log's first line.
func TrimBOM(first []byte) []byte {
	if len(first) >= len(BOM) && string(first[:len(BOM)]) == BOM {
		return first[len(BOM):]
	}
	return first
}

// Lines yields the lines of a whole log, numbered from 1, without
// terminators and with line 1 after any BOM: SplitLines without a slice
// of them all, for a reader that keeps a few bytes of each line of a log
// that may hold hundreds of thousands (docs/semantics.md §7). The lines
// share b's memory.
func Lines(b []byte) iter.Seq2[int, []byte] {
	return func(yield func(int, []byte) bool) {
		n := 1
		for line, rest, ok := CutLine(b); ok; line, rest, ok = CutLine(rest) {
			if n == 1 {
				line = TrimBOM(line)
			}
			if !yield(n, line) {
				return
			}
			n++
		}
	}
}

// SplitLines splits a whole log into its lines, without terminators and
// with line 1 after any BOM. The lines share b's memory.
func SplitLines(b []byte) [][]byte {
	var lines [][]byte
	for _, line := range Lines(b) {
		lines = append(lines, line)
	}
	return lines
}

// Line is line n (from 1) of a whole log, as SplitLines numbers it, and
// whether the log has one; it holds nothing per line, so a log of short
// lines costs no slice header for each.
func Line(b []byte, n int) ([]byte, bool) {
	for i, line := range Lines(b) {
		if i == n {
			return line, true
		}
	}
	return nil, false
}

// AppendLines appends to dst what adds lines (each without its
// terminator) to a log ending in end: every line ends in the log's own line
// ending (LineEnding of end), so that no log mixes CRLF and LF, and a log
// whose last line has no line break gets one first, so that its last line
// is not extended (no writer appends to such a log: Unterminated). end is the whole log, or as much of its
// end as reaches back to its last line break; empty, an empty log. Every
// writer of the log appends through here: pactify, which reads only the
// end of the file, and the bot, which holds the whole log.
func AppendLines(dst, end []byte, lines ...[]byte) []byte {
	eol := LineEnding(end)
	if len(end) > 0 && end[len(end)-1] != '\n' {
		dst = append(dst, eol...)
	}
	for _, l := range lines {
		dst = append(append(dst, l...), eol...)
	}
	return dst
}

// Unterminated reports whether a log ending in end (as AppendLines takes
// it) has a last line without a line break. Such a line is what a write cut
// off half-way leaves (a full disk, a file-size limit); appending after it
// would seal the fragment as a line of its own in a log no one may edit,
// so every writer refuses rather than end it: pactify, and the bot on a
// pull request's branch (see docs/pactify.md).
func Unterminated(end []byte) bool {
	return len(end) > 0 && end[len(end)-1] != '\n'
}

// LineEnding is the line terminator a writer appending to, or rewriting
// part of, the text b uses so that the file never mixes the two: "\r\n"
// when b's last line break is CRLF (a Windows checkout with
// core.autocrlf=true converts every line), else "\n" (also when b has no
// line break). A reader needs no such choice: CutLine takes both.
func LineEnding(b []byte) string {
	if i := bytes.LastIndexByte(b, '\n'); i > 0 && b[i-1] == '\r' {
		return "\r\n"
	}
	return "\n"
}

// WithLineEnding is text, written with "\n" line breaks, with eol
// (LineEnding) instead: unchanged for "\n".
func WithLineEnding(text, eol string) string {
	if eol == "\n" {
		return text
	}
	return strings.ReplaceAll(text, "\n", eol)
}
