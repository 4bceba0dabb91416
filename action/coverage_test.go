package action_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/pact-action/pact-action/action"
	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/internal/testkit/e2e"
	"github.com/pact-action/pact-action/internal/testkit/fakegithub"
	"github.com/pact-action/pact-action/report"
)

// Coverage (docs/semantics.md §5): an accept covers the code it was given
// on, not a branch name. Each scenario starts where the first LOGIN pull
// request left main: T1 accepted by rev's approval, recorded by the bot and
// merged. The worker then ships new code under the old branch name.

// shippedLogin runs the first LOGIN pull request to its merge: rev approves
// the checkpointed head, the bot records the accept, and the branch is
// merged into main with a merge commit; the pull request is closed. It
// returns the scenario and the reviewed commit.
func shippedLogin(t *testing.T, mode, stale string) (*provPR, string) {
	t.Helper()
	p := provSeed(t, mode, stale)
	reviewed := p.head()
	p.s.SetNow(mustTime(reviewTS))
	id := p.s.AddReview(p.n, fakegithub.ReviewSeed{Login: provRevGH, State: "APPROVED", CommitID: reviewed})
	payload := reviewPayload(t, p.s, p.n, e2e.Owner, provBranch, reviewWebhook{id: id, login: provRevGH, state: "approved", body: "LGTM", commitID: reviewed})
	out := event{name: "pull_request_review", payload: payload}.run(t, p.s).botDone(t)
	if out.NewHead == "" || out.Check == nil || out.Check.Conclusion != report.ConclusionSuccess {
		t.Fatalf("the first LOGIN pull request did not pass: %+v", out)
	}
	mergePR(t, p.s, p.n, provBranch)
	return p, reviewed
}

// mergePR merges branch into main with a merge commit holding the branch's
// files, and closes pull request n, as GitHub's merge button does.
func mergePR(t *testing.T, s *fakegithub.Server, n int, branch string) string {
	t.Helper()
	head := s.BranchHead(e2e.Owner, e2e.Repo, branch)
	main := s.BranchHead(e2e.Owner, e2e.Repo, "main")
	files := map[string]string{}
	for _, p := range []string{logPath, ".pact/STATE.yml", "src/login.go"} {
		if c, ok := s.FileAt(head, p); ok {
			files[p] = c
		}
	}
	sha := s.CommitFiles(e2e.Owner, e2e.Repo, "main", files, "web-flow", fakegithub.WithParents(main, head), fakegithub.Verified(),
		fakegithub.WithMessage(fmt.Sprintf("Merge pull request #%d from %s", n, branch)))
	s.ClosePR(n)
	return sha
}

// reuseBranch starts branch afresh from main and commits new code on it
// (signed by dev, who owns T1), then opens a pull request from it.
func reuseBranch(t *testing.T, p *provPR, branch string, code map[string]string) int {
	t.Helper()
	p.s.SetBranch(e2e.Owner, e2e.Repo, branch, p.s.BranchHead(e2e.Owner, e2e.Repo, "main"))
	p.s.CommitFiles(e2e.Owner, e2e.Repo, branch, code, provDevGH, fakegithub.Verified())
	return p.s.OpenPR(e2e.Owner, e2e.Repo, fakegithub.PRSeed{Head: branch, Base: "main", Author: provDevGH})
}

// The bypass of the second security review: a new feat/login from main
// with unreviewed code and no pact events passed with the strictest
// settings, the summary saying LOGIN was accepted.
func TestCoverageReusedBranchNameWaitsForAFreshReview(t *testing.T) {
	t.Parallel()
	for _, stale := range []string{"tree", "push"} {
		t.Run(stale, func(t *testing.T) {
			t.Parallel()
			p, reviewed := shippedLogin(t, "require", stale)
			n := reuseBranch(t, p, provBranch, map[string]string{"src/login.go": "package login\n\nfunc Backdoor() {}\n"})
			head := p.s.BranchHead(e2e.Owner, e2e.Repo, provBranch)
			out := event{name: "pull_request", payload: prPayload(t, p.s, n, provBranch, "main")}.run(t, p.s).only(t)
			run := latestRun(t, p.s, head)
			if run.Conclusion == report.ConclusionSuccess {
				t.Fatalf("a reused branch name shipped unreviewed code:\n%s", run.Summary)
			}
			var waiting *checks.Finding
			for i, f := range out.Findings {
				if f.Code == checks.CodePRUnaccepted && f.TaskID == "T1" {
					waiting = &out.Findings[i]
				}
			}
			if waiting == nil {
				t.Fatalf("T1 is not waiting: %v", codes(out.Findings))
			}
			contains(t, "the waiting message", waiting.Message, "waiting for T1", "a fresh review by rev", reviewed[:7])
			if stale == "tree" {
				contains(t, "the waiting message", waiting.Message, "src/login.go")
			}
			if strings.Contains(run.Summary, "✅ accepted") {
				t.Errorf("the summary's task table still shows T1 accepted for this code:\n%s", run.Summary)
			}
			noViolations(t, p.s)
		})
	}
}

