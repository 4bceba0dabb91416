package action_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"

	"github.com/pact-action/pact-action/action"
	"github.com/pact-action/pact-action/bot"
	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/internal/testkit/e2e"
	"github.com/pact-action/pact-action/internal/testkit/fakegithub"
	"github.com/pact-action/pact-action/projection"
	"github.com/pact-action/pact-action/report"
)

// The ways a worker — who can push to the PR branch, open, edit and
// retarget PRs, run workflows of their own (so commits signed by
// github-actions[bot] prove nothing) and comment — tried to turn the check
// green or make the bot write what no reviewer gave. Each looks only at
// what GitHub would show: check runs, commits, replies.

// forgedPR is provSeed's repository (provenance require, every seat
// mapped) with a branch "evil" the worker controls (provenance off), where
// dev changed code on feat/login and then accepted T1 under rev's seat from
// dev's own account. It opens the pull request into base.
func forgedPR(t *testing.T, base string) *provPR {
	t.Helper()
	p := provRepo(t, "require", "tree")
	p.s.CommitFiles(e2e.Owner, e2e.Repo, "evil", map[string]string{".github/pact.yml": provenanceOff}, provDevGH, fakegithub.From("main"))
	p.s.CommitFiles(e2e.Owner, e2e.Repo, provBranch, map[string]string{"src/login.go": "package login // done\n"}, provDevGH, fakegithub.Verified())
	p.accept(t, map[string]any{}, provDevGH, fakegithub.Verified())
	p.open(t, base)
	return p
}

// A PR opened against a branch the worker controls is judged there under
// main's configuration, not evil's lenient one (docs/semantics.md §5); once
// it is retargeted to main, a re-run of that old job (its payload still
// naming evil) judges it against main as GitHub has it now.
func TestBypassRetargetedPRIsJudgedAgainstItsCurrentBase(t *testing.T) {
	t.Parallel()
	p := forgedPR(t, "evil")
	head := p.head()
	oldPayload := prPayload(t, p.s, p.n, provBranch, "evil")
	event{name: "pull_request", payload: oldPayload}.run(t, p.s).only(t)
	if run := latestRun(t, p.s, head); run.Conclusion != report.ConclusionFailure || !strings.Contains(run.Summary, string(checks.CodeProvenanceUnverified)) {
		t.Fatalf("against evil, whose policy is off, the forged accept was judged under that policy: %s\n%s", run.Conclusion, run.Summary)
	}

	p.s.RetargetPR(p.n, "main")
	for _, tc := range []struct{ name, event string }{{"re-run of the old job", "pull_request"}, {"the edited event", "pull_request"}} {
		payload := oldPayload
		if tc.name == "the edited event" {
			var doc map[string]any
			_ = json.Unmarshal(prPayload(t, p.s, p.n, provBranch, "main"), &doc)
			doc["action"] = "edited"
			doc["changes"] = map[string]any{"base": map[string]any{"ref": map[string]any{"from": "evil"}}}
			payload, _ = json.Marshal(doc)
		}
		out := event{name: tc.event, payload: payload}.run(t, p.s).only(t)
		run := latestRun(t, p.s, head)
		if run.Conclusion != report.ConclusionFailure || !strings.Contains(run.Summary, string(checks.CodeProvenanceUnverified)) {
			t.Errorf("%s: newest run %s, want failure with %s\n%s", tc.name, run.Conclusion, checks.CodeProvenanceUnverified, run.Summary)
		}
		if c := checks.Count(out.Findings); c.Errors == 0 {
			t.Errorf("%s: no violation", tc.name)
		}
	}
	noViolations(t, p.s)
}

