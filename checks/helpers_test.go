package checks

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pact-action/pact-action/pactfile"
	"github.com/pact-action/pact-action/projection"
)

const rosterJSON = `[{"id":"lead","roles":["orchestrator"],"entry":"AGENTS.md"},` +
	`{"id":"opencode","roles":["worker"],"entry":"AGENTS.md"},` +
	`{"id":"claude-opus","roles":["reviewer","worker"],"entry":"CLAUDE.md"},` +
	`{"id":"gpt","roles":["reviewer"],"entry":"AGENTS.md"}]`

func at(n int) string { return fmt.Sprintf("2026-06-09T10:%02d:%02dZ", n/60, n%60) }

// evLine renders an event in the spec's field order with the derived role.
func evLine(id, when, agent, typ, task, feature, payload string) string {
	if payload == "" {
		payload = "{}"
	}
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	return fmt.Sprintf(`{"event_id":%s,"ts":%s,"agent_id":%s,"role":%s,"event_type":%s,"task_id":%s,"feature":%s,"payload":%s}`,
		q(id), q(when), q(agent), q(projection.RoleFor(typ)), q(typ), q(task), q(feature), payload)
}

// logb builds a log; line n gets ts at(n) and event_id e<n>.
type logb struct{ lines []string }

func (l *logb) ev(agent, typ, task, feature, payload string) *logb {
	n := len(l.lines) + 1
	l.lines = append(l.lines, evLine(fmt.Sprintf("e%d", n), at(n), agent, typ, task, feature, payload))
	return l
}

func (l *logb) init() *logb {
	return l.ev("lead", projection.TypeInit, "", "", `{"project":"demo","protocol_version":1,"seats":`+rosterJSON+`,"base_branch":"main"}`)
}

func (l *logb) assign(task, feature, owner, reviewer, branch string) *logb {
	return l.ev("lead", projection.TypeAssign, task, feature,
		fmt.Sprintf(`{"owner":%q,"reviewer":%q,"branch":%q,"spec":".pact/tasks/%s.md"}`, owner, reviewer, branch, task))
}

func (l *logb) join(seat string) *logb {
	return l.ev(seat, projection.TypeJoin, "", "", `{"roles":["worker"]}`)
}

func (l *logb) checkpoint(agent, task string) *logb {
	return l.ev(agent, projection.TypeCheckpoint, task, "", `{"evidence":"ok"}`)
}

func (l *logb) accept(agent, task string) *logb {
	return l.ev(agent, projection.TypeAccept, task, "", "")
}

func (l *logb) changes(agent, task string) *logb {
	return l.ev(agent, projection.TypeChangesRequested, task, "", `{"reason":"again"}`)
}

func (l *logb) merge(feature string) *logb {
	return l.ev("lead", projection.TypeMerge, "", feature, "")
}

func (l *logb) bytes() []byte { return []byte(strings.Join(l.lines, "\n") + "\n") }

// input builds what validate judges from a log, with a STATE.yml that is a
// fresh render, a correct PROJECT.md and correct task files, so a test only
// sees the findings it provokes.
func input(data []byte) Input {
	log, res := projection.ReadEvents(data)
	in := Input{Dir: ".pact", Scan: &log.Scan, Replay: res, State: projection.RenderBytes(res.State),
		Project:   []byte(pactfile.ReplaceBlock("", "# demo — Pact Charter (protocol_version: 1)")),
		TaskFiles: map[string][]byte{}}
	for _, id := range res.State.TaskOrder {
		t := res.State.Tasks[id]
		in.TaskFiles[id] = []byte(fmt.Sprintf("---\nid: %s\nfeature: %s\nowner: %s\nreviewer: %s\n---\n## Spec\n", t.ID, t.Feature, t.Owner, t.Reviewer))
	}
	return in
}

// loadPact reads a pact directory of testdata the way pactify validate does.
func loadPact(t testing.TB, dir string) Input {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, pactfile.LogFile))
	if err != nil {
		t.Fatal(err)
	}
	log, res := projection.ReadEvents(data)
	in := Input{Dir: ".pact", Scan: &log.Scan, Replay: res, TaskFiles: map[string][]byte{}}
	in.State = optional(t, filepath.Join(dir, pactfile.StateFile))
	in.Project = optional(t, filepath.Join(dir, pactfile.ProjectFile))
	for _, id := range res.State.TaskOrder {
		if b := optional(t, filepath.Join(dir, pactfile.TasksDir, pactfile.TaskFileName(id))); b != nil {
			in.TaskFiles[id] = b
		}
	}
	return in
}

func optional(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// short is what tables pin of a finding.
type short struct {
	Code     projection.Code
	Severity Severity
	Path     string
	Line     int
	Task     string
	Feature  string
}

func (s short) String() string {
	return fmt.Sprintf("%s %s %s:%d task=%q feature=%q", s.Code, s.Severity, s.Path, s.Line, s.Task, s.Feature)
}

func shorts(fs []Finding) []short {
	out := []short{}
	for _, f := range fs {
		out = append(out, short{f.Code, f.Severity, f.Path, f.Line, f.TaskID, f.Feature})
	}
	return out
}

func assertFindings(t *testing.T, got []Finding, want []short) {
	t.Helper()
	if want == nil {
		want = []short{}
	}
	if g, w := fmt.Sprint(shorts(got)), fmt.Sprint(want); g != w {
		t.Errorf("findings:\n got  %v\n want %v", strings.ReplaceAll(g, "} {", "}\n       {"), strings.ReplaceAll(w, "} {", "}\n       {"))
		for _, f := range got {
			t.Logf("  %s:%d %s %s", f.Path, f.Line, f.Code, f.Message)
		}
	}
}
