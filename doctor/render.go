package doctor

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/pact-action/pact-action/internal/prose"
)

// Symbols of the text report, one per status.
var symbols = map[Status]string{StatusPass: "✓", StatusFail: "✗", StatusWarn: "!", StatusUnknown: "?"}

// report is the JSON document of `doctor --format json`.
type report struct {
	Repository string  `json:"repository"`
	OK         bool    `json:"ok"`
	Probes     []Probe `json:"checks"`
}

// WriteJSON writes the JSON report.
func WriteJSON(w io.Writer, repository string, probes []Probe) error {
	if probes == nil {
		probes = []Probe{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	// Fixes hold YAML snippets with <placeholders>: keep them readable.
	enc.SetEscapeHTML(false)
	if err := enc.Encode(report{Repository: repository, OK: OK(probes), Probes: probes}); err != nil {
		return fmt.Errorf("write the doctor report: %w", err)
	}
	return nil
}

// WriteText writes one line per probe, its detail and fix indented below
// it (a fix may span lines, every one indented), and a count.
func WriteText(w io.Writer, repository, branch string, probes []Probe) error {
	var b strings.Builder
	fmt.Fprintf(&b, "pact-action doctor: %s (default branch %s)\n\n", repository, branch)
	counts := map[Status]int{}
	for _, c := range probes {
		counts[c.Status]++
		// Titles and details quote the repository's files (a workflow's
		// check-name, a login): one line each, so none can forge a ✓ line.
		fmt.Fprintf(&b, "%s %s\n", symbols[c.Status], prose.OneLine(c.Title))
		if c.Detail != "" {
			fmt.Fprintf(&b, "    %s\n", prose.OneLine(c.Detail))
		}
		if c.Fix == "" {
			continue
		}
		if first, rest, multi := strings.Cut(c.Fix, "\n"); multi {
			fmt.Fprintf(&b, "    fix: %s\n", first)
			for _, line := range strings.Split(rest, "\n") {
				fmt.Fprintf(&b, "        %s\n", line)
			}
		} else {
			fmt.Fprintf(&b, "    fix: %s\n", c.Fix)
		}
	}
	fmt.Fprintf(&b, "\n%d passed, %d failed, %s, %d unknown\n",
		counts[StatusPass], counts[StatusFail], prose.Plural(counts[StatusWarn], "warning"), counts[StatusUnknown])
	_, err := io.WriteString(w, b.String())
	return err
}