// A push run (mode auto), a manual run and a scheduled run post on the PR's
// head exactly what the PR's own run posts: Rule 2, history, provenance.
func TestBypassOtherEventsJudgeThePR(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"push", "workflow_dispatch", "schedule"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			p := forgedPR(t, "main")
			head := p.head()
			payload := []byte(`{"ref":"refs/heads/feat/login","after":"` + head + `","repository":{"full_name":"` + repoFull + `"}}`)
			event{name: name, payload: payload, sha: head}.run(t, p.s).only(t)
			run := latestRun(t, p.s, head)
			if run.Conclusion != report.ConclusionFailure || !strings.Contains(run.Summary, string(checks.CodeProvenanceUnverified)) {
				t.Errorf("%s run posted %s on the PR's head, want the PR's failure\n%s", name, run.Conclusion, run.Summary)
			}
			noViolations(t, p.s)
		})
	}
	// A commit that heads no open pull request gets validate's judgement
	// in the job summary, and no check run at all.
	p := forgedPR(t, "main")
	lone := p.s.CommitFiles(e2e.Owner, e2e.Repo, "scratch", e2e.NewLog().Files(), provDevGH, fakegithub.From("main"))
	out := event{name: "push", payload: []byte(`{}`), sha: lone}.run(t, p.s).only(t)
	if runs := p.s.CheckRuns(lone); len(runs) != 0 || !out.NoPullRequest || len(out.PRs) != 0 || !strings.Contains(out.Summary, "No check run was posted") {
		t.Errorf("a lone commit: %d check run(s), pull requests %v\n%s", len(runs), out.PRs, out.Summary)
	}
}

// GitHub's listing of open pull requests lags just after one is opened or
// pushed, and the newest check run on a commit is the one branch
// protection reads: a push, manual or scheduled run, or a re-run of a
// pull request's job after it closed, that finds no open pull request for
// its commit must never post a passing check over the pull request's own
// verdict. It posts none.
func TestBypassRunThatCannotSeeThePR(t *testing.T) {
	t.Parallel()
	p := forgedPR(t, "main")
	head := p.head()
	event{name: "pull_request", payload: prPayload(t, p.s, p.n, provBranch, "main")}.run(t, p.s).only(t)
	if run := latestRun(t, p.s, head); run.Conclusion != report.ConclusionFailure {
		t.Fatalf("the PR's own run: %s, want failure", run.Conclusion)
	}
	// The listing lags: the pull request is not in it yet.
	p.s.Inject(fakegithub.Fault{Method: "GET", Path: "/repos/" + repoFull + "/pulls", Status: 200, Body: []byte("[]"), Times: 5})
	payload := []byte(`{"ref":"refs/heads/feat/login","after":"` + head + `","repository":{"full_name":"` + repoFull + `"}}`)
	for _, name := range []string{"push", "workflow_dispatch", "schedule"} {
		event{name: name, payload: payload, sha: head}.run(t, p.s)
	}
	// A re-run of the pull request's job once it is closed.
	p.s.ClosePR(p.n)
	event{name: "pull_request", payload: prPayload(t, p.s, p.n, provBranch, "main")}.run(t, p.s)
	runs := p.s.CheckRuns(head)
	if len(runs) != 1 || runs[0].Conclusion != report.ConclusionFailure {
		var got []string
		for _, r := range runs {
			got = append(got, r.Conclusion)
		}
		t.Errorf("check runs on the head = %v, want only the pull request's failure", got)
	}
}

// Two open PRs share a head: one into main, one into a branch the worker
// controls. Any run posting on that head judges both, so the worker's PR
// cannot post a passing check that main's protection would read.
func TestBypassTwoPRsWithOneHead(t *testing.T) {
	t.Parallel()
	p := forgedPR(t, "main")
	intoMain, head := p.n, p.head()
	intoEvil := p.s.OpenPR(e2e.Owner, e2e.Repo, fakegithub.PRSeed{Head: provBranch, Base: "evil", Author: provDevGH})
	out := event{name: "pull_request", payload: prPayload(t, p.s, intoEvil, provBranch, "evil")}.run(t, p.s).only(t)
	run := latestRun(t, p.s, head)
	if run.Conclusion != report.ConclusionFailure {
		t.Fatalf("the run of the PR into evil posted %s on the shared head\n%s", run.Conclusion, run.Summary)
	}
	if !strings.Contains(run.Summary, "head of 2 open pull requests") {
		t.Errorf("summary does not say two pull requests were judged:\n%s", run.Summary)
	}
	said := false
	for _, f := range out.Findings {
		said = said || f.Code == checks.CodeProvenanceUnverified && strings.HasPrefix(f.Message, fmt.Sprintf("pull request #%d into main: ", intoMain))
	}
	if !said {
		t.Errorf("no finding names pull request #%d into main: %v", intoMain, out.Findings)
	}
}

