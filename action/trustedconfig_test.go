package action_test

import (
	"strings"
	"testing"

	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/internal/testkit/e2e"
	"github.com/pact-action/pact-action/internal/testkit/fakegithub"
	"github.com/pact-action/pact-action/projection"
	"github.com/pact-action/pact-action/report"
)

// Which configuration? (docs/semantics.md §5) The one on the repository's
// default branch, whatever a pull request's base: a branch the worker
// creates, with a lenient .github/pact.yml, grants nothing — not a passing
// check on a head that a pull request into the default branch shares, not
// whom review requests go to, not a seat in the bot.

const provAccomplice = "accomplice-gh"

// decoys are the lenient files a worker writes on a branch of their own.
var decoys = []struct{ name, yml string }{
	{"provenance off", provPactYML("off", "sticky")},
	{"the worker's account holds the reviewer's seat", "seats:\n  lead: [" + provLeadGH + "]\n  dev: [" + provAccomplice + "]\n  rev: [" + provDevGH + "]\nprovenance:\n  mode: require\n  stale: tree\nunmapped-branches: allow\n"},
}

// decoyStory is the story up to the decoy pull request: provRepo
// under require/tree, dev's account accepts T1 under rev's seat on
// feat/login, and dev creates scratch from main with a lenient file.
func decoyStory(t *testing.T, decoy string) (*provPR, string) {
	t.Helper()
	p := provRepo(t, "require", "tree")
	p.s.CommitFiles(e2e.Owner, e2e.Repo, "scratch", map[string]string{".github/pact.yml": decoy}, provDevGH, fakegithub.From("main"), fakegithub.Verified())
	p.accept(t, map[string]any{"commit": p.worked}, provDevGH, fakegithub.Verified())
	return p, p.head()
}

// noPassingRun fails when any check run on head passes.
func noPassingRun(t *testing.T, s *fakegithub.Server, head string) {
	t.Helper()
	for _, run := range s.CheckRuns(head) {
		if run.Conclusion == report.ConclusionSuccess {
			t.Errorf("a check run on %s passes:\n%s", head, run.Summary)
		}
	}
}

// TestDecoyBaseLendsNoCheck: the pull request into scratch is judged under
// main's configuration, so the head gets no passing check to lend the pull
// request into main that shares it, and the findings say where the
// configuration came from.
func TestDecoyBaseLendsNoCheck(t *testing.T) {
	t.Parallel()
	for _, tc := range decoys {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p, head := decoyStory(t, tc.yml)
			p.open(t, "scratch")
			out := event{name: "pull_request", payload: prPayload(t, p.s, p.n, provBranch, "scratch")}.run(t, p.s).only(t)
			run := onlyRun(t, p.s, head, "pact", report.ConclusionFailure)
			provWantFindings(t, out.Findings, run,
				provExpect{checks.CodePRUnaccepted, checks.SeverityPending, 2, []string{"waiting for T1"}},
				provExpect{checks.CodeProvenanceUnverified, checks.SeverityError, 5, []string{"authored by account dev-gh", ".github/pact.yml on main"}})

			// PR #1 from the same head into main: the window before its own
			// run posts shows no passing check either.
			noPassingRun(t, p.s, head)
			p.open(t, "main")
			event{name: "pull_request", payload: prPayload(t, p.s, p.n, provBranch, "main")}.run(t, p.s).only(t)
			noPassingRun(t, p.s, head)
			noViolations(t, p.s)
		})
	}
}

// TestConfigFromTheDefaultBranchByName: the default branch is whichever
// GitHub names, not a branch called main: with trunk the default and a
// lenient file on main, a pull request into main is judged by trunk's.
func TestConfigFromTheDefaultBranchByName(t *testing.T) {
	t.Parallel()
	p := provRepo(t, "require", "tree")
	p.s.CommitFiles(e2e.Owner, e2e.Repo, "trunk", map[string]string{"README.md": "trunk\n"}, provLeadGH, fakegithub.From("main"), fakegithub.Verified())
	p.s.CommitFiles(e2e.Owner, e2e.Repo, "main", map[string]string{".github/pact.yml": provPactYML("off", "sticky")}, provDevGH, fakegithub.Verified())
	p.s.SetDefaultBranch(e2e.Owner, e2e.Repo, "trunk")
	p.accept(t, map[string]any{"commit": p.worked}, provDevGH, fakegithub.Verified())
	p.open(t, "main")
	out, run := p.check(t, report.ConclusionFailure)
	provWantFindings(t, out.Findings, run,
		provExpect{checks.CodePRUnaccepted, checks.SeverityPending, 2, []string{"waiting for T1"}},
		provExpect{checks.CodeProvenanceUnverified, checks.SeverityError, 5, []string{".github/pact.yml on trunk"}})
	noViolations(t, p.s)
}

