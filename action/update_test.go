package action_test

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pact-action/pact-action/action"

	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/internal/testkit/e2e"
	"github.com/pact-action/pact-action/internal/testkit/fakegithub"
	"github.com/pact-action/pact-action/report"
)

// The branch updater (action/update.go, docs/bot.md "Keeping pull requests
// mergeable") in process: pull requests that each assign, checkpoint and
// are accepted through the bot, under provenance require and stale
// change; the default branch moves; the updater brings the others up to
// date, or says once why not. The stories through the binary are in
// binary_update_test.go.

// fleet is a repository with pull requests opened from one main.
type fleet struct {
	s   *fakegithub.Server
	prs []*fleetPR
}

// fleetPR is one pull request of a fleet: branch feat/p<i>, task T<i> of
// feature F<i>, owned by dev and reviewed by rev.
type fleetPR struct {
	n                     int
	branch, task, feature string
}

// newFleet seeds main (an init, the seat map under require and change,
// src/main.go) and n branches from it, each with the assign (signed by
// lead's account), then dev's join, checkpoint and code (signed by dev's):
// code(i) is pull request i's code, src/p<i>.go when nil. It opens a pull
// request from each.
func newFleet(t *testing.T, n int, code func(i int) map[string]string) *fleet {
	t.Helper()
	s := e2e.NewServer(t)
	base := e2e.NewLog()
	files := base.Files()
	files[".github/pact.yml"] = provPactYML("require", "change")
	files["src/main.go"] = "package main\n"
	s.CommitFiles(e2e.Owner, e2e.Repo, "main", files, provLeadGH, fakegithub.Verified())
	s.SetPermission(provRevGH, fakegithub.Write)
	f := &fleet{s: s}
	for i := 1; i <= n; i++ {
		p := &fleetPR{branch: fmt.Sprintf("feat/p%d", i), task: fmt.Sprintf("T%d", i), feature: fmt.Sprintf("F%d", i)}
		l := base.Branch(fmt.Sprintf("p%d", i)).Assign(p.task, p.feature, p.branch, "dev", "rev")
		s.CommitFiles(e2e.Owner, e2e.Repo, p.branch, l.Files(), provLeadGH, fakegithub.From("main"), fakegithub.Verified())
		l.Join("dev").Checkpoint("dev", p.task, p.feature)
		work := l.Files()
		c := map[string]string{fmt.Sprintf("src/p%d.go", i): fmt.Sprintf("package p%d\n", i)}
		if code != nil {
			c = code(i)
		}
		maps.Copy(work, c)
		s.CommitFiles(e2e.Owner, e2e.Repo, p.branch, work, provDevGH, fakegithub.Verified())
		p.n = s.OpenPR(e2e.Owner, e2e.Repo, fakegithub.PRSeed{Head: p.branch, Base: "main", Author: provDevGH})
		f.prs = append(f.prs, p)
	}
	return f
}

func (f *fleet) head(p *fleetPR) string { return f.s.BranchHead(e2e.Owner, e2e.Repo, p.branch) }

// approval is rev's approval of p's head, submitted now, and its webhook.
func (f *fleet) approval(t *testing.T, p *fleetPR) []byte {
	t.Helper()
	head := f.head(p)
	id := f.s.AddReview(p.n, fakegithub.ReviewSeed{Login: provRevGH, State: "APPROVED", CommitID: head})
	return reviewPayload(t, f.s, p.n, e2e.Owner, p.branch, reviewWebhook{id: id, login: provRevGH, state: "approved", body: "LGTM", commitID: head})
}

// approveAll has every pull request approved through the bot, in process;
// each passes.
func (f *fleet) approveAll(t *testing.T) {
	t.Helper()
	for _, p := range f.prs {
		out := event{name: "pull_request_review", payload: f.approval(t, p)}.run(t, f.s).botDone(t)
		if out.Check == nil || out.Check.Conclusion != report.ConclusionSuccess {
			t.Fatalf("#%d: the approval did not pass it: %+v", p.n, out.Check)
		}
	}
}

// pushPayload is the push webhook of branch's tip, from GitHub's example,
// whose repository says its default branch is master: the updater asks
// GitHub which is.
func pushPayload(t *testing.T, s *fakegithub.Server, branch string) []byte {
	t.Helper()
	return e2e.Payload(t, "push/with-no-username-committer.payload.json", map[string]any{
		"ref": "refs/heads/" + branch, "after": s.BranchHead(e2e.Owner, e2e.Repo, branch),
		"repository.full_name": repoFull, "repository.name": e2e.Repo, "repository.owner.login": e2e.Owner,
	})
}

// push delivers the push of main's tip to the bot workflow (mode auto).
func (f *fleet) push(t *testing.T) result {
	t.Helper()
	return event{name: "push", payload: pushPayload(t, f.s, "main")}.run(t, f.s)
}

// merge merges p with GitHub's merge button, which must take it.
func (f *fleet) merge(t *testing.T, p *fleetPR) {
	t.Helper()
	if _, err := f.s.MergePR(p.n, provLeadGH); err != nil {
		t.Fatal(err)
	}
}

