package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	goldenfile "github.com/pact-action/pact-action/internal/testkit/golden"
)

// TestValidateGolden runs validate on testdata/broken, a small pact with one
// of most kinds of defect, and compares each report with its golden file.
// Run `go test ./cmd/pactify -run TestValidateGolden -update` to rewrite
// them after a deliberate change.
func TestValidateGolden(t *testing.T) {
	t.Parallel()
	for _, format := range []string{"text", "json", "sarif"} {
		t.Run(format, func(t *testing.T) {
			t.Parallel()
			p := newProject(t)
			copyTree(t, filepath.Join("testdata", "broken"), p.dir)
			before := snapshot(t, p.dir)
			r := p.run(unset, "validate", "--format", format, "--task-files")
			if r.code != 1 {
				t.Fatalf("validate on a broken pact: want exit 1\n%s", r)
			}
			if r.stderr != "" {
				t.Errorf("validate wrote to stderr:\n%s", r)
			}
			sameTree(t, before, snapshot(t, p.dir)) // validate only reads
			goldenfile.Check(t, filepath.Join("testdata", "validate_broken."+format+".golden"), []byte(r.stdout))
		})
	}
}

// TestValidateGoldenCoversCodes keeps the broken example honest: it must go
// on showing these codes, whatever the golden file says.
func TestValidateGoldenCoversCodes(t *testing.T) {
	t.Parallel()
	p := newProject(t)
	copyTree(t, filepath.Join("testdata", "broken"), p.dir)
	rep, r := p.validate("--task-files")
	if r.code != 1 || rep.Valid {
		t.Fatalf("want invalid, exit 1\n%s", r)
	}
	got := map[string]int{}
	for _, f := range rep.Findings {
		got[string(f.Code)+"@"+f.Path+":"+itoa(f.Line)]++
	}
	for _, want := range []string{
		"rule1.owner_is_reviewer@.pact/log.jsonl:2",
		"log.malformed_json@.pact/log.jsonl:4",
		"rule1.self_accept@.pact/log.jsonl:7",
		"rule2.unaccepted_tasks@.pact/log.jsonl:8",
		"event_id.missing@.pact/log.jsonl:9",
		"roster.unknown_seat@.pact/log.jsonl:10",
		"role.mismatch@.pact/log.jsonl:12",
		"drift.state@.pact/STATE.yml:0",
		"project.header@.pact/PROJECT.md:0",
		"taskfile.mismatch@.pact/tasks/T2.md:1",
	} {
		if got[want] != 1 {
			t.Errorf("want exactly one finding %s; got %v", want, got)
		}
	}
	if len(rep.Findings) != 10 || rep.Errors != 8 || rep.Warnings != 2 {
		t.Errorf("want 10 findings (8 errors, 2 warnings), got %d (%d, %d)", len(rep.Findings), rep.Errors, rep.Warnings)
	}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// TestExitCodes documents pactify's exit codes, one row per situation.
func TestExitCodes(t *testing.T) {
	t.Parallel()
	if exitOK != 0 || exitInvalid != 1 || exitUsage != 2 || exitUnsupported != 3 {
		t.Fatal("the exit code constants changed; docs/pactify.md and the help text document 0, 1, 2 and 3")
	}
	for _, c := range []struct {
		name  string
		tmpl  string // empty, pact, v2, broken
		edit  func(p *project)
		agent string
		args  []string
		code  int
	}{
		{"0: help", "empty", nil, unset, []string{"help"}, 0},
		{"0: validate on a valid pact", "pact", nil, unset, []string{"validate"}, 0},
		{"0: validate with warnings only", "pact", func(p *project) { p.remove(".pact/tasks/T2.md") }, unset, []string{"validate"}, 0},
		{"0: a verb the protocol allows", "pact", nil, "bob", []string{"accept", "T1"}, 0},
		{"0: status", "pact", nil, unset, []string{"status"}, 0},
		{"1: validate finds an error", "broken", nil, unset, []string{"validate"}, 1},
		{"1: validate finds drift", "pact", func(p *project) { p.write(".pact/STATE.yml", "project: other\n") }, unset, []string{"validate"}, 1},
		{"1: a refused verb", "pact", nil, "alice", []string{"accept", "T1"}, 1},
		{"1: no PACT_AGENT_ID", "pact", nil, unset, []string{"accept", "T1"}, 1},
		{"2: a usage error", "pact", nil, "bob", []string{"accept"}, 2},
		{"2: an unknown verb", "pact", nil, "bob", []string{"approve", "T1"}, 2},
		{"2: no pact to read", "empty", nil, unset, []string{"status"}, 2},
		{"3: a newer protocol major, validate", "v2", nil, unset, []string{"validate"}, 3},
		{"3: a newer protocol major, a writing verb", "v2", nil, "alice", []string{"join", "alice", "--roles", "worker"}, 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			p := newProject(t)
			p.now = "2026-06-09T11:00:00Z"
			src := filepath.Join("testdata", "broken")
			if c.tmpl != "broken" {
				src = template(t, c.tmpl)
			}
			copyTree(t, src, p.dir)
			if c.edit != nil {
				c.edit(p)
			}
			if r := p.run(c.agent, c.args...); r.code != c.code {
				t.Fatalf("want exit %d\n%s", c.code, r)
			}
		})
	}
	// The help text documents the same codes.
	if !strings.Contains(helpText, "Exit codes: 0 ok; 1 refused, or validate found an error; 2 usage or I/O error;\n3 the log needs a newer protocol version") {
		t.Errorf("help text does not document exit codes 0-3:\n%s", helpText)
	}
}

// TestValidateTextValid pins the one-line verdict of a clean pact.
func TestValidateTextValid(t *testing.T) {
	t.Parallel()
	p := newProject(t)
	copyTree(t, template(t, "pact"), p.dir)
	if r := p.run(unset, "validate"); r.code != 0 || r.stdout != "valid: 0 errors, 0 warnings\n" || r.stderr != "" {
		t.Fatalf("validate on a clean pact:\n%s", r)
	}
}
