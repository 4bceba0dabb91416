package pactfile

import (
	"strconv"
	"strings"
	"testing"
)

func TestParseProject(t *testing.T) {
	t.Parallel()
	block := func(inner string) string { return B + "\n" + inner + "\n" + E + "\n" }
	for _, c := range []struct {
		name, text string
		ok         bool
		want       projectHeader
	}{
		{"no block", "# demo (protocol_version: 1)\n", false, projectHeader{}},
		{"spec header", "# Charter\n\n" + block("# demo — Pact Charter (protocol_version: 1)"), true, projectHeader{Line: 3, ProtocolVersion: "1"}},
		{"no annotation", block("# demo"), true, projectHeader{Line: 1}},
		{"annotation outside the block only", "protocol_version: 1\n" + block("# demo"), true, projectHeader{Line: 2}},
		{"first annotation counts", block("protocol_version:1\nprotocol_version: 2"), true, projectHeader{Line: 1, ProtocolVersion: "1"}},
		{"markers mentioned in prose", "We use " + B + " and " + E + " (protocol_version: 9) markers.\n", false, projectHeader{}},
		{"markers mentioned in prose before the block", "We use " + B + " and " + E + " markers.\n\n" + block("(protocol_version: 1)"), true,
			projectHeader{Line: 3, ProtocolVersion: "1"}},
	} {
		h, ok := ParseProject([]byte(c.text))
		if ok != c.ok || h != c.want {
			t.Errorf("%s: ParseProject = %+v, %v; want %+v, %v", c.name, h, ok, c.want, c.ok)
		}
	}
}

// TestCharterRoundTrip: what init writes into any PROJECT.md reads back
// with its protocol version, also when the file's prose mentions the
// markers (which once made validate warn forever).
func TestCharterRoundTrip(t *testing.T) {
	t.Parallel()
	c := Charter{Project: "demo", ProtocolVersion: 1, BaseBranch: "main", Log: ".pact/log.jsonl",
		Seats: []Seat{{ID: "lead", Roles: []string{"orchestrator"}, Entry: "AGENTS.md"}, {ID: "rev", Roles: []string{"reviewer", "worker"}, Entry: "CLAUDE.md"}}}
	want := "# demo — Pact Charter (protocol_version: 1)\n\nThis block is managed by `pactify init`; edit the charter outside it.\n\n" +
		"| seat | roles | entry |\n|---|---|---|\n| lead | orchestrator | AGENTS.md |\n| rev | reviewer, worker | CLAUDE.md |\n\n" +
		"Base branch: `main`. The log `.pact/log.jsonl` is authoritative; `STATE.yml` is its projection.\n"
	if got := FormatCharter(c); got != want {
		t.Fatalf("FormatCharter:\n%s\nwant:\n%s", got, want)
	}
	for _, before := range []string{"", "# Notes\n", "We keep " + B + " and " + E + " markers around the block.\n", B + "\nstray begin\n",
		"a\r\n" + B + "\r\n(protocol_version: 0)\r\n" + E + "\r\nb\r\n"} {
		text := ReplaceBlock(before, FormatCharter(c))
		h, ok := ParseProject([]byte(text))
		if !ok || h.ProtocolVersion != "1" {
			t.Errorf("after init over %q: %+v, %v\n%s", before, h, ok, text)
		}
		if b, _ := parseBlock(text); b.Body != FormatCharter(c) {
			t.Errorf("after init over %q: body %q", before, b.Body)
		}
	}
}

// FuzzParseProject: any PROJECT.md reads without panicking, its annotation
// is digits, and after init writes its block it reads back init's version.
//
//	go test ./pactfile -run '^$' -fuzz '^FuzzParseProject$' -fuzztime 20s
func FuzzParseProject(f *testing.F) {
	for _, s := range []string{"", "# p\n", B + "\nprotocol_version: 1\n" + E + "\n", "We use " + B + " and " + E + " markers.\n", B + "\n" + B + "\n" + E} {
		f.Add([]byte(s), 1)
	}
	f.Fuzz(func(t *testing.T, project []byte, version int) {
		if h, ok := ParseProject(project); ok && (h.Line < 1 || strings.Trim(h.ProtocolVersion, "0123456789") != "") {
			t.Fatalf("ParseProject(%q) = %+v", project, h)
		}
		version &= 0xffff
		text := ReplaceBlock(string(project), FormatCharter(Charter{Project: "p", ProtocolVersion: version, BaseBranch: "main", Log: ".pact/log.jsonl"}))
		if h, ok := ParseProject([]byte(text)); !ok || h.ProtocolVersion != strconv.Itoa(version) {
			t.Fatalf("after init over %q: %+v, %v", project, h, ok)
		}
	})
}
