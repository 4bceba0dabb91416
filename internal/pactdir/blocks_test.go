package pactdir

import (
	"strings"
	"testing"

	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/projection"
)

const (
	B = checks.BlockBegin
	E = checks.BlockEnd
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

// FuzzReplaceBlock: for any text, ReplaceBlock is idempotent, keeps
// everything outside the block it writes, and the result holds the block.
func FuzzReplaceBlock(f *testing.F) {
	for _, s := range []string{"", "x", "x\n", "x\n\n", B, E, B + "\n" + E, E + "\n" + B + "\n", "a\n" + B + "\nb\n" + E + "\nc",
		B + "\r\n" + E + "\r\n", B + "\n" + B + "\n" + E + "\n" + E + "\n", " " + B + "\n" + E, "a" + B + "\n" + E + "b\n"} {
		f.Add(s)
	}
	const block = "## Pact seat\nexport PACT_AGENT_ID=x\n"
	f.Fuzz(func(t *testing.T, text string) {
		got := ReplaceBlock(text, block)
		if again := ReplaceBlock(got, block); again != got {
			t.Fatalf("not idempotent on %q:\nonce  %q\ntwice %q", text, got, again)
		}
		marked := B + "\n" + strings.TrimRight(block, "\n") + "\n" + E
		if begin, end, ok := findBlock(text); ok {
			if got != text[:begin]+marked+text[end:] {
				t.Fatalf("text outside the block changed: %q -> %q", text, got)
			}
		} else if !strings.HasPrefix(got, text) || !strings.HasSuffix(got, marked+"\n") {
			t.Fatalf("appending changed the text: %q -> %q", text, got)
		}
		if b, e, ok := findBlock(got); !ok || got[b:e] != marked {
			t.Fatalf("the result has no complete block: %q", got)
		}
	})
}

// TestReplaceBlockAgreesWithProjectHeader: the block init writes into
// PROJECT.md is the one validate reads its protocol_version from.
func TestReplaceBlockAgreesWithProjectHeader(t *testing.T) {
	t.Parallel()
	st := projection.NewState()
	st.Initialized, st.ProtocolVersion = true, 1
	header := "# p — Pact Charter (protocol_version: 1)\n"
	for name, text := range map[string]string{
		"new file":          "",
		"charter above":     "# Charter\n\nGoals.\n",
		"old block":         "# Charter\n" + B + "\n# p — Pact Charter (protocol_version: 0)\n" + E + "\nafter\n",
		"stray begin above": "intro\n" + B + "\nuser stuff\n",
	} {
		got := ReplaceBlock(text, header)
		if f := checks.ProjectHeader("PROJECT.md", []byte(got), st); len(f) != 0 {
			t.Errorf("%s: validate does not see the block ReplaceBlock wrote: %+v\n%s", name, f, got)
		}
	}
}

// TestProjectHeaderQuotedMarkers is a disagreement between this package and
// checks.ProjectHeader (checks, not ours): markers quoted inside a line of
// the charter are not a block for ReplaceBlock, which appends the real one,
// but ProjectHeader takes the first occurrence of each marker anywhere and
// reports a missing protocol_version annotation.
func TestProjectHeaderQuotedMarkers(t *testing.T) {
	t.Parallel()
	st := projection.NewState()
	st.Initialized, st.ProtocolVersion = true, 1
	got := ReplaceBlock("Never edit between "+B+" and "+E+" by hand.\n", "# p — Pact Charter (protocol_version: 1)\n")
	if f := checks.ProjectHeader("PROJECT.md", []byte(got), st); len(f) != 0 {
		t.Skipf("engine bug (checks.ProjectHeader matches markers inside prose): %s: %s", f[0].Code, f[0].Message)
	}
}
