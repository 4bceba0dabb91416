package action_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/pact-action/pact-action/action"
	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/internal/testkit/e2e"
	"github.com/pact-action/pact-action/internal/testkit/fakegithub"
)

// queued puts the scenario's pull request in the merge queue, with group
// as the pact of the queue's merge commit, and runs check mode on the
// merge_group event.
func (sc scenario) queued(t *testing.T, group *e2e.Log) (groupSHA string, out *action.Outcome) {
	t.Helper()
	queue := fmt.Sprintf("gh-readonly-queue/main/pr-%d-%s", sc.number, sc.baseSHA)
	groupSHA = sc.s.CommitFiles(e2e.Owner, e2e.Repo, queue, group.Files(), "", fakegithub.WithParents(sc.baseSHA, sc.headSHA),
		fakegithub.WithMessage(fmt.Sprintf("Merge pull request #%d", sc.number)))
	return groupSHA, event{name: "merge_group", payload: mergeGroupPayload(t, groupSHA, queue, sc.baseSHA), sha: groupSHA}.run(t, sc.s).only(t)
}

// TestCheckMergeGroup: the queue's merge commit is judged for real, and Rule
// 2 applies to the branch of every queued PR.
func TestCheckMergeGroup(t *testing.T) {
	t.Parallel()
	base := soloLog(t).Assign("T1", "LOGIN", "feat/login", "solo", "rev").Assign("T2", "OTHER", "feat/other", "dev", "rev")
	review := base.Copy().Join("solo").Checkpoint("solo", "T1", "LOGIN")
	accepted := review.Copy().Accept("rev", "T1", "LOGIN")
	tests := []struct {
		name string
		// pr is the PR branch's pact; group the merge commit's.
		pr, group  *e2e.Log
		conclusion string
		want       []string
	}{
		{name: "accepted", pr: accepted, group: accepted, conclusion: "success", want: []string{}},
		{name: "forged accept in the group commit", pr: review, group: review.Copy().Accept("solo", "T1", "LOGIN"),
			conclusion: "failure", want: sorted("rule1.self_accept", "pr.unaccepted_feature")},
		{name: "queued PR still waiting", pr: review, group: review, conclusion: "action_required",
			want: []string{"pr.unaccepted_feature"}},
		{name: "group commit rewrites the base", pr: accepted,
			group:      &e2e.Log{Lines: append([]string{accepted.Lines[0], accepted.Lines[2], accepted.Lines[1]}, accepted.Lines[3:]...)},
			conclusion: "failure", want: []string{"log.rewritten"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := e2e.NewServer(t)
			sc := seedPR(t, s, base.Files(), tc.pr.Files(), "feat/login")

			groupSHA, out := sc.queued(t, tc.group)

			fs := out.Findings
			if got := codes(fs); !slices.Equal(got, tc.want) {
				t.Fatalf("codes = %v, want %v\n%+v", got, tc.want, fs)
			}
			run := onlyRun(t, s, groupSHA, "pact", tc.conclusion)
			if runs := s.CheckRuns(sc.headSHA); len(runs) != 0 {
				t.Errorf("check runs on the PR head: %+v", runs)
			}
			checkAnnotations(t, run, fs)
			c := checks.Count(fs)
			checkOutcome(t, out, run, sc.number, c.Errors, c.Warnings, c.Pending)
			for _, f := range fs {
				if f.Code == checks.CodePRUnaccepted && f.TaskID != "T1" {
					t.Errorf("waiting for %s, which is not on a queued PR's branch", f.TaskID)
				}
			}
			if n := s.CountRequests("GET", repoPath+"/pulls/"+fmt.Sprint(sc.number)); n != 1 {
				t.Errorf("read the queued PR %d times, want 1", n)
			}
			noViolations(t, s)
		})
	}
}

