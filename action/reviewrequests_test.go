package action_test

import (
	"strings"
	"sync"
	"testing"

	"github.com/pact-action/pact-action/action"
	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/internal/testkit/e2e"
	"github.com/pact-action/pact-action/internal/testkit/fakegithub"
	"github.com/pact-action/pact-action/report"
)

// Review requests end to end, on the fake GitHub: the check asks the
// reviewer seat's account for the review the pact waits for, the approval
// is recorded by the bot, and the check passes; new code makes the accept
// stale and the check asks again (GitHub's re-request); a fresh review
// renews it.

// requestSeed is provSeed with rev's account a collaborator (GitHub asks
// only those), under require/tree.
func requestSeed(t *testing.T) *provPR {
	t.Helper()
	p := provSeed(t, "require", "tree")
	p.s.SetPermission(provRevGH, fakegithub.Write)
	p.s.SetPermission(provDevGH, fakegithub.Write)
	return p
}

// requested is who the fake holds as requested on pull request n.
func requested(s *fakegithub.Server, n int) string {
	users, teams := s.RequestedReviewers(n)
	return strings.Join(append(users, teams...), ",")
}

// approveAt submits rev's approval of commit and delivers its webhook to
// bot mode.
func (p *provPR) approveAt(t *testing.T, commit string) *action.BotOutcome {
	t.Helper()
	p.s.SetNow(mustTime(reviewTS))
	id := p.s.AddReview(p.n, fakegithub.ReviewSeed{Login: provRevGH, State: "APPROVED", CommitID: commit})
	payload := reviewPayload(t, p.s, p.n, e2e.Owner, provBranch, reviewWebhook{id: id, login: provRevGH, state: "approved", body: "LGTM", commitID: commit})
	return event{name: "pull_request_review", payload: payload}.run(t, p.s).botDone(t)
}

// waitingLine is the summary's waiting line of T1, inert as report renders
// it.
func waitingLine(t *testing.T, summary string) string {
	t.Helper()
	for _, l := range strings.Split(summary, "\n") {
		if strings.HasPrefix(l, "- waiting for T1 ") {
			return l
		}
	}
	t.Fatalf("no waiting line for T1:\n%s", summary)
	return ""
}

func TestReviewRequestCheckpointToGreen(t *testing.T) {
	t.Parallel()
	p := requestSeed(t)
	checkpointed := p.head()

	// The checkpoint: T1 awaits review, and the check asks rev's account.
	out, run := p.check(t, report.ConclusionWaiting)
	if got := requested(p.s, p.n); got != provRevGH {
		t.Fatalf("requested %q, want %s", got, provRevGH)
	}
	line := waitingLine(t, run.Summary)
	if want := "awaiting review by rev; review requested from " + report.Escape("@"+provRevGH); !strings.HasSuffix(line, want) {
		t.Errorf("waiting line %q does not end in %q", line, want)
	}
	if strings.Contains(run.Summary, "@"+provRevGH) {
		t.Errorf("the summary mentions @%s:\n%s", provRevGH, run.Summary)
	}
	if len(out.Requests) != 1 || len(out.Requests[0].Plan.Ask) != 1 || out.Requests[0].Err != nil {
		t.Errorf("requests = %+v", out.Requests)
	}
	if n := countOp(p.s, "pulls/request-reviewers"); n != 1 {
		t.Errorf("%d review requests, want 1", n)
	}

	// The approval answers the request; the bot records the accept and
	// the check on its commit passes, asking nobody.
	bot := p.approveAt(t, checkpointed)
	if bot.NewHead == "" || bot.Check == nil || bot.Check.Conclusion != report.ConclusionSuccess {
		t.Fatalf("after the approval: %+v", bot)
	}
	if got := requested(p.s, p.n); got != "" {
		t.Errorf("still requested after the review: %q", got)
	}
	if n := countOp(p.s, "pulls/request-reviewers"); n != 1 {
		t.Errorf("%d review requests after the accept, want still 1", n)
	}
	if strings.Contains(latestRun(t, p.s, bot.NewHead).Summary, "review request") {
		t.Errorf("a passing check speaks of review requests:\n%s", latestRun(t, p.s, bot.NewHead).Summary)
	}

	// New code after the accept: it no longer covers the head, and the
	// check asks rev again, whose review was of older code (GitHub's
	// re-request).
	p.log.Lines = strings.Split(strings.TrimSuffix(mustFile(t, p.s, bot.NewHead, logPath), "\n"), "\n")
	files := p.log.Files()
	files["src/login.go"] = "package login\n\nfunc Login() {}\n"
	head := p.s.CommitFiles(e2e.Owner, e2e.Repo, provBranch, files, provDevGH, fakegithub.Verified())
	// (The accept is this pull request's own line, so its staleness is
	// also a provenance.stale error, which the fresh review cures too.)
	out, run = p.check(t, report.ConclusionFailure)
	if got := requested(p.s, p.n); got != provRevGH {
		t.Fatalf("after new code, requested %q, want %s again", got, provRevGH)
	}
	line = waitingLine(t, run.Summary)
	for _, want := range []string{"a fresh review by rev, because", "; review requested from " + report.Escape("@"+provRevGH)} {
		if !strings.Contains(line, want) {
			t.Errorf("waiting line %q lacks %q", line, want)
		}
	}
	if out.Requests[0].Err != nil || countOp(p.s, "pulls/request-reviewers") != 2 {
		t.Errorf("the re-request: %+v, %d calls", out.Requests, countOp(p.s, "pulls/request-reviewers"))
	}

	// rev's fresh review of the head renews the accept: green, nobody
	// asked any more.
	bot = p.approveAt(t, head)
	if bot.NewHead != "" || bot.Check == nil || bot.Check.Conclusion != report.ConclusionSuccess {
		t.Fatalf("after the fresh review: %+v", bot)
	}
	if got := requested(p.s, p.n); got != "" || countOp(p.s, "pulls/request-reviewers") != 2 {
		t.Errorf("after the fresh review: requested %q, %d calls", got, countOp(p.s, "pulls/request-reviewers"))
	}
	noViolations(t, p.s)
}

