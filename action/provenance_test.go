package action_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/internal/testkit/e2e"
	"github.com/pact-action/pact-action/internal/testkit/fakegithub"
	"github.com/pact-action/pact-action/projection"
)

// Provenance (docs/semantics.md §5): who wrote each line of the pull request,
// judged on the commits, reviews and comments GitHub has (see provSeed for
// the repository every test starts from).

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
			out, run := p.check(t, tt.conclusion)
			provWantFindings(t, out.Findings, run, tt.want...)
			if n := countOp(p.s, "pulls/list-commits"); n != 1 {
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
			botAccount, fakegithub.Verified())
		out, run := p.check(t, "failure")
		provWantFindings(t, out.Findings, run,
			provExpect{checks.CodePRUnaccepted, checks.SeverityPending, 2, []string{"waiting for T1"}},
			provExpect{checks.CodeProvenanceUnverified, checks.SeverityError, 5, []string{fmt.Sprintf("review 424242, which does not exist on pull request #%d", p.n)}})
		if n := countOp(p.s, "pulls/list-reviews"); n != 1 {
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
		p.s.CommitFiles(e2e.Owner, e2e.Repo, provBranch, p.log.Files(), botAccount, fakegithub.Verified())
		out, run := p.check(t, "failure")
		provWantFindings(t, out.Findings, run,
			provExpect{checks.CodePRUnaccepted, checks.SeverityPending, 2, []string{"waiting for T1"}},
			provExpect{checks.CodeProvenanceUnverified, checks.SeverityError, 5, []string{fmt.Sprintf("review %d (approved) was made by account lead-gh, who does not hold seat rev", id)}})
	})
	t.Run("review exists but the line is in the owner's commit", func(t *testing.T) {
		t.Parallel()
		p := provSeed(t, "warn", "tree")
		id := p.s.AddReview(p.n, fakegithub.ReviewSeed{Login: provRevGH, State: "APPROVED"})
		p.accept(t, map[string]any{"commit": p.worked, "github": map[string]any{"review_id": id, "login": provRevGH, "head_sha": p.worked}},
			provDevGH, fakegithub.Verified())
		out, run := p.check(t, "success")
		provWantFindings(t, out.Findings, run,
			provExpect{checks.CodeProvenanceUnverified, checks.SeverityWarning, 5, []string{"not by the pact bot", "authored by account dev-gh"}})
		if n := countOp(p.s, "pulls/list-reviews"); n != 0 {
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
	payload := reviewPayload(t, p.s, p.n, e2e.Owner, provBranch, reviewWebhook{id: id, login: provRevGH, state: "approved", body: "LGTM", commitID: before})
	out := event{name: "pull_request_review", payload: payload}.run(t, p.s).botDone(t)
	after := p.head()
	if after == before || out.NewHead != after {
		t.Fatalf("the bot recorded nothing: %+v", out)
	}
	if c, _ := p.s.Commit(after); c.AuthorLogin != botAccount {
		t.Fatalf("the bot's commit is authored by %q", c.AuthorLogin)
	}
	log, _ := p.s.FileAt(after, logPath)
	if !strings.Contains(log, fmt.Sprintf(`"review_id":%d`, id)) {
		t.Fatalf("the accept does not name the review:\n%s", log)
	}
	run := provVerdict(t, p.s, out.Check, after, "success")
	provWantFindings(t, out.Check.Findings, run)
	// Once by the bot (is it the reviewer's standing decision?), once by
	// the check it posts (does it back the line?).
	if n := countOp(p.s, "pulls/list-reviews"); n != 2 {
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
	payload := commentPayload(t, p.n, id, reviewTS, provRevGH, body, "COLLABORATOR")
	out := event{name: "issue_comment", payload: payload}.run(t, p.s).botDone(t)
	after := p.head()
	if after == before || out.NewHead != after {
		t.Fatalf("the bot recorded nothing: %+v", out)
	}
	run := provVerdict(t, p.s, out.Check, after, "success")
	provWantFindings(t, out.Check.Findings, run)
	// Once by the bot, once by the check it posts.
	if n := countOp(p.s, "issues/get-comment"); n != 2 {
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
		out, run := p.check(t, "success")
		provWantFindings(t, out.Findings, run)
	})
	t.Run("unsigned under require", func(t *testing.T) {
		t.Parallel()
		p := provSeed(t, "require", "tree")
		p.accept(t, map[string]any{"commit": p.worked}, provRevGH)
		out, run := p.check(t, "failure")
		provWantFindings(t, out.Findings, run,
			provExpect{checks.CodePRUnaccepted, checks.SeverityPending, 2, []string{"waiting for T1"}},
			provExpect{checks.CodeProvenanceUnverified, checks.SeverityError, 5, []string{"carries no signature GitHub verified"}})
	})
	t.Run("unsigned under warn", func(t *testing.T) {
		t.Parallel()
		p := provSeed(t, "warn", "tree")
		p.accept(t, map[string]any{"commit": p.worked}, provRevGH)
		out, run := p.check(t, "success")
		provWantFindings(t, out.Findings, run)
	})
	t.Run("signed by a committer who is not the author", func(t *testing.T) {
		t.Parallel()
		p := provSeed(t, "require", "tree")
		p.accept(t, map[string]any{"commit": p.worked}, provRevGH, fakegithub.WithCommitter(provDevGH), fakegithub.Verified())
		out, run := p.check(t, "failure")
		provWantFindings(t, out.Findings, run,
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
			out, run := p.check(t, tt.conclusion)
			switch {
			case tt.stale == "sticky":
				provWantFindings(t, out.Findings, run)
			case tt.mode == "warn":
				provWantFindings(t, out.Findings, run,
					provExpect{checks.CodeProvenanceStale, checks.SeverityWarning, 5, []string{tt.says, later[:12]}})
			default:
				// The waiting line says what changed since the accept (tree)
				// or what came after it (push); the finding names both.
				why := "src/login.go changed since the accept on " + p.worked[:12]
				if tt.stale == "push" {
					why = later[:12] + ") came after the accept on " + p.worked[:12]
				}
				provWantFindings(t, out.Findings, run,
					provExpect{checks.CodePRUnaccepted, checks.SeverityPending, 2, []string{"waiting for T1", "a fresh review by rev", why}},
					provExpect{checks.CodeProvenanceStale, checks.SeverityError, 5, []string{"the accept of T1 on line 5 is stale", "given on commit " + p.worked[:12], tt.says + later[:12]}})
			}
			if n := countOp(p.s, "pulls/list-commits"); n != 1 {
				t.Errorf("the pull request's commits were listed %d times, want once", n)
			}
			if n := countOp(p.s, "repos/compare-commits-with-basehead"); n > 4 {
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
			out, run := p.check(t, tt.conclusion)
			if tt.stale == "tree" {
				provWantFindings(t, out.Findings, run)
				return
			}
			provWantFindings(t, out.Findings, run,
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
	out, run := p.check(t, "success")
	provWantFindings(t, out.Findings, run)
	if n := countOp(p.s, "pulls/list-commits"); n != 0 {
		t.Errorf("provenance off still listed the pull request's commits %d times", n)
	}
}

// The policy is read from the default branch: a pull request that turns
// provenance off in its own .github/pact.yml is still judged by main's.
func TestProvenancePolicyFromBaseBranchOnly(t *testing.T) {
	t.Parallel()
	p := provSeed(t, "require", "tree")
	p.s.CommitFiles(e2e.Owner, e2e.Repo, provBranch, map[string]string{".github/pact.yml": provPactYML("off", "sticky")}, provDevGH, fakegithub.Verified())
	p.accept(t, map[string]any{"commit": p.head()}, provDevGH, fakegithub.Verified())
	out, run := p.check(t, "failure")
	provWantFindings(t, out.Findings, run,
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
	out, run := p.check(t, "success")
	provWantFindings(t, out.Findings, run)
	if n := countOp(p.s, "repos/get-commit"); n < 1 || n > 3 {
		t.Errorf("commits looked up one by one = %d, want 1–3", n)
	}
	if n := countOp(p.s, "repos/get-content"); n > 30 {
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
	s.CommitFiles(e2e.Owner, e2e.Repo, provBranch, work.Files(), botAccount, fakegithub.Verified())
	work.Checkpoint("dev", "T2", "LOGIN") // line 7
	s.CommitFiles(e2e.Owner, e2e.Repo, provBranch, work.Files(), provDevGH, fakegithub.Verified())
	work.AddAt(approvedAt, "rev", projection.TypeAccept, "T2", "LOGIN", byReview) // line 8: the replay
	s.CommitFiles(e2e.Owner, e2e.Repo, provBranch, work.Files(), botAccount, fakegithub.Verified())
	p := &provPR{s: s, n: n, log: work, worked: reviewed}

	out, run := p.check(t, "failure")
	provWantFindings(t, out.Findings, run,
		provExpect{checks.CodePRUnaccepted, checks.SeverityPending, 3, []string{"waiting for T2"}},
		provExpect{checks.CodeProvenanceUnverified, checks.SeverityError, 8, []string{
			fmt.Sprintf("T2 was not awaiting review in the log at commit %s, which review %d was given on", reviewed[:12], id)}})
	if n := countOp(s, "pulls/list-reviews"); n != 1 {
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
		out, run := p.check(t, "success")
		provWantFindings(t, out.Findings, run)
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
		out, run := p.check(t, "failure")
		provWantFindings(t, out.Findings, run,
			provExpect{checks.CodePRUnaccepted, checks.SeverityPending, 2, []string{"waiting for T1"}},
			provExpect{checks.CodeProvenanceStale, checks.SeverityError, 5, []string{"docs/x.md", "changed by " + other[:12]}},
			provExpect{checks.CodeProvenanceUnverified, checks.SeverityError, 5, []string{"commit " + merge[:12] + " that added it is authored by account dev-gh"}})
	})
}
