package action_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/pact-action/pact-action/action"
	"github.com/pact-action/pact-action/internal/testkit/e2e"
	"github.com/pact-action/pact-action/internal/testkit/fakegithub"
	"github.com/pact-action/pact-action/report"
)

// Bounded reads of .pact/: whoever pushes to a pull request writes the
// bytes under .pact/, so a judgement reads only the files the protocol
// names (the log, STATE.yml, PROJECT.md, the task files of the tasks the
// log assigns), counts every byte it reads against max-pact-bytes, and
// past it fails with one sentence; a scheduled or manual re-judge judges
// each pull request apart, so one that cannot be judged does not stop the
// others.

// junkFiles are files under .pact/tasks/ that no event names: n of size
// bytes each, compressible (one letter repeated), each its own blob.
func junkFiles(n, size int) map[string]string {
	out := map[string]string{}
	for i := range n {
		head := fmt.Sprintf("junk %d\n", i)
		out[fmt.Sprintf(".pact/tasks/junk-%03d.md", i)] = head + strings.Repeat(string(rune('a'+i%26)), max(0, size-len(head)))
	}
	return out
}

// seedJunk is seedBudget's one-task pull request (dev's checkpoint of T1,
// waiting for rev) with n junk files of size bytes added under
// .pact/tasks/ in one more commit.
func seedJunk(t *testing.T, n, size int, opts ...fakegithub.Option) *budgetRepo {
	t.Helper()
	b := seedBudget(t, 1, "off", opts...)
	junk := junkFiles(n, size)
	b.head = b.s.CommitFiles(e2e.Owner, e2e.Repo, "feat/login", junk, provDevGH, fakegithub.Verified())
	for p, c := range junk {
		b.files[p] = c
	}
	return b
}

// withBudget sets the max-pact-bytes the binary would pass.
func withBudget(n int64) func(*action.Settings) {
	return func(st *action.Settings) { st.MaxPactBytes = n }
}

// TestJunkUnderTasksIsNotRead: a pull request that adds 20 MiB of files
// no event names under .pact/tasks/ is judged as if they were not there:
// under a budget of 256 KiB, which reading any of them would exceed, and
// with less than that downloaded — through GraphQL, through REST, and from
// the workspace.
func TestJunkUnderTasksIsNotRead(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		opts      []fakegithub.Option
		workspace bool
	}{
		{name: "through GraphQL"},
		{name: "through REST", opts: []fakegithub.Option{fakegithub.WithoutGraphQL()}},
		{name: "head checked out", workspace: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := seedJunk(t, 20, 1<<20, tc.opts...)
			ev := event{name: "pull_request", payload: prPayload(t, b.s, b.pr, "feat/login", "main"), settings: withBudget(256 << 10)}
			if tc.workspace {
				ev.workspace = writeWorkspace(t, b.files, map[string]string{"HEAD": b.head + "\n"})
			}
			before := b.s.BytesServed()

			out := ev.run(t, b.s).only(t)

			run := onlyRun(t, b.s, b.head, "pact", report.ConclusionWaiting)
			if got := codes(out.Findings); !slices.Equal(got, []string{"pr.unaccepted_feature"}) {
				t.Errorf("codes = %v, want only T1 waiting", got)
			}
			checkOutcome(t, out, run, b.pr, 0, 0, 1)
			if served := b.s.BytesServed() - before; served > 256<<10 {
				t.Errorf("%d KiB downloaded: the junk was read", served>>10)
			}
			// Through REST, a blob per file read: the log, STATE.yml,
			// PROJECT.md, the configuration and the task file of T1.
			if n, want := countOp(b.s, "git/get-blob"), map[bool]int{false: 0, true: 5}[len(tc.opts) > 0]; n != want {
				t.Errorf("%d blobs read through the blobs API, want %d", n, want)
			}
			noViolations(t, b.s)
		})
	}
}

// tooLarge fails unless err is the budget's, about path, in one line.
func tooLarge(t *testing.T, err error, path string) {
	t.Helper()
	var tl *action.PactTooLargeError
	if !errors.As(err, &tl) || tl.Path != path {
		t.Fatalf("error = %v, want the budget's refusal of %s", err, path)
	}
	if msg := tl.Error(); strings.Contains(msg, "\n") || !strings.Contains(msg, "max-pact-bytes") {
		t.Errorf("not one sentence naming the input: %q", msg)
	}
}

