package main

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

// at sets PACT_NOW to t0 plus the given minutes and returns it.
func (p *project) at(minutes int) string {
	ts, err := time.Parse(time.RFC3339, t0)
	if err != nil {
		p.t.Fatal(err)
	}
	p.now = ts.Add(time.Duration(minutes) * time.Minute).UTC().Format(time.RFC3339)
	return p.now
}

// step runs a writing verb that must succeed and append exactly one line,
// then checks the line's envelope and that validate is still clean. It
// returns the new line.
func (p *project) step(agent string, args ...string) wireEvent {
	p.t.Helper()
	before := p.logLines()
	r := p.ok(agent, args...)
	after := p.logLines()
	if len(after) != len(before)+1 {
		p.t.Fatalf("%q appended %d lines, want 1", args, len(after)-len(before))
	}
	if !slices.Equal(after[:len(before)], before) {
		p.t.Fatalf("%q rewrote earlier log lines", args)
	}
	ev := parseLine(p.t, after[len(after)-1])
	want := fmt.Sprintf("appended event %s on line %d of .pact/log.jsonl", ev.EventID, len(after))
	if !strings.Contains(r.stdout, want) {
		p.t.Fatalf("stdout should say %q\n%s", want, r)
	}
	if !regexp.MustCompile(`^[0-9a-f]{32}$`).MatchString(ev.EventID) {
		p.t.Fatalf("event_id %q is not 128-bit hex", ev.EventID)
	}
	if ev.AgentID != agent {
		p.t.Fatalf("agent_id = %q, want %q", ev.AgentID, agent)
	}
	if want := RoleForTest(ev.EventType); ev.Role != want {
		p.t.Fatalf("role = %q for %s, want %q", ev.Role, ev.EventType, want)
	}
	return ev
}

// RoleForTest is docs/semantics.md, pact v1 §2.3's table, written out independently of the engine.
func RoleForTest(eventType string) string {
	return map[string]string{"init": "orchestrator", "assign": "orchestrator", "merge": "orchestrator",
		"join": "worker", "checkpoint": "worker", "accept": "reviewer", "changes_requested": "reviewer"}[eventType]
}

// stateDoc is the part of STATE.yml the tests read.
type stateDoc struct {
	Project         string `yaml:"project"`
	ProtocolVersion int    `yaml:"protocol_version"`
	BaseBranch      string `yaml:"base_branch"`
	Seats           []struct {
		ID     string   `yaml:"id"`
		Roles  []string `yaml:"roles"`
		Entry  string   `yaml:"entry"`
		Online bool     `yaml:"online"`
	} `yaml:"seats"`
	Features []struct {
		ID     string   `yaml:"id"`
		Status string   `yaml:"status"`
		Tasks  []string `yaml:"tasks"`
	} `yaml:"features"`
	Tasks []struct {
		ID         string `yaml:"id"`
		Feature    string `yaml:"feature"`
		Owner      string `yaml:"owner"`
		Reviewer   string `yaml:"reviewer"`
		Branch     string `yaml:"branch"`
		Spec       string `yaml:"spec"`
		Status     string `yaml:"status"`
		Rounds     int    `yaml:"rounds"`
		LastReason string `yaml:"last_reason"`
	} `yaml:"tasks"`
}

func (p *project) state() stateDoc {
	p.t.Helper()
	var doc stateDoc
	if err := yaml.Unmarshal([]byte(p.read(".pact/STATE.yml")), &doc); err != nil {
		p.t.Fatalf("STATE.yml: %v", err)
	}
	return doc
}

// statuses is "T1=status ..." for every task and "F=status" for every
// feature, in STATE.yml order: one string to compare per step.
func (s stateDoc) statuses() string {
	var parts []string
	for _, f := range s.Features {
		parts = append(parts, f.ID+"="+f.Status)
	}
	for _, t := range s.Tasks {
		parts = append(parts, t.ID+"="+t.Status)
	}
	return strings.Join(parts, " ")
}

func (p *project) wantStatuses(want string) {
	p.t.Helper()
	if got := p.state().statuses(); got != want {
		p.t.Fatalf("STATE.yml statuses:\n got %s\nwant %s", got, want)
	}
}

const houseRules = "# House rules\n\nBe kind to the build.\n"

var initArgs = []string{"init", "--project", "demo",
	"--seat", "orch:orchestrator:AGENTS.md",
	"--seat", "ana:worker:AGENTS.md",
	"--seat", "rex:reviewer:CLAUDE.md",
	"--seat", "vic:worker,reviewer:docs/VIC.md"}

