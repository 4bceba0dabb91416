package action_test

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/internal/testkit/e2e"
	"github.com/pact-action/pact-action/internal/testkit/fakegithub"
	"github.com/pact-action/pact-action/projection"
	"github.com/pact-action/pact-action/report"
)

// The hints whose action is taken on GitHub (a review, a /pact comment,
// a commit by a seat's account), followed as the finding shows them:
// the finding goes away (docs/codes.md). cmd/pactify's TestHintsWork
// runs those of pactify and git.

// hintOf is the hint of the first finding of code (of task, when not
// empty) in fs; none fails the test.
func hintOf(t *testing.T, fs []checks.Finding, code projection.Code, task string) string {
	t.Helper()
	for _, f := range fs {
		if f.Code == code && (task == "" || f.TaskID == task) {
			return f.Hint
		}
	}
	t.Fatalf("no %s finding to follow the hint of: %v", code, codes(fs))
	return ""
}

// hasCode says whether fs holds a finding of code.
func hasCode(fs []checks.Finding, code projection.Code) bool {
	for _, f := range fs {
		if f.Code == code {
			return true
		}
	}
	return false
}

// slashCommand is a /pact command a hint names.
var slashCommand = regexp.MustCompile("`(/pact [^`]+)`")

// TestHintReviewEndsTheWait: a task awaiting review names its reviewer's
// accounts and the two reviews on GitHub that end the wait: the /pact
// command it gives, commented by one of them, and an approval by one of
// them; each makes the bot record the accept and the check pass.
func TestHintReviewEndsTheWait(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"comment", "approval"} {
		t.Run(how, func(t *testing.T) {
			t.Parallel()
			b := newBotScenario(t, botOpts{})
			out := b.run(t, "pull_request", prPayload(t, b.s, b.pr, b.branch, "main")).only(t)
			hint := hintOf(t, out.Findings, checks.CodePRUnaccepted, "T1")
			if !strings.Contains(hint, "revuser or rev-agent[bot] approves this pull request") {
				t.Fatalf("the hint does not name rev's accounts: %q", hint)
			}
			var bot result
			if how == "comment" {
				m := slashCommand.FindStringSubmatch(hint)
				if m == nil {
					t.Fatalf("the hint names no /pact command: %q", hint)
				}
				payload, _ := b.comment(t, "revuser", m[1], "MEMBER")
				bot = b.run(t, "issue_comment", payload)
			} else {
				payload, _ := b.review(t, "revuser", "approved", "")
				bot = b.run(t, "pull_request_review", payload)
			}
			done := bot.botDone(t)
			if done.Check == nil || done.Check.Conclusion != report.ConclusionSuccess || hasCode(done.Check.Findings, checks.CodePRUnaccepted) {
				t.Fatalf("after the hint's %s: %+v", how, done.Check)
			}
		})
	}
}

// TestHintUnverifiedAccept: a worker's account commits the reviewer's
// accept. The hint says to take the line out and have it recorded by
// the reviewer's account through the bot: the branch's log without the
// line (what git checkout of the base's log and the worker's events
// recorded again leave), then the reviewer's approval, and nothing is
// unverified.
func TestHintUnverifiedAccept(t *testing.T) {
	t.Parallel()
	p := provSeed(t, "require", "tree")
	without := p.log.Copy()
	p.accept(t, map[string]any{"commit": p.worked}, provDevGH, fakegithub.Verified())
	out, _ := p.check(t, "failure")
	hint := hintOf(t, out.Findings, checks.CodeProvenanceUnverified, "T1")
	for _, want := range []string{"`git checkout <base> -- .pact/log.jsonl .pact/STATE.yml`", "the reviewer's account approves the pull request"} {
		if !strings.Contains(hint, want) {
			t.Fatalf("the hint does not say %q: %q", want, hint)
		}
	}
	p.s.CommitFiles(e2e.Owner, e2e.Repo, provBranch, without.Files(), provDevGH, fakegithub.Verified())
	head := p.head()
	id := p.s.AddReview(p.n, fakegithub.ReviewSeed{Login: provRevGH, State: "APPROVED", CommitID: head})
	payload := reviewPayload(t, p.s, p.n, e2e.Owner, provBranch, reviewWebhook{id: id, login: provRevGH, state: "approved", body: "LGTM", commitID: head})
	done := event{name: "pull_request_review", payload: payload}.run(t, p.s).botDone(t)
	if done.Check == nil || done.Check.Conclusion != report.ConclusionSuccess || hasCode(done.Check.Findings, checks.CodeProvenanceUnverified) {
		t.Fatalf("after the hint: %+v", done.Check)
	}
}