// The way out within the frozen protocol: rev approves the new head. The
// bot writes nothing (a second accept is not a valid transition), says the
// accept now covers the new code, and the check it posts passes. An
// approval given on other code, or by the owner, renews nothing.
func TestCoverageFreshReviewRenewsTheAccept(t *testing.T) {
	t.Parallel()
	for _, stale := range []string{"tree", "push"} {
		t.Run(stale, func(t *testing.T) {
			t.Parallel()
			p, _ := shippedLogin(t, "require", stale)
			n := reuseBranch(t, p, provBranch, map[string]string{"src/login.go": "package login\n\nfunc Backdoor() {}\n"})
			first := p.s.BranchHead(e2e.Owner, e2e.Repo, provBranch)
			p.s.CommitFiles(e2e.Owner, e2e.Repo, provBranch, map[string]string{"src/login.go": "package login\n\nfunc Login() {}\n"}, provDevGH, fakegithub.Verified())
			head := p.s.BranchHead(e2e.Owner, e2e.Repo, provBranch)
			approve := func(login, commit string) *action.BotOutcome {
				id := p.s.AddReview(n, fakegithub.ReviewSeed{Login: login, State: "APPROVED", CommitID: commit})
				payload := reviewPayload(t, p.s, n, e2e.Owner, provBranch, reviewWebhook{id: id, login: login, state: "approved", body: "ok", commitID: commit})
				return event{name: "pull_request_review", payload: payload}.run(t, p.s).botDone(t)
			}

			event{name: "pull_request", payload: prPayload(t, p.s, n, provBranch, "main")}.run(t, p.s).only(t)
			// The owner's approval, and rev's of the first push (other
			// code than the head's), renew nothing.
			for _, tc := range []struct{ login, commit string }{{provDevGH, head}, {provRevGH, first}} {
				out := approve(tc.login, tc.commit)
				if out.NewHead != "" {
					t.Fatalf("an approval by %s wrote commit %s", tc.login, out.NewHead)
				}
				if run := latestRun(t, p.s, head); run.Conclusion != report.ConclusionWaiting {
					t.Fatalf("after %s's approval of %s: %s, want waiting\n%s", tc.login, tc.commit[:7], run.Conclusion, run.Summary)
				}
			}

			out := approve(provRevGH, head)
			if out.NewHead != "" || len(out.Appended) != 0 {
				t.Fatalf("a fresh review wrote to the log: %+v", out)
			}
			if len(out.Replies) != 1 || !strings.Contains(out.Replies[0], "the accept of `T1` now covers the new code") {
				t.Errorf("replies = %q, want one saying the accept now covers the new code", out.Replies)
			}
			run := latestRun(t, p.s, head)
			if run.Conclusion != report.ConclusionSuccess {
				t.Fatalf("after rev's fresh review: %s\n%s", run.Conclusion, run.Summary)
			}
			noViolations(t, p.s)

			// The renewal is the approval's standing: dismissed, it is gone.
			p.s.DismissReview(n, out.Check.Renewed["T1"])
			recheck := event{name: "pull_request", payload: prPayload(t, p.s, n, provBranch, "main")}.run(t, p.s).only(t)
			if recheck.Conclusion != report.ConclusionWaiting {
				t.Errorf("after the fresh review was dismissed: %s, want waiting", recheck.Conclusion)
			}
		})
	}
}

// Reviews survive a clean update (docs/semantics.md §8, stale: change):
// T1's code is approved and the bot records the accept; main moves on;
// the branch is brought up to date by a merge of main. Under change the
// accept still covers the head when the merge left the pull request's
// change as it was, and goes stale otherwise; under tree every update goes
// stale.

