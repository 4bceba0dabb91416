package action_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/pact-action/pact-action/internal/prose"
	"github.com/pact-action/pact-action/internal/testkit/e2e"
	"github.com/pact-action/pact-action/internal/testkit/fakegithub"
	"github.com/pact-action/pact-action/report"
)

// anyCommand is any line a runner would take for a workflow command, on
// stdout or stderr (the runner reads both).
var anyCommand = regexp.MustCompile(`(?m)^::[a-z-]+( [^:]*)?::.*$`)

// TestBinaryTaskIdCannotInjectWorkflowCommands: a task id may hold a line
// break (ids are file names, and only /, \, .., NUL and a leading dot are
// refused), so a worker can name a task
// "T1\n::error title=pact::✅ pact: all accepted" and make reading its
// file fail (over max-pact-bytes). The path reaches the job's error line
// and its error annotation; neither may start a line of its own there,
// where the runner would run it as a workflow command (a forged
// annotation, ::add-mask::, ::stop-commands:: hiding the real ones), nor
// carry a bidirectional control raw.
func TestBinaryTaskIdCannotInjectWorkflowCommands(t *testing.T) {
	t.Parallel()
	const id = "T1\n::error title=pact::✅ pact: all accepted\r\n::stop-commands::x\u202e"
	s := e2e.NewServer(t)
	base := e2e.NewLog().Assign(id, "LOGIN", "feat/login", "dev", "rev")
	s.CommitFiles(e2e.Owner, e2e.Repo, "main", with(base.Files(), ".github/pact.yml", provenanceOff), "lead")
	head := s.CommitFiles(e2e.Owner, e2e.Repo, "feat/login", with(base.Copy().Join("dev").Files(), ".pact/tasks/"+id+".md", strings.Repeat("x", 300<<10)), "dev", fakegithub.From("main"))
	n := s.OpenPR(e2e.Owner, e2e.Repo, fakegithub.PRSeed{Head: "feat/login", Base: "main"})

	res := e2e.Run{Server: s, EventName: "pull_request", Payload: prPayload(t, s, n, "feat/login", "main"),
		Inputs: map[string]string{"max-pact-bytes": "128KiB"}}.Exec(t)

	wantExit(t, res, 2)
	stoppedByBudget(t, s, head, ".pact/tasks/"+id+".md")
	for what, out := range map[string]string{"stdout": res.Stdout, "stderr": res.Stderr} {
		for _, l := range anyCommand.FindAllString(out, -1) {
			if !strings.HasPrefix(l, "::error::pact-action could not judge ") {
				t.Errorf("%s has a workflow command the action did not write: %q\n%s", what, l, out)
			}
		}
		if strings.ContainsRune(out, '\u202e') {
			t.Errorf("%s carries U+202E raw:\n%s", what, out)
		}
	}
	noViolations(t, s)
}

// TestBinaryBotTaskIdCannotInjectWorkflowCommands: the bot's job log
// names what it recorded ("accept <task> (review …)") with the task id
// as the log spells it; a reviewer's approval of a task whose id holds a
// line break and a workflow command must not run it.
func TestBinaryBotTaskIdCannotInjectWorkflowCommands(t *testing.T) {
	t.Parallel()
	const id = "T1\n::error title=pact::✅ pact: all accepted\u202e"
	b := newBotScenario(t, botOpts{taskID: id})
	payload, _ := b.review(t, "revuser", "approved", "LGTM")

	res := e2e.Run{Server: b.s, EventName: "pull_request_review", Payload: payload}.Exec(t)

	wantExit(t, res, 0)
	if len(b.newCommits(t)) != 1 {
		t.Fatalf("the approval was not recorded:\n%s", res.Stdout)
	}
	contains(t, "stdout", res.Stdout, `accept T1 ::error title=pact::✅ pact: all accepted\u202e (review`)
	for what, out := range map[string]string{"stdout": res.Stdout, "stderr": res.Stderr} {
		if l := anyCommand.FindAllString(out, -1); len(l) > 0 {
			t.Errorf("%s has workflow commands the action did not write: %q\n%s", what, l, out)
		}
		if strings.ContainsRune(out, '\u202e') {
			t.Errorf("%s carries U+202E raw:\n%s", what, out)
		}
	}
	noViolations(t, b.s)
}

// TestBinaryTasksListingFlood: 30,000 empty files under .pact/tasks/ (at 100,000: a peak of
// 78 MiB) and
// one whose name is 10 KB, none of them named by an event: the check
// lists them (it never reads them) and is judged within a bounded
// memory and output.
func TestBinaryTasksListingFlood(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("commits 30,000 files")
	}
	b := seedBudget(t, 1, "off")
	junk := map[string]string{".pact/tasks/" + strings.Repeat("n", 10_000) + ".md": "x"}
	for i := range 30_000 {
		junk[fmt.Sprintf(".pact/tasks/J%d.md", i)] = ""
	}
	b.head = b.s.CommitFiles(e2e.Owner, e2e.Repo, "feat/login", junk, provDevGH, fakegithub.Verified())

	res := e2e.Run{Server: b.s, EventName: "pull_request", Payload: prPayload(t, b.s, b.pr, "feat/login", "main"), MeasureRSS: true}.Exec(t)

	wantExit(t, res, 0)
	run := onlyRun(t, b.s, b.head, "pact", report.ConclusionWaiting)
	t.Logf("peak RSS %s, stdout %d bytes, summary %d bytes", prose.Bytes(res.MaxRSS), len(res.Stdout), len(run.Summary))
	if res.MaxRSS > 256<<20 {
		t.Errorf("peak resident set %s, over 256 MiB", prose.Bytes(res.MaxRSS))
	}
	if len(res.Stdout)+len(res.Stderr)+len(res.Summary) > 1<<20 {
		t.Errorf("%d bytes of output", len(res.Stdout)+len(res.Stderr)+len(res.Summary))
	}
	noViolations(t, b.s)
}
