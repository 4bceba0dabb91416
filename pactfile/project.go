package pactfile

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// Charter is what pactify init writes into the managed block of PROJECT.md
// (docs/semantics.md, pact v1 §3.3): a header annotated with the protocol version, and the seat
// roster.
type Charter struct {
	Project         string
	ProtocolVersion int
	BaseBranch      string
	Seats           []Seat
	// Log is the log's path as the block names it, e.g. ".pact/log.jsonl".
	Log string
}

// Seat is one seat of the roster: a row of the charter's seat table, and
// an entry of the init event's seats (docs/semantics.md, pact v1 §6.2).
type Seat struct {
	ID    string   `json:"id" yaml:"id"`
	Roles []string `json:"roles" yaml:"roles"`
	Entry string   `json:"entry" yaml:"entry"`
}

// Holds reports whether the seat declares role.
func (s Seat) Holds(role string) bool {
	return slices.Contains(s.Roles, role)
}

// NewProjectTail is what a new PROJECT.md holds after its managed block:
// the place for the charter people write.
const NewProjectTail = "\n## Charter\n\nDescribe the project's goals here.\n"

// FormatCharter is the body of PROJECT.md's managed block (formatBlock puts
// it between the markers). Its first line is the header annotation that
// ParseProject reads back.
func FormatCharter(c Charter) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s — Pact Charter (protocol_version: %d)\n\n", c.Project, c.ProtocolVersion)
	b.WriteString("This block is managed by `pactify init`; edit the charter outside it.\n\n")
	b.WriteString("| seat | roles | entry |\n|---|---|---|\n")
	for _, s := range c.Seats {
		fmt.Fprintf(&b, "| %s | %s | %s |\n", s.ID, strings.Join(s.Roles, ", "), s.Entry)
	}
	fmt.Fprintf(&b, "\nBase branch: `%s`. The log `%s` is authoritative; `STATE.yml` is its projection.\n", c.BaseBranch, c.Log)
	return b.String()
}

// projectHeader is what PROJECT.md says of the protocol.
type projectHeader struct {
	// Line is the 1-based line of the managed block's begin marker.
	Line int
	// ProtocolVersion is the digits of the block's first protocol_version
	// annotation as written; "" when the block has none.
	ProtocolVersion string
}

var versionAnnotation = regexp.MustCompile(`protocol_version:\s*(\d+)`)

// ParseProject reads the managed block of PROJECT.md (parseBlock) and the
// protocol_version annotation in it, written or not by FormatCharter: any
// "protocol_version:" followed by digits counts, the first one in the block.
// It reports false when the file has no managed block.
func ParseProject(project []byte) (projectHeader, bool) {
	b, ok := parseBlock(string(project))
	if !ok {
		return projectHeader{}, false
	}
	h := projectHeader{Line: b.Line}
	if m := versionAnnotation.FindStringSubmatch(b.Body); m != nil {
		h.ProtocolVersion = m[1]
	}
	return h, true
}
