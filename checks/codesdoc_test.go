package checks

import (
	"os"
	"strings"
	"testing"

	"github.com/pact-action/pact-action/internal/testkit/golden"
)

// codesDoc is the public explanation of every finding code; SARIF rules
// link to it.
const codesDoc = "../docs/codes.md"

// The table of docs/codes.md lies between these two lines and is
// generated from Table.
const (
	codesBegin = "<!-- generated from checks.Table: go test ./checks -update rewrites the table below -->\n"
	codesEnd   = "<!-- end of the generated table -->\n"
)

// codesTable renders Table as the Markdown table of docs/codes.md.
func codesTable() string {
	var b strings.Builder
	b.WriteString("| code | severity | what happened | how to fix |\n|---|---|---|---|\n")
	for _, c := range Table {
		b.WriteString("| `" + string(c.Code) + "` | " + string(c.Severity) + " | " + markdownCell(c.Title) + " | " + markdownCell(c.Hint) + " |\n")
	}
	return b.String()
}

// markdownCell keeps a title or hint literal in a GitHub Markdown table
// cell: outside code spans a backslash or '<' would be read as an escape or
// as HTML (tasks/<id>.md would lose "<id>"); a pipe ends the cell anywhere.
func markdownCell(s string) string {
	var b strings.Builder
	inCode := false
	for _, r := range s {
		switch {
		case r == '`':
			inCode = !inCode
			b.WriteRune(r)
		case r == '|':
			b.WriteString(`\|`)
		case !inCode && r == '\\':
			b.WriteString(`\\`)
		case !inCode && r == '<':
			b.WriteString("&lt;")
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func TestMarkdownCell(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"plain":                            "plain",
		"tasks/<id>.md":                    "tasks/&lt;id>.md",
		"without '/', '\\', '..'":          `without '/', '\\', '..'`,
		"a | b":                            `a \| b`,
		"`pactify log --replay` <x> `<y>`": "`pactify log --replay` &lt;x> `<y>`",
		"`a|b`":                            "`a\\|b`",
	} {
		if got := markdownCell(in); got != want {
			t.Errorf("markdownCell(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestCodesDocIsTheTable: docs/codes.md holds the table rendered from
// Table, so a code added, reworded or re-severed here is documented there
// in the same change.
func TestCodesDocIsTheTable(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(codesDoc)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	before, rest, ok := strings.Cut(doc, codesBegin)
	table, after, closed := strings.Cut(rest, codesEnd)
	if !ok || !closed {
		t.Fatalf("%s lacks the generated table between %q and %q", codesDoc, codesBegin, codesEnd)
	}
	want := codesTable()
	if table == want {
		return
	}
	if golden.Updating() {
		if err := os.WriteFile(codesDoc, []byte(before+codesBegin+want+codesEnd+after), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s's code table differs from checks.Table (go test ./checks -update rewrites it); it is:\n%s", codesDoc, want)
}