// stoppedByBudget fails unless the newest check run on sha was completed
// as failed saying the budget stopped it, and not asking for a re-run.
func stoppedByBudget(t *testing.T, s *fakegithub.Server, sha, path string) {
	t.Helper()
	run := latestRun(t, s, sha)
	if run.Conclusion != report.ConclusionFailure || !strings.HasPrefix(run.Summary, "pact-action did not judge this commit: the pact files this check must read come to more than its budget") ||
		!strings.Contains(run.Summary, report.Escape(path)) || strings.Contains(run.Summary, "Re-run") {
		t.Errorf("check run %s %q:\n%s", run.Conclusion, run.Title, run.Summary)
	}
}

// TestPactBudget: what the check must read — a task file the log names,
// the head's log, the merge base's log — counts against max-pact-bytes;
// past it the check run is completed as failed with one sentence, through
// the API and from the workspace alike.
func TestPactBudget(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", 300<<10)
	base := e2e.NewLog().Assign("T1", "LOGIN", "feat/login", "dev", "rev")
	head := base.Copy().Join("dev").Checkpoint("dev", "T1", "LOGIN")
	for _, tc := range []struct {
		name       string
		base, head map[string]string
		workspace  bool
		budget     int64
		path       string
	}{
		{name: "a task file the log names", base: base.Files(), head: with(head.Files(), ".pact/tasks/T1.md", big),
			budget: 128 << 10, path: ".pact/tasks/T1.md"},
		{name: "a task file the log names, head checked out", base: base.Files(), head: with(head.Files(), ".pact/tasks/T1.md", big),
			workspace: true, budget: 128 << 10, path: ".pact/tasks/T1.md"},
		{name: "the head's log", base: base.Files(), head: with(head.Files(), logPath, head.Text()+big),
			budget: 128 << 10, path: logPath},
		{name: "the head's log, head checked out", base: base.Files(), head: with(head.Files(), logPath, head.Text()+big),
			workspace: true, budget: 128 << 10, path: logPath},
		// The head fits (its log is 300 KiB); the log at the merge base,
		// as large, does not.
		{name: "the merge base's log", base: with(base.Files(), logPath, base.Text()+big), head: with(head.Files(), logPath, base.Text()+big+head.Text()),
			budget: 450 << 10, path: logPath},
		// The files fit; the names of 50 more under tasks/ do not.
		{name: "the listing of tasks/", base: base.Files(), head: manyNames(head.Files(), 50),
			budget: 8 << 10, path: ".pact/tasks/ (the list of its files)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := e2e.NewServer(t)
			sc := seedPR(t, s, tc.base, tc.head, "feat/login")
			ev := sc.event(t)
			ev.settings = withBudget(tc.budget)
			if tc.workspace {
				ev.workspace = writeWorkspace(t, tc.head, map[string]string{"HEAD": sc.headSHA + "\n"})
			}

			err := ev.run(t, s).failed(t)

			tooLarge(t, err, tc.path)
			stoppedByBudget(t, s, sc.headSHA, tc.path)
			noViolations(t, s)
		})
	}
}

// manyNames adds n empty files with names of 200 characters under tasks/.
func manyNames(files map[string]string, n int) map[string]string {
	out := with(files)
	for i := range n {
		out[fmt.Sprintf(".pact/tasks/%03d%s.md", i, strings.Repeat("n", 197))] = ""
	}
	return out
}

// TestPactBudgetCountsProvenanceReads: the logs provenance reads at other
// commits count too. The pull request adds a join and a checkpoint in two
// commits: finding the commit that added the checkpoint reads the log at
// the first one, which does not fit.
func TestPactBudgetCountsProvenanceReads(t *testing.T) {
	t.Parallel()
	b := seedBudget(t, 1, "require")
	baseLog, _ := b.s.FileAt("main", logPath)
	cfg, _ := b.s.FileAt("main", ".github/pact.yml")
	head := len(b.files[logPath]) + len(b.files[statePath]) + len(b.files[".pact/PROJECT.md"]) + len(b.files[".pact/tasks/T1.md"]) +
		len("T1.md") + 96 // the listing of tasks/
	ev := event{name: "pull_request", payload: prPayload(t, b.s, b.pr, "feat/login", "main")}
	// Enough for the head, the configuration and the merge base's log;
	// not for a third log, which holds at least the merge base's lines.
	ev.settings = withBudget(int64(head + len(cfg) + len(baseLog) + len(baseLog)/2))

	err := ev.run(t, b.s).failed(t)

	tooLarge(t, err, logPath)
	stoppedByBudget(t, b.s, b.head, logPath)
	if n := countOp(b.s, "pulls/list-commits"); n != 1 {
		t.Errorf("provenance listed the commits %d times, want 1 (it stopped at the third log)", n)
	}
	noViolations(t, b.s)
}

