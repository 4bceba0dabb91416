package action_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/internal/testkit/e2e"
	"github.com/pact-action/pact-action/internal/testkit/fakegithub"
	"github.com/pact-action/pact-action/projection"
	"github.com/pact-action/pact-action/report"
)

// End-to-end tests of provenance (SEMANTICS.md §5): the real binary against
// the fake GitHub. main holds the init (line 1), the assign of T1 on
// feat/login owned by dev and reviewed by rev (line 2), and
// .github/pact.yml mapping the seats to the accounts below; the pull request
// adds dev's join and checkpoint (lines 3–4), committed and signed by dev's
// account, and then an accept of T1 (line 5) written by whoever the test
// says.

const (
	provLeadGH = "lead-gh"
	provDevGH  = "dev-gh"
	provRevGH  = "rev-gh"
	provBotGH  = "github-actions[bot]"
	provBranch = "feat/login"
	provLog    = ".pact/log.jsonl"
)

type provPR struct {
	s      *fakegithub.Server
	n      int
	log    *e2e.Log // the branch's log so far
	worked string   // the commit of the join and checkpoint
}

func provPactYML(mode, stale string) string {
	return fmt.Sprintf("seats:\n  lead: [%s]\n  dev: [%s]\n  rev: [%s]\nprovenance:\n  mode: %s\n  stale: %s\n", provLeadGH, provDevGH, provRevGH, mode, stale)
}

func provSeed(t *testing.T, mode, stale string) *provPR {
	t.Helper()
	s := e2e.NewServer(t)
	base := e2e.NewLog().Assign("T1", "LOGIN", provBranch, "dev", "rev")
	files := base.Files()
	files[".github/pact.yml"] = provPactYML(mode, stale)
	files["src/login.go"] = "package login\n"
	s.CommitFiles(e2e.Owner, e2e.Repo, "main", files, provLeadGH, fakegithub.Verified())
	work := base.Copy().Join("dev").Checkpoint("dev", "T1", "LOGIN")
	sha := s.CommitFiles(e2e.Owner, e2e.Repo, provBranch, work.Files(), provDevGH, fakegithub.From("main"), fakegithub.Verified())
	n := s.OpenPR(e2e.Owner, e2e.Repo, fakegithub.PRSeed{Head: provBranch, Base: "main", Author: provDevGH})
	return &provPR{s: s, n: n, log: work, worked: sha}
}

// accept appends rev's accept of T1 with payload and commits it as author.
func (p *provPR) accept(t *testing.T, payload any, author string, opts ...fakegithub.CommitOption) string {
	t.Helper()
	p.log.Add("rev", projection.TypeAccept, "T1", "LOGIN", payload)
	return p.s.CommitFiles(e2e.Owner, e2e.Repo, provBranch, p.log.Files(), author, opts...)
}

func (p *provPR) head() string { return p.s.BranchHead(e2e.Owner, e2e.Repo, provBranch) }

// check runs check mode on the pull request's head and returns the result,
// its findings and the check run, which must be completed with conclusion.
func (p *provPR) check(t *testing.T, conclusion string) (e2e.Result, []checks.Finding, fakegithub.CheckRun) {
	t.Helper()
	head := p.head()
	res := e2e.Run{Server: p.s, EventName: "pull_request", Payload: prPayload(t, p.s, p.n, provBranch, "main")}.Exec(t)
	return provVerdict(t, p.s, res, head, conclusion)
}

func provVerdict(t *testing.T, s *fakegithub.Server, res e2e.Result, head, conclusion string) (e2e.Result, []checks.Finding, fakegithub.CheckRun) {
	t.Helper()
	runs := s.CheckRuns(head)
	if len(runs) != 1 {
		t.Fatalf("check runs on %s = %d, want 1\nstdout: %s\nstderr: %s", head, len(runs), res.Stdout, res.Stderr)
	}
	run := runs[0]
	if run.Status != "completed" || run.Conclusion != conclusion {
		t.Errorf("check run %s/%s, want completed/%s\nsummary:\n%s\nstderr: %s", run.Status, run.Conclusion, conclusion, run.Summary, res.Stderr)
	}
	if res.Outputs["conclusion"] != conclusion {
		t.Errorf("conclusion output = %q, want %q", res.Outputs["conclusion"], conclusion)
	}
	wantExitCode := 0
	if conclusion == "failure" {
		wantExitCode = 1
	}
	if (res.Code == 0) != (wantExitCode == 0) {
		t.Errorf("exit code %d for conclusion %s\nstderr: %s", res.Code, conclusion, res.Stderr)
	}
	if v := s.Violations(); len(v) != 0 {
		t.Errorf("OpenAPI violations: %v", v)
	}
	return res, provFindings(t, res), run
}