// TestCheckMergeGroupOfUnknownPRs: a merge group whose head ref names no
// pull request fails closed before anything is posted: without the queued
// pull requests Rule 2 cannot be judged.
func TestCheckMergeGroupOfUnknownPRs(t *testing.T) {
	t.Parallel()
	s := e2e.NewServer(t)
	sc := seedPR(t, s, e2e.NewLog().Files(), e2e.NewLog().Join("dev").Files(), "feat/login")
	group := s.CommitFiles(e2e.Owner, e2e.Repo, "queue/tmp", e2e.NewLog().Join("dev").Files(), "", fakegithub.WithParents(sc.baseSHA, sc.headSHA))

	err := event{name: "merge_group", payload: mergeGroupPayload(t, group, "queue/tmp", sc.baseSHA)}.run(t, s).failed(t)

	if !strings.Contains(err.Error(), "cannot tell which pull requests merge group "+group+" holds") {
		t.Errorf("error = %v", err)
	}
	if runs := s.CheckRuns(group); len(runs) != 0 {
		t.Errorf("check runs on the group: %+v", runs)
	}
}

// TestCheckMergeGroupCarriesThePRsAheadOfIt: the queue builds each entry's
// group on the group ahead of it, so the commit a merge_group event names
// carries every pull request queued before the one its ref names (and the
// queue may merge them together when the last group passes). Each one's
// branch is judged: an unaccepted feature blocks the group whether its
// pull request is queued ahead or is the one the ref names, behind an
// accepted one (a group judged for one of its branches only would ship
// the other's feature unaccepted).
func TestCheckMergeGroupCarriesThePRsAheadOfIt(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		// evilAhead queues feat/evil (T9, never accepted) ahead of
		// feat/login (T1, accepted); else behind it.
		evilAhead bool
	}{
		{"the pull request ahead waits", true},
		{"the pull request behind waits", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			base := soloLog(t).Assign("T1", "LOGIN", "feat/login", "solo", "rev").Assign("T9", "EVIL", "feat/evil", "solo", "rev")
			s := e2e.NewServer(t)
			baseSHA := s.CommitFiles(e2e.Owner, e2e.Repo, "main", with(base.Files(), ".github/pact.yml", provenanceOff), "lead")
			evil := base.Copy().Join("solo")
			login := evil.Copy().Checkpoint("solo", "T1", "LOGIN").Accept("rev", "T1", "LOGIN")
			type pr struct {
				branch string
				files  map[string]string
				n      int
				head   string
			}
			ahead, behind := &pr{branch: "feat/evil", files: with(evil.Files(), "src/evil.go", "package evil\n")}, &pr{branch: "feat/login", files: login.Files()}
			if !tc.evilAhead {
				ahead, behind = behind, ahead
			}
			for _, p := range []*pr{ahead, behind} { // opened in queue order: the one ahead has the lower number
				p.head = s.CommitFiles(e2e.Owner, e2e.Repo, p.branch, p.files, "solo", fakegithub.From("main"))
				p.n = s.OpenPR(e2e.Owner, e2e.Repo, fakegithub.PRSeed{Head: p.branch, Base: "main"})
			}
			aheadRef := fmt.Sprintf("gh-readonly-queue/main/pr-%d-%s", ahead.n, baseSHA)
			aheadSHA := s.CommitFiles(e2e.Owner, e2e.Repo, aheadRef, ahead.files, "", fakegithub.WithParents(baseSHA, ahead.head))
			// The group holds both pull requests: login's log, which extends
			// evil's, and evil's code.
			queue := fmt.Sprintf("gh-readonly-queue/main/pr-%d-%s", behind.n, aheadSHA)
			groupSHA := s.CommitFiles(e2e.Owner, e2e.Repo, queue, with(login.Files(), "src/evil.go", "package evil\n"), "", fakegithub.WithParents(aheadSHA, behind.head))
			// A group queued behind this one is not carried by it.
			s.CommitFiles(e2e.Owner, e2e.Repo, fmt.Sprintf("gh-readonly-queue/main/pr-%d-%s", 99, groupSHA), map[string]string{"x": "1"}, "", fakegithub.WithParents(groupSHA))

			out := event{name: "merge_group", payload: mergeGroupPayload(t, groupSHA, queue, aheadSHA), sha: groupSHA}.run(t, s).only(t)

			if want := []int{ahead.n, behind.n}; !slices.Equal(out.PRs, want) {
				t.Errorf("judged pull requests %v, want %v", out.PRs, want)
			}
			var waiting []string
			for _, f := range out.Findings {
				if f.Code == checks.CodePRUnaccepted {
					waiting = append(waiting, f.TaskID)
				}
			}
			if !slices.Equal(waiting, []string{"T9"}) {
				t.Errorf("waiting for %v, want [T9] (the feature of feat/evil, queued %s)", waiting, map[bool]string{true: "ahead", false: "behind feat/login"}[tc.evilAhead])
			}
			onlyRun(t, s, groupSHA, "pact", "action_required")
			noViolations(t, s)
		})
	}
}