// A review of commit C1 (where only T1 awaited review) processed after the
// worker pushed C2 (checkpointing T2) accepts T1 only.
func TestBypassReviewIsPlannedAgainstTheReviewedCommit(t *testing.T) {
	t.Parallel()
	b := newBotScenario(t, botOpts{})
	// T2, also reviewed by rev, checkpointed after the review's commit.
	later := b.headLog.Copy().Assign("T2", "LOGIN", b.branch, "dev", "rev").Join("dev").Checkpoint("dev", "T2", "LOGIN")
	payload, id := b.review(t, "revuser", "approved", "LGTM")
	c2 := b.s.CommitFiles(e2e.Owner, e2e.Repo, b.branch, later.Files(), "devuser")

	b.run(t, "pull_request_review", payload).botDone(t)
	_, evs := appended(t, b.s, c2, b.head())
	if len(evs) != 1 || evs[0].TaskID != "T1" || evs[0].EventID != bot.EventID(repoFull, "review", id, "T1") {
		t.Fatalf("appended %+v, want only the accept of T1", evs)
	}
	if evs[0].Payload.Commit != b.headSHA {
		t.Errorf("payload.commit = %s, want the reviewed commit %s", evs[0].Payload.Commit, b.headSHA)
	}
}

// Under require, a bot-shaped accept the worker wrote through a workflow of
// their own (so github-actions[bot] signed it) verifies nothing when what it
// cites is not the reviewer's standing decision.
func TestBypassReplayedReviewOrCommentVerifiesNothing(t *testing.T) {
	t.Parallel()
	t.Run("an approval the reviewer overrode by requesting changes", func(t *testing.T) {
		t.Parallel()
		p := provSeed(t, "require", "tree")
		approvedAt := e2e.ServerEpoch.Add(time.Hour)
		p.s.SetNow(approvedAt)
		approval := p.s.AddReview(p.n, fakegithub.ReviewSeed{Login: provRevGH, State: "APPROVED", CommitID: p.worked})
		p.s.SetNow(approvedAt.Add(time.Hour))
		p.s.AddReview(p.n, fakegithub.ReviewSeed{Login: provRevGH, State: "CHANGES_REQUESTED", CommitID: p.worked, Body: "no"})
		p.log.AddAt(approvedAt, "rev", projection.TypeAccept, "T1", "LOGIN", map[string]any{"commit": p.worked,
			"github": map[string]any{"review_id": approval, "login": provRevGH, "head_sha": p.worked}})
		p.s.CommitFiles(e2e.Owner, e2e.Repo, provBranch, p.log.Files(), botAccount, fakegithub.Verified())
		out, run := p.check(t, "failure")
		provWantFindings(t, out.Findings, run,
			provExpect{checks.CodePRUnaccepted, checks.SeverityPending, 2, []string{"waiting for T1"}},
			provExpect{checks.CodeProvenanceUnverified, checks.SeverityError, 5, []string{"overridden by their later review", "changes_requested"}})
	})
	t.Run("a /pact accept the bot refused because the task did not await review", func(t *testing.T) {
		t.Parallel()
		p := provSeed(t, "require", "tree")
		// The reviewer commented before dev joined and checkpointed.
		before := p.s.BranchHead(e2e.Owner, e2e.Repo, "main")
		p.s.SetBranch(e2e.Owner, e2e.Repo, provBranch, before)
		commentedAt := e2e.ServerEpoch.Add(time.Hour)
		p.s.SetNow(commentedAt)
		id := p.s.AddComment(p.n, provRevGH, "/pact accept T1")
		worked := p.s.CommitFiles(e2e.Owner, e2e.Repo, provBranch, p.log.Files(), provDevGH, fakegithub.Verified())
		p.log.AddAt(commentedAt, "rev", projection.TypeAccept, "T1", "LOGIN", map[string]any{"commit": worked,
			"github": map[string]any{"comment_id": id, "login": provRevGH}})
		p.s.CommitFiles(e2e.Owner, e2e.Repo, provBranch, p.log.Files(), botAccount, fakegithub.Verified())
		out, run := p.check(t, "failure")
		provWantFindings(t, out.Findings, run,
			provExpect{checks.CodePRUnaccepted, checks.SeverityPending, 2, []string{"waiting for T1"}},
			provExpect{checks.CodeProvenanceUnverified, checks.SeverityError, 5, []string{"T1 was not awaiting review at commit " + before[:12], fmt.Sprintf("the head when comment %d was made", id)}})
	})
	t.Run("a comment-backed accept recorded on code pushed after the comment", func(t *testing.T) {
		t.Parallel()
		p := provSeed(t, "require", "tree")
		commentedAt := e2e.ServerEpoch.Add(time.Hour)
		p.s.SetNow(commentedAt)
		id := p.s.AddComment(p.n, provRevGH, "/pact accept T1")
		sneaked := p.s.CommitFiles(e2e.Owner, e2e.Repo, provBranch, with(p.log.Files(), "src/login.go", "package login // unreviewed\n"), provDevGH, fakegithub.Verified())
		p.log.AddAt(commentedAt, "rev", projection.TypeAccept, "T1", "LOGIN", map[string]any{"commit": sneaked,
			"github": map[string]any{"comment_id": id, "login": provRevGH}})
		p.s.CommitFiles(e2e.Owner, e2e.Repo, provBranch, with(p.log.Files(), "src/login.go", "package login // unreviewed\n"), botAccount, fakegithub.Verified())
		out, run := p.check(t, "failure")
		provWantFindings(t, out.Findings, run,
			provExpect{checks.CodePRUnaccepted, checks.SeverityPending, 2, []string{"waiting for T1"}},
			provExpect{checks.CodeProvenanceUnverified, checks.SeverityError, 5, []string{"the line was recorded on " + sneaked[:12], "files outside .pact/ differ"}})
	})
	t.Run("a comment edited to hold the command", func(t *testing.T) {
		t.Parallel()
		p := provSeed(t, "require", "tree")
		commentedAt := e2e.ServerEpoch.Add(time.Hour)
		p.s.SetNow(commentedAt)
		id := p.s.AddComment(p.n, provRevGH, "Looks fine so far.")
		p.s.EditComment(id, "Looks fine so far.\n\n/pact accept T1") // anyone with write access can
		p.log.AddAt(commentedAt, "rev", projection.TypeAccept, "T1", "LOGIN", map[string]any{"commit": p.worked,
			"github": map[string]any{"comment_id": id, "login": provRevGH}})
		p.s.CommitFiles(e2e.Owner, e2e.Repo, provBranch, p.log.Files(), botAccount, fakegithub.Verified())
		out, run := p.check(t, "failure")
		provWantFindings(t, out.Findings, run,
			provExpect{checks.CodePRUnaccepted, checks.SeverityPending, 2, []string{"waiting for T1"}},
			provExpect{checks.CodeProvenanceUnverified, checks.SeverityError, 5, []string{"was edited after it was posted"}})
	})
}

