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
// branch is judged: an unaccepted feature ahead blocks the group behind it.
func TestCheckMergeGroupCarriesThePRsAheadOfIt(t *testing.T) {
	t.Parallel()
	base := soloLog(t).Assign("T1", "LOGIN", "feat/login", "solo", "rev").Assign("T9", "EVIL", "feat/evil", "solo", "rev")
	s := e2e.NewServer(t)
	files := with(base.Files(), ".github/pact.yml", provenanceOff)
	baseSHA := s.CommitFiles(e2e.Owner, e2e.Repo, "main", files, "lead")
	evil := base.Copy().Join("solo")
	evilHead := s.CommitFiles(e2e.Owner, e2e.Repo, "feat/evil", with(evil.Files(), "src/evil.go", "package evil\n"), "solo", fakegithub.From("main"))
	first := s.OpenPR(e2e.Owner, e2e.Repo, fakegithub.PRSeed{Head: "feat/evil", Base: "main"})
	login := evil.Copy().Checkpoint("solo", "T1", "LOGIN").Accept("rev", "T1", "LOGIN")
	loginHead := s.CommitFiles(e2e.Owner, e2e.Repo, "feat/login", login.Files(), "solo", fakegithub.From("main"))
	second := s.OpenPR(e2e.Owner, e2e.Repo, fakegithub.PRSeed{Head: "feat/login", Base: "main"})

	ahead := fmt.Sprintf("gh-readonly-queue/main/pr-%d-%s", first, baseSHA)
	aheadSHA := s.CommitFiles(e2e.Owner, e2e.Repo, ahead, with(evil.Files(), "src/evil.go", "package evil\n"), "", fakegithub.WithParents(baseSHA, evilHead))
	queue := fmt.Sprintf("gh-readonly-queue/main/pr-%d-%s", second, aheadSHA)
	groupSHA := s.CommitFiles(e2e.Owner, e2e.Repo, queue, login.Files(), "", fakegithub.WithParents(aheadSHA, loginHead))
	// A group queued behind this one is not carried by it.
	behind := fmt.Sprintf("gh-readonly-queue/main/pr-%d-%s", 99, groupSHA)
	s.CommitFiles(e2e.Owner, e2e.Repo, behind, map[string]string{"x": "1"}, "", fakegithub.WithParents(groupSHA))

	out := event{name: "merge_group", payload: mergeGroupPayload(t, groupSHA, queue, baseSHA), sha: groupSHA}.run(t, s).only(t)

	if !slices.Equal(out.PRs, []int{first, second}) {
		t.Errorf("judged pull requests %v, want %v", out.PRs, []int{first, second})
	}
	var waiting []string
	for _, f := range out.Findings {
		if f.Code == checks.CodePRUnaccepted {
			waiting = append(waiting, f.TaskID)
		}
	}
	if !slices.Equal(waiting, []string{"T9"}) {
		t.Errorf("waiting for %v, want [T9] (the feature of the pull request queued ahead)", waiting)
	}
	onlyRun(t, s, groupSHA, "pact", "action_required")
	noViolations(t, s)
}