// mergedOnto checks that p's branch head is a merge of its old head and
// main's tip by the bot, whose log holds no line that neither parent's
// log holds (the bot's commit introduces no line: every line of the
// merged log is attributed to a commit of the head's or the base's
// history), and whose check passed.
func (f *fleet) mergedOnto(t *testing.T, p *fleetPR, oldHead string) {
	t.Helper()
	s, head, tip := f.s, f.head(p), f.s.BranchHead(e2e.Owner, e2e.Repo, "main")
	c, _ := s.Commit(head)
	if !slices.Equal(c.Parents, []string{oldHead, tip}) || c.AuthorLogin != botAccount || !c.Verified {
		t.Fatalf("#%d: head %+v, want the bot's merge of %s and main's tip %s", p.n, c, oldHead, tip)
	}
	lines := func(sha string) []string {
		log, _ := s.FileAt(sha, logPath)
		return strings.Split(strings.TrimSuffix(log, "\n"), "\n")
	}
	for _, l := range lines(head) {
		if !slices.Contains(lines(oldHead), l) && !slices.Contains(lines(tip), l) {
			t.Errorf("#%d: the merge commit introduces a log line of its own: %s", p.n, l)
		}
	}
	if st, conflicts := s.Mergeable(p.n); st != "MERGEABLE" {
		t.Errorf("#%d: after the update GitHub says %s %v", p.n, st, conflicts)
	}
	if r := latestRun(t, s, head); r.Status != "completed" || r.Conclusion != report.ConclusionSuccess {
		t.Errorf("#%d: the check on the update is %s %s", p.n, r.Status, r.Conclusion)
	}
}

// A push to main after one of two accepted pull requests merged: the
// other, whose pact now conflicts with main's, is brought up to date by
// one bot commit, and its accept still covers it under require and
// change.
func TestUpdateAfterAMerge(t *testing.T) {
	t.Parallel()
	f := newFleet(t, 2, nil)
	f.approveAll(t)
	f.merge(t, f.prs[0])
	other := f.prs[1]
	old := f.head(other)
	if st, _ := f.s.Mergeable(other.n); st != "CONFLICTING" {
		t.Fatalf("the other pull request is %s after the merge", st)
	}

	res := f.push(t)
	if res.err != nil || res.bot != nil {
		t.Fatalf("the push failed: %v\n%s", res.err, res.log)
	}
	f.mergedOnto(t, other, old)
	onlyRun(t, f.s, f.head(other), "pact", report.ConclusionSuccess)
	if len(f.s.Comments(other.n)) != 0 {
		t.Errorf("the update replied: %+v", f.s.Comments(other.n))
	}
	state, _ := f.s.FileAt(f.head(other), statePath)
	for _, want := range []string{"T1", "T2"} {
		if !strings.Contains(state, want) {
			t.Errorf("STATE.yml lacks %s:\n%s", want, state)
		}
	}
	noneInProgress(t, f.s)
	noViolations(t, f.s)

	// Delivered again: nothing to do, nothing written.
	writes := gitWrites(f.s)
	if res := f.push(t); res.err != nil || gitWrites(f.s) != writes {
		t.Errorf("a second delivery wrote: %v", res.err)
	}
}

// The calls of an update, counted on the fake: one listing for all, the
// same calls for each conflicting pull request (its merge base, diff,
// logs, tree, commit, ref, the pull request and the check on the new
// commit), and none for a pull request that does not conflict.
func TestUpdateCalls(t *testing.T) {
	t.Parallel()
	perPR := map[int]map[string]int{}
	for _, conflicting := range []int{1, 3} {
		// Pull requests without a pact change do not conflict with main's
		// new line.
		f := newFleet(t, conflicting, nil)
		var quiet []int
		for i := range 2 {
			b := fmt.Sprintf("feat/code%d", i)
			f.s.CommitFiles(e2e.Owner, e2e.Repo, b, map[string]string{fmt.Sprintf("src/code%d.go", i): "package code\n"}, provDevGH, fakegithub.From("main"))
			quiet = append(quiet, f.s.OpenPR(e2e.Owner, e2e.Repo, fakegithub.PRSeed{Head: b, Base: "main"}))
		}
		main := e2e.NewLog().Branch("main").Assign("T0", "F0", "feat/p0", "dev", "rev")
		f.s.CommitFiles(e2e.Owner, e2e.Repo, "main", main.Files(), provLeadGH, fakegithub.Verified())
		res := f.push(t)
		if res.err != nil || res.update == nil || len(res.update.Updated) != conflicting || res.update.Listed != conflicting+2 {
			t.Fatalf("the push: %v %+v\n%s", res.err, res.update, res.log)
		}
		got := calls(f.s)
		if got["graphql"] < 1 {
			t.Fatal("no listing")
		}
		got["graphql"]-- // the listing
		each := map[string]int{}
		for k, v := range got {
			if v%conflicting != 0 {
				t.Errorf("%d conflicting: %s ×%d is not the same for each", conflicting, k, v)
			}
			each[k] = v / conflicting
		}
		perPR[conflicting] = each
		t.Logf("per updated pull request (%d of %d open): %s", conflicting, conflicting+2, perOperation(each))
		for _, n := range quiet {
			for _, r := range f.s.Requests() {
				if strings.Contains(r.Path, fmt.Sprintf("/pulls/%d", n)) || strings.Contains(r.Path, "/issues/"+fmt.Sprint(n)) {
					t.Errorf("a call about #%d, which does not conflict: %s %s", n, r.Method, r.Path)
				}
			}
		}
	}
	if !maps.Equal(perPR[1], perPR[3]) {
		t.Errorf("the calls per pull request differ: %s; %s", perOperation(perPR[1]), perOperation(perPR[3]))
	}
}

