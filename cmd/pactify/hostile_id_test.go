package main

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// commandLine is a line a GitHub runner would run as a workflow command.
var commandLine = regexp.MustCompile(`(?m)^::[a-z-]+( [^:]*)?::`)

// TestHostileTaskIdInErrors: a task id is a file name, so it may hold a
// terminal's escape sequence and a line break; a pact someone else
// committed can name one. Where an error quotes it (a directory where
// its task file belongs; a refused checkpoint), it must neither reach the
// terminal raw (ESC[2K and a carriage return erase the line; the rest can
// forge "valid: 0 errors") nor start a line a CI runner would run as a
// workflow command.
func TestHostileTaskIdInErrors(t *testing.T) {
	t.Parallel()
	const id = "T1\x1b[2K\r\n::error title=pact::valid: 0 errors\u202e"
	p := newProject(t)
	p.ok("orch", "init", "--project", "g", "--seat", "orch:orchestrator:AGENTS.md", "--seat", "ana:worker:AGENTS.md", "--seat", "rex:reviewer:AGENTS.md")
	p.run("orch", "assign", id, "--feature", "F1", "--branch", "b1", "--owner", "ana", "--reviewer", "rex")
	p.remove(".pact/tasks/" + id + ".md")
	if err := os.Mkdir(p.path(".pact/tasks/"+id+".md"), 0o755); err != nil {
		t.Skipf("this file system takes no such name: %v", err)
	}
	for _, args := range [][]string{{"validate", "--task-files"}, {"checkpoint", id, "--evidence", "x"}} {
		r := p.run("ana", args...)
		if r.code == 0 {
			t.Errorf("want a refusal\n%s", r)
		}
		if !strings.Contains(r.stderr, `T1\x1b[2K ::error title=pact::valid: 0 errors\u202e`) {
			t.Errorf("stderr does not name the task as it is\n%s", r)
		}
		for what, out := range map[string]string{"stdout": r.stdout, "stderr": r.stderr} {
			if strings.ContainsAny(out, "\x1b\r\u202e") || commandLine.MatchString(out) {
				t.Errorf("%s carries the id raw: %q", what, out)
			}
		}
	}
}