// TestConfigInvalidNamesTheDefaultBranch: a default branch's file that
// cannot be used is reported as that branch's, on a pull request into any
// base; a broken file on the base is not read at all.
func TestConfigInvalidNamesTheDefaultBranch(t *testing.T) {
	t.Parallel()
	p := provRepo(t, "require", "tree")
	p.s.CommitFiles(e2e.Owner, e2e.Repo, "scratch", map[string]string{".github/pact.yml": "reviewers: [x]\n"}, provDevGH, fakegithub.From("main"))
	p.open(t, "scratch")
	out := event{name: "pull_request", payload: prPayload(t, p.s, p.n, provBranch, "scratch")}.run(t, p.s).only(t)
	if slices := codes(out.Findings); strings.Contains(strings.Join(slices, ","), string(checks.CodeConfigInvalid)) {
		t.Errorf("the base's broken file was judged: %v", out.Findings)
	}
	p.s.CommitFiles(e2e.Owner, e2e.Repo, "main", map[string]string{".github/pact.yml": "reviewers: [x]\n"}, provLeadGH)
	out = event{name: "pull_request", payload: prPayload(t, p.s, p.n, provBranch, "scratch")}.run(t, p.s).only(t)
	found := false
	for _, f := range out.Findings {
		if f.Code == checks.CodeConfigInvalid {
			found = true
			if !strings.HasPrefix(f.Message, "on the default branch main: ") {
				t.Errorf("config.invalid does not name the default branch: %q", f.Message)
			}
		}
	}
	if !found {
		t.Errorf("no config.invalid for main's broken file: %v", out.Findings)
	}
}

// TestReviewRequestsFollowTheDefaultBranch: a pull request into scratch,
// whose file maps the reviewer seat to the worker's accomplice, asks main's
// reviewer account.
func TestReviewRequestsFollowTheDefaultBranch(t *testing.T) {
	t.Parallel()
	p := provRepo(t, "require", "tree")
	for _, login := range []string{provRevGH, provDevGH, provAccomplice} {
		p.s.SetPermission(login, fakegithub.Write)
	}
	p.s.CommitFiles(e2e.Owner, e2e.Repo, "scratch", map[string]string{".github/pact.yml": strings.ReplaceAll(provPactYML("require", "tree"), "rev: ["+provRevGH+"]", "rev: ["+provAccomplice+"]")},
		provDevGH, fakegithub.From("main"))
	p.open(t, "scratch")
	event{name: "pull_request", payload: prPayload(t, p.s, p.n, provBranch, "scratch")}.run(t, p.s).only(t)
	if got := requested(p.s, p.n); got != provRevGH {
		t.Errorf("requested %q, want %s (main's reviewer seat), never %s", got, provRevGH, provAccomplice)
	}
	noViolations(t, p.s)
}

// TestBotSeatFromTheDefaultBranch: the accomplice's approval of a pull
// request into scratch, whose file gives them the reviewer's seat, records
// nothing: the bot's seat test reads main's.
func TestBotSeatFromTheDefaultBranch(t *testing.T) {
	t.Parallel()
	p := provRepo(t, "require", "tree")
	p.s.SetPermission(provAccomplice, fakegithub.Write)
	p.s.CommitFiles(e2e.Owner, e2e.Repo, "scratch", map[string]string{".github/pact.yml": strings.ReplaceAll(provPactYML("require", "tree"), "rev: ["+provRevGH+"]", "rev: ["+provAccomplice+"]")},
		provDevGH, fakegithub.From("main"))
	p.open(t, "scratch")
	head := p.head()
	p.s.SetNow(mustTime(reviewTS))
	id := p.s.AddReview(p.n, fakegithub.ReviewSeed{Login: provAccomplice, State: "APPROVED", CommitID: head})
	payload := reviewPayload(t, p.s, p.n, e2e.Owner, provBranch, reviewWebhook{id: id, login: provAccomplice, state: "approved", body: "LGTM", commitID: head})
	bot := event{name: "pull_request_review", payload: payload}.run(t, p.s).botDone(t)
	if bot.NewHead != "" || len(bot.Appended) != 0 || p.head() != head {
		t.Fatalf("the accomplice's approval was recorded: %+v", bot)
	}
	if log := mustFile(t, p.s, p.head(), logPath); strings.Contains(log, `"`+string(projection.TypeAccept)+`"`) {
		t.Errorf("the log holds an accept:\n%s", log)
	}
	noViolations(t, p.s)
}