func provFindings(t *testing.T, res e2e.Result) []checks.Finding {
	t.Helper()
	runs, _ := res.Report["runs"].([]any)
	if len(runs) == 0 {
		t.Fatalf("the JSON report has no run: %v\nstdout: %s\nstderr: %s", res.Report, res.Stdout, res.Stderr)
	}
	b, err := json.Marshal(runs[0].(map[string]any)["findings"])
	if err != nil {
		t.Fatal(err)
	}
	var out []checks.Finding
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// provExpect is one finding a scenario must produce.
type provExpect struct {
	code     projection.Code
	severity checks.Severity
	line     int
	says     []string
}

// provWantFindings compares the findings with want (in the report's order)
// and checks that the check run's summary and annotations carry each
// message, so the explanation of the missing evidence reaches the reader.
func provWantFindings(t *testing.T, got []checks.Finding, run fakegithub.CheckRun, want ...provExpect) {
	t.Helper()
	if len(got) != len(want) {
		var b strings.Builder
		for _, f := range got {
			fmt.Fprintf(&b, "  %s %s %s:%d %s\n", f.Code, f.Severity, f.Path, f.Line, f.Message)
		}
		t.Fatalf("findings = %d, want %d:\n%s", len(got), len(want), b.String())
	}
	for i, w := range want {
		f := got[i]
		if f.Code != w.code || f.Severity != w.severity || f.Line != w.line || f.Path != provLog {
			t.Errorf("finding %d = %s %s %s:%d, want %s %s %s:%d", i, f.Code, f.Severity, f.Path, f.Line, w.code, w.severity, provLog, w.line)
		}
		for _, s := range w.says {
			if !strings.Contains(f.Message, s) {
				t.Errorf("finding %d (%s) message %q does not say %q", i, f.Code, f.Message, s)
			}
			if !strings.Contains(run.Summary, report.Escape(s)) {
				t.Errorf("the check run's summary does not say %q:\n%s", s, run.Summary)
			}
		}
	}
	checkAnnotations(t, run, got)
}

func provCount(s *fakegithub.Server, operation string) int {
	n := 0
	for _, r := range s.Requests() {
		if r.Operation == operation {
			n++
		}
	}
	return n
}

// A worker appends a perfectly valid accept under the reviewer's seat from
// its own account: unverified, a warning under warn and an error that also
// keeps T1 open under require.
func TestProvenanceForgedAccept(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		mode, conclusion string
		want             []provExpect
	}{
		{mode: "warn", conclusion: "success", want: []provExpect{
			{checks.CodeProvenanceUnverified, checks.SeverityWarning, 5, []string{"authored by account dev-gh, who does not hold seat rev", "maps it to rev-gh"}},
		}},
		{mode: "require", conclusion: "failure", want: []provExpect{
			{checks.CodePRUnaccepted, checks.SeverityPending, 2, []string{"waiting for T1", "is not proven to come from seat rev"}},
			{checks.CodeProvenanceUnverified, checks.SeverityError, 5, []string{"authored by account dev-gh, who does not hold seat rev"}},
		}},
	} {
		t.Run(tt.mode, func(t *testing.T) {
			t.Parallel()
			p := provSeed(t, tt.mode, "tree")
			p.accept(t, map[string]any{"commit": p.worked}, provDevGH, fakegithub.Verified())
			_, got, run := p.check(t, tt.conclusion)
			provWantFindings(t, got, run, tt.want...)
			if n := provCount(p.s, "pulls/list-commits"); n != 1 {
				t.Errorf("the pull request's commits were listed %d times, want once", n)
			}
		})
	}
}

