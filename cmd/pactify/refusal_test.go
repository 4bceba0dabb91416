package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// The seats of the refusal template. alice and bob hold worker and reviewer
// so that Rule 1 (not the role check) is what stops them reviewing their own
// work.
var templateInit = []string{"init", "--project", "demo",
	"--seat", "orch:orchestrator:AGENTS.md",
	"--seat", "alice:worker,reviewer:AGENTS.md",
	"--seat", "bob:worker,reviewer:AGENTS.md",
	"--seat", "carol:reviewer:CLAUDE.md"}

// templates are the starting points of the refusal cases, built once.
var templates = struct {
	once sync.Once
	root string
	err  string
}{}

// template returns the directory of a named starting point:
//
//	empty: nothing at all
//	pact:  T1 (F1, alice→bob) awaiting_review; T2 (F1, bob→alice) assigned,
//	       bob never joined; T3 (F2, alice→bob) in_progress; T4 (F3,
//	       alice→carol) accepted, so F3 could merge
//	v2:    a log whose init declares protocol_version 2
func template(t *testing.T, name string) string {
	t.Helper()
	templates.once.Do(func() { buildTemplates(t) })
	if templates.err != "" {
		t.Fatal(templates.err)
	}
	return filepath.Join(templates.root, name)
}

func buildTemplates(t *testing.T) {
	root, err := os.MkdirTemp("", "pactify-templates-")
	if err != nil {
		templates.err = err.Error()
		return
	}
	templates.root = root
	for _, d := range []string{"empty", "pact", "v2", "home"} {
		if err := os.Mkdir(filepath.Join(root, d), 0o755); err != nil {
			templates.err = err.Error()
			return
		}
	}
	p := &project{t: t, dir: filepath.Join(root, "pact"), home: filepath.Join(root, "home"), now: t0}
	for _, s := range []struct {
		agent string
		args  []string
	}{
		{"orch", templateInit},
		{"orch", []string{"assign", "T1", "--feature", "F1", "--branch", "b1", "--owner", "alice", "--reviewer", "bob"}},
		{"orch", []string{"assign", "T4", "--feature", "F3", "--branch", "b3", "--owner", "alice", "--reviewer", "carol"}},
		{"orch", []string{"assign", "T3", "--feature", "F2", "--branch", "b2", "--owner", "alice", "--reviewer", "bob"}},
		{"alice", []string{"join", "alice", "--roles", "worker"}},
		{"alice", []string{"checkpoint", "T1", "--evidence", "done"}},
		{"alice", []string{"checkpoint", "T4", "--evidence", "done"}},
		{"carol", []string{"accept", "T4"}},
		{"orch", []string{"assign", "T2", "--feature", "F1", "--branch", "b1", "--owner", "bob", "--reviewer", "alice"}},
	} {
		if r := p.run(s.agent, s.args...); r.code != 0 {
			templates.err = "build the refusal template: " + r.String()
			return
		}
	}
	if got := p.state().statuses(); got != "F1=in_progress F3=accepted F2=in_progress T1=awaiting_review T4=accepted T3=in_progress T2=assigned" {
		templates.err = "the refusal template is not in the state the cases assume: " + got
		return
	}
	v2 := &project{t: t, dir: filepath.Join(root, "v2")}
	v2.write(".pact/log.jsonl", `{"event_id":"e1","ts":"2026-06-09T10:00:00Z","agent_id":"orch","role":"orchestrator","event_type":"init","task_id":"","feature":"","payload":{"project":"demo","protocol_version":2,"seats":[{"id":"orch","roles":["orchestrator"],"entry":"AGENTS.md"},{"id":"alice","roles":["worker","reviewer"],"entry":"AGENTS.md"}],"base_branch":"main"}}`+"\n")
	v2.write(".pact/STATE.yml", "project: demo\n")
	v2.write(".pact/PROJECT.md", "<!-- pact:begin -->\n# demo — Pact Charter (protocol_version: 2)\n<!-- pact:end -->\n")
}