// A worker pre-appends a line with the deterministic event id of a review
// to come; the bot says "conflict" and records nothing, never "recorded".
func TestBypassEventIDAlreadyTakenIsAConflict(t *testing.T) {
	t.Parallel()
	b := newBotScenario(t, botOpts{})
	payload, id := b.review(t, "revuser", "changes_requested", "the error path is wrong")
	squat := b.headLog.Copy()
	squat.Lines = append(squat.Lines, fmt.Sprintf(`{"event_id":%q,"ts":"2026-06-09T11:00:00Z","agent_id":"rev","role":"reviewer","event_type":"accept","task_id":"T1","feature":"LOGIN","payload":{}}`,
		bot.EventID(repoFull, "review", id, "T1")))
	squatted := b.s.CommitFiles(e2e.Owner, e2e.Repo, b.branch, squat.Files(), "devuser")

	out := b.run(t, "pull_request_review", payload).botDone(t)
	if h := b.head(); h != squatted {
		t.Errorf("the bot wrote on a squatted event id")
	}
	r := b.replies(t)
	if len(r) != 1 || !strings.Contains(r[0], "Conflict") || !strings.Contains(r[0], "recorded nothing") {
		t.Fatalf("replies = %q, want one conflict", r)
	}
	if len(out.Appended) != 0 || out.NewHead != "" || !slices.ContainsFunc(out.Notices, func(n string) bool { return strings.Contains(n, "Conflict") }) {
		t.Errorf("the job says: appended %q, notices %q", out.Appended, out.Notices)
	}
}