// Two pull requests that change one file of code: after the first merges,
// the second's update is the author's (the bot never chooses between two
// changes of one file). It says so once, with the commands, whether the
// push is delivered once or twice, and a scheduled run after it says
// nothing more; nothing is written.
func TestUpdateLeavesACodeConflictToItsAuthor(t *testing.T) {
	t.Parallel()
	f := newFleet(t, 2, func(i int) map[string]string {
		return map[string]string{"src/shared.go": fmt.Sprintf("package shared // p%d\n", i)}
	})
	f.approveAll(t)
	f.merge(t, f.prs[0])
	other := f.prs[1]
	old := f.head(other)
	writes := gitWrites(f.s)
	for _, ev := range []event{{name: "push", payload: pushPayload(t, f.s, "main")}, {name: "push", payload: pushPayload(t, f.s, "main")},
		{name: "schedule", payload: []byte(`{"schedule":"17 * * * *"}`)}} {
		if res := ev.run(t, f.s); res.err != nil {
			t.Fatalf("%s: %v\n%s", ev.name, res.err, res.log)
		}
	}
	if f.head(other) != old || gitWrites(f.s) != writes {
		t.Errorf("the bot wrote: %s → %s", old, f.head(other))
	}
	comments := f.s.Comments(other.n)
	if len(comments) != 1 {
		t.Fatalf("%d replies, want 1: %+v", len(comments), comments)
	}
	contains(t, "the reply", comments[0].Body, "`src/shared.go`, which both branches changed", "git merge 'origin/main'", "pactify resolve", replyMarker,
		"<!-- pact-action update "+old)
	noneInProgress(t, f.s)
	noViolations(t, f.s)
}

// A fork's branch is never written: one reply with the commands, from the
// fork's clone, however often main moves while its head stays.
func TestUpdateNeverWritesAFork(t *testing.T) {
	t.Parallel()
	f := newFleet(t, 1, nil)
	s := f.s
	s.ForkRepo(e2e.Owner, e2e.Repo, "mallory")
	l := e2e.NewLog().Branch("fork").Assign("T9", "F9", "feat/evil", "dev", "rev")
	fork := s.CommitFiles("mallory", e2e.Repo, "feat/evil", l.Files(), "mallory", fakegithub.From("main"))
	n := s.OpenPR(e2e.Owner, e2e.Repo, fakegithub.PRSeed{Head: "feat/evil", Base: "main", HeadOwner: "mallory"})
	f.approveAll(t)
	f.merge(t, f.prs[0])
	for range 2 {
		if res := f.push(t); res.err != nil {
			t.Fatalf("%v\n%s", res.err, res.log)
		}
	}
	if s.BranchHead("mallory", e2e.Repo, "feat/evil") != fork {
		t.Error("the fork's branch was written")
	}
	if c := s.Comments(n); len(c) != 1 || !strings.Contains(c[0].Body, "comes from a fork") || !strings.Contains(c[0].Body, "git merge 'upstream/main'") {
		t.Errorf("replies %+v, want one saying it is a fork", c)
	}
	noViolations(t, s)
}

// Main changed a workflow file: the merge would change it on the branch,
// which GitHub lets no workflow token push. One reply says so, whatever
// the deliveries; nothing stays stuck, nothing is left in progress.
func TestUpdateRefusedForAWorkflowFile(t *testing.T) {
	t.Parallel()
	f := newFleet(t, 2, nil)
	f.approveAll(t)
	f.s.CommitFiles(e2e.Owner, e2e.Repo, "main", map[string]string{".github/workflows/ci.yml": "on: push\n"}, provLeadGH, fakegithub.Verified())
	f.merge(t, f.prs[0])
	other := f.prs[1]
	old := f.head(other)
	for range 2 {
		if res := f.push(t); res.err != nil {
			t.Fatalf("%v\n%s", res.err, res.log)
		}
	}
	if f.head(other) != old {
		t.Error("the branch moved")
	}
	if c := f.s.Comments(other.n); len(c) != 1 || !strings.Contains(c[0].Body, "`.github/workflows/`") {
		t.Errorf("replies %+v, want one about the workflows", c)
	}
	noneInProgress(t, f.s)

	// With a GitHub App token that may push workflows, the update is made.
	f.s.SetToken(e2e.Token, fakegithub.Token{Login: botAccount, Workflows: true})
	if res := f.push(t); res.err != nil {
		t.Fatalf("%v\n%s", res.err, res.log)
	}
	f.mergedOnto(t, other, old)
}

// GitHub computes mergeability when asked: right after a push it answers
// UNKNOWN, and the updater lists again after waits of 1 s, 2 s and 4 s.
// What is known by then is updated; what is still unknown is left to the
// scheduled run, and the run says so.
func TestUpdateWhileGitHubComputesMergeability(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		lag     int
		waits   []time.Duration
		updated bool
	}{
		{lag: 2, waits: []time.Duration{time.Second, 2 * time.Second}, updated: true},
		{lag: 10, waits: []time.Duration{time.Second, 2 * time.Second, 4 * time.Second}},
	} {
		t.Run(fmt.Sprint(tc.lag), func(t *testing.T) {
			t.Parallel()
			f := newFleet(t, 2, nil)
			f.approveAll(t)
			f.merge(t, f.prs[0])
			f.s.SetMergeabilityLag(tc.lag)
			old := f.head(f.prs[1])
			writes := gitWrites(f.s)
			res := f.push(t)
			if res.err != nil {
				t.Fatalf("%v\n%s", res.err, res.log)
			}
			var waits []time.Duration
			for _, w := range res.waits {
				if w >= time.Second {
					waits = append(waits, w)
				}
			}
			if !slices.Equal(waits, tc.waits) {
				t.Errorf("waited %v, want %v", waits, tc.waits)
			}
			if tc.updated {
				f.mergedOnto(t, f.prs[1], old)
				return
			}
			if f.head(f.prs[1]) != old || gitWrites(f.s) != writes {
				t.Errorf("written while unknown")
			}
			if !strings.Contains(strings.Join(res.update.Lines(), "\n"), fmt.Sprintf("still computing whether #%d conflict", f.prs[1].n)) {
				t.Errorf("the run does not say what it left: %q", res.update.Lines())
			}
		})
	}
}