// refusalCase is one command that must be refused and leave every file as
// it was.
type refusalCase struct {
	name  string
	tmpl  string // empty, pact or v2
	setup func(t *testing.T, dir string)
	agent string
	now   string // PACT_NOW; "" means t0 plus an hour
	args  []string
	code  int
	// want are substrings of stderr.
	want []string
	// control, when set, is an agent for which the same command succeeds in
	// a fresh copy: proof that the refusal is about what the case changes.
	control string
	// plainError marks an exit-2 failure that is not a usage error: one
	// line on stderr, the advice inside it.
	plainError bool
	// jsonReport: stdout must be validate's JSON object.
	jsonReport bool
}

func refusalCases() []refusalCase {
	var cases []refusalCase
	add := func(c ...refusalCase) { cases = append(cases, c...) }

	// PACT_AGENT_ID unset, empty or blank: every writing verb refuses and
	// names the variable; each command succeeds with the right seat.
	writers := []struct {
		name, tmpl, control string
		args                []string
	}{
		{"init", "empty", "orch", templateInit},
		{"init again", "pact", "orch", templateInit},
		{"join", "pact", "bob", []string{"join", "bob", "--roles", "worker"}},
		{"assign", "pact", "orch", []string{"assign", "T9", "--feature", "F9", "--branch", "b9", "--owner", "alice", "--reviewer", "bob"}},
		{"assign unsafe id", "pact", "", []string{"assign", "../x", "--feature", "F9", "--branch", "b9", "--owner", "alice", "--reviewer", "bob"}},
		{"checkpoint", "pact", "alice", []string{"checkpoint", "T3", "--evidence", "e"}},
		{"accept", "pact", "bob", []string{"accept", "T1"}},
		{"changes", "pact", "bob", []string{"changes", "T1", "--reason", "r"}},
		{"merge", "pact", "orch", []string{"merge", "F3"}},
		{"log --replay", "pact", "orch", []string{"log", "--replay"}},
	}
	for _, w := range writers {
		for _, a := range []struct{ name, agent string }{{"unset", unset}, {"empty", ""}, {"blank", " \t"}} {
			add(refusalCase{name: "PACT_AGENT_ID " + a.name + "/" + w.name, tmpl: w.tmpl, agent: a.agent, args: w.args, code: 1,
				want: []string{"PACT_AGENT_ID is not set", "export PACT_AGENT_ID="}, control: w.control})
		}
	}

	// A log whose last line has no line break (a write cut off half-way):
	// every writer refuses rather than seal it, an assign writes no task
	// file, and nothing else changes.
	torn := func(t *testing.T, dir string) {
		appendFile(t, filepath.Join(dir, ".pact", "log.jsonl"), `{"event_id":"torn`)
	}
	for _, w := range writers[2:] {
		if w.name == "log --replay" || w.name == "assign unsafe id" {
			continue
		}
		add(refusalCase{name: "unterminated last line/" + w.name, agent: w.control, args: w.args, setup: torn, code: 1,
			want: []string{"have no line break", "nothing was recorded", "cut the file back"}})
	}

	add(
		// Rule 1 and the authorization checks.
		refusalCase{name: "rule1 at assign", agent: "orch", args: []string{"assign", "T9", "--feature", "F9", "--branch", "b", "--owner", "alice", "--reviewer", "alice"},
			code: 1, want: []string{"rule1.owner_is_reviewer", "both owner and reviewer"}},
		refusalCase{name: "self-accept", agent: "alice", args: []string{"accept", "T1"}, code: 1, want: []string{"rule1.self_accept"}, control: "bob"},
		refusalCase{name: "changes by the owner", agent: "alice", args: []string{"changes", "T1", "--reason", "r"}, code: 1, want: []string{"rule1.self_accept"}, control: "bob"},
		refusalCase{name: "accept by a non-reviewer", agent: "carol", args: []string{"accept", "T1"}, code: 1, want: []string{"rule1.not_reviewer", "only its reviewer bob"}, control: "bob"},
		refusalCase{name: "checkpoint by a non-owner", agent: "bob", args: []string{"checkpoint", "T3", "--evidence", "e"}, code: 1, want: []string{"task.not_owner", "alice owns it"}, control: "alice"},
		refusalCase{name: "checkpoint before join", agent: "bob", args: []string{"checkpoint", "T2", "--evidence", "e"}, code: 1, want: []string{"state.invalid_transition", "join first"}},
		refusalCase{name: "accept twice", agent: "carol", args: []string{"accept", "T4"}, code: 1, want: []string{"state.invalid_transition", "it is accepted"}},
		refusalCase{name: "accept before checkpoint", agent: "bob", args: []string{"accept", "T3"}, code: 1, want: []string{"state.invalid_transition", "it is in_progress"}},
		refusalCase{name: "checkpoint twice", agent: "alice", args: []string{"checkpoint", "T1", "--evidence", "e"}, code: 1, want: []string{"state.invalid_transition"}},
		refusalCase{name: "rule2 merge", agent: "orch", args: []string{"merge", "F1"}, code: 1, want: []string{"rule2.unaccepted_tasks", "T1 is awaiting_review", "T2 is assigned"}},
		refusalCase{name: "merge of an unknown feature", agent: "orch", args: []string{"merge", "NOPE"}, code: 1, want: []string{"feature.unknown"}},
		refusalCase{name: "merge by a non-orchestrator", agent: "alice", args: []string{"merge", "F3"}, code: 1, want: []string{"roster.role_not_held"}, control: "orch"},
		refusalCase{name: "assign by a non-orchestrator", agent: "alice", args: []string{"assign", "T9", "--feature", "F9", "--branch", "b", "--owner", "alice", "--reviewer", "bob"},
			code: 1, want: []string{"roster.role_not_held"}, control: "orch"},
		refusalCase{name: "join by a seat without worker", agent: "carol", args: []string{"join", "carol", "--roles", "reviewer"}, code: 1, want: []string{"roster.role_not_held"}},
		refusalCase{name: "checkpoint of an unknown task", agent: "alice", args: []string{"checkpoint", "T99", "--evidence", "e"}, code: 1, want: []string{"task.unknown"}},
		refusalCase{name: "accept of an unknown task", agent: "bob", args: []string{"accept", "T99"}, code: 1, want: []string{"task.unknown"}},

		// Task ids.
		refusalCase{name: "duplicate task id", agent: "orch", args: []string{"assign", "T1", "--feature", "F9", "--branch", "b", "--owner", "alice", "--reviewer", "bob"},
			code: 1, want: []string{"task.duplicate_id", "already assigned"}},
		refusalCase{name: "duplicate task id, same feature", agent: "orch", args: []string{"assign", "T4", "--feature", "F3", "--branch", "b3", "--owner", "alice", "--reviewer", "carol"},
			code: 1, want: []string{"task.duplicate_id"}},
	)
	for _, id := range []string{"../x", "a/b", ".hidden", `a\b`, "..", "x..y", ""} {
		add(refusalCase{name: "unsafe task id " + id, agent: "orch",
			args: []string{"assign", "--feature", "F9", "--branch", "b", "--owner", "alice", "--reviewer", "bob", "--", id},
			code: 1, want: []string{"task.unsafe_id"}})
	}
	add(
		// Seats.
		refusalCase{name: "assign to an unknown seat", agent: "orch", args: []string{"assign", "T9", "--feature", "F9", "--branch", "b", "--owner", "zed", "--reviewer", "bob"},
			code: 1, want: []string{"roster.unknown_seat", `"zed"`}},
		refusalCase{name: "unknown reviewer seat", agent: "orch", args: []string{"assign", "T9", "--feature", "F9", "--branch", "b", "--owner", "alice", "--reviewer", "zed"},
			code: 1, want: []string{"roster.unknown_seat"}},
		refusalCase{name: "join of an unknown seat", agent: "zed", args: []string{"join", "zed", "--roles", "worker"}, code: 1, want: []string{"roster.unknown_seat"}},
		refusalCase{name: "accept by an unknown seat", agent: "zed", args: []string{"accept", "T1"}, code: 1, want: []string{"roster.unknown_seat"}, control: "bob"},
		refusalCase{name: "agent id that is not a slug", agent: "Alice", args: []string{"checkpoint", "T3", "--evidence", "e"}, code: 1, want: []string{"schema.envelope"}, control: "alice"},
		refusalCase{name: "join for another seat", agent: "alice", args: []string{"join", "bob", "--roles", "worker"}, code: 1,
			want: []string{"join names seat bob but PACT_AGENT_ID is alice", "PACT_AGENT_ID=bob pactify join bob"}, control: "bob"},

		// init after init.
		refusalCase{name: "init with a different roster", agent: "orch", args: []string{"init", "--project", "demo", "--seat", "orch:orchestrator:AGENTS.md"},
			code: 1, want: []string{"already initialised with a different project or roster"}},
		refusalCase{name: "init with different roles", agent: "orch", args: replaceArg(templateInit, "carol:reviewer:CLAUDE.md", "carol:reviewer,worker:CLAUDE.md"),
			code: 1, want: []string{"different project or roster"}},
		refusalCase{name: "init with a different project", agent: "orch", args: replaceArg(templateInit, "demo", "other"), code: 1, want: []string{"different project or roster", `"demo"`}},
		refusalCase{name: "init with a different base branch", agent: "orch", args: append(append([]string{}, templateInit...), "--base-branch", "trunk"), code: 1,
			want: []string{"different project or roster"}},

		// No pact yet; init by a seat that may not.
		refusalCase{name: "join without a pact", tmpl: "empty", agent: "alice", args: []string{"join", "alice", "--roles", "worker"}, code: 1, want: []string{"no pact here", "pactify init"}},
		refusalCase{name: "log --replay without a pact", tmpl: "empty", agent: "alice", args: []string{"log", "--replay"}, code: 1, want: []string{"no pact here"}},
		refusalCase{name: "init by a seat not in the roster", tmpl: "empty", agent: "zed", args: templateInit, code: 1, want: []string{"roster.unknown_seat"}, control: "orch"},
		refusalCase{name: "init by a seat without orchestrator", tmpl: "empty", agent: "alice", args: templateInit, code: 1, want: []string{"roster.role_not_held"}, control: "orch"},
		refusalCase{name: "status without a pact", tmpl: "empty", agent: unset, args: []string{"status"}, code: 2, plainError: true, want: []string{"no pact", "pactify init"}},
		refusalCase{name: "log without a pact", tmpl: "empty", agent: unset, args: []string{"log"}, code: 2, plainError: true, want: []string{"no pact", "pactify init"}},
		refusalCase{name: "validate without a pact", tmpl: "empty", agent: unset, args: []string{"validate"}, code: 2, plainError: true, want: []string{"no pact", "pactify init"}},

		// Entry files init will not write.
		refusalCase{name: "entry inside .pact", tmpl: "empty", agent: "orch", args: []string{"init", "--project", "x", "--seat", "orch:orchestrator:.pact/log.jsonl"},
			code: 2, want: []string{"holds the pact's own files"}},
		refusalCase{name: "entry that is .pact", tmpl: "empty", agent: "orch", args: []string{"init", "--project", "x", "--seat", "orch:orchestrator:.pact"},
			code: 2, want: []string{"holds the pact's own files"}},
		refusalCase{name: "entry above the repository", tmpl: "empty", agent: "orch", args: []string{"init", "--project", "x", "--seat", "orch:orchestrator:../x.md"},
			code: 2, want: []string{"must be a path inside the repository"}},
		refusalCase{name: "absolute entry", tmpl: "empty", agent: "orch", args: []string{"init", "--project", "x", "--seat", "orch:orchestrator:/tmp/x.md"},
			code: 2, want: []string{"must be a path inside the repository"}},
		refusalCase{name: "entry that is a directory", tmpl: "empty", agent: "orch", args: []string{"init", "--project", "x", "--seat", "orch:orchestrator:docs"},
			setup: func(t *testing.T, dir string) { mkdir(t, filepath.Join(dir, "docs")) }, code: 2, want: []string{"not a regular file"}},
		refusalCase{name: "entry symlink out of the repository", tmpl: "empty", agent: "orch", args: []string{"init", "--project", "x", "--seat", "orch:orchestrator:CLAUDE.md"},
			setup: func(t *testing.T, dir string) {
				outside := filepath.Join(t.TempDir(), "secret")
				if err := os.WriteFile(outside, []byte("secret\n"), 0o600); err != nil {
					t.Fatal(err)
				}
				symlink(t, outside, filepath.Join(dir, "CLAUDE.md"))
			}, code: 2, want: []string{"outside the repository"}},
		refusalCase{name: "entry under a symlinked directory out of the repository", tmpl: "empty", agent: "orch", args: []string{"init", "--project", "x", "--seat", "orch:orchestrator:docs/CLAUDE.md"},
			setup: func(t *testing.T, dir string) { symlink(t, t.TempDir(), filepath.Join(dir, "docs")) }, code: 2, want: []string{"outside the repository"}},
		refusalCase{name: "entry symlink into .pact", tmpl: "pact", agent: "orch", args: replaceArg(templateInit, "carol:reviewer:CLAUDE.md", "carol:reviewer:EVIL.md"),
			setup: func(t *testing.T, dir string) { symlink(t, ".pact/log.jsonl", filepath.Join(dir, "EVIL.md")) }, code: 2, want: []string{"holds the pact's own files"}},
		refusalCase{name: "dangling entry symlink", tmpl: "empty", agent: "orch", args: []string{"init", "--project", "x", "--seat", "orch:orchestrator:CLAUDE.md"},
			setup: func(t *testing.T, dir string) { symlink(t, "nowhere.md", filepath.Join(dir, "CLAUDE.md")) }, code: 2, want: []string{"cannot be used"}},
	)

	// Usage errors: exit 2, whoever runs them.
	usage := []struct {
		name string
		args []string
		want string
	}{
		{"no verb", []string{"--pact-dir", ".pact"}, "no verb given"},
		{"unknown verb", []string{"frobnicate"}, `unknown verb "frobnicate"`},
		{"init without --project", []string{"init", "--seat", "orch:orchestrator:AGENTS.md"}, "usage: pactify init"},
		{"init with an empty --project", []string{"init", "--project", "", "--seat", "orch:orchestrator:AGENTS.md"}, "usage: pactify init"},
		{"init without --seat", []string{"init", "--project", "x"}, "usage: pactify init"},
		{"init with a positional", []string{"init", "x", "--project", "x", "--seat", "orch:orchestrator:AGENTS.md"}, "usage: pactify init"},
		{"seat with two fields", []string{"init", "--project", "x", "--seat", "orch:orchestrator"}, "exactly three fields"},
		{"seat with four fields", []string{"init", "--project", "x", "--seat", "orch:orchestrator:A.md:x"}, "exactly three fields"},
		{"seat id not a slug", []string{"init", "--project", "x", "--seat", "Orch:orchestrator:AGENTS.md"}, "must match"},
		{"seat without roles", []string{"init", "--project", "x", "--seat", "orch::AGENTS.md"}, "at least one role"},
		{"seat with an unknown role", []string{"init", "--project", "x", "--seat", "orch:boss:AGENTS.md"}, `role "boss"`},
		{"seat without entry", []string{"init", "--project", "x", "--seat", "orch:orchestrator:"}, "must be a path inside the repository"},
		{"seat declared twice", []string{"init", "--project", "x", "--seat", "orch:orchestrator:A.md", "--seat", "orch:worker:B.md"}, "declared twice"},
		{"--project twice", []string{"init", "--project", "x", "--project", "y", "--seat", "orch:orchestrator:A.md"}, "--project is given twice"},
		{"join without --roles", []string{"join", "alice"}, "usage: pactify join"},
		{"join without a seat", []string{"join", "--roles", "worker"}, "usage: pactify join"},
		{"join with two seats", []string{"join", "alice", "bob", "--roles", "worker"}, "usage: pactify join"},
		{"assign without --feature", []string{"assign", "T9", "--branch", "b", "--owner", "alice", "--reviewer", "bob"}, "usage: pactify assign"},
		{"assign without --branch", []string{"assign", "T9", "--feature", "F", "--owner", "alice", "--reviewer", "bob"}, "usage: pactify assign"},
		{"assign without --owner", []string{"assign", "T9", "--feature", "F", "--branch", "b", "--reviewer", "bob"}, "usage: pactify assign"},
		{"assign without --reviewer", []string{"assign", "T9", "--feature", "F", "--branch", "b", "--owner", "alice"}, "usage: pactify assign"},
		{"assign without a task id", []string{"assign", "--feature", "F", "--branch", "b", "--owner", "alice", "--reviewer", "bob"}, "usage: pactify assign"},
		{"assign with --feature twice", []string{"assign", "T9", "--feature", "F", "--feature", "G", "--branch", "b", "--owner", "alice", "--reviewer", "bob"}, "--feature is given twice"},
		{"checkpoint without --evidence", []string{"checkpoint", "T3"}, "usage: pactify checkpoint"},
		{"checkpoint without a task", []string{"checkpoint", "--evidence", "e"}, "usage: pactify checkpoint"},
		{"--evidence without a value", []string{"checkpoint", "T3", "--evidence"}, "--evidence needs a value"},
		{"changes without --reason", []string{"changes", "T1"}, "usage: pactify changes"},
		{"accept without a task", []string{"accept"}, "usage: pactify accept"},
		{"accept with two tasks", []string{"accept", "T1", "T3"}, "usage: pactify accept"},
		{"accept with an unknown flag", []string{"accept", "T1", "--force"}, "accept does not take the flag --force"},
		{"merge without a feature", []string{"merge"}, "usage: pactify merge"},
		{"merge with an empty feature", []string{"merge", ""}, "usage: pactify merge"},
		{"merge with a flag", []string{"merge", "F3", "--yes"}, "merge does not take the flag --yes"},
		{"status with a flag", []string{"status", "--all"}, "status does not take the flag --all"},
		{"log with a positional", []string{"log", "x"}, "usage: pactify log"},
		{"log --replay with a value", []string{"log", "--replay=yes"}, "--replay takes no value"},
		{"validate with an unknown format", []string{"validate", "--format", "xml"}, "--format must be text, json or sarif"},
		{"validate with a positional", []string{"validate", "x"}, "usage: pactify validate"},
	}
	for _, u := range usage {
		for _, agent := range []string{"orch", unset} {
			name := "usage/" + u.name
			if agent == unset {
				name += " (no PACT_AGENT_ID)"
			}
			add(refusalCase{name: name, agent: agent, args: u.args, code: 2, want: []string{u.want}})
		}
	}
	add(refusalCase{name: "usage/PACT_NOW that is not a time", agent: "alice", now: "yesterday", args: []string{"checkpoint", "T3", "--evidence", "e"},
		code: 2, want: []string{`PACT_NOW "yesterday" is not an RFC 3339 time`}})

	// A log that needs protocol_version 2: every verb but help fails closed
	// with exit 3 and an upgrade message.
	for _, args := range [][]string{
		templateInit,
		{"init", "--project", "demo", "--seat", "orch:orchestrator:AGENTS.md", "--seat", "alice:worker,reviewer:AGENTS.md"},
		{"join", "alice", "--roles", "worker"},
		{"assign", "T1", "--feature", "F", "--branch", "b", "--owner", "alice", "--reviewer", "orch"},
		{"checkpoint", "T1", "--evidence", "e"},
		{"accept", "T1"},
		{"changes", "T1", "--reason", "r"},
		{"merge", "F"},
		{"status"},
		{"log"},
		{"log", "--replay"},
		{"validate"},
		{"validate", "--format", "sarif"},
	} {
		add(refusalCase{name: "protocol_version 2/" + strings.Join(args[:min(2, len(args))], " "), tmpl: "v2", agent: "alice", args: args, code: 3,
			want: []string{"protocol_version 2", "upgrade"}})
	}
	add(refusalCase{name: "protocol_version 2/validate --format json", tmpl: "v2", agent: unset, args: []string{"validate", "--format", "json"}, code: 3,
		want: []string{"protocol_version 2", "upgrade"}, jsonReport: true})
	return cases
}