// A conflict is said once, however many times the bot re-reads the branch:
// here the squatted id is T1's, T2's accept is written, and a push racing
// the bot's ref update makes it read the log twice.
func TestBypassEventIDConflictSaidOnceAcrossRetries(t *testing.T) {
	t.Parallel()
	// revuser holds rev (T1's reviewer) and lead (T2's reviewer).
	b := newBotScenario(t, botOpts{twoTasks: true, seatMap: "seats:\n  lead: [leaduser, revuser]\n  dev: [devuser]\n  rev: [revuser]\n"})
	payload, id := b.review(t, "revuser", "approved", nil)
	squat := b.headLog.Copy()
	squat.Lines = append(squat.Lines, fmt.Sprintf(`{"event_id":%q,"ts":"2026-06-09T11:00:00Z","agent_id":"rev","role":"reviewer","event_type":"accept","task_id":"T1","feature":"LOGIN","payload":{}}`,
		bot.EventID(repoFull, "review", id, "T1")))
	squatted := b.s.CommitFiles(e2e.Owner, e2e.Repo, b.branch, squat.Files(), "devuser")
	var once sync.Once
	b.s.BeforeUpdateRef(func(owner, repo, ref string) {
		once.Do(func() {
			b.s.CommitFiles(e2e.Owner, e2e.Repo, b.branch, map[string]string{"NOTES.md": "racing push\n"}, "devuser")
		})
	})

	out := b.run(t, "pull_request_review", payload).botDone(t)
	if countOp(b.s, "git/update-ref") != 2 {
		t.Fatalf("update-ref requests = %d, want 2 (refused, then retried)", countOp(b.s, "git/update-ref"))
	}
	if _, evs := appended(t, b.s, squatted, b.head()); len(evs) != 1 || evs[0].TaskID != "T2" {
		t.Errorf("appended = %+v, want T2's accept only", evs)
	}
	var said []string
	for _, n := range out.Notices {
		if strings.Contains(n, "Conflict") {
			said = append(said, n)
		}
	}
	if len(said) != 1 {
		t.Errorf("the job says the conflict %d time(s), want once: %q", len(said), out.Notices)
	}
	if r := b.replies(t); !slices.ContainsFunc(r, func(s string) bool { return strings.Contains(s, "Conflict") }) {
		t.Errorf("replies = %q, want the conflict said", r)
	}
}

// Commands count only where GitHub renders them as a paragraph's text.
func TestBypassCommandsOnlyWhereGitHubShowsThem(t *testing.T) {
	t.Parallel()
	for name, body := range map[string]string{
		"HTML comment":                    "LGTM\n<!--\n/pact accept T1\n-->",
		"indented code block":             "see:\n\n    /pact accept T1",
		"fence closed by an indented one": "```\nx\n   ```\n```\n/pact accept T1\n```",
		"lazy blockquote continuation":    "> I would write\n/pact accept T1",
		"inline code":                     "`/pact accept T1`",
		"HTML block":                      "<details>\n/pact accept T1\n</details>",
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b := newBotScenario(t, botOpts{})
			payload, id := b.comment(t, "revuser", body, "MEMBER")
			b.run(t, "issue_comment", payload).botDone(t)
			b.assertNothingWritten(t)
			if r := b.replies(t); len(r) != 0 {
				t.Errorf("replies: %q", r)
			}
			if got := b.reactions(id); len(got) != 0 {
				t.Errorf("reactions: %q", got)
			}
		})
	}
}

// What a reply quotes back from a comment stays inert: no mention, link or
// image comes alive, even from a commenter without write permission.
func TestBypassRepliesAreInert(t *testing.T) {
	t.Parallel()
	b := newBotScenario(t, botOpts{})
	b.s.SetPermission("mallory", fakegithub.Read)
	payload, _ := b.comment(t, "mallory", "/pact x@org/team\n/pact accept T9@org/team\n/pact changes T1 ![p](//ev.il/p.png) @org/team <img src=x>", "NONE")
	b.run(t, "issue_comment", payload).botDone(t)
	b.assertNothingWritten(t)
	replies := b.replies(t)
	if len(replies) == 0 {
		t.Fatal("no reply")
	}
	for _, r := range replies {
		assertInertReply(t, r, "mallory")
	}
}