// The branch moves while the bot merges (someone pushes between the bot's
// read and its ref update): the branch is not moved, the commit the bot
// made dangles, nothing is said, and the next push brings the branch up to
// date from its new head.
func TestUpdateBranchMovedMeanwhile(t *testing.T) {
	t.Parallel()
	f := newFleet(t, 2, nil)
	f.approveAll(t)
	f.merge(t, f.prs[0])
	other := f.prs[1]
	var pushed string
	f.s.BeforeUpdateRef(func(o, r, ref string) {
		if ref == "heads/"+other.branch && pushed == "" {
			pushed = f.s.CommitFiles(o, r, other.branch, map[string]string{"docs/p2.md": "more\n"}, provDevGH, fakegithub.Verified())
		}
	})
	res := f.push(t)
	if res.err != nil {
		t.Fatalf("%v\n%s", res.err, res.log)
	}
	if f.head(other) != pushed {
		t.Fatalf("the branch is at %s, want the push made meanwhile %s", f.head(other), pushed)
	}
	contains(t, "the run's lines", strings.Join(res.update.Lines(), "\n"), "moved while the bot merged")
	if len(f.s.Comments(other.n)) != 0 || len(f.s.AllCheckRuns()) != 2 /* the approvals' */ {
		t.Errorf("replied or judged the commit that never landed")
	}
	f.s.BeforeUpdateRef(nil)
	if res := f.push(t); res.err != nil {
		t.Fatalf("%v\n%s", res.err, res.log)
	}
	c, _ := f.s.Commit(f.head(other))
	if !slices.Equal(c.Parents, []string{pushed, f.s.BranchHead(e2e.Owner, e2e.Repo, "main")}) {
		t.Errorf("the next push did not update from the new head: %+v", c)
	}
}

// The listing fails: a push run fails saying so, and has written nothing.
func TestUpdateListingFails(t *testing.T) {
	t.Parallel()
	f := newFleet(t, 2, nil)
	f.approveAll(t)
	f.merge(t, f.prs[0])
	writes := gitWrites(f.s)
	f.s.Inject(fakegithub.Fault{Method: "POST", Path: "/graphql", Status: 502, Times: 10})
	res := f.push(t)
	contains(t, "the error", res.failed(t).Error(), "list the open pull requests to bring up to date")
	if gitWrites(f.s) != writes || len(f.s.Comments(f.prs[1].n)) != 0 {
		t.Error("wrote without a listing")
	}
	noneInProgress(t, f.s)
}

// A pull request from the default branch into another base is never
// written, whatever its conflicts: the bot writes no default branch.
func TestUpdateNeverWritesTheDefaultBranch(t *testing.T) {
	t.Parallel()
	f := newFleet(t, 1, nil)
	s := f.s
	s.SetBranch(e2e.Owner, e2e.Repo, "release", s.BranchHead(e2e.Owner, e2e.Repo, "main"))
	s.CommitFiles(e2e.Owner, e2e.Repo, "release", e2e.NewLog().Branch("rel").Assign("T8", "F8", "rel", "dev", "rev").Files(), provLeadGH, fakegithub.Verified())
	s.CommitFiles(e2e.Owner, e2e.Repo, "main", e2e.NewLog().Branch("main").Assign("T7", "F7", "x", "dev", "rev").Files(), provLeadGH, fakegithub.Verified())
	n := s.OpenPR(e2e.Owner, e2e.Repo, fakegithub.PRSeed{Head: "main", Base: "release"})
	if st, _ := s.Mergeable(n); st != "CONFLICTING" {
		t.Fatalf("main into release is %s", st)
	}
	tip := s.BranchHead(e2e.Owner, e2e.Repo, "main")
	res := f.push(t)
	if res.err != nil {
		t.Fatalf("%v\n%s", res.err, res.log)
	}
	if s.BranchHead(e2e.Owner, e2e.Repo, "main") != tip || len(s.Comments(n)) != 0 {
		t.Error("the default branch was written, or the bot replied")
	}
	contains(t, "the run's lines", strings.Join(res.update.Lines(), "\n"), "the default branch, which the bot never writes")
}