// TestDecoyBaseLogLendsNoCheck: the decoy base's log is the worker's too.
// Here the decoy holds a forged accept of T1 (its payload naming a commit
// with the head's code), and the head builds on it: against the decoy the
// accept is no line of the pull request, yet provenance judges every line
// the default branch's log lacks, so the head gets no passing check. A
// decoy named like the default branch in other case (MAIN beside main) is
// another branch all the same.
func TestDecoyBaseLogLendsNoCheck(t *testing.T) {
	t.Parallel()
	for _, decoy := range []string{"scratch", "MAIN"} {
		t.Run(decoy, func(t *testing.T) {
			t.Parallel()
			p := provRepo(t, "require", "tree")
			code := p.s.CommitFiles(e2e.Owner, e2e.Repo, provBranch, map[string]string{"README.md": "x\n"}, provDevGH, fakegithub.Verified())
			p.log.Add("rev", projection.TypeAccept, "T1", "LOGIN", map[string]any{"commit": code})
			tip := p.s.CommitFiles(e2e.Owner, e2e.Repo, decoy, p.log.Files(), provDevGH, fakegithub.From(provBranch), fakegithub.Verified())
			p.s.SetBranch(e2e.Owner, e2e.Repo, provBranch, tip)
			head := p.s.CommitFiles(e2e.Owner, e2e.Repo, provBranch, map[string]string{".pact/notes.md": "n\n"}, provDevGH, fakegithub.Verified())
			p.open(t, decoy)
			out := event{name: "pull_request", payload: prPayload(t, p.s, p.n, provBranch, decoy)}.run(t, p.s).only(t)
			run := onlyRun(t, p.s, head, "pact", report.ConclusionFailure)
			provWantFindings(t, out.Findings, run,
				provExpect{checks.CodePRUnaccepted, checks.SeverityPending, 2, []string{"waiting for T1"}},
				provExpect{checks.CodeProvenanceUnverified, checks.SeverityError, 5, []string{"authored by account dev-gh"}})
			noPassingRun(t, p.s, head)
			noViolations(t, p.s)
		})
	}
}

// TestStackedPRProvenanceFromTheDefaultBranch: a pull request into another
// feature branch whose lines were written by their seats' accounts is
// judged as before: those lines are verified like the pull request's own.
func TestStackedPRProvenanceFromTheDefaultBranch(t *testing.T) {
	t.Parallel()
	s := e2e.NewServer(t)
	base := e2e.NewLog().Assign("T1", "LOGIN", provBranch, "dev", "rev")
	files := base.Files()
	files[".github/pact.yml"] = provPactYML("require", "tree")
	s.CommitFiles(e2e.Owner, e2e.Repo, "main", files, provLeadGH, fakegithub.Verified())
	joined := base.Copy().Join("dev")
	s.CommitFiles(e2e.Owner, e2e.Repo, "stack", joined.Files(), provDevGH, fakegithub.From("main"), fakegithub.Verified())
	head := s.CommitFiles(e2e.Owner, e2e.Repo, provBranch, joined.Copy().Checkpoint("dev", "T1", "LOGIN").Files(), provDevGH, fakegithub.From("stack"), fakegithub.Verified())
	n := s.OpenPR(e2e.Owner, e2e.Repo, fakegithub.PRSeed{Head: provBranch, Base: "stack", Author: provDevGH})
	out := event{name: "pull_request", payload: prPayload(t, s, n, provBranch, "stack")}.run(t, s).only(t)
	if got := codes(out.Findings); strings.Join(got, ",") != string(checks.CodePRUnaccepted) {
		t.Errorf("findings = %+v, want only the wait for T1's review", out.Findings)
	}
	onlyRun(t, s, head, "pact", report.ConclusionWaiting)
	noViolations(t, s)
}
