package main

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	goldenfile "github.com/pact-action/pact-action/internal/testkit/golden"
)

// TestLogLinesGolden pins the exact bytes every writing verb appends (the
// event_id aside, which is random): key order, escaping, optional fields
// and how a log ending in CRLF is continued. Every line is built by the
// event's constructor in projection; a change here changes what pactify
// writes into every pact, so it must be deliberate (run the test with
// -update and say why in the commit).
func TestLogLinesGolden(t *testing.T) {
	t.Parallel()
	p := newProject(t)
	steps := []struct {
		agent string
		args  []string
	}{
		{"orch", []string{"init", "--project", `demo "<&>" ünï`, "--base-branch", "trunk",
			"--seat", "orch:orchestrator:AGENTS.md", "--seat", "ana:worker:AGENTS.md", "--seat", "rex:reviewer,worker:docs/REX.md"}},
		{"orch", []string{"assign", "T1", "--feature", "F1", "--branch", "feat/x", "--owner", "ana", "--reviewer", "rex"}},
		{"orch", []string{"assign", "T2", "--feature", "F1", "--branch", "feat/x", "--owner", "ana", "--reviewer", "rex", "--spec", "docs/T2 <spec>.md"}},
		{"ana", []string{"join", "ana", "--roles", "worker, ,"}},
		{"rex", []string{"join", "rex", "--roles", "reviewer,worker"}},
		{"ana", []string{"checkpoint", "T1", "--evidence", "tests pass & \"quoted\" <b>\t🚀"}},
		{"rex", []string{"changes", "T1", "--reason", "add a test for\nthe edge case </script>"}},
		{"ana", []string{"checkpoint", "T1", "--evidence", "done"}},
		{"rex", []string{"accept", "T1", "--commit", "0123456789abcdef0123456789abcdef01234567"}},
		{"ana", []string{"checkpoint", "T2", "--evidence", "done"}},
		{"rex", []string{"accept", "T2"}}, // no git work tree: no commit
		{"orch", []string{"merge", "F1"}},
	}
	for i, s := range steps {
		p.at(i)
		if r := p.run(s.agent, s.args...); r.code != 0 {
			t.Fatalf("step %d: want exit 0\n%s", i, r)
		}
	}
	// A log converted to CRLF (core.autocrlf) is continued in CRLF.
	p.write(".pact/log.jsonl", crlf(p.read(".pact/log.jsonl")))
	p.at(len(steps))
	if r := p.run("orch", "assign", "T3", "--feature", "F2", "--branch", "feat/y", "--owner", "ana", "--reviewer", "rex"); r.code != 0 {
		t.Fatalf("assign on a CRLF log: want exit 0\n%s", r)
	}
	ids := regexp.MustCompile(`"event_id":"[0-9a-f]{32}"`)
	n := 0
	log := ids.ReplaceAllStringFunc(p.read(".pact/log.jsonl"), func(string) string {
		n++
		return fmt.Sprintf(`"event_id":"<random %d>"`, n)
	})
	if n != len(steps)+1 {
		t.Errorf("found %d random event ids, want one per line (%d)", n, len(steps)+1)
	}
	// The repository keeps every text file in LF, so a CR shows as \r.
	goldenfile.Check(t, filepath.Join("testdata", "log_lines.golden"), []byte(strings.ReplaceAll(log, "\r", `\r`)))
}

func crlf(s string) string {
	return regexp.MustCompile(`\r?\n`).ReplaceAllString(s, "\r\n")
}