// TestReviewRequestIdempotent: a re-run asks nothing (the request stands)
// and says the same; concurrent runs ask at most once each, hold one
// request, and comment nothing.
func TestReviewRequestIdempotent(t *testing.T) {
	t.Parallel()
	t.Run("re-run", func(t *testing.T) {
		t.Parallel()
		p := requestSeed(t)
		ev := event{name: "pull_request", payload: prPayload(t, p.s, p.n, provBranch, "main")}
		first, second := ev.run(t, p.s).only(t), ev.run(t, p.s).only(t)
		if n := countOp(p.s, "pulls/request-reviewers"); n != 1 {
			t.Errorf("%d review requests over two runs, want 1", n)
		}
		if waitingLine(t, first.Summary) != waitingLine(t, second.Summary) {
			t.Errorf("the waiting line changed between runs:\n%s\n%s", waitingLine(t, first.Summary), waitingLine(t, second.Summary))
		}
	})
	t.Run("concurrent runs", func(t *testing.T) {
		t.Parallel()
		p := requestSeed(t)
		payload := prPayload(t, p.s, p.n, provBranch, "main")
		var wg sync.WaitGroup
		results := make([]result, 2)
		for i := range results {
			wg.Add(1)
			go func() {
				defer wg.Done()
				results[i] = event{name: "pull_request", payload: payload}.run(t, p.s)
			}()
		}
		wg.Wait()
		for _, r := range results {
			if r.err != nil || len(r.outcomes) != 1 || r.outcomes[0].Conclusion != report.ConclusionWaiting {
				t.Fatalf("a run: %+v", r)
			}
			if !strings.Contains(waitingLine(t, r.outcomes[0].Summary), "review requested from") {
				t.Errorf("a run does not say the review is requested:\n%s", r.outcomes[0].Summary)
			}
		}
		if got := requested(p.s, p.n); got != provRevGH {
			t.Errorf("requested %q, want %s once", got, provRevGH)
		}
		if n := countOp(p.s, "pulls/request-reviewers"); n < 1 || n > 2 {
			t.Errorf("%d review requests for two runs", n)
		}
		if c := p.s.Comments(p.n); len(c) != 0 {
			t.Errorf("the check commented: %+v", c)
		}
	})
}