// The update's checks are check mode's: every accept still covers the
// updated head under require and change, and its findings are those of a
// clean pull request.
func TestUpdateCheckIsTheCheck(t *testing.T) {
	t.Parallel()
	f := newFleet(t, 2, nil)
	f.approveAll(t)
	f.merge(t, f.prs[0])
	res := f.push(t)
	if res.err != nil || len(res.update.Updated) != 1 {
		t.Fatalf("%v\n%s", res.err, res.log)
	}
	u := res.update.Updated[0]
	if u.Check == nil || checks.Count(u.Check.Findings).Errors+checks.Count(u.Check.Findings).Pending != 0 {
		t.Fatalf("the check of the update: %+v", u.Check)
	}
	// The pull request's own run on the same head says the same.
	own := event{name: "pull_request", payload: prPayload(t, f.s, f.prs[1].n, f.prs[1].branch, "main")}.run(t, f.s).only(t)
	if own.Conclusion != u.Check.Conclusion || fmt.Sprint(codes(own.Findings)) != fmt.Sprint(codes(u.Check.Findings)) {
		t.Errorf("the pull request's own run: %s %v; the update's: %s %v", own.Conclusion, codes(own.Findings), u.Check.Conclusion, codes(u.Check.Findings))
	}
}

// The faults of an update, each injected where the bot writes: the run
// either finishes as a clean one would, or stops saying why and the next
// scheduled run finishes it; the branch gains one merge commit whatever
// happened, a commit that never landed dangles harmlessly, and no check
// run is left in progress.
func TestUpdateFaults(t *testing.T) {
	t.Parallel()
	tree, commits, ref := repoPath+"/git/trees", repoPath+"/git/commits", repoPath+"/git/refs/heads/feat/p2"
	for _, tc := range []struct {
		name  string
		fault fakegithub.Fault
		// cancel: the job is killed while the fault holds the request.
		cancel bool
		// afterMove: the fault is injected once the branch is moved, for
		// what comes after (the check of the new commit).
		afterMove bool
	}{
		{name: "killed between the commit and the ref update", fault: fakegithub.Fault{Method: "PATCH", Path: ref, Stall: true}, cancel: true},
		{name: "killed after the ref update landed", fault: fakegithub.Fault{Method: "PATCH", Path: ref, Stall: true, AfterApply: true}, cancel: true},
		{name: "the ref update's answer lost", fault: fakegithub.Fault{Method: "PATCH", Path: ref, Drop: true, AfterApply: true}},
		{name: "the ref update's answer cut", fault: fakegithub.Fault{Method: "PATCH", Path: ref, Cut: true}},
		{name: "a 5xx on the tree, once", fault: fakegithub.Fault{Method: "POST", Path: tree, Status: 502}},
		{name: "a 5xx on the tree, every attempt", fault: fakegithub.Fault{Method: "POST", Path: tree, Status: 502, Times: 5}},
		{name: "the commit's answer lost", fault: fakegithub.Fault{Method: "POST", Path: commits, Drop: true, AfterApply: true}},
		{name: "killed while the check run is completed", fault: fakegithub.Fault{Method: "PATCH", Path: repoPath + "/check-runs/*", Stall: true, AfterApply: true}, cancel: true},
		// The ref update's outcome unknown while GitHub did not move the
		// branch: read at its old head, it is moved again.
		{name: "the ref update answered 502 unapplied", fault: fakegithub.Fault{Method: "PATCH", Path: ref, Status: 502}},
		{name: "the ref update answered 502 applied", fault: fakegithub.Fault{Method: "PATCH", Path: ref, Status: 502, AfterApply: true}},
		{name: "the ref update lost unapplied", fault: fakegithub.Fault{Method: "PATCH", Path: ref, Drop: true}},
		{name: "the ref update lost unapplied, every attempt", fault: fakegithub.Fault{Method: "PATCH", Path: ref, Drop: true, Times: 10}},
		{name: "the ref update hangs, every attempt", fault: fakegithub.Fault{Method: "PATCH", Path: ref, Stall: true, Times: 10}},
		{name: "a 5xx on the commit, every attempt", fault: fakegithub.Fault{Method: "POST", Path: commits, Status: 502, Times: 10}},
		// The check on the new commit: the branch moved, its check could
		// not be posted or failed; the scheduled run's re-judge posts the
		// verdict.
		{name: "the check run's create fails every attempt", fault: fakegithub.Fault{Method: "POST", Path: repoPath + "/check-runs", Status: 502, Times: 10}},
		{name: "the check's judgement fails (its reads)", fault: fakegithub.Fault{Method: "POST", Path: "/graphql", Status: 502, Times: 10}, afterMove: true},
		{name: "the check's judgement hangs", fault: fakegithub.Fault{Method: "POST", Path: "/graphql", Stall: true, Times: 10}, afterMove: true},
		{name: "the pull request read again after the update fails", fault: fakegithub.Fault{Method: "GET", Path: repoPath + "/pulls/*", Status: 502, Times: 10}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFleet(t, 2, nil)
			f.approveAll(t)
			f.merge(t, f.prs[0])
			other := f.prs[1]
			old := f.head(other)
			if tc.afterMove {
				var once sync.Once
				f.s.BeforeUpdateRef(func(string, string, string) { once.Do(func() { f.s.Inject(tc.fault) }) })
			} else {
				f.s.Inject(tc.fault)
			}
			ev := event{name: "push", payload: pushPayload(t, f.s, "main"), retry: hangRetry}
			if tc.cancel {
				ev.ctx = cancelWhenStalled(t, f.s)
				ev.grace = time.Second
			}
			first := ev.run(t, f.s)
			if faults(f.s) == 0 {
				t.Fatal("the fault was not reached")
			}
			noneInProgress(t, f.s)
			if first.err != nil {
				t.Logf("the first run failed: %v", first.err)
			}
			if first.err != nil {
				// The next scheduled run finishes it, GitHub answering
				// again: it brings what still conflicts up to date, and
				// judges every open pull request (a head the failed run
				// moved but never judged among them).
				f.s.ClearFaults()
				if res := (event{name: "schedule", payload: []byte(`{"schedule":"17 * * * *"}`)}).run(t, f.s); res.err != nil {
					t.Fatalf("the scheduled run: %v\n%s", res.err, res.log)
				}
			}
			f.mergedOnto(t, other, old)
			if len(f.s.Comments(other.n)) != 0 {
				t.Errorf("replied: %+v", f.s.Comments(other.n))
			}
			noneInProgress(t, f.s)
			noViolations(t, f.s)
		})
	}
}