// approvedLogin is provRepo's pull request with T1's code committed,
// approved by rev and recorded by the bot, under require and stale.
func approvedLogin(t *testing.T, stale string) *provPR {
	t.Helper()
	p := provRepo(t, "require", stale)
	code := p.s.CommitFiles(e2e.Owner, e2e.Repo, provBranch, map[string]string{"src/login.go": "package login // T1\n"}, provDevGH, fakegithub.Verified())
	p.open(t, "main")
	if out := p.approveAt(t, code); out.Check == nil || out.Check.Conclusion != report.ConclusionSuccess {
		t.Fatalf("the approval did not pass the pull request: %+v", out)
	}
	return p
}

// mergeMain brings the branch up to date with a merge of main's tip, its
// tree the branch's with main's files and edits applied, as `git merge
// main` and GitHub's "Update branch" make it.
func (p *provPR) mergeMain(t *testing.T, mainFiles, edits map[string]string) string {
	t.Helper()
	head, tip := p.head(), p.s.BranchHead(e2e.Owner, e2e.Repo, "main")
	files := map[string]string{}
	for k, v := range mainFiles {
		files[k] = v
	}
	for k, v := range edits {
		files[k] = v
	}
	return p.s.CommitFiles(e2e.Owner, e2e.Repo, provBranch, files, provDevGH, fakegithub.WithParents(head, tip), fakegithub.Verified(),
		fakegithub.WithMessage("Merge branch 'main' into "+provBranch))
}

func TestChangeCoverageAcrossAnUpdate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, stale string
		// main is what main's next commit changes; edits what the merge
		// changes beyond main's files.
		main, edits map[string]string
		covers      bool
		says        string
	}{
		{name: "change: a clean update keeps the review", stale: "change", main: map[string]string{"docs/guide.md": "guide\n"}, covers: true},
		{name: "tree: the same update goes stale", stale: "tree", main: map[string]string{"docs/guide.md": "guide\n"}, says: "docs/guide.md"},
		{name: "change: an evil merge", stale: "change", main: map[string]string{"docs/guide.md": "guide\n"},
			edits: map[string]string{"src/session.go": "package login // unreviewed\n"}, says: "src/session.go"},
		{name: "change: the resolution edits the reviewed file", stale: "change", main: map[string]string{"docs/guide.md": "guide\n"},
			edits: map[string]string{"src/login.go": "package login // T1, edited in the merge\n"}, says: "src/login.go"},
		{name: "change: main changed the reviewed file, the resolution keeps the branch's", stale: "change",
			main: map[string]string{"src/login.go": "package login // main's fix\n"}, edits: map[string]string{"src/login.go": "package login // T1\n"}, says: "src/login.go"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := approvedLogin(t, tc.stale)
			p.s.CommitFiles(e2e.Owner, e2e.Repo, "main", tc.main, provLeadGH, fakegithub.Verified())
			head := p.mergeMain(t, tc.main, tc.edits)
			out := event{name: "pull_request", payload: prPayload(t, p.s, p.n, provBranch, "main")}.run(t, p.s).only(t)
			run := onlyRun(t, p.s, head, "pact", map[bool]string{true: report.ConclusionSuccess, false: report.ConclusionFailure}[tc.covers])
			if tc.covers {
				if c := checks.Count(out.Findings); c.Errors+c.Pending != 0 {
					t.Errorf("findings after a clean update: %+v", out.Findings)
				}
				return
			}
			var stale []string
			for _, f := range out.Findings {
				if f.Code == checks.CodeProvenanceStale {
					stale = append(stale, f.Message)
				}
			}
			if len(stale) != 1 || !strings.Contains(stale[0], tc.says) {
				t.Errorf("%s findings %q, want one naming %s\n%s", checks.CodeProvenanceStale, stale, tc.says, run.Summary)
			}
			if tc.stale == "change" && !strings.Contains(stale[0], "provenance stale: change") {
				t.Errorf("the finding does not say it is the change that differs: %s", stale[0])
			}
		})
	}
}

