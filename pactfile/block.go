package pactfile

import "strings"

// Markers of the managed block that pactify init owns in PROJECT.md (docs/semantics.md, pact v1
// §3.3) and in the seats' entry files.
const (
	BlockBegin = "<!-- pact:begin -->"
	BlockEnd   = "<!-- pact:end -->"
)

// block is where the managed block of a text is.
type block struct {
	// Begin is the offset of the start of the begin marker's line; End the
	// offset just after the end marker (what follows the marker on its
	// line, the line terminator included, is not the block's).
	Begin, End int
	// Line is the 1-based line of the begin marker.
	Line int
	// Body is the text between the two marker lines, each of its lines
	// with its terminator.
	Body string
}

// parseBlock finds the managed block of text. A marker counts only on a
// line of its own (trailing spaces, tabs or a CR allowed), so prose that
// mentions the markers ("we keep <!-- pact:begin --> blocks") is not a
// block. The block is the first complete one: the first end marker and the
// nearest begin marker above it. A stray begin marker without an end (a
// hand edit) therefore never swallows the text after it.
func parseBlock(text string) (block, bool) {
	begin, bodyStart, line := -1, 0, 0
	for off, n := 0, 1; off < len(text); n++ {
		l := text[off:]
		next := len(text)
		if i := strings.IndexByte(l, '\n'); i >= 0 {
			l, next = l[:i], off+i+1
		}
		switch strings.TrimRight(l, " \t\r") {
		case BlockBegin:
			begin, bodyStart, line = off, next, n
		case BlockEnd:
			if begin >= 0 {
				return block{Begin: begin, End: off + len(BlockEnd), Line: line, Body: text[bodyStart:off]}, true
			}
		}
		off = next
	}
	return block{}, false
}

// formatBlock is body between the markers, each on a line of its own: what
// ReplaceBlock puts in a text. Trailing newlines of body are dropped, so a
// block's end marker always follows its last line.
func formatBlock(body string) string {
	return BlockBegin + "\n" + strings.TrimRight(body, "\n") + "\n" + BlockEnd
}

// ReplaceBlock puts body between the markers of text (parseBlock), or
// appends a new block when text has none. Text outside the block is never
// touched, so running init again changes nothing else.
func ReplaceBlock(text, body string) string {
	marked := formatBlock(body)
	if b, ok := parseBlock(text); ok {
		return text[:b.Begin] + marked + text[b.End:]
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