func TestEndToEnd(t *testing.T) {
	t.Parallel()
	p := newProject(t)
	p.write("CLAUDE.md", houseRules)

	// help needs no pact and no seat.
	if r := p.run(unset, "help"); r.code != 0 || !strings.Contains(r.stdout, "checkpoint <task_id> --evidence") || r.stderr != "" {
		t.Fatalf("help:\n%s", r)
	}
	// Read verbs before init say what to do and exit 2.
	for _, verb := range []string{"status", "log", "validate"} {
		if r := p.run(unset, verb); r.code != 2 || !strings.Contains(r.stderr, "pactify init") {
			t.Fatalf("%s before init: want exit 2 naming init\n%s", verb, r)
		}
	}

	// init.
	ts := p.at(0)
	r := p.run("orch", initArgs...)
	if r.code != 0 || !strings.Contains(r.stdout, "on line 1 of .pact/log.jsonl; seats: orch, ana, rex, vic") {
		t.Fatalf("init:\n%s", r)
	}
	p.mustValidate()
	lines := p.logLines()
	if len(lines) != 1 {
		t.Fatalf("init wrote %d lines, want 1", len(lines))
	}
	ev := parseLine(t, lines[0])
	if ev.EventType != "init" || ev.AgentID != "orch" || ev.Role != "orchestrator" || ev.TS != ts || ev.TaskID != "" || ev.Feature != "" {
		t.Fatalf("init envelope: %+v", ev)
	}
	if ev.Payload["project"] != "demo" || ev.Payload["protocol_version"] != 1.0 || ev.Payload["base_branch"] != "main" {
		t.Fatalf("init payload: %v", ev.Payload)
	}
	if seats := fmt.Sprint(ev.Payload["seats"]); seats != "[map[entry:AGENTS.md id:orch roles:[orchestrator]] map[entry:AGENTS.md id:ana roles:[worker]] map[entry:CLAUDE.md id:rex roles:[reviewer]] map[entry:docs/VIC.md id:vic roles:[worker reviewer]]]" {
		t.Fatalf("init seats: %s", seats)
	}
	st := p.state()
	if st.Project != "demo" || st.ProtocolVersion != 1 || st.BaseBranch != "main" || len(st.Seats) != 4 || len(st.Tasks) != 0 || len(st.Features) != 0 {
		t.Fatalf("STATE.yml after init: %+v", st)
	}
	for _, s := range st.Seats {
		if s.Online {
			t.Fatalf("seat %s online before any join", s.ID)
		}
	}

	// Managed blocks: PROJECT.md carries the versioned header inside the
	// markers and a charter outside; entry files name their seats; the
	// pre-existing CLAUDE.md keeps its text and its mode.
	project := p.read(".pact/PROJECT.md")
	if !strings.HasPrefix(project, "<!-- pact:begin -->\n# demo — Pact Charter (protocol_version: 1)\n") ||
		!strings.HasSuffix(project, "<!-- pact:end -->\n\n## Charter\n\nDescribe the project's goals here.\n") ||
		!strings.Contains(project, "| vic | worker, reviewer | docs/VIC.md |") {
		t.Fatalf("PROJECT.md:\n%s", project)
	}
	claude := p.read("CLAUDE.md")
	if !strings.HasPrefix(claude, houseRules+"\n<!-- pact:begin -->\n") || !strings.HasSuffix(claude, "<!-- pact:end -->\n") ||
		!strings.Contains(claude, "export PACT_AGENT_ID=rex\npactify status\n") || !strings.Contains(claude, "pactify accept <task_id>\n") ||
		strings.Contains(claude, "pactify join") || strings.Contains(claude, "PACT_AGENT_ID=ana") {
		t.Fatalf("CLAUDE.md:\n%s", claude)
	}
	agents := p.read("AGENTS.md")
	// Each seat is told what its roles allow (TestEntryFileCommandsRun
	// runs them all): orch, no worker, does not join.
	if !strings.Contains(agents, "export PACT_AGENT_ID=orch\npactify status\n") || strings.Contains(agents, "pactify join orch") ||
		!strings.Contains(agents, "export PACT_AGENT_ID=ana\npactify status\n") || !strings.Contains(agents, "pactify join ana --roles worker\n") ||
		strings.Index(agents, "PACT_AGENT_ID=orch") > strings.Index(agents, "PACT_AGENT_ID=ana") ||
		!strings.HasPrefix(agents, "<!-- pact:begin -->\n") || !strings.HasSuffix(agents, "<!-- pact:end -->\n") ||
		strings.Count(agents, "<!-- pact:begin -->") != 1 || strings.Contains(agents, "PACT_AGENT_ID=rex") {
		t.Fatalf("AGENTS.md:\n%s", agents)
	}
	if vic := p.read("docs/VIC.md"); !strings.Contains(vic, "pactify join vic --roles worker,reviewer\n") {
		t.Fatalf("docs/VIC.md:\n%s", vic)
	}
	for _, f := range []string{"CLAUDE.md", "AGENTS.md", ".pact/STATE.yml", ".pact/PROJECT.md", ".pact/log.jsonl"} {
		if fi, err := os.Stat(p.path(f)); err != nil || fi.Mode().Perm()&0o044 != 0o044 {
			t.Fatalf("%s should stay readable by group and others (mode %v, %v)", f, fi.Mode(), err)
		}
	}

	// init again with the same arguments is idempotent: nothing changes.
	before := snapshot(t, p.dir)
	p.at(1)
	if r := p.run("orch", initArgs...); r.code != 0 || !strings.Contains(r.stdout, "already initialised") {
		t.Fatalf("second init:\n%s", r)
	}
	sameTree(t, before, snapshot(t, p.dir))

	// Text outside the markers survives a re-init; text inside is restored.
	p.write(".pact/PROJECT.md", "Intro by hand.\n"+strings.Replace(project, "Base branch", "Hacked branch", 1)+"\nFooter by hand.\n")
	p.write("CLAUDE.md", claude+"\nMore rules after the block.\n")
	if r := p.run("orch", initArgs...); r.code != 0 {
		t.Fatalf("third init:\n%s", r)
	}
	if got, want := p.read(".pact/PROJECT.md"), "Intro by hand.\n"+project+"\nFooter by hand.\n"; got != want {
		t.Fatalf("PROJECT.md after re-init:\n%s\nwant:\n%s", got, want)
	}
	if got, want := p.read("CLAUDE.md"), claude+"\nMore rules after the block.\n"; got != want {
		t.Fatalf("CLAUDE.md after re-init:\n%s\nwant:\n%s", got, want)
	}
	if n := len(p.logLines()); n != 1 {
		t.Fatalf("re-init appended: %d lines", n)
	}
	p.mustValidate()

	// assign: T1 and T2 in feature login, T3 in feature pay.
	p.at(2)
	ev = p.step("orch", "assign", "T1", "--feature", "login", "--branch", "feat/login", "--owner", "ana", "--reviewer", "rex")
	if ev.EventType != "assign" || ev.TaskID != "T1" || ev.Feature != "login" ||
		fmt.Sprint(ev.Payload) != "map[branch:feat/login owner:ana reviewer:rex spec:.pact/tasks/T1.md]" {
		t.Fatalf("assign T1: %+v", ev)
	}
	if got, want := p.read(".pact/tasks/T1.md"), "---\nid: T1\nfeature: login\nowner: ana\nreviewer: rex\n---\n## Spec\n\n## Acceptance\n- [ ] \n\n## Handoff log\n"; got != want {
		t.Fatalf("tasks/T1.md:\n%s\nwant:\n%s", got, want)
	}
	// Flags between and around positionals, --flag=value, an explicit spec.
	p.at(3)
	ev = p.step("orch", "assign", "--feature=login", "T2", "--owner", "vic", "--branch=feat/login", "--reviewer=rex", "--spec", "docs/t2.md")
	if ev.TaskID != "T2" || ev.Payload["owner"] != "vic" || ev.Payload["spec"] != "docs/t2.md" {
		t.Fatalf("assign T2: %+v", ev)
	}
	p.at(4)
	p.step("orch", "assign", "T3", "--feature", "pay", "--branch", "feat/pay", "--owner", "ana", "--reviewer", "vic")
	if got := p.read(".pact/tasks/T3.md"); !strings.HasPrefix(got, "---\nid: T3\nfeature: pay\nowner: ana\nreviewer: vic\n---\n") {
		t.Fatalf("tasks/T3.md:\n%s", got)
	}
	p.wantStatuses("login=planned pay=planned T1=assigned T2=assigned T3=assigned")

	// join moves every assigned task of the seat to in_progress.
	p.at(5)
	ev = p.step("ana", "join", "ana", "--roles", "worker")
	if ev.TaskID != "" || ev.Feature != "" || fmt.Sprint(ev.Payload["roles"]) != "[worker]" {
		t.Fatalf("join: %+v", ev)
	}
	p.wantStatuses("login=in_progress pay=in_progress T1=in_progress T2=assigned T3=in_progress")
	if s := p.state().Seats[1]; s.ID != "ana" || !s.Online {
		t.Fatalf("ana not online after join: %+v", s)
	}

	// checkpoint, changes, checkpoint again, accept.
	p.at(6)
	ev = p.step("ana", "checkpoint", "T1", "--evidence", "tests pass\nsee CI run 12")
	if ev.Feature != "login" || ev.Payload["evidence"] != "tests pass\nsee CI run 12" {
		t.Fatalf("checkpoint: %+v", ev)
	}
	p.wantStatuses("login=in_progress pay=in_progress T1=awaiting_review T2=assigned T3=in_progress")
	p.at(7)
	ev = p.step("rex", "changes", "T1", "--reason", "needs a test for logout")
	if ev.EventType != "changes_requested" || ev.Payload["reason"] != "needs a test for logout" {
		t.Fatalf("changes: %+v", ev)
	}
	p.wantStatuses("login=in_progress pay=in_progress T1=in_progress T2=assigned T3=in_progress")
	if task := p.state().Tasks[0]; task.Rounds != 1 || task.LastReason != "needs a test for logout" {
		t.Fatalf("T1 after changes: %+v", task)
	}
	p.at(8)
	p.step("ana", "checkpoint", "T1", "--evidence", "added the logout test")
	p.at(9)
	ev = p.step("rex", "accept", "T1")
	if ev.EventType != "accept" || ev.Feature != "login" || len(ev.Payload) != 0 {
		t.Fatalf("accept outside a git work tree should carry an empty payload: %+v", ev)
	}
	p.wantStatuses("login=in_progress pay=in_progress T1=accepted T2=assigned T3=in_progress")

	// vic joins, hands in T2, rex accepts; the feature is accepted, then
	// shipped by merge.
	p.at(10)
	p.step("vic", "join", "vic", "--roles", "worker,reviewer")
	p.at(11)
	p.step("vic", "checkpoint", "T2", "--evidence", "done")
	p.wantStatuses("login=awaiting_review pay=in_progress T1=accepted T2=awaiting_review T3=in_progress")
	p.at(12)
	p.step("rex", "accept", "T2")
	p.wantStatuses("login=accepted pay=in_progress T1=accepted T2=accepted T3=in_progress")
	p.at(13)
	ev = p.step("orch", "merge", "login")
	if ev.EventType != "merge" || ev.TaskID != "" || ev.Feature != "login" || len(ev.Payload) != 0 {
		t.Fatalf("merge: %+v", ev)
	}
	p.wantStatuses("login=shipped pay=in_progress T1=accepted T2=accepted T3=in_progress")

	// A crashed worker re-joins: idempotent at the state level.
	p.at(14)
	p.step("ana", "join", "ana", "--roles", "worker")
	p.wantStatuses("login=shipped pay=in_progress T1=accepted T2=accepted T3=in_progress")

	// A clock behind the log's latest event never stamps an earlier ts.
	latest := p.at(15)
	p.step("ana", "checkpoint", "T3", "--evidence", "first cut")
	p.at(-60)
	ev = p.step("vic", "accept", "T3")
	if ev.TS != latest {
		t.Fatalf("ts of an event stamped with a clock behind the log = %s, want the latest %s", ev.TS, latest)
	}
	p.at(16)
	p.step("orch", "merge", "pay")
	p.wantStatuses("login=shipped pay=shipped T1=accepted T2=accepted T3=accepted")

	// Each step's ts is its PACT_NOW (the clamped one aside).
	lines = p.logLines()
	wantTS := []int{0, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 15, 16}
	if len(lines) != len(wantTS) {
		t.Fatalf("log has %d lines, want %d", len(lines), len(wantTS))
	}
	ids := map[string]bool{}
	for i, line := range lines {
		ev := parseLine(t, line)
		if want := p.at(wantTS[i]); ev.TS != want {
			t.Errorf("line %d: ts %s, want %s", i+1, ev.TS, want)
		}
		if ids[ev.EventID] {
			t.Errorf("line %d: event_id %s used twice", i+1, ev.EventID)
		}
		ids[ev.EventID] = true
	}

	// status prints STATE.yml; log prints the log.
	stateBytes := p.read(".pact/STATE.yml")
	if r := p.run(unset, "status"); r.code != 0 || r.stdout != stateBytes || r.stderr != "" {
		t.Fatalf("status should print STATE.yml as it is\n%s", r)
	}
	if r := p.run(unset, "log"); r.code != 0 || r.stdout != p.read(".pact/log.jsonl") || r.stderr != "" {
		t.Fatalf("log should print log.jsonl as it is\n%s", r)
	}

	// Recovery: a deleted STATE.yml is a warning, status falls back to a
	// fresh projection, and log --replay rebuilds it byte for byte.
	if err := os.Remove(p.path(".pact/STATE.yml")); err != nil {
		t.Fatal(err)
	}
	rep, r := p.validate()
	if r.code != 0 || !rep.Valid || len(rep.Findings) != 1 || rep.Findings[0].Code != "drift.missing_state" {
		t.Fatalf("validate without STATE.yml: want one drift.missing_state warning\n%s", r)
	}
	if r := p.run(unset, "status"); r.code != 0 || r.stdout != stateBytes || !strings.Contains(r.stderr, "log --replay") {
		t.Fatalf("status without STATE.yml should print a fresh projection and say how to write it\n%s", r)
	}
	logBefore := p.read(".pact/log.jsonl")
	if r := p.run("orch", "log", "--replay"); r.code != 0 || !strings.Contains(r.stdout, "rebuilt from 17 applied event(s)") {
		t.Fatalf("log --replay:\n%s", r)
	}
	if got := p.read(".pact/STATE.yml"); got != stateBytes {
		t.Fatalf("log --replay rebuilt a different STATE.yml:\n%s\nwant:\n%s", got, stateBytes)
	}
	p.mustValidate()

	// An edited STATE.yml is drift (an error) until log --replay.
	p.write(".pact/STATE.yml", strings.Replace(stateBytes, "status: shipped", "status: planned", 1))
	rep, r = p.validate()
	if r.code != 1 || rep.Valid || len(rep.Findings) != 1 || rep.Findings[0].Code != "drift.state" {
		t.Fatalf("validate with an edited STATE.yml: want one drift.state error, exit 1\n%s", r)
	}
	before = snapshot(t, p.dir)
	delete(before, ".pact/STATE.yml")
	for range 2 { // deterministic however often it runs
		if r := p.run("ana", "log", "--replay"); r.code != 0 {
			t.Fatalf("log --replay:\n%s", r)
		}
		if got := p.read(".pact/STATE.yml"); got != stateBytes {
			t.Fatalf("log --replay after an edit:\n%s\nwant:\n%s", got, stateBytes)
		}
	}
	after := snapshot(t, p.dir)
	delete(after, ".pact/STATE.yml")
	sameTree(t, before, after) // log --replay touches STATE.yml only
	if p.read(".pact/log.jsonl") != logBefore {
		t.Fatal("log --replay changed the log")
	}
	p.mustValidate()
}

