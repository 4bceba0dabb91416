package action_test

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pact-action/pact-action/action"
	"github.com/pact-action/pact-action/internal/testkit/e2e"
	"github.com/pact-action/pact-action/internal/testkit/fakegithub"
	"github.com/pact-action/pact-action/internal/testkit/golden"
	"github.com/pact-action/pact-action/projection"
	"github.com/pact-action/pact-action/report"
)

// The check run as GitHub shows it, one golden file per kind of verdict
// (testdata/golden/checkrun/<name>.md: its title, summary and text, or the
// job summary where no check run is posted), so that a change to what a
// reviewer reads shows in the diff of a pull request. Rewrite them with
// go test ./action -run TestCheckRunGolden -update, and read the diff.
//
// Commit ids are the one thing replaced: the fake GitHub's ids follow from
// its clock, which any new seeding step moves, so each is written as the
// order in which it first appears (commit-1, commit-2, …).

// goldenRun is what a golden file holds for a check run.
func goldenRun(run fakegithub.CheckRun) string {
	return "<!-- check run title -->\n" + run.Title + "\n<!-- check run summary -->\n" + run.Summary + "<!-- check run text -->\n" + run.Text
}

// goldenJobSummary is what a golden file holds for a run that posted no
// check run: the job summary, all a reviewer sees besides the annotations.
func goldenJobSummary(out *action.Outcome) string {
	return "<!-- job summary (no check run) -->\n" + out.Summary
}

// hexRun is a word of hex digits as long as a commit id, full (40) or
// shortened (7 to 12).
var hexRun = regexp.MustCompile(`\b(?:[0-9a-f]{40}|[0-9a-f]{7,12})\b`)

// commitsNamed replaces every commit id in text by commit-<n>, n counting
// the commits of the fake in the order they first appear; a shortened id
// is the same commit as the full one it begins.
func commitsNamed(s *fakegithub.Server, text string) string {
	var seen []string
	return hexRun.ReplaceAllStringFunc(text, func(id string) string {
		for i, full := range seen {
			if strings.HasPrefix(full, id) {
				return fmt.Sprintf("commit-%d", i+1)
			}
		}
		full, ok := fullCommit(s, id)
		if !ok {
			return id // a hex word that names no commit of the fake
		}
		seen = append(seen, full)
		return fmt.Sprintf("commit-%d", len(seen))
	})
}

// fullCommit finds the commit of the fake that id names or begins.
func fullCommit(s *fakegithub.Server, id string) (string, bool) {
	if _, ok := s.Commit(id); ok {
		return id, true
	}
	for _, sha := range s.CommitIDs() {
		if strings.HasPrefix(sha, id) {
			return sha, true
		}
	}
	return "", false
}

func checkGolden(t *testing.T, s *fakegithub.Server, name, got string) {
	t.Helper()
	golden.Check(t, filepath.Join("testdata", "golden", "checkrun", name+".md"), []byte(commitsNamed(s, got)))
}

