package action_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/internal/testkit/e2e"
	"github.com/pact-action/pact-action/internal/testkit/fakegithub"
)

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
			queue := fmt.Sprintf("gh-readonly-queue/main/pr-%d-%s", sc.number, sc.baseSHA)
			groupSHA := s.CommitFiles(e2e.Owner, e2e.Repo, queue, tc.group.Files(), "", fakegithub.WithParents(sc.baseSHA, sc.headSHA),
				fakegithub.WithMessage(fmt.Sprintf("Merge pull request #%d", sc.number)))

			out := event{name: "merge_group", payload: mergeGroupPayload(t, groupSHA, queue, sc.baseSHA), sha: groupSHA}.run(t, s).only(t)

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