// TestAcceptRecordsGitHead: in a git work tree, accept records the commit it
// was given on, and --commit overrides it.
func TestAcceptRecordsGitHead(t *testing.T) {
	t.Parallel()
	p := newProject(t)
	git := gitIn(t, p)
	git("init", "-q")
	p.ok("orch", "init", "--project", "g", "--seat", "orch:orchestrator:AGENTS.md", "--seat", "ana:worker:AGENTS.md", "--seat", "rex:reviewer:AGENTS.md")
	p.step("orch", "assign", "T1", "--feature", "F", "--branch", "b", "--owner", "ana", "--reviewer", "rex")
	p.step("orch", "assign", "T2", "--feature", "F", "--branch", "b", "--owner", "ana", "--reviewer", "rex")
	p.step("ana", "join", "ana", "--roles", "worker")
	p.step("ana", "checkpoint", "T1", "--evidence", "e")
	p.step("ana", "checkpoint", "T2", "--evidence", "e")
	git("add", "-A")
	git("commit", "-q", "-m", "work")
	head := git("rev-parse", "HEAD")
	if ev := p.step("rex", "accept", "T1"); ev.Payload["commit"] != head {
		t.Fatalf("accept in a work tree: payload %v, want commit %s", ev.Payload, head)
	}
	if ev := p.step("rex", "accept", "T2", "--commit", "abc123"); ev.Payload["commit"] != "abc123" {
		t.Fatalf("accept --commit: payload %v", ev.Payload)
	}
}

