package pactfile

import (
	"strings"
	"testing"
)

const (
	B = BlockBegin
	E = BlockEnd
)

func TestReplaceBlock(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, text, block, want string
	}{
		{"empty file", "", "x\n", B + "\nx\n" + E + "\n"},
		{"appends after a final newline", "# Notes\n", "x", "# Notes\n\n" + B + "\nx\n" + E + "\n"},
		{"appends after a blank line", "# Notes\n\n", "x", "# Notes\n\n" + B + "\nx\n" + E + "\n"},
		{"appends without a final newline", "# Notes", "x", "# Notes\n\n" + B + "\nx\n" + E + "\n"},
		{"trailing newlines of the block are trimmed", "", "x\n\n\n", B + "\nx\n" + E + "\n"},
		{"replaces the block only", "before\n" + B + "\nold\nlines\n" + E + "\nafter\n", "new", "before\n" + B + "\nnew\n" + E + "\nafter\n"},
		{"block at the very end without newline", "before\n" + B + "\nold\n" + E, "new", "before\n" + B + "\nnew\n" + E},
		{"CRLF outside is kept", "a\r\n" + B + "\r\nold\r\n" + E + "\r\nb\r\n", "new", "a\r\n" + B + "\nnew\n" + E + "\r\nb\r\n"},
		{"trailing spaces after a marker", "a\n" + B + "  \nold\n" + E + " \t\nb\n", "new", "a\n" + B + "\nnew\n" + E + " \t\nb\n"},
		{"only the first block is replaced", B + "\none\n" + E + "\nmid\n" + B + "\ntwo\n" + E + "\n", "new", B + "\nnew\n" + E + "\nmid\n" + B + "\ntwo\n" + E + "\n"},
		{"markers quoted in prose are not a block", "Edit outside " + B + " and " + E + " only.\n", "x",
			"Edit outside " + B + " and " + E + " only.\n\n" + B + "\nx\n" + E + "\n"},
		{"indented markers are not a block", "  " + B + "\n  " + E + "\n", "x", "  " + B + "\n  " + E + "\n\n" + B + "\nx\n" + E + "\n"},
		{"a stray begin never swallows text", "intro\n" + B + "\nuser stuff\n", "x", "intro\n" + B + "\nuser stuff\n\n" + B + "\nx\n" + E + "\n"},
		{"a stray end before the block is kept", "intro\n" + E + "\nmid\n" + B + "\nold\n" + E + "\n", "x", "intro\n" + E + "\nmid\n" + B + "\nx\n" + E + "\n"},
		{"the begin nearest the end opens the block", B + "\nstray\n" + B + "\nold\n" + E + "\n", "x", B + "\nstray\n" + B + "\nx\n" + E + "\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got := ReplaceBlock(c.text, c.block)
			if got != c.want {
				t.Fatalf("ReplaceBlock(%q)\n got %q\nwant %q", c.text, got, c.want)
			}
			if again := ReplaceBlock(got, c.block); again != got {
				t.Fatalf("not idempotent:\nonce  %q\ntwice %q", got, again)
			}
		})
	}
}

// TestReplaceBlockStrayBeginTwice is the init-twice case that used to lose
// text: a hand edit leaves a begin marker without an end; the first init
// appends a block, the second must not treat the stray marker as its begin.
func TestReplaceBlockStrayBeginTwice(t *testing.T) {
	t.Parallel()
	text := "intro\n" + B + "\nuser stuff\n"
	once := ReplaceBlock(text, "v1")
	twice := ReplaceBlock(once, "v2")
	if !strings.HasPrefix(twice, text) || !strings.Contains(twice, "\nv2\n") || strings.Contains(twice, "v1") {
		t.Fatalf("second ReplaceBlock lost text outside the block:\n%q", twice)
	}
}

// FuzzParseBlock: for any text, parseBlock finds a block made of marker
// lines, with its body between them and its line counted; ReplaceBlock is
// idempotent, keeps everything outside the block it writes, and the result
// holds the block, which parseBlock reads back.
//
//	go test ./pactfile -run '^$' -fuzz '^FuzzParseBlock$' -fuzztime 20s
func FuzzParseBlock(f *testing.F) {
	for _, s := range []string{"", "x", "x\n", "x\n\n", B, E, B + "\n" + E, E + "\n" + B + "\n", "a\n" + B + "\nb\n" + E + "\nc",
		B + "\r\n" + E + "\r\n", B + "\n" + B + "\n" + E + "\n" + E + "\n", " " + B + "\n" + E, "a" + B + "\n" + E + "b\n",
		"we use " + B + " and " + E + " markers\n", B + " \t\r\nx\n" + E + "\t\n"} {
		f.Add(s, "## Pact seat\nexport PACT_AGENT_ID=x\n")
	}
	f.Fuzz(func(t *testing.T, text, body string) {
		if b, ok := parseBlock(text); ok {
			if !isMarkerLine(text, b.Begin, BlockBegin) || !strings.HasSuffix(text[:b.End], BlockEnd) || !isMarkerLine(text, b.End-len(BlockEnd), BlockEnd) {
				t.Fatalf("block %+v of %q is not between marker lines", b, text)
			}
			if b.Line != strings.Count(text[:b.Begin], "\n")+1 || !strings.HasSuffix(text[:b.End-len(BlockEnd)], b.Body) {
				t.Fatalf("block %+v of %q: wrong line or body", b, text)
			}
		}
		for _, l := range strings.Split(body, "\n") {
			if t2 := strings.TrimRight(l, " \t\r"); t2 == BlockBegin || t2 == BlockEnd {
				return // a body holding a marker line is not a block's body
			}
		}
		got := ReplaceBlock(text, body)
		if again := ReplaceBlock(got, body); again != got {
			t.Fatalf("not idempotent on %q:\nonce  %q\ntwice %q", text, got, again)
		}
		marked := formatBlock(body)
		if b, ok := parseBlock(text); ok {
			if got != text[:b.Begin]+marked+text[b.End:] {
				t.Fatalf("text outside the block changed: %q -> %q", text, got)
			}
		} else if !strings.HasPrefix(got, text) || !strings.HasSuffix(got, marked+"\n") {
			t.Fatalf("appending changed the text: %q -> %q", text, got)
		}
		b, ok := parseBlock(got)
		if !ok || got[b.Begin:b.End] != marked || b.Body != strings.TrimRight(body, "\n")+"\n" {
			t.Fatalf("the result does not read back: %+v in %q", b, got)
		}
	})
}

// isMarkerLine reports whether text holds marker at off, alone on its line
// but for trailing blanks.
func isMarkerLine(text string, off int, marker string) bool {
	if off > 0 && text[off-1] != '\n' {
		return false
	}
	line, _, _ := strings.Cut(text[off:], "\n")
	return strings.TrimRight(line, " \t\r") == marker
}