// stackedQueue is the story of a queue: PR #1 (feat/login) adds
// T1's checkpoint and accept; PR #2 (feat/two), built on PR #1's branch,
// edits the evidence of that checkpoint. Each PR's own log extends
// main's, and so does each group's; only the group ahead has the
// checkpoint as PR #1 wrote it. Provenance is off (main's file).
func stackedQueue(t *testing.T) (s *fakegithub.Server, g1, g2 fakegithub.MergeGroup, prs []int) {
	t.Helper()
	base := e2e.NewLog().Assign("T1", "LOGIN", "feat/login", "dev", "rev")
	s = e2e.NewServer(t)
	s.CommitFiles(e2e.Owner, e2e.Repo, "main", with(base.Files(), ".github/pact.yml", provenanceOff+"unmapped-branches: allow\n"), "lead")
	one := base.Copy().Join("dev").Checkpoint("dev", "T1", "LOGIN").Accept("rev", "T1", "LOGIN")
	s.CommitFiles(e2e.Owner, e2e.Repo, "feat/login", with(one.Files(), "src/login.go", "package login\n"), "dev", fakegithub.From("main"))
	two := one.Copy()
	two.Lines[3] = strings.Replace(two.Lines[3], "tests pass", "tests pass (CI run 7)", 1)
	if two.Lines[3] == one.Lines[3] {
		t.Fatalf("the checkpoint line holds no evidence to edit: %s", one.Lines[3])
	}
	s.CommitFiles(e2e.Owner, e2e.Repo, "feat/two", with(two.Files(), "src/two.go", "package two\n"), "dev", fakegithub.From("feat/login"))
	n1 := s.OpenPR(e2e.Owner, e2e.Repo, fakegithub.PRSeed{Head: "feat/login", Base: "main"})
	n2 := s.OpenPR(e2e.Owner, e2e.Repo, fakegithub.PRSeed{Head: "feat/two", Base: "main"})
	g1 = s.QueuePR(n1, "")
	g2 = s.QueuePR(n2, g1.HeadSHA)
	return s, g1, g2, []int{n1, n2}
}