// TestInitEntrySymlink: an entry file that is a symlink inside the
// repository (CLAUDE.md -> AGENTS.md) is written through, not replaced, and
// seats whose entries are one file share one block.
func TestInitEntrySymlink(t *testing.T) {
	t.Parallel()
	p := newProject(t)
	p.write("AGENTS.md", "Shared rules.\n")
	symlinkOrSkip(t, "AGENTS.md", p.path("CLAUDE.md"))
	p.ok("orch", "init", "--project", "s", "--seat", "orch:orchestrator:AGENTS.md", "--seat", "rex:reviewer:CLAUDE.md")
	if link, err := os.Readlink(p.path("CLAUDE.md")); err != nil || link != "AGENTS.md" {
		t.Fatalf("CLAUDE.md is no longer the symlink to AGENTS.md: %q, %v", link, err)
	}
	got := p.read("AGENTS.md")
	if !strings.HasPrefix(got, "Shared rules.\n\n<!-- pact:begin -->\n") || strings.Count(got, "<!-- pact:begin -->") != 1 ||
		!strings.Contains(got, "export PACT_AGENT_ID=orch\n") || !strings.Contains(got, "export PACT_AGENT_ID=rex\n") {
		t.Fatalf("AGENTS.md should hold one block naming both seats:\n%s", got)
	}
	before := snapshot(t, p.dir)
	p.ok("orch", "init", "--project", "s", "--seat", "orch:orchestrator:AGENTS.md", "--seat", "rex:reviewer:CLAUDE.md")
	sameTree(t, before, snapshot(t, p.dir))
}