// Merge queues (issue 33, item 5): GitHub builds a group by merging on its
// server, so a second pull request that writes the pact cannot join the
// group of the first; the queue removes it. When the first group lands
// (a push to main), the bot brings the removed one up to date, and it can
// be queued again: its group passes the merge-group check as it is.
func TestUpdateBringsBackAPullRequestTheQueueRemoved(t *testing.T) {
	t.Parallel()
	f := newFleet(t, 2, nil)
	f.approveAll(t)
	first, second := f.prs[0], f.prs[1]
	g1, err := f.s.TryQueuePR(first.n, "")
	if err != nil {
		t.Fatal(err)
	}
	groupCheck := func(g fakegithub.MergeGroup) {
		t.Helper()
		out := event{name: "merge_group", payload: mergeGroupPayload(t, g.HeadSHA, g.HeadRef, g.BaseSHA)}.run(t, f.s).only(t)
		if out.Conclusion != report.ConclusionSuccess {
			t.Fatalf("group %s: %s %v", g.HeadRef, out.Conclusion, codes(out.Findings))
		}
	}
	groupCheck(g1)
	if _, err := f.s.TryQueuePR(second.n, g1.HeadSHA); err == nil || !strings.Contains(err.Error(), logPath) {
		t.Fatalf("the second pull request joined the first's group: %v", err)
	}
	f.s.LandMergeGroup(g1, first.n)
	old := f.head(second)
	if res := f.push(t); res.err != nil {
		t.Fatalf("%v\n%s", res.err, res.log)
	}
	f.mergedOnto(t, second, old)
	g2, err := f.s.TryQueuePR(second.n, "")
	if err != nil {
		t.Fatalf("queued again: %v", err)
	}
	groupCheck(g2)
	f.s.LandMergeGroup(g2, second.n)
	f.finalLog(t)
}

// Which runs update (ghevent.UpdatesBranches, wired in Run): a push to the
// default branch in mode auto or bot does, and then judges nothing else;
// a push to another branch is check mode's, as before, after the one
// listing that says which branch is the default; mode check neither lists
// nor writes; a scheduled run updates, then re-judges the others.
func TestUpdateOnlyWhereTheEventAsks(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, event, mode, ref string
		updates                bool
		listings               int
	}{
		{name: "push to main, auto", event: "push", mode: "auto", ref: "main", updates: true, listings: 1},
		{name: "push to main, bot", event: "push", mode: "bot", ref: "main", updates: true, listings: 1},
		{name: "push to main, check", event: "push", mode: "check", ref: "main"},
		{name: "push to another branch, auto", event: "push", mode: "auto", ref: "feat/p1", listings: 1},
		{name: "schedule, auto", event: "schedule", mode: "auto", updates: true, listings: 1},
		{name: "workflow_dispatch, check", event: "workflow_dispatch", mode: "check"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFleet(t, 2, nil)
			f.approveAll(t)
			f.merge(t, f.prs[0])
			old := f.head(f.prs[1])
			payload := []byte(`{"schedule":"17 * * * *"}`)
			if tc.event == "push" {
				payload = pushPayload(t, f.s, tc.ref)
			}
			before := countOp(f.s, fakegithub.GraphQLOperation)
			listings := func() int {
				n := 0
				for _, r := range f.s.Requests() {
					// The listing is the one query with an after cursor.
					if _, paged := r.Variables["after"]; r.Operation == fakegithub.GraphQLOperation && paged {
						n++
					}
				}
				return n
			}
			already := listings()
			res := event{name: tc.event, payload: payload, mode: tc.mode, sha: f.s.BranchHead(e2e.Owner, e2e.Repo, "main")}.run(t, f.s)
			if res.err != nil {
				t.Fatalf("%v\n%s", res.err, res.log)
			}
			if got := listings() - already; got != tc.listings {
				t.Errorf("%d listings with mergeability, want %d (GraphQL requests %d → %d)", got, tc.listings, before, countOp(f.s, fakegithub.GraphQLOperation))
			}
			if updated := f.head(f.prs[1]) != old; updated != tc.updates || (res.update != nil) != tc.updates {
				t.Errorf("updated %v (outcome %+v), want %v", updated, res.update, tc.updates)
			}
			switch {
			case tc.event == "push" && tc.updates && len(res.outcomes) != 0:
				t.Errorf("a push that updates judged %d heads besides", len(res.outcomes))
			case tc.event == "schedule":
				// The updated head is judged once, by the updater; the
				// re-judge takes the rest.
				onlyRun(t, f.s, f.head(f.prs[1]), "pact", report.ConclusionSuccess)
			}
		})
	}
}