// TestCheckMergeGroupAppendOnlyAgainstTheGroupAhead: the group behind
// another is append-only against it (merge_group.base_sha), not only
// against main, whose log both groups extend.
func TestCheckMergeGroupAppendOnlyAgainstTheGroupAhead(t *testing.T) {
	t.Parallel()
	s, g1, g2, prs := stackedQueue(t)
	for i, branch := range []string{"feat/login", "feat/two"} {
		event{name: "pull_request", payload: prPayload(t, s, prs[i], branch, "main")}.run(t, s).only(t)
		onlyRun(t, s, s.BranchHead(e2e.Owner, e2e.Repo, branch), "pact", "success") // neither PR's own check can see it
	}
	out := event{name: "merge_group", payload: mergeGroupPayload(t, g1.HeadSHA, g1.HeadRef, g1.BaseSHA), sha: g1.HeadSHA}.run(t, s).only(t)
	if len(out.Findings) != 0 {
		t.Errorf("group 1: %+v", out.Findings)
	}
	onlyRun(t, s, g1.HeadSHA, "pact", "success")

	out = event{name: "merge_group", payload: mergeGroupPayload(t, g2.HeadSHA, g2.HeadRef, g2.BaseSHA), sha: g2.HeadSHA}.run(t, s).only(t)
	run := onlyRun(t, s, g2.HeadSHA, "pact", "failure")
	if got := codes(out.Findings); !slices.Equal(got, []string{"log.rewritten"}) || out.Findings[0].Line != 4 {
		t.Fatalf("group 2: %+v", out.Findings)
	}
	if msg := out.Findings[0].Message; !strings.Contains(msg, "line 4 of the log of "+g1.HeadSHA[:12]) || !strings.Contains(msg, "tests pass (CI run 7)") {
		t.Errorf("the finding does not name the group ahead and the edit: %q", msg)
	}
	// The group's summary speaks of the group, never of "this PR".
	contains(t, "group 2's summary", run.Summary, "log.rewritten",
		fmt.Sprintf(", the merge group of pull requests #%d, #%d into main (branches feat/login, feat/two).", prs[0], prs[1]), "**feat/login** (in this group)")
	if strings.Contains(run.Summary, "this PR") || strings.Contains(run.Summary, "head of 2 open pull requests") {
		t.Errorf("the group's summary speaks of a pull request:\n%s", run.Summary)
	}
	if !slices.Equal(out.PRs, prs) {
		t.Errorf("group 2 holds %v, want %v", out.PRs, prs)
	}
	noViolations(t, s)
}

// TestCheckMergeGroupParentFailsClosed: a base_sha that is no commit id, or
// a commit the group does not build on, is not trusted: the group's check
// run fails, saying so in one sentence.
func TestCheckMergeGroupParentFailsClosed(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, parent, says string }{
		{"not a commit id", "main", `names "main" as the commit merge group`},
		{"empty", "", `names "" as the commit merge group`},
		{"a commit the group does not build on", "", "but the group does not build on it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, g1, g2, _ := stackedQueue(t)
			parent := tc.parent
			if strings.Contains(tc.name, "does not build on") {
				// The first group: none is queued ahead of it.
				g2 = g1
				parent = s.CommitFiles(e2e.Owner, e2e.Repo, "elsewhere", map[string]string{"x": "1"}, "dev", fakegithub.From("main"))
			}
			err := event{name: "merge_group", payload: mergeGroupPayload(t, g2.HeadSHA, g2.HeadRef, parent), sha: g2.HeadSHA}.run(t, s).failed(t)
			if !strings.Contains(err.Error(), tc.says) || !strings.Contains(err.Error(), "what is queued ahead of it cannot be judged") || strings.Count(err.Error(), ". ") > 0 {
				t.Errorf("error = %v", err)
			}
			run := onlyRun(t, s, g2.HeadSHA, "pact", "failure")
			contains(t, "the failed run", run.Summary, "cannot be judged")
		})
	}
}

// TestBinaryMergeQueueStacked: the stacked queue through the binary: the
// group ahead passes, the group behind it fails with log.rewritten against
// the group ahead, and its job summary speaks of the group.
func TestBinaryMergeQueueStacked(t *testing.T) {
	t.Parallel()
	s, g1, g2, prs := stackedQueue(t)
	for _, tc := range []struct {
		g          fakegithub.MergeGroup
		exit       int
		conclusion string
	}{{g1, 0, "success"}, {g2, 1, "failure"}} {
		res := e2e.Run{Server: s, EventName: "merge_group", Payload: mergeGroupPayload(t, tc.g.HeadSHA, tc.g.HeadRef, tc.g.BaseSHA),
			Env: map[string]string{"GITHUB_SHA": tc.g.HeadSHA}}.Exec(t)
		wantExit(t, res, tc.exit)
		run := onlyRun(t, s, tc.g.HeadSHA, "pact", tc.conclusion)
		if strings.Contains(run.Summary, "this PR") {
			t.Errorf("%s: the group's summary speaks of a pull request:\n%s", tc.conclusion, run.Summary)
		}
		if tc.g == g2 {
			if got := codes(reportFindings(t, res, 0)); !slices.Equal(got, []string{"log.rewritten"}) {
				t.Errorf("group 2: %v", got)
			}
			contains(t, "group 2's job summary", res.Summary, fmt.Sprintf("the merge group of pull requests #%d, #%d into main", prs[0], prs[1]), "the commit this merge group is queued behind")
		}
	}
	noViolations(t, s)
}