// The owner's account cannot launder a forged accept through the bot's name
// (github-actions[bot] is an author e-mail anyone can write): the review it
// names must exist and be the reviewer's.
func TestProvenanceBotWrittenAcceptWithoutRealReview(t *testing.T) {
	t.Parallel()
	t.Run("review does not exist", func(t *testing.T) {
		t.Parallel()
		p := provSeed(t, "require", "tree")
		p.accept(t, map[string]any{"commit": p.worked, "github": map[string]any{"review_id": 424242, "login": provRevGH, "head_sha": p.worked}},
			provBotGH, fakegithub.Verified())
		_, got, run := p.check(t, "failure")
		provWantFindings(t, got, run,
			provExpect{checks.CodePRUnaccepted, checks.SeverityPending, 2, []string{"waiting for T1"}},
			provExpect{checks.CodeProvenanceUnverified, checks.SeverityError, 5, []string{fmt.Sprintf("review 424242, which does not exist on pull request #%d", p.n)}})
		if n := provCount(p.s, "pulls/list-reviews"); n != 1 {
			t.Errorf("review listings = %d, want 1", n)
		}
	})
	t.Run("review by the wrong login", func(t *testing.T) {
		t.Parallel()
		p := provSeed(t, "require", "tree")
		at := e2e.ServerEpoch.Add(time.Hour)
		p.s.SetNow(at)
		id := p.s.AddReview(p.n, fakegithub.ReviewSeed{Login: provLeadGH, State: "APPROVED"})
		p.log.AddAt(at, "rev", projection.TypeAccept, "T1", "LOGIN", map[string]any{"commit": p.worked, "github": map[string]any{"review_id": id, "login": provLeadGH, "head_sha": p.worked}})
		p.s.CommitFiles(e2e.Owner, e2e.Repo, provBranch, p.log.Files(), provBotGH, fakegithub.Verified())
		_, got, run := p.check(t, "failure")
		provWantFindings(t, got, run,
			provExpect{checks.CodePRUnaccepted, checks.SeverityPending, 2, []string{"waiting for T1"}},
			provExpect{checks.CodeProvenanceUnverified, checks.SeverityError, 5, []string{fmt.Sprintf("review %d (approved) was made by account lead-gh, who does not hold seat rev", id)}})
	})
	t.Run("review exists but the line is in the owner's commit", func(t *testing.T) {
		t.Parallel()
		p := provSeed(t, "warn", "tree")
		id := p.s.AddReview(p.n, fakegithub.ReviewSeed{Login: provRevGH, State: "APPROVED"})
		p.accept(t, map[string]any{"commit": p.worked, "github": map[string]any{"review_id": id, "login": provRevGH, "head_sha": p.worked}},
			provDevGH, fakegithub.Verified())
		_, got, run := p.check(t, "success")
		provWantFindings(t, got, run,
			provExpect{checks.CodeProvenanceUnverified, checks.SeverityWarning, 5, []string{"not by the pact bot", "authored by account dev-gh"}})
		if n := provCount(p.s, "pulls/list-reviews"); n != 0 {
			t.Errorf("review listings = %d, want 0 (a claim in a worker's commit needs no look-up)", n)
		}
	})
}