func replaceArg(args []string, old, repl string) []string {
	out := append([]string{}, args...)
	for i, a := range out {
		if a == old {
			out[i] = repl
		}
	}
	return out
}

func mkdir(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	symlinkOrSkip(t, target, link)
}

var (
	// A refusal is "pactify: refused: <one line>" and "hint: <one line>".
	refusalShape = regexp.MustCompile(`^pactify: refused: [^\n]+\nhint: [^\n]+\n$`)
	// A usage error says what is wrong and where the reference is.
	usageShape = regexp.MustCompile("^pactify: [^\n]+\nRun `pactify help` for the verb reference\\.\n$")
	// Failing closed on a newer major says so and how to upgrade.
	unsupportedShape = regexp.MustCompile(`^pactify: [^\n]+\nhint: [^\n]+\n$`)
	plainShape       = regexp.MustCompile(`^pactify: [^\n]+\n$`)
)

func TestRefusals(t *testing.T) {
	t.Parallel()
	for _, c := range refusalCases() {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			p := newProject(t)
			p.now = c.now
			if p.now == "" {
				p.now = "2026-06-09T11:00:00Z"
			}
			tmpl := c.tmpl
			if tmpl == "" {
				tmpl = "pact"
			}
			copyTree(t, template(t, tmpl), p.dir)
			if c.setup != nil {
				c.setup(t, p.dir)
			}
			before := snapshot(t, p.dir)
			r := p.run(c.agent, c.args...)
			if r.code != c.code {
				t.Fatalf("want exit %d\n%s", c.code, r)
			}
			for _, w := range c.want {
				if !strings.Contains(strings.ToLower(r.stderr), strings.ToLower(w)) {
					t.Errorf("stderr should contain %q\n%s", w, r)
				}
			}
			shape := map[int]*regexp.Regexp{1: refusalShape, 2: usageShape, 3: unsupportedShape}[c.code]
			if c.plainError {
				shape = plainShape
			}
			if !shape.MatchString(r.stderr) {
				t.Errorf("stderr is not a one-line message and a hint (%s)\n%s", shape, r)
			}
			if c.jsonReport {
				var rep validateJSON
				if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
					t.Fatalf("validate --format json must still print its object: %v\n%s", err, r)
				}
				if rep.Valid || rep.Errors != 1 || len(rep.Findings) != 1 || rep.Findings[0].Code != "version.unsupported" || rep.Findings[0].Line != 1 {
					t.Errorf("report on a protocol_version 2 log: %+v", rep)
				}
			} else if c.code != 3 && r.stdout != "" {
				t.Errorf("a refused command printed to stdout\n%s", r)
			}
			sameTree(t, before, snapshot(t, p.dir))

			if c.control != "" {
				ctl := newProject(t)
				ctl.now = p.now
				copyTree(t, template(t, tmpl), ctl.dir)
				if c.setup != nil {
					c.setup(t, ctl.dir)
				}
				if r := ctl.run(c.control, c.args...); r.code != 0 {
					t.Fatalf("control: the same command as %s should succeed\n%s", c.control, r)
				}
			}
		})
	}
}

// TestHelpIgnoresTheLog: help is the one verb a newer protocol major does
// not stop.
func TestHelpIgnoresTheLog(t *testing.T) {
	t.Parallel()
	p := newProject(t)
	copyTree(t, template(t, "v2"), p.dir)
	before := snapshot(t, p.dir)
	for _, args := range [][]string{{"help"}, {"--help"}, {"-h"}} {
		r := p.run(unset, args...)
		if r.code != 0 || !strings.HasPrefix(r.stdout, "pactify — the Pact protocol v1 command line") || r.stderr != "" {
			t.Fatalf("help on a protocol_version 2 log:\n%s", r)
		}
	}
	sameTree(t, before, snapshot(t, p.dir))
}
