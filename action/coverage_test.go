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
	"github.com/pact-action/pact-action/projection"
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

// Issue 22 item 2, through the binary: T1 was accepted on main for earlier
// code; the branch name is reused with new code, and the pull request also
// adds the orchestrator's signed merge of LOGIN. Shipping LOGIN in the
// head's replay exempts nothing (docs/semantics.md §5 "Coverage"): under
// require, tree and unmapped-branches: block, T1 waits for a fresh review.
func TestBinaryCoverageWhenThePullRequestAddsTheMerge(t *testing.T) {
	t.Parallel()
	p, reviewed := shippedLogin(t, "require", "tree")
	p.s.CommitFiles(e2e.Owner, e2e.Repo, "main", map[string]string{".github/pact.yml": provPactYML("require", "tree") + "unmapped-branches: block\n"}, provLeadGH, fakegithub.Verified())
	n := reuseBranch(t, p, provBranch, map[string]string{"src/login.go": "package login\n\nfunc Backdoor() {}\n"})
	text, _ := p.s.FileAt("main", logPath)
	log := &e2e.Log{Lines: strings.Split(strings.TrimSuffix(text, "\n"), "\n")}
	merge := projection.NewMerge("lead", "LOGIN")
	merge.EventID, merge.TS = strings.Repeat("e", 32), mustTime(reviewTS).Add(time.Hour)
	line, err := projection.Encode(merge)
	if err != nil {
		t.Fatal(err)
	}
	log.Raw(string(line))
	head := p.s.CommitFiles(e2e.Owner, e2e.Repo, provBranch, log.Files(), provLeadGH, fakegithub.Verified())

	res := e2e.Run{Server: p.s, EventName: "pull_request", Payload: prPayload(t, p.s, n, provBranch, "main")}.Exec(t)

	run := latestRun(t, p.s, head)
	if run.Conclusion == report.ConclusionSuccess {
		t.Fatalf("adding the merge of LOGIN shipped unreviewed code:\n%s", run.Summary)
	}
	var waiting bool
	for _, f := range reportFindings(t, res, 0) {
		waiting = waiting || f.Code == checks.CodePRUnaccepted && f.TaskID == "T1" && strings.Contains(f.Message, reviewed[:7])
	}
	if !waiting {
		t.Errorf("T1 does not wait for a fresh review of the new code:\n%s", run.Summary)
	}
	noViolations(t, p.s)
}