// The reviewer approves the pull request; the bot (real bot mode, workflow
// token) records the accept and posts the check on its commit, where the
// accept is verified against the approval.
func TestProvenanceBotRecordsRealApproval(t *testing.T) {
	t.Parallel()
	p := provSeed(t, "require", "tree")
	before := p.head()
	id := p.s.AddReview(p.n, fakegithub.ReviewSeed{Login: provRevGH, State: "APPROVED", CommitID: before})
	payload := e2e.Payload(t, "pull_request_review/submitted.payload.json", map[string]any{
		"action": "submitted", "review.id": id, "review.state": "approved", "review.body": "LGTM",
		"review.user.login": provRevGH, "review.commit_id": before, "review.submitted_at": "2026-06-09T11:00:00Z",
		"review.html_url":     fmt.Sprintf("https://github.example/%s/%s/pull/%d#pullrequestreview-%d", e2e.Owner, e2e.Repo, p.n, id),
		"pull_request.number": p.n, "pull_request.head.ref": provBranch, "pull_request.head.sha": before,
		"pull_request.head.repo.full_name": e2e.Owner + "/" + e2e.Repo,
		"pull_request.base.ref":            "main", "pull_request.base.sha": p.s.BranchHead(e2e.Owner, e2e.Repo, "main"),
		"pull_request.base.repo.full_name": e2e.Owner + "/" + e2e.Repo,
		"repository.full_name":             e2e.Owner + "/" + e2e.Repo, "repository.name": e2e.Repo,
		"sender.login": provRevGH,
	})
	res := e2e.Run{Server: p.s, EventName: "pull_request_review", Payload: payload}.Exec(t)
	after := p.head()
	if after == before {
		t.Fatalf("the bot recorded nothing\nstdout: %s\nstderr: %s", res.Stdout, res.Stderr)
	}
	if c, _ := p.s.Commit(after); c.AuthorLogin != provBotGH {
		t.Fatalf("the bot's commit is authored by %q", c.AuthorLogin)
	}
	log, _ := p.s.FileAt(after, provLog)
	if !strings.Contains(log, fmt.Sprintf(`"review_id":%d`, id)) {
		t.Fatalf("the accept does not name the review:\n%s", log)
	}
	_, got, run := provVerdict(t, p.s, res, after, "success")
	provWantFindings(t, got, run)
	// Once by the bot (is it the reviewer's standing decision?), once by
	// the check it posts (does it back the line?).
	if n := provCount(p.s, "pulls/list-reviews"); n != 2 {
		t.Errorf("review listings = %d, want 2", n)
	}
}

// The reviewer writes "/pact accept T1"; the bot records it, and the check
// verifies the accept against the comment.
func TestProvenanceBotRecordsPactComment(t *testing.T) {
	t.Parallel()
	p := provSeed(t, "require", "tree")
	p.s.SetPermission(provRevGH, fakegithub.Write)
	before := p.head()
	body := "Looks right.\n/pact accept T1"
	id := p.s.AddComment(p.n, provRevGH, body)
	payload := e2e.Payload(t, "issue_comment/created.on-pull-request.go-playground-webhooks.json", map[string]any{
		"action": "created", "issue.number": p.n,
		"issue.pull_request": map[string]any{"url": fmt.Sprintf("https://api.github.example/repos/%s/%s/pulls/%d", e2e.Owner, e2e.Repo, p.n)},
		"comment.id":         id, "comment.body": body, "comment.user.login": provRevGH, "comment.author_association": "COLLABORATOR",
		"comment.created_at":   "2026-06-09T11:00:00Z",
		"comment.html_url":     fmt.Sprintf("https://github.example/%s/%s/pull/%d#issuecomment-%d", e2e.Owner, e2e.Repo, p.n, id),
		"repository.full_name": e2e.Owner + "/" + e2e.Repo, "repository.name": e2e.Repo,
		"sender.login": provRevGH,
	})
	res := e2e.Run{Server: p.s, EventName: "issue_comment", Payload: payload}.Exec(t)
	after := p.head()
	if after == before {
		t.Fatalf("the bot recorded nothing\nstdout: %s\nstderr: %s", res.Stdout, res.Stderr)
	}
	_, got, run := provVerdict(t, p.s, res, after, "success")
	provWantFindings(t, got, run)
	// Once by the bot, once by the check it posts.
	if n := provCount(p.s, "issues/get-comment"); n != 2 {
		t.Errorf("comments read = %d, want 2", n)
	}
}