// TestReviewRequestCannot: a request that cannot be made never changes the
// verdict; the summary says why, and what to do.
func TestReviewRequestCannot(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		setup func(p *provPR)
		says  []string
		calls int
	}{
		{name: "a fork's read-only token", calls: 1,
			setup: func(p *provPR) { p.s.SetToken(e2e.Token, fakegithub.Token{ReadOnly: true}) },
			says:  []string{"the token may not request reviews (GitHub answered 403 Resource not accessible by integration)", "pull-requests: write", "review-requests: off"}},
		{name: "an account without access", calls: 1,
			setup: func(p *provPR) { p.s.SetPermission(provRevGH, fakegithub.NoAccess) },
			says:  []string{"GitHub refused to request a review from @rev-gh (GitHub answered 422 Reviews may only be requested from collaborators"}},
		{name: "the reviewer seat's only account wrote the pull request", calls: 0,
			setup: func(p *provPR) {
				p.s.CommitFiles(e2e.Owner, e2e.Repo, "main", map[string]string{".github/pact.yml": provPactYML("require", "tree") + "review-teams: {}\n"}, provLeadGH, fakegithub.Verified())
				p.s.ClosePR(p.n)
				p.n = p.s.OpenPR(e2e.Owner, e2e.Repo, fakegithub.PRSeed{Head: provBranch, Base: "main", Author: provRevGH})
			},
			says: []string{"no review was requested for T1 from seat rev: rev-gh: the pull request's author"}},
		{name: "a team, with the workflow's token", calls: 1,
			setup: func(p *provPR) {
				p.s.AddTeam("reviewers", provRevGH)
				p.s.CommitFiles(e2e.Owner, e2e.Repo, "main", map[string]string{".github/pact.yml": provPactYML("require", "tree") + "review-teams: {rev: [reviewers]}\n"}, provLeadGH, fakegithub.Verified())
			},
			says: []string{"GitHub refused to request a review from team reviewers (GitHub answered 422 Could not resolve to a node", "a GitHub App token with Members: read can"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := requestSeed(t)
			tc.setup(p)
			out := event{name: "pull_request", payload: prPayload(t, p.s, p.n, provBranch, "main")}.run(t, p.s).only(t)
			if out.Conclusion != report.ConclusionWaiting || checks.Count(out.Findings).Errors != 0 {
				t.Fatalf("the verdict changed: %s %+v", out.Conclusion, out.Findings)
			}
			if got := requested(p.s, p.n); got != "" {
				t.Errorf("requested %q", got)
			}
			if n := countOp(p.s, "pulls/request-reviewers"); n != tc.calls {
				t.Errorf("%d review requests, want %d", n, tc.calls)
			}
			if strings.Contains(waitingLine(t, out.Summary), "review requested from") {
				t.Errorf("the waiting line claims a request:\n%s", out.Summary)
			}
			for _, want := range tc.says {
				if !strings.Contains(out.Summary, "- review request: ") || !strings.Contains(out.Summary, report.Escape(want)) {
					t.Errorf("the summary does not say %q:\n%s", want, out.Summary)
				}
			}
			noViolations(t, p.s)
		})
	}
}

// TestReviewRequestTeam: a token that can read the organization's teams
// asks the seat's team instead of its accounts.
func TestReviewRequestTeam(t *testing.T) {
	t.Parallel()
	p := requestSeed(t)
	p.s.SetToken(e2e.Token, fakegithub.Token{Login: "pact-app[bot]", ReadsTeams: true})
	p.s.AddTeam("reviewers", provRevGH)
	p.s.CommitFiles(e2e.Owner, e2e.Repo, "main", map[string]string{".github/pact.yml": provPactYML("require", "tree") + "review-teams: {rev: [reviewers]}\n"}, provLeadGH, fakegithub.Verified())
	out := event{name: "pull_request", payload: prPayload(t, p.s, p.n, provBranch, "main")}.run(t, p.s).only(t)
	if got := requested(p.s, p.n); got != "reviewers" {
		t.Fatalf("requested %q, want the team", got)
	}
	if line := waitingLine(t, out.Summary); !strings.HasSuffix(line, "; review requested from team reviewers") {
		t.Errorf("waiting line %q", line)
	}
}

// TestReviewRequestsOff: review-requests: off asks nobody and says nothing.
func TestReviewRequestsOff(t *testing.T) {
	t.Parallel()
	p := requestSeed(t)
	p.s.CommitFiles(e2e.Owner, e2e.Repo, "main", map[string]string{".github/pact.yml": provPactYML("require", "tree") + "review-requests: off\n"}, provLeadGH, fakegithub.Verified())
	out := event{name: "pull_request", payload: prPayload(t, p.s, p.n, provBranch, "main")}.run(t, p.s).only(t)
	if out.Conclusion != report.ConclusionWaiting || countOp(p.s, "pulls/request-reviewers") != 0 || strings.Contains(out.Summary, "review request") {
		t.Errorf("review-requests: off: %s, %d calls\n%s", out.Conclusion, countOp(p.s, "pulls/request-reviewers"), out.Summary)
	}
}

func mustFile(t *testing.T, s *fakegithub.Server, ref, path string) string {
	t.Helper()
	c, ok := s.FileAt(ref, path)
	if !ok {
		t.Fatalf("no %s at %s", path, ref)
	}
	return c
}