// TestHintStaleAccept: code pushed after the accept makes it stale (a
// warning under warn); the hint names the reviewer's account, whose
// approval of the new head renews the accept.
func TestHintStaleAccept(t *testing.T) {
	t.Parallel()
	p := provSeed(t, "warn", "tree")
	p.accept(t, map[string]any{"commit": p.worked}, provRevGH, fakegithub.Verified())
	p.s.CommitFiles(e2e.Owner, e2e.Repo, provBranch, map[string]string{"src/login.go": "package login\n\nfunc Login() {}\n"}, provDevGH, fakegithub.Verified())
	out, _ := p.check(t, "success")
	hint := hintOf(t, out.Findings, checks.CodeProvenanceStale, "T1")
	if !strings.HasPrefix(hint, "Ask "+provRevGH+" to approve the pull request's current head") {
		t.Fatalf("the hint does not name rev's account: %q", hint)
	}
	head := p.head()
	id := p.s.AddReview(p.n, fakegithub.ReviewSeed{Login: provRevGH, State: "APPROVED", CommitID: head})
	payload := reviewPayload(t, p.s, p.n, e2e.Owner, provBranch, reviewWebhook{id: id, login: provRevGH, state: "approved", body: "ok", commitID: head})
	done := event{name: "pull_request_review", payload: payload}.run(t, p.s).botDone(t)
	if done.Check == nil || hasCode(done.Check.Findings, checks.CodeProvenanceStale) {
		t.Fatalf("after the fresh review: %+v", done.Check)
	}
}

// TestHintFutureTimestamp: an event stamped in 2099; the hint says
// to take the line out and record the event again, which pactify stamps
// with the current time, and nothing is in the future.
func TestHintFutureTimestamp(t *testing.T) {
	t.Parallel()
	p := provSeed(t, "require", "tree")
	without := p.log.Copy()
	p.log.AddAt(time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC), "rev", projection.TypeAccept, "T1", "LOGIN", map[string]any{"commit": p.worked})
	p.s.CommitFiles(e2e.Owner, e2e.Repo, provBranch, p.log.Files(), provRevGH, fakegithub.Verified())
	out, _ := p.check(t, "failure")
	hint := hintOf(t, out.Findings, checks.CodeProvenanceFutureTS, "T1")
	if !strings.Contains(hint, "`git checkout <base> -- .pact/log.jsonl .pact/STATE.yml`") || !strings.Contains(hint, "stamp the current time") {
		t.Fatalf("the hint does not say to take the line out and record it again: %q", hint)
	}
	// The line out, and the accept recorded again by rev's account at the
	// time pactify would stamp: the server's now.
	without.AddAt(e2e.ServerEpoch.Add(time.Hour), "rev", projection.TypeAccept, "T1", "LOGIN", map[string]any{"commit": p.worked})
	p.s.CommitFiles(e2e.Owner, e2e.Repo, provBranch, without.Files(), provRevGH, fakegithub.Verified())
	out, _ = p.check(t, "success")
	if hasCode(out.Findings, checks.CodeProvenanceFutureTS) {
		t.Fatalf("after the hint: %v", codes(out.Findings))
	}
}