// The workspace holds the head commit, and its .pact/ is hostile: only
// regular files inside the repository are read; the run fails closed with
// one sentence, and never leaks, hangs or leaves the run in progress.
func TestBypassHostileWorkspaceFiles(t *testing.T) {
	t.Parallel()
	outside := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(outside, []byte("AWS_SECRET=hunter2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, plant := range map[string]func(path string) error{
		"symlink out of the repository": func(p string) error { return os.Symlink(outside, p) },
		"symlink to /dev/zero":          func(p string) error { return os.Symlink("/dev/zero", p) },
		"FIFO":                          mkfifo,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := e2e.NewServer(t)
			sc := seedPR(t, s, e2e.NewLog().Files(), e2e.NewLog().Join("dev").Files(), "feat/x")
			ws := writeWorkspace(t, nil, map[string]string{"HEAD": sc.headSHA + "\n"})
			if err := os.MkdirAll(filepath.Join(ws, ".pact"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := plant(filepath.Join(ws, ".pact", "log.jsonl")); errors.Is(err, errors.ErrUnsupported) {
				t.Skip(err)
			} else if err != nil {
				t.Fatal(err)
			}
			ev := sc.event(t)
			ev.workspace = ws
			// A read that blocks (a FIFO opened for reading waits for a
			// writer) hangs here, and go test's -timeout names the test.
			err := ev.run(t, s).failed(t)
			run := latestRun(t, s, sc.headSHA)
			if run.Conclusion != report.ConclusionFailure || !strings.Contains(run.Summary, "not a regular file inside the repository") {
				t.Errorf("check run %s:\n%s", run.Conclusion, run.Summary)
			}
			for _, where := range []string{run.Summary, run.Text, err.Error()} {
				if strings.Contains(where, "hunter2") {
					t.Errorf("the secret leaked: %s", where)
				}
			}
		})
	}
}

// A cancelled job (SIGTERM: TestBinaryCancelledOrTimedOut) and the
// judgement timeout both complete the check run as failed, even while a
// request hangs.
func TestBypassCancelledOrTimedOutRunIsNeverLeftInProgress(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"cancelled", "timeout"} {
		t.Run(how, func(t *testing.T) {
			t.Parallel()
			s := e2e.NewServer(t)
			sc := seedPR(t, s, e2e.NewLog().Files(), e2e.NewLog().Join("dev").Files(), "feat/x")
			s.Inject(fakegithub.Fault{Method: "POST", Path: "/graphql", Stall: true, Times: 1})
			ev := sc.event(t)
			want := "the job was cancelled"
			if how == "timeout" {
				ev.settings = func(st *action.Settings) { st.Timeout = 200 * time.Millisecond }
				want = "gave up after 200ms"
			} else {
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				ev.ctx = ctx
				go func() {
					defer cancel()
					deadline := time.Now().Add(20 * time.Second)
					for !stalled(s) && time.Now().Before(deadline) {
						time.Sleep(5 * time.Millisecond)
					}
				}()
			}
			err := ev.run(t, s).failed(t)
			got := latestRun(t, s, sc.headSHA)
			if got.Conclusion != report.ConclusionFailure || !strings.Contains(got.Summary, "stopped before it finished") || !strings.Contains(got.Summary, want) {
				t.Errorf("check run %s:\n%s", got.Conclusion, got.Summary)
			}
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error = %v, want %q", err, want)
			}
		})
	}
}

// Rule 2 cannot be dodged by opening the same code from a branch no task
// names.
func TestBypassUnmappedBranch(t *testing.T) {
	t.Parallel()
	log := e2e.NewLog().Assign("T1", "LOGIN", "feat/login", "dev", "rev").Join("dev").Checkpoint("dev", "T1", "LOGIN")
	for _, tc := range []struct {
		name, policy string
		code         bool // the PR changes files outside .pact/
		conclusion   string
		severity     checks.Severity
	}{
		{"default warn", "", true, report.ConclusionSuccess, checks.SeverityWarning},
		{"block with code", "unmapped-branches: block\n", true, report.ConclusionFailure, checks.SeverityError},
		{"block, only .pact/", "unmapped-branches: block\n", false, report.ConclusionSuccess, checks.SeverityWarning},
		{"allow", "unmapped-branches: allow\n", true, report.ConclusionSuccess, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := e2e.NewServer(t)
			head := log.Copy().Join("dev").Files()
			if tc.code {
				head["src/login.go"] = "package login // the same code as feat/login\n"
			}
			s.CommitFiles(e2e.Owner, e2e.Repo, "main", with(log.Files(), ".github/pact.yml", provenanceOff+tc.policy), "lead")
			s.CommitFiles(e2e.Owner, e2e.Repo, "feat/login-v2", head, "dev", fakegithub.From("main"))
			n := s.OpenPR(e2e.Owner, e2e.Repo, fakegithub.PRSeed{Head: "feat/login-v2", Base: "main"})
			out := event{name: "pull_request", payload: prPayload(t, s, n, "feat/login-v2", "main")}.run(t, s).only(t)
			run := latestRun(t, s, s.BranchHead(e2e.Owner, e2e.Repo, "feat/login-v2"))
			if run.Conclusion != tc.conclusion {
				t.Errorf("conclusion %s, want %s\n%s", run.Conclusion, tc.conclusion, run.Summary)
			}
			sev := []checks.Severity{}
			for _, f := range out.Findings {
				if f.Code == checks.CodePRUnmappedBranch {
					sev = append(sev, f.Severity)
				}
			}
			want := []checks.Severity{}
			if tc.severity != "" {
				want = append(want, tc.severity)
			}
			if !slices.Equal(sev, want) {
				t.Errorf("%s findings %v, want %v", checks.CodePRUnmappedBranch, sev, want)
			}
		})
	}
}