// The logs an update merges are read within max-pact-bytes, all three
// together: past it the update is the author's, said once, and nothing is
// written.
func TestUpdateLogsWithinTheBudget(t *testing.T) {
	t.Parallel()
	f := newFleet(t, 2, nil)
	f.approveAll(t)
	f.merge(t, f.prs[0])
	other := f.prs[1]
	old := f.head(other)
	log, _ := f.s.FileAt(old, logPath)
	small := func(st *action.Settings) { st.MaxPactBytes = int64(2 * len(log)) } // two logs fit, not three
	for range 2 {
		if res := (event{name: "push", payload: pushPayload(t, f.s, "main"), settings: small}).run(t, f.s); res.err != nil {
			t.Fatalf("%v\n%s", res.err, res.log)
		}
	}
	if f.head(other) != old {
		t.Error("written past the budget")
	}
	if c := f.s.Comments(other.n); len(c) != 1 || !strings.Contains(c[0].Body, "max-pact-bytes") {
		t.Errorf("replies %+v, want one naming max-pact-bytes", c)
	}
}

// A worker cannot have the bot write their code onto a branch they did not
// push: they create scratch from main with src/evil.go and a log that
// conflicts with a teammate's work-in-progress branch, then open a pull
// request from the teammate's branch into scratch. When main moves, the
// updater leaves that pull request alone (only the default branch is ever
// merged into a branch): it writes nothing there and says nothing, and
// still brings the other pull requests into main up to date.
func TestUpdateNeverMergesADecoyBase(t *testing.T) {
	t.Parallel()
	f := newFleet(t, 2, nil)
	s := f.s
	f.approveAll(t)
	wip := e2e.NewLog().Branch("wip").Assign("T7", "F7", "feat/wip", "dev", "rev").Files()
	wip["src/wip.go"] = "package wip\n"
	old := s.CommitFiles(e2e.Owner, e2e.Repo, "feat/wip", wip, provDevGH, fakegithub.From("main"), fakegithub.Verified())
	evil := e2e.NewLog().Branch("scratch").Assign("T8", "F8", "scratch", "dev", "rev").Files()
	evil["src/evil.go"] = "package evil // sends the token out\n"
	s.CommitFiles(e2e.Owner, e2e.Repo, "scratch", evil, "mallory", fakegithub.From("main"))
	decoy := s.OpenPR(e2e.Owner, e2e.Repo, fakegithub.PRSeed{Head: "feat/wip", Base: "scratch", Author: "mallory"})
	if st, _ := s.Mergeable(decoy); st != "CONFLICTING" {
		t.Fatalf("the teammate's branch into scratch is %s", st)
	}
	f.merge(t, f.prs[0])
	other := f.prs[1]
	otherOld := f.head(other)
	res := f.push(t)
	if res.err != nil {
		t.Fatalf("%v\n%s", res.err, res.log)
	}
	if head := s.BranchHead(e2e.Owner, e2e.Repo, "feat/wip"); head != old {
		evilAt, _ := s.FileAt(head, "src/evil.go")
		t.Fatalf("the bot wrote the teammate's branch: %s → %s (src/evil.go: %q)", old, head, evilAt)
	}
	if len(s.Comments(decoy)) != 0 {
		t.Errorf("the bot replied on the decoy: %+v", s.Comments(decoy))
	}
	contains(t, "the run's lines", strings.Join(res.update.Lines(), "\n"), fmt.Sprintf("#%d left as it is: its base scratch is not the default branch", decoy))
	f.mergedOnto(t, other, otherOld)
}

// The listing of pull requests with their mergeability, hung, and the
// listings again while GitHub computes it, failing or hung: a first
// listing that fails fails the run saying so, with nothing written; a
// listing again that fails leaves what is still unknown to the next run,
// which the run says, with nothing written for it. The next push, GitHub
// answering, brings the pull request up to date.
func TestUpdateListingFaults(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		lag   int
		fault fakegithub.Fault
		// says is in the error (the run fails), or in its lines.
		says  string
		fails bool
	}{
		{name: "the listing hangs", fault: fakegithub.Fault{Stall: true, Times: 10}, says: "did not answer POST /graphql", fails: true},
		{name: "a listing again fails", lag: 1, fault: fakegithub.Fault{Status: 502, Skip: 1, Times: 10}, says: "still computing whether #2 conflict"},
		{name: "a listing again hangs", lag: 1, fault: fakegithub.Fault{Stall: true, Skip: 1, Times: 10}, says: "still computing whether #2 conflict"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFleet(t, 2, nil)
			f.approveAll(t)
			f.merge(t, f.prs[0])
			other := f.prs[1]
			old := f.head(other)
			writes := gitWrites(f.s)
			f.s.SetMergeabilityLag(tc.lag)
			tc.fault.Method, tc.fault.Path = "POST", "/graphql"
			f.s.Inject(tc.fault)

			res := event{name: "push", payload: pushPayload(t, f.s, "main"), retry: hangRetry}.run(t, f.s)

			if faults(f.s) == 0 {
				t.Fatal("the fault was not reached")
			}
			if tc.fails {
				contains(t, "the error", res.failed(t).Error(), "list the open pull requests to bring up to date", tc.says)
			} else {
				if res.err != nil {
					t.Fatalf("the run failed: %v", res.err)
				}
				contains(t, "the run's lines", strings.Join(res.update.Lines(), "\n"), tc.says)
			}
			if f.head(other) != old || gitWrites(f.s) != writes || len(f.s.Comments(other.n)) != 0 {
				t.Errorf("written or replied without a listing that says it conflicts")
			}
			noneInProgress(t, f.s)

			f.s.ClearFaults()
			f.s.SetMergeabilityLag(0)
			if res := f.push(t); res.err != nil {
				t.Fatalf("the next push: %v\n%s", res.err, res.log)
			}
			f.mergedOnto(t, other, old)
		})
	}
}