// A fresh review renews an accept under change as under tree: the
// reviewer's approval of a commit whose change is the head's. An approval
// given before a clean update covers the updated head; one given on the
// head itself covers it whatever the update did.
func TestChangeFreshReview(t *testing.T) {
	t.Parallel()
	p := approvedLogin(t, "change")
	p.s.CommitFiles(e2e.Owner, e2e.Repo, "main", map[string]string{"docs/guide.md": "guide\n"}, provLeadGH, fakegithub.Verified())
	head := p.mergeMain(t, map[string]string{"docs/guide.md": "guide\n"}, map[string]string{"src/session.go": "package login // T1, part two\n"})
	out := event{name: "pull_request", payload: prPayload(t, p.s, p.n, provBranch, "main")}.run(t, p.s).only(t)
	if c := checks.Count(out.Findings); c.Errors == 0 {
		t.Fatalf("the evil merge was covered: %+v", out.Findings)
	}
	p.s.SetNow(mustTime(reviewTS).Add(2 * 60 * 60 * 1e9))
	p.s.AddReview(p.n, fakegithub.ReviewSeed{Login: provRevGH, State: "APPROVED", CommitID: head})
	out = event{name: "pull_request", payload: prPayload(t, p.s, p.n, provBranch, "main")}.run(t, p.s).only(t)
	for _, f := range out.Findings {
		if f.Code == checks.CodePRUnaccepted {
			t.Errorf("T1 still waits after the fresh review: %s", f.Message)
		}
	}
}

// A criss-cross of merge bases must not hide a revert (docs/semantics.md
// §8). Main merges a fix branch F (src/guard.go) with a merge commit over
// M1. The worker merges M1 into their approved branch, then F with its
// change thrown away ("git merge -s ours"): the head and main now meet at
// both M1 and F. Against M1 — GitHub's choice, the later — the head changes
// only the reviewed src/login.go; but git merges it into main from both
// bases (their merge holds the fix), so the merge deletes src/guard.go, a
// change nobody reviewed. Under change the accept must not cover the head.
func TestChangeCrissCrossHidesNoRevert(t *testing.T) {
	t.Parallel()
	p := approvedLogin(t, "change")
	s := p.s
	fix := s.CommitFiles(e2e.Owner, e2e.Repo, "fix", map[string]string{"src/guard.go": "package guard // the fix\n"}, provLeadGH,
		fakegithub.From("main"), fakegithub.Verified())
	m1 := s.CommitFiles(e2e.Owner, e2e.Repo, "main", map[string]string{"docs/guide.md": "guide\n"}, provLeadGH, fakegithub.Verified())
	s.CommitFiles(e2e.Owner, e2e.Repo, "main", map[string]string{"src/guard.go": "package guard // the fix\n"}, provLeadGH,
		fakegithub.WithParents(m1, fix), fakegithub.Verified(), fakegithub.WithMessage("Merge branch 'fix'"))
	updated := s.CommitFiles(e2e.Owner, e2e.Repo, provBranch, map[string]string{"docs/guide.md": "guide\n"}, provDevGH,
		fakegithub.WithParents(p.head(), m1), fakegithub.Verified())
	head := s.CommitFiles(e2e.Owner, e2e.Repo, provBranch, map[string]string{}, provDevGH,
		fakegithub.WithParents(updated, fix), fakegithub.Verified(), fakegithub.WithMessage("Merge branch 'fix' (-s ours)"))
	if _, ok := s.FileAt(head, "src/guard.go"); ok {
		t.Fatal("the head holds the fix")
	}
	if mb := s.MergeBase(s.BranchHead(e2e.Owner, e2e.Repo, "main"), head); mb != m1 {
		t.Fatalf("the fake's merge base is %s, want M1 %s (the story needs GitHub's choice of the later base)", mb, m1)
	}
	out, _ := p.check(t, report.ConclusionFailure)
	var stale []string
	for _, f := range out.Findings {
		if f.Code == checks.CodeProvenanceStale {
			stale = append(stale, f.Message)
		}
	}
	if len(stale) != 1 || !strings.Contains(stale[0], "more than one merge base") {
		t.Fatalf("%s findings %q, want one saying the head meets main at more than one merge base", checks.CodeProvenanceStale, stale)
	}
	// The reviewer's approval of the head itself renews the accept: the
	// same commit is the same change, whatever its merge bases.
	s.SetNow(mustTime(reviewTS).Add(2 * time.Hour))
	s.AddReview(p.n, fakegithub.ReviewSeed{Login: provRevGH, State: "APPROVED", CommitID: head})
	out = event{name: "pull_request", payload: prPayload(t, s, p.n, provBranch, "main")}.run(t, s).only(t)
	for _, f := range out.Findings {
		if f.Code == checks.CodePRUnaccepted {
			t.Errorf("T1 still waits after a fresh review of the head: %s", f.Message)
		}
	}
}