func TestCheckRunGolden(t *testing.T) {
	t.Parallel()
	// posted judges a pull request from feat/login whose pact goes from
	// base to head, and returns the check run it must conclude so.
	posted := func(base, head *e2e.Log, conclusion string) func(t *testing.T) (*fakegithub.Server, string) {
		return func(t *testing.T) (*fakegithub.Server, string) {
			s := e2e.NewServer(t)
			sc := seedPR(t, s, base.Files(), head.Files(), "feat/login")
			sc.check(t).only(t)
			return s, goldenRun(onlyRun(t, s, sc.headSHA, "pact", conclusion))
		}
	}
	waitingBase, waitingHead := waitingLogs()
	manyBase, manyHead := manyFindingsLogs(400)
	// solo, a worker and a reviewer, accepts its own task (Rule 1), and a
	// seat the roster lacks joins.
	soloBase := soloLog(t).Assign("T1", "LOGIN", "feat/login", "solo", "rev")
	soloReview := soloBase.Copy().Join("solo").Checkpoint("solo", "T1", "LOGIN")
	forged := soloReview.Copy().Accept("solo", "T1", "LOGIN").Add("ghost", projection.TypeJoin, "", "", map[string]any{"roles": []string{"worker"}})
	tests := []struct {
		name string
		// run seeds a repository, runs check mode and returns what
		// GitHub shows.
		run func(t *testing.T) (*fakegithub.Server, string)
	}{
		{"clean", func(t *testing.T) (*fakegithub.Server, string) {
			s, n, headSHA := seedCleanPR(t)
			event{name: "pull_request", payload: prPayload(t, s, n, "feat/login", "main")}.run(t, s).only(t)
			return s, goldenRun(onlyRun(t, s, headSHA, "pact", report.ConclusionSuccess))
		}},
		{"waiting", posted(waitingBase, waitingHead, report.ConclusionWaiting)},
		{"fresh-review", func(t *testing.T) (*fakegithub.Server, string) {
			// LOGIN shipped, and its branch name comes back with new code:
			// T1's accept covers the old code, so T1 waits for rev's fresh
			// review, which the check requests from rev's account.
			p, _ := shippedLogin(t, "require", "tree")
			p.s.SetPermission(provRevGH, fakegithub.Write)
			n := reuseBranch(t, p, provBranch, map[string]string{"src/login.go": "package login\n\nfunc Backdoor() {}\n"})
			head := p.s.BranchHead(e2e.Owner, e2e.Repo, provBranch)
			event{name: "pull_request", payload: prPayload(t, p.s, n, provBranch, "main")}.run(t, p.s).only(t)
			return p.s, goldenRun(onlyRun(t, p.s, head, "pact", report.ConclusionWaiting))
		}},
		{"violations", posted(soloBase, forged, report.ConclusionFailure)},
		// 400 findings: 150 annotated, and the summary and the text cut to
		// GitHub's 65,535 characters, each saying what it left out.
		{"many-findings", posted(manyBase, manyHead, report.ConclusionFailure)},
		{"no-pull-request", func(t *testing.T) (*fakegithub.Server, string) {
			// A push to a branch no pull request comes from yet: judged for
			// the job summary, no check run posted.
			s := e2e.NewServer(t)
			log := e2e.NewLog().Assign("T1", "LOGIN", "feat/login", "dev", "rev")
			s.CommitFiles(e2e.Owner, e2e.Repo, "main", with(log.Files(), ".github/pact.yml", provenanceOff), "lead")
			head := s.CommitFiles(e2e.Owner, e2e.Repo, "feat/login", log.Copy().Join("dev").Files(), "dev", fakegithub.From("main"))
			payload := []byte(`{"ref":"refs/heads/feat/login","after":"` + head + `","repository":{"full_name":"` + repoFull + `"}}`)
			out := event{name: "push", payload: payload, sha: head}.run(t, s).only(t)
			if !out.NoPullRequest || len(s.CheckRuns(head)) != 0 {
				t.Fatalf("no pull request %v, check runs %+v", out.NoPullRequest, s.CheckRuns(head))
			}
			return s, goldenJobSummary(out)
		}},
		{"merge-group", func(t *testing.T) (*fakegithub.Server, string) {
			// The queue's commit carries a pull request whose task still
			// waits for its review.
			s := e2e.NewServer(t)
			sc := seedPR(t, s, soloBase.Files(), soloReview.Files(), "feat/login")
			groupSHA, _ := sc.queued(t, soloReview)
			return s, goldenRun(onlyRun(t, s, groupSHA, "pact", report.ConclusionWaiting))
		}},
		{"merge-group-behind", func(t *testing.T) (*fakegithub.Server, string) {
			// The group queued behind another rewrites a line the one
			// ahead adds (the stacked queue).
			s, _, g2, _ := stackedQueue(t)
			event{name: "merge_group", payload: mergeGroupPayload(t, g2.HeadSHA, g2.HeadRef, g2.BaseSHA), sha: g2.HeadSHA}.run(t, s).only(t)
			return s, goldenRun(onlyRun(t, s, g2.HeadSHA, "pact", report.ConclusionFailure))
		}},
		{"fallback", func(t *testing.T) (*fakegithub.Server, string) {
			// A pull request from a fork: the token cannot create check
			// runs, so the verdict goes to the job summary (and workflow
			// annotations), saying why.
			s, sc := readOnlyPR(t)
			out := sc.check(t).only(t)
			if !out.Fallback {
				t.Fatalf("not a fallback: %+v", out)
			}
			return s, goldenJobSummary(out)
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, got := tc.run(t)
			checkGolden(t, s, tc.name, got)
		})
	}
}