// The reviewer commits the accept from their own account (pactify accept):
// verified; under require only with a signature GitHub verified.
func TestProvenanceAcceptCommittedByReviewer(t *testing.T) {
	t.Parallel()
	t.Run("signed", func(t *testing.T) {
		t.Parallel()
		p := provSeed(t, "require", "tree")
		p.accept(t, map[string]any{"commit": p.worked}, provRevGH, fakegithub.Verified())
		_, got, run := p.check(t, "success")
		provWantFindings(t, got, run)
	})
	t.Run("unsigned under require", func(t *testing.T) {
		t.Parallel()
		p := provSeed(t, "require", "tree")
		p.accept(t, map[string]any{"commit": p.worked}, provRevGH)
		_, got, run := p.check(t, "failure")
		provWantFindings(t, got, run,
			provExpect{checks.CodePRUnaccepted, checks.SeverityPending, 2, []string{"waiting for T1"}},
			provExpect{checks.CodeProvenanceUnverified, checks.SeverityError, 5, []string{"carries no signature GitHub verified"}})
	})
	t.Run("unsigned under warn", func(t *testing.T) {
		t.Parallel()
		p := provSeed(t, "warn", "tree")
		p.accept(t, map[string]any{"commit": p.worked}, provRevGH)
		_, got, run := p.check(t, "success")
		provWantFindings(t, got, run)
	})
	t.Run("signed by a committer who is not the author", func(t *testing.T) {
		t.Parallel()
		p := provSeed(t, "require", "tree")
		p.accept(t, map[string]any{"commit": p.worked}, provRevGH, fakegithub.WithCommitter(provDevGH), fakegithub.Verified())
		_, got, run := p.check(t, "failure")
		provWantFindings(t, got, run,
			provExpect{checks.CodePRUnaccepted, checks.SeverityPending, 2, []string{"waiting for T1"}},
			provExpect{checks.CodeProvenanceUnverified, checks.SeverityError, 5, []string{"its committer account dev-gh"}})
	})
}

// Code pushed after the accept makes it stale under tree and push, not
// under sticky; under warn a stale accept still counts.
func TestProvenanceCodeAfterAccept(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		mode, stale, conclusion string
		says                    string
	}{
		{mode: "require", stale: "tree", conclusion: "failure", says: "files outside .pact/ changed since: src/login.go; changed by "},
		{mode: "require", stale: "push", conclusion: "failure", says: "1 commit came after it: "},
		{mode: "require", stale: "sticky", conclusion: "success"},
		{mode: "warn", stale: "tree", conclusion: "success", says: "files outside .pact/ changed since: src/login.go"},
	} {
		t.Run(tt.mode+"/"+tt.stale, func(t *testing.T) {
			t.Parallel()
			p := provSeed(t, tt.mode, tt.stale)
			p.accept(t, map[string]any{"commit": p.worked}, provRevGH, fakegithub.Verified())
			later := p.s.CommitFiles(e2e.Owner, e2e.Repo, provBranch, map[string]string{"src/login.go": "package login\n\nfunc Backdoor() {}\n"}, provDevGH, fakegithub.Verified())
			_, got, run := p.check(t, tt.conclusion)
			switch {
			case tt.stale == "sticky":
				provWantFindings(t, got, run)
			case tt.mode == "warn":
				provWantFindings(t, got, run,
					provExpect{checks.CodeProvenanceStale, checks.SeverityWarning, 5, []string{tt.says, later[:12]}})
			default:
				provWantFindings(t, got, run,
					provExpect{checks.CodePRUnaccepted, checks.SeverityPending, 2, []string{"waiting for T1", "a fresh review by rev", later[:12]}},
					provExpect{checks.CodeProvenanceStale, checks.SeverityError, 5, []string{"the accept of T1 on line 5 is stale", "given on commit " + p.worked[:12], tt.says + later[:12]}})
			}
			if n := provCount(p.s, "pulls/list-commits"); n != 1 {
				t.Errorf("the pull request's commits were listed %d times, want once", n)
			}
			if n := provCount(p.s, "repos/compare-commits-with-basehead"); n > 4 {
				t.Errorf("%d comparisons, want at most 4 (merge base, accept..head, one per later commit)", n)
			}
		})
	}
}

// A commit that only touches .pact/ after the accept does not make it stale
// under tree (it does under push, which counts every commit).
func TestProvenancePactOnlyCommitAfterAccept(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		stale, conclusion string
	}{
		{stale: "tree", conclusion: "success"},
		{stale: "push", conclusion: "failure"},
	} {
		t.Run(tt.stale, func(t *testing.T) {
			t.Parallel()
			p := provSeed(t, "require", tt.stale)
			p.accept(t, map[string]any{"commit": p.worked}, provRevGH, fakegithub.Verified())
			later := p.s.CommitFiles(e2e.Owner, e2e.Repo, provBranch, map[string]string{".pact/notes.md": "retro notes\n"}, provDevGH, fakegithub.Verified())
			_, got, run := p.check(t, tt.conclusion)
			if tt.stale == "tree" {
				provWantFindings(t, got, run)
				return
			}
			provWantFindings(t, got, run,
				provExpect{checks.CodePRUnaccepted, checks.SeverityPending, 2, []string{"waiting for T1"}},
				provExpect{checks.CodeProvenanceStale, checks.SeverityError, 5, []string{"1 commit came after it: " + later[:12]}})
		})
	}
}