// TestLogReplayTaskFiles: log --replay --task-files writes the front
// matter of each task file that is missing or disagrees with the log,
// keeps every body, and leaves a file that agrees as it is (what
// taskfile.mismatch and taskfile.missing ask for, docs/codes.md).
func TestLogReplayTaskFiles(t *testing.T) {
	t.Parallel()
	p := newProject(t)
	p.ok("orch", initArgs...)
	for _, id := range []string{"T1", "T2", "T3"} {
		p.ok("orch", "assign", id, "--feature", "F", "--branch", "feat", "--owner", "ana", "--reviewer", "rex")
	}
	agrees := p.read(".pact/tasks/T1.md") + "Notes that agree.\n"
	p.write(".pact/tasks/T1.md", agrees)
	before, err := os.Stat(p.path(".pact/tasks/T1.md"))
	must(t, err)
	p.write(".pact/tasks/T2.md", "---\nid: T2\nfeature: F\nowner: vic\nreviewer: rex\n---\nBody by hand.\n")
	p.remove(".pact/tasks/T3.md")

	if r := p.run("orch", "log", "--task-files"); r.code != 2 || !strings.Contains(r.stderr, "needs --replay") {
		t.Fatalf("log --task-files without --replay: want a usage error\n%s", r)
	}
	r := p.ok("orch", "log", "--replay", "--task-files")
	if !strings.Contains(r.stdout, "wrote the front matter of 2 task file(s) from the log: T2, T3") {
		t.Errorf("log --replay --task-files should name what it wrote:\n%s", r)
	}
	if got := p.read(".pact/tasks/T2.md"); got != "---\nid: T2\nfeature: F\nowner: ana\nreviewer: rex\n---\nBody by hand.\n" {
		t.Errorf("tasks/T2.md should have the log's front matter and its own body:\n%s", got)
	}
	if got := p.read(".pact/tasks/T3.md"); !strings.HasPrefix(got, "---\nid: T3\nfeature: F\nowner: ana\nreviewer: rex\n---\n") {
		t.Errorf("tasks/T3.md should be written again:\n%s", got)
	}
	after, err := os.Stat(p.path(".pact/tasks/T1.md"))
	must(t, err)
	if got := p.read(".pact/tasks/T1.md"); got != agrees || !os.SameFile(before, after) || !after.ModTime().Equal(before.ModTime()) {
		t.Errorf("tasks/T1.md agreed with the log and should not be written")
	}
	if r := p.ok("orch", "log", "--replay", "--task-files"); !strings.Contains(r.stdout, "every task file agrees with the log") {
		t.Errorf("a second run should write nothing:\n%s", r)
	}
	if rep, r := p.validate("--task-files"); len(rep.Findings) != 0 {
		t.Errorf("validate --task-files after the replay:\n%s", r)
	}
}