// TestCheckMergeGroupParentMustBeTheGroupAhead: a base_sha that the group
// builds on, yet is not the head of the group queued ahead of it, would
// judge the group against a log that already holds (or lacks) what the
// pull request ahead adds: the group's own head, the base branch's tip
// while a group is queued ahead, or a commit of the pull request behind
// (whose log already carries the edit). Each disagrees with the queue's
// branches and fails closed; the true parent is judged.
func TestCheckMergeGroupParentMustBeTheGroupAhead(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, says string }{
		{"the group's own head", "that is the group itself"},
		{"the base's tip with a group ahead", "queued ahead of it"},
		{"a commit of the pull request behind", "queued ahead of it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, g1, g2, _ := stackedQueue(t)
			parent := map[string]string{
				"the group's own head":                g2.HeadSHA,
				"the base's tip with a group ahead":   g1.BaseSHA,
				"a commit of the pull request behind": s.BranchHead(e2e.Owner, e2e.Repo, "feat/two"),
			}[tc.name]
			res := event{name: "merge_group", payload: mergeGroupPayload(t, g2.HeadSHA, g2.HeadRef, parent), sha: g2.HeadSHA}.run(t, s)
			if res.err == nil {
				t.Fatalf("the group was judged against %s: %+v", tc.name, res.outcomes[0].Findings)
			}
			if !strings.Contains(res.err.Error(), tc.says) || !strings.Contains(res.err.Error(), "cannot be judged") {
				t.Errorf("error = %v", res.err)
			}
			onlyRun(t, s, g2.HeadSHA, "pact", "failure")
		})
	}
}

// TestCheckMergeGroupParentIsTheLatestAhead: with two groups queued ahead,
// the parent must be the later one: the earlier one (which the later one
// builds on) fails closed, the later one is judged.
func TestCheckMergeGroupParentIsTheLatestAhead(t *testing.T) {
	t.Parallel()
	s, g1, g2, _ := stackedQueue(t)
	s.CommitFiles(e2e.Owner, e2e.Repo, "feat/three", map[string]string{"src/three.go": "package three\n"}, "dev", fakegithub.From("main"))
	n3 := s.OpenPR(e2e.Owner, e2e.Repo, fakegithub.PRSeed{Head: "feat/three", Base: "main"})
	g3 := s.QueuePR(n3, g2.HeadSHA)
	res := event{name: "merge_group", payload: mergeGroupPayload(t, g3.HeadSHA, g3.HeadRef, g1.HeadSHA), sha: g3.HeadSHA}.run(t, s)
	if res.err == nil || !strings.Contains(res.err.Error(), "group "+g2.HeadSHA[:7]) || !strings.Contains(res.err.Error(), "cannot be judged") {
		t.Fatalf("judged against the group two places ahead: err %v", res.err)
	}
	// Against g2, its true parent, the group is judged (and passes: it
	// adds nothing to the log; g2's own check fails on its rewrite).
	event{name: "merge_group", payload: mergeGroupPayload(t, g3.HeadSHA, g3.HeadRef, g3.BaseSHA), sha: g3.HeadSHA}.run(t, s).only(t)
	noViolations(t, s)
}