// An accept that records no payload.commit (another implementation wrote
// it) was given on the parent of its commit: stale only when code changed
// after that.
func TestBypassAcceptWithoutCommitIsAnchoredOnItsParent(t *testing.T) {
	t.Parallel()
	for _, changed := range []bool{false, true} {
		t.Run(fmt.Sprintf("code changed after: %v", changed), func(t *testing.T) {
			t.Parallel()
			p := provSeed(t, "require", "tree")
			p.accept(t, map[string]any{}, provRevGH, fakegithub.Verified())
			want := "success"
			if changed {
				p.s.CommitFiles(e2e.Owner, e2e.Repo, provBranch, with(p.log.Files(), "src/login.go", "package login // later\n"), provDevGH, fakegithub.Verified())
				want = "failure"
			}
			out, run := p.check(t, want)
			if changed {
				provWantFindings(t, out.Findings, run,
					provExpect{checks.CodePRUnaccepted, checks.SeverityPending, 2, []string{"waiting for T1"}},
					provExpect{checks.CodeProvenanceStale, checks.SeverityError, 5, []string{"src/login.go"}})
			} else {
				provWantFindings(t, out.Findings, run)
			}
		})
	}
}

// A checkpoint stamped in 2099 is reported, and the bot's refusal of a
// review it blocks says how to fix it.
func TestBypassFutureTimestamps(t *testing.T) {
	t.Parallel()
	b := newBotScenario(t, botOpts{seatMap: botSeatMap + "provenance:\n  mode: require\n"})
	future := b.headLog.Copy()
	future.AddAt(time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC), "rev", projection.TypeAccept, "T1", "LOGIN", map[string]any{})
	stamped := b.s.CommitFiles(e2e.Owner, e2e.Repo, b.branch, future.Files(), "devuser")

	event{name: "pull_request", payload: prPayload(t, b.s, b.pr, b.branch, "main")}.run(t, b.s).only(t)
	run := latestRun(t, b.s, stamped)
	if !strings.Contains(run.Summary, string(checks.CodeProvenanceFutureTS)) || !strings.Contains(run.Summary, "2099-01-01T00:00:00Z") {
		t.Errorf("summary lacks the future stamp:\n%s", run.Summary)
	}

	payload, _ := b.review(t, "revuser", "changes_requested", "please fix")
	b.run(t, "pull_request_review", payload).botDone(t)
	if h := b.head(); h != stamped {
		t.Errorf("recorded a changes_requested that breaks a later line")
	}
	r := b.replies(t)
	if len(r) != 1 || !strings.Contains(r[0], "stamped in the future") || !strings.Contains(r[0], "remove those lines") {
		t.Errorf("replies = %q", r)
	}
}