// TestScheduledRejudgeJudgesEachPR: a scheduled (or manual) re-judge
// judges the open pull requests one at a time: the first, whose task file
// is over the budget (and which carries junk), is completed as failed with
// the budget's sentence; the others — one carrying only junk — get their
// own check runs and verdicts, and the run reports the failure at the end.
func TestScheduledRejudgeJudgesEachPR(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"schedule", "workflow_dispatch"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := e2e.NewServer(t)
			base := e2e.NewLog().Assign("T1", "A", "feat/a", "dev", "rev").Assign("T2", "B", "feat/b", "dev", "rev").Assign("T3", "C", "feat/c", "dev", "rev")
			s.CommitFiles(e2e.Owner, e2e.Repo, "main", with(base.Files(), ".github/pact.yml", provenanceOff), "lead")
			open := func(branch, task, feature string, extra map[string]string) string {
				files := base.Copy().Join("dev").Checkpoint("dev", task, feature).Files()
				for p, c := range extra {
					files[p] = c
				}
				sha := s.CommitFiles(e2e.Owner, e2e.Repo, branch, files, "dev", fakegithub.From("main"))
				s.OpenPR(e2e.Owner, e2e.Repo, fakegithub.PRSeed{Head: branch, Base: "main"})
				return sha
			}
			junk := junkFiles(10, 1<<20)
			// GitHub lists the newest first: the failing one is judged first.
			others := []string{open("feat/b", "T2", "B", nil), open("feat/c", "T3", "C", junk)}
			failing := open("feat/a", "T1", "A", with(junk, ".pact/tasks/T1.md", strings.Repeat("x", 300<<10)))

			r := event{name: name, payload: []byte(`{}`), settings: withBudget(128 << 10)}.run(t, s)

			tooLarge(t, r.err, ".pact/tasks/T1.md")
			stoppedByBudget(t, s, failing, ".pact/tasks/T1.md")
			if !slices.Equal(r.failedHeads, []string{failing}) || len(r.outcomes) != 2 {
				t.Fatalf("failed %v, judged %d, want the failing head failed and the two others judged", r.failedHeads, len(r.outcomes))
			}
			first := latestRun(t, s, failing).ID
			for _, out := range r.outcomes {
				if !slices.Contains(others, out.Target.HeadSHA) {
					t.Fatalf("judged %s, not one of the others", out.Target.HeadSHA)
				}
				run := onlyRun(t, s, out.Target.HeadSHA, "pact", report.ConclusionWaiting)
				checkOutcome(t, out, run, 0, 0, 0, 1)
				if run.ID < first {
					t.Errorf("%s was judged before the failing head: the test shows nothing", out.Target.HeadSHA)
				}
			}
			noViolations(t, s)
		})
	}
}

// TestPactBudgetIsCumulative: the budget bounds what one judgement reads
// in all, not each file: two task files that each fit, and together do
// not, stop the check — through GraphQL, through REST, and from the
// workspace.
func TestPactBudgetIsCumulative(t *testing.T) {
	t.Parallel()
	base := e2e.NewLog().Assign("T1", "LOGIN", "feat/login", "dev", "rev").Assign("T2", "LOGIN", "feat/login", "dev", "rev")
	head := base.Copy().Join("dev").Checkpoint("dev", "T1", "LOGIN")
	half := strings.Repeat("x", 100<<10)
	files := with(head.Files(), ".pact/tasks/T1.md", half, ".pact/tasks/T2.md", half)
	for _, tc := range []struct {
		name      string
		opts      []fakegithub.Option
		workspace bool
	}{
		{name: "through GraphQL"},
		{name: "through REST", opts: []fakegithub.Option{fakegithub.WithoutGraphQL()}},
		{name: "head checked out", workspace: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := e2e.NewServer(t, tc.opts...)
			sc := seedPR(t, s, base.Files(), files, "feat/login")
			ev := sc.event(t)
			ev.settings = withBudget(160 << 10)
			if tc.workspace {
				ev.workspace = writeWorkspace(t, files, map[string]string{"HEAD": sc.headSHA + "\n"})
			}

			err := ev.run(t, s).failed(t)

			var tl *action.PactTooLargeError
			if !errors.As(err, &tl) || !strings.HasPrefix(tl.Path, ".pact/tasks/T") {
				t.Fatalf("error = %v, want the budget's refusal of a task file", err)
			}
			stoppedByBudget(t, s, sc.headSHA, tl.Path)
			noViolations(t, s)
		})
	}
}