// With provenance off nothing is judged and no provenance call is made.
func TestProvenanceOff(t *testing.T) {
	t.Parallel()
	p := provSeed(t, "off", "tree")
	p.accept(t, map[string]any{}, provDevGH)
	p.s.CommitFiles(e2e.Owner, e2e.Repo, provBranch, map[string]string{"src/login.go": "package login // changed\n"}, provDevGH)
	_, got, run := p.check(t, "success")
	provWantFindings(t, got, run)
	if n := provCount(p.s, "pulls/list-commits"); n != 0 {
		t.Errorf("provenance off still listed the pull request's commits %d times", n)
	}
}

// The policy is read from the base branch: a pull request that turns
// provenance off in its own .github/pact.yml is still judged by main's.
func TestProvenancePolicyFromBaseBranchOnly(t *testing.T) {
	t.Parallel()
	p := provSeed(t, "require", "tree")
	p.s.CommitFiles(e2e.Owner, e2e.Repo, provBranch, map[string]string{".github/pact.yml": provPactYML("off", "sticky")}, provDevGH, fakegithub.Verified())
	p.accept(t, map[string]any{"commit": p.head()}, provDevGH, fakegithub.Verified())
	_, got, run := p.check(t, "failure")
	provWantFindings(t, got, run,
		provExpect{checks.CodePRUnaccepted, checks.SeverityPending, 2, []string{"waiting for T1"}},
		provExpect{checks.CodeProvenanceUnverified, checks.SeverityError, 5, []string{"authored by account dev-gh"}})
}

// GitHub lists at most 250 commits of a pull request; the commit that added
// a line beyond them is looked up by id.
func TestProvenanceBeyondTheListedCommits(t *testing.T) {
	t.Parallel()
	p := provSeed(t, "require", "sticky")
	for i := 0; i < 250; i++ {
		p.s.CommitFiles(e2e.Owner, e2e.Repo, provBranch, map[string]string{"src/login.go": fmt.Sprintf("package login // %d\n", i)}, provDevGH, fakegithub.Verified())
	}
	p.accept(t, map[string]any{"commit": p.head()}, provRevGH, fakegithub.Verified())
	_, got, run := p.check(t, "success")
	provWantFindings(t, got, run)
	if n := provCount(p.s, "repos/get-commit"); n < 1 || n > 3 {
		t.Errorf("commits looked up one by one = %d, want 1–3", n)
	}
	if n := provCount(p.s, "repos/get-content"); n > 30 {
		t.Errorf("%d file reads; attribution should need a handful", n)
	}
}

