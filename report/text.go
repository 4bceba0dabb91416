package report

import (
	"bufio"
	"fmt"
	"io"

	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/internal/prose"
)

// WriteText writes findings grouped by file, one `path:line: code: message`
// line each with its severity and hint below, and a verdict line last:
// `pactify validate`'s output.
func WriteText(w io.Writer, findings []checks.Finding) error {
	// Streamed: a large log can have hundreds of thousands of findings, and
	// the report built as one string would be held beside them.
	b := bufio.NewWriterSize(w, 64<<10)
	writeFindings(b, findings)
	b.WriteString(verdictLine(findings) + "\n")
	return b.Flush()
}

// writeFindings writes findings as compilers and linters do, grouped by
// file with a blank line after each group; the text someone else wrote
// is made inert for a terminal (Plain).
func writeFindings(b *bufio.Writer, findings []checks.Finding) {
	lastPath := ""
	for i, f := range findings {
		if i > 0 && f.Path != lastPath {
			b.WriteString("\n")
		}
		lastPath = f.Path
		fmt.Fprintf(b, "%s: %s: %s\n", Plain(where(f)), Plain(string(f.Code)), Plain(f.Message))
		fmt.Fprintf(b, "    %s; hint: %s\n", f.Severity, Plain(f.Hint))
	}
	if len(findings) > 0 {
		b.WriteString("\n")
	}
}

// verdictLine is the one-line outcome of validate: valid or invalid, with
// the counts.
func verdictLine(findings []checks.Finding) string {
	c := checks.Count(findings)
	word := "valid"
	if c.Errors > 0 {
		word = "invalid"
	}
	s := fmt.Sprintf("%s: %s, %s", word, prose.Plural(c.Errors, "error"), prose.Plural(c.Warnings, "warning"))
	if c.Pending > 0 {
		s += fmt.Sprintf(", %d pending", c.Pending) // pending is no noun to count
	}
	return s
}