// The branch moves while the bot's ref update is under way and its answer
// is lost (GitHub refused the update as no fast-forward; the bot never
// learnt it): the bot reads the branch, finds it elsewhere, and leaves it
// there, never forcing it back; the commit the bot made dangles, nothing
// is said or judged of it, and the next push updates from the new head.
func TestUpdateBranchMovedWhileTheAnswerIsLost(t *testing.T) {
	t.Parallel()
	f := newFleet(t, 2, nil)
	f.approveAll(t)
	f.merge(t, f.prs[0])
	other := f.prs[1]
	var pushed string
	f.s.BeforeUpdateRef(func(o, r, ref string) {
		if ref == "heads/"+other.branch && pushed == "" {
			pushed = f.s.CommitFiles(o, r, other.branch, map[string]string{"docs/p2.md": "more\n"}, provDevGH, fakegithub.Verified())
		}
	})
	f.s.Inject(fakegithub.Fault{Method: "PATCH", Path: repoPath + "/git/refs/heads/" + other.branch, Drop: true, AfterApply: true})
	runs, patches := len(f.s.AllCheckRuns()), f.s.CountRequests("PATCH", repoPath+"/git/refs/heads/"+other.branch)

	res := event{name: "push", payload: pushPayload(t, f.s, "main"), retry: hangRetry}.run(t, f.s)

	if res.err != nil {
		t.Fatalf("%v\n%s", res.err, res.log)
	}
	if faults(f.s) != 1 || f.head(other) != pushed {
		t.Fatalf("the branch is at %s, want the push made meanwhile %s (faults %d)", f.head(other), pushed, faults(f.s))
	}
	if n := f.s.CountRequests("PATCH", repoPath+"/git/refs/heads/"+other.branch) - patches; n != 1 {
		t.Errorf("the ref update was sent %d times, want once: a branch that moved is never moved again", n)
	}
	contains(t, "the run's lines", strings.Join(res.update.Lines(), "\n"), "moved while the bot merged")
	if len(f.s.Comments(other.n)) != 0 || len(f.s.AllCheckRuns()) != runs {
		t.Errorf("replied or judged the commit that never landed")
	}
	f.s.BeforeUpdateRef(nil)
	if res := f.push(t); res.err != nil {
		t.Fatalf("%v\n%s", res.err, res.log)
	}
	// (Its check fails: the push after the accept changed the change.)
	if c, _ := f.s.Commit(f.head(other)); !slices.Equal(c.Parents, []string{pushed, f.s.BranchHead(e2e.Owner, e2e.Repo, "main")}) {
		t.Errorf("the next push did not update from the new head: %+v", c)
	}
	noneInProgress(t, f.s)
}

// The reply that leaves an update to its author, with GitHub failing
// around it: looking for the bot's earlier reply refused or hung fails
// the run saying so and posts nothing (a reply said twice is the fault
// the look prevents); a reply whose answer is lost is found, not posted
// again. Whatever happened, the pull request hears it once, and nothing
// is written to its branch.
func TestUpdateReplyFaults(t *testing.T) {
	t.Parallel()
	comments := repoPath + "/issues/*/comments"
	for _, tc := range []struct {
		name  string
		fault fakegithub.Fault
		says  string
	}{
		{name: "the look for the earlier reply refused", fault: fakegithub.Fault{Method: "GET", Path: comments, Status: 502, Times: 10}, says: "look for the bot's earlier reply"},
		{name: "the look for the earlier reply hangs", fault: fakegithub.Fault{Method: "GET", Path: comments, Stall: true, Times: 10}, says: "look for the bot's earlier reply"},
		{name: "the reply's answer lost", fault: fakegithub.Fault{Method: "POST", Path: comments, Drop: true, AfterApply: true}},
		{name: "the reply refused", fault: fakegithub.Fault{Method: "POST", Path: comments, Status: 502, Times: 10}, says: "reply why it is left to its author"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFleet(t, 2, func(i int) map[string]string {
				return map[string]string{"src/shared.go": fmt.Sprintf("package shared // p%d\n", i)}
			})
			f.approveAll(t)
			f.merge(t, f.prs[0])
			other := f.prs[1]
			old := f.head(other)
			writes := gitWrites(f.s)
			f.s.Inject(tc.fault)

			res := event{name: "push", payload: pushPayload(t, f.s, "main"), retry: hangRetry}.run(t, f.s)

			if faults(f.s) == 0 {
				t.Fatal("the fault was not reached")
			}
			if tc.says != "" {
				contains(t, "the error", res.failed(t).Error(), fmt.Sprintf("#%d", other.n), tc.says)
			} else if res.err != nil {
				t.Fatalf("the run failed: %v", res.err)
			}
			f.s.ClearFaults()
			for range 2 {
				if res := f.push(t); res.err != nil {
					t.Fatalf("the next push: %v\n%s", res.err, res.log)
				}
			}
			if c := f.s.Comments(other.n); len(c) != 1 || !strings.Contains(c[0].Body, "src/shared.go") {
				t.Errorf("replies %+v, want one naming src/shared.go", c)
			}
			if f.head(other) != old || gitWrites(f.s) != writes {
				t.Errorf("the branch was written")
			}
			noneInProgress(t, f.s)
		})
	}
}