// One real approval cannot be replayed for a task checkpointed after it: the
// approval was given on a commit where only T1 awaited review. The forged
// line is bot-authored and bot-signed (a workflow on the branch could make
// such a commit), names the real review and its commit, and touches only
// .pact/ after it, so only this rule catches it.
func TestProvenanceApprovalReusedForALaterTask(t *testing.T) {
	t.Parallel()
	s := e2e.NewServer(t)
	base := e2e.NewLog().Assign("T1", "LOGIN", provBranch, "dev", "rev").Assign("T2", "LOGIN", provBranch, "dev", "rev")
	files := base.Files()
	files[".github/pact.yml"] = provPactYML("require", "tree")
	s.CommitFiles(e2e.Owner, e2e.Repo, "main", files, provLeadGH, fakegithub.Verified())
	work := base.Copy().Join("dev").Checkpoint("dev", "T1", "LOGIN")
	reviewed := s.CommitFiles(e2e.Owner, e2e.Repo, provBranch, work.Files(), provDevGH, fakegithub.From("main"), fakegithub.Verified())
	n := s.OpenPR(e2e.Owner, e2e.Repo, fakegithub.PRSeed{Head: provBranch, Base: "main", Author: provDevGH})
	approvedAt := e2e.ServerEpoch.Add(time.Hour)
	s.SetNow(approvedAt)
	id := s.AddReview(n, fakegithub.ReviewSeed{Login: provRevGH, State: "APPROVED", CommitID: reviewed})
	byReview := map[string]any{"commit": reviewed, "github": map[string]any{"review_id": id, "login": provRevGH, "head_sha": reviewed}}
	work.AddAt(approvedAt, "rev", projection.TypeAccept, "T1", "LOGIN", byReview) // line 6: what the bot wrote
	s.CommitFiles(e2e.Owner, e2e.Repo, provBranch, work.Files(), provBotGH, fakegithub.Verified())
	work.Checkpoint("dev", "T2", "LOGIN") // line 7
	s.CommitFiles(e2e.Owner, e2e.Repo, provBranch, work.Files(), provDevGH, fakegithub.Verified())
	work.AddAt(approvedAt, "rev", projection.TypeAccept, "T2", "LOGIN", byReview) // line 8: the replay
	s.CommitFiles(e2e.Owner, e2e.Repo, provBranch, work.Files(), provBotGH, fakegithub.Verified())
	p := &provPR{s: s, n: n, log: work, worked: reviewed}

	_, got, run := p.check(t, "failure")
	provWantFindings(t, got, run,
		provExpect{checks.CodePRUnaccepted, checks.SeverityPending, 3, []string{"waiting for T2"}},
		provExpect{checks.CodeProvenanceUnverified, checks.SeverityError, 8, []string{
			fmt.Sprintf("T2 was not awaiting review in the log at commit %s, which review %d was given on", reviewed[:12], id)}})
	if n := provCount(s, "pulls/list-reviews"); n != 1 {
		t.Errorf("review listings = %d, want 1 (once per judgement)", n)
	}
}

// Attribution follows the commit graph: a line that came in through a
// merged branch belongs to the commit on that branch that added it, and a
// line a merge commit adds by itself belongs to the merge.
func TestProvenanceThroughMerges(t *testing.T) {
	t.Parallel()
	t.Run("accept from a merged branch keeps its author", func(t *testing.T) {
		t.Parallel()
		p := provSeed(t, "require", "tree")
		side := p.log.Copy()
		side.Add("rev", projection.TypeAccept, "T1", "LOGIN", map[string]any{"commit": p.worked})
		reviewed := p.s.CommitFiles(e2e.Owner, e2e.Repo, "review/login", side.Files(), provRevGH, fakegithub.From(p.worked), fakegithub.Verified())
		notes := p.s.CommitFiles(e2e.Owner, e2e.Repo, provBranch, map[string]string{".pact/notes.md": "notes\n"}, provDevGH, fakegithub.Verified())
		p.s.CommitFiles(e2e.Owner, e2e.Repo, provBranch, side.Files(), provDevGH, fakegithub.WithParents(notes, reviewed), fakegithub.Verified(),
			fakegithub.WithMessage("Merge branch review/login"))
		_, got, run := p.check(t, "success")
		provWantFindings(t, got, run)
	})
	t.Run("a line the merge itself adds is the merger's", func(t *testing.T) {
		t.Parallel()
		p := provSeed(t, "require", "tree")
		other := p.s.CommitFiles(e2e.Owner, e2e.Repo, "other", map[string]string{"docs/x.md": "x\n"}, provRevGH, fakegithub.From(p.worked), fakegithub.Verified())
		p.log.Add("rev", projection.TypeAccept, "T1", "LOGIN", map[string]any{"commit": p.worked})
		files := p.log.Files()
		files["docs/x.md"] = "x\n"
		merge := p.s.CommitFiles(e2e.Owner, e2e.Repo, provBranch, files, provDevGH, fakegithub.WithParents(p.worked, other), fakegithub.Verified(),
			fakegithub.WithMessage("Merge branch other"))
		_, got, run := p.check(t, "failure")
		provWantFindings(t, got, run,
			provExpect{checks.CodePRUnaccepted, checks.SeverityPending, 2, []string{"waiting for T1"}},
			provExpect{checks.CodeProvenanceStale, checks.SeverityError, 5, []string{"docs/x.md", "changed by " + other[:12]}},
			provExpect{checks.CodeProvenanceUnverified, checks.SeverityError, 5, []string{"commit " + merge[:12] + " that added it is authored by account dev-gh"}})
	})
}