// assertInertReply renders a reply as GitHub renders comments and fails on
// anything live: a link, image, autolink or HTML, or an @mention or #ref in
// text other than the @login of the commenter the bot answers.
func assertInertReply(t *testing.T, reply, login string) {
	t.Helper()
	src := []byte(reply)
	doc := goldmark.New(goldmark.WithExtensions(extension.GFM)).Parser().Parse(text.NewReader(src))
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n.Kind() {
		case ast.KindCodeSpan, ast.KindFencedCodeBlock, ast.KindCodeBlock:
			return ast.WalkSkipChildren, nil
		case ast.KindLink, ast.KindImage, ast.KindAutoLink, ast.KindRawHTML:
			t.Errorf("reply has a live %s:\n%s", n.Kind(), reply)
		case ast.KindHTMLBlock:
			if n.(*ast.HTMLBlock).HTMLBlockType != ast.HTMLBlockType2 {
				t.Errorf("reply has a live HTML block:\n%s", reply)
			}
		case ast.KindText:
			txt := string(n.(*ast.Text).Segment.Value(src))
			for i := 0; i+1 < len(txt); i++ {
				c, next := txt[i], txt[i+1]
				if (c == '@' || c == '#') && (next == '_' || next == '-' || next >= 'a' && next <= 'z' || next >= 'A' && next <= 'Z' || next >= '0' && next <= '9') &&
					(c != '@' || !strings.HasPrefix(txt[i+1:], login)) {
					t.Errorf("reply has a live %q:\n%s", txt[i:min(len(txt), i+16)], reply)
				}
			}
		}
		return ast.WalkContinue, nil
	})
}

// A GitHub without the repository activity API (an older GitHub Enterprise
// Server) cannot tell the head when a comment was made, so a comment backs
// nothing (docs/semantics.md §5): the bot refuses the command and says to
// approve with a review instead, and the check verifies no event by that
// comment, even one written as the bot would (a worker can run a workflow
// of their own that commits as github-actions[bot]).
func TestBotCommentWithoutPushHistory(t *testing.T) {
	t.Parallel()
	s := e2e.NewServer(t, fakegithub.WithoutOperations("repos/list-activities"))
	log := e2e.NewLog().Assign("T1", "LOGIN", provBranch, "dev", "rev")
	s.CommitFiles(e2e.Owner, e2e.Repo, "main", with(log.Files(), ".github/pact.yml", provPactYML("require", "tree")), provLeadGH, fakegithub.Verified())
	work := log.Copy().Join("dev").Checkpoint("dev", "T1", "LOGIN")
	head := s.CommitFiles(e2e.Owner, e2e.Repo, provBranch, work.Files(), provDevGH, fakegithub.From("main"), fakegithub.Verified())
	n := s.OpenPR(e2e.Owner, e2e.Repo, fakegithub.PRSeed{Head: provBranch, Base: "main", Author: provDevGH})
	s.SetPermission(provRevGH, fakegithub.Write)
	s.SetNow(mustTime(reviewTS))
	id := s.AddComment(n, provRevGH, "/pact accept T1")
	out := event{name: "issue_comment", payload: commentPayload(t, n, id, reviewTS, provRevGH, "/pact accept T1", "COLLABORATOR")}.run(t, s).botDone(t)
	if after := s.BranchHead(e2e.Owner, e2e.Repo, provBranch); after != head || out.NewHead != "" {
		t.Fatalf("the bot recorded a comment it cannot place: %+v", out)
	}
	if len(out.Replies) != 1 || !strings.Contains(out.Replies[0], "keeps no push history") || !strings.Contains(out.Replies[0], "Approve the pull request instead") {
		t.Errorf("replies = %q, want the refusal that says to approve instead", out.Replies)
	}

	// The line the bot would have written, committed as the bot over
	// code pushed after the comment: not verified.
	s.CommitFiles(e2e.Owner, e2e.Repo, provBranch, map[string]string{"src/login.go": "package login\n\nfunc Backdoor() {}\n"}, provDevGH, fakegithub.Verified())
	work.AddAt(mustTime(reviewTS), "rev", projection.TypeAccept, "T1", "LOGIN", map[string]any{
		"github": map[string]any{"comment_id": id, "login": provRevGH, "url": "x"}})
	forged := s.CommitFiles(e2e.Owner, e2e.Repo, provBranch, work.Files(), botAccount, fakegithub.Verified())
	res := event{name: "pull_request", payload: prPayload(t, s, n, provBranch, "main")}.run(t, s).only(t)
	run := latestRun(t, s, forged)
	if run.Conclusion != report.ConclusionFailure {
		t.Fatalf("a comment-backed accept without push history: %s\n%s", run.Conclusion, run.Summary)
	}
	var said bool
	for _, f := range res.Findings {
		said = said || f.Code == checks.CodeProvenanceUnverified && strings.Contains(f.Message, "keeps no push history")
	}
	if !said {
		t.Errorf("no provenance.unverified finding says why: %v", codes(res.Findings))
	}
}
