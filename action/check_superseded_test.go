package action_test

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pact-action/pact-action/ghapi"
	"github.com/pact-action/pact-action/internal/testkit/e2e"
	"github.com/pact-action/pact-action/internal/testkit/fakegithub"
	"github.com/pact-action/pact-action/report"
)

// A job killed outright after it created its check run leaves the run in
// progress for good; the next check on the head completes every older run
// of this action, name and app still in progress there, with its own
// conclusion (docs/check.md, "Where it runs"), listed in the GraphQL
// request the judgement makes anyway: one write per such run, no read.

// orphanID is the external id of the n-th run a killed job left, of the
// action's own form.
func orphanID(n int) string { return fmt.Sprintf("pact-action-%032x", n) }

// verdictScenarios are pull requests whose checks conclude each way.
var verdictScenarios = map[string]struct {
	conclusion  string
	base, head  *e2e.Log
	branch      string
	wantErrors  int
	wantPending int
}{
	"passing": {conclusion: report.ConclusionSuccess, branch: "feat/x",
		base: e2e.NewLog(), head: e2e.NewLog().Join("dev")},
	"waiting": {conclusion: report.ConclusionWaiting, branch: "feat/login",
		base: e2e.NewLog().Assign("T1", "LOGIN", "feat/login", "dev", "rev"),
		head: e2e.NewLog().Assign("T1", "LOGIN", "feat/login", "dev", "rev").Join("dev").Checkpoint("dev", "T1", "LOGIN")},
	"failing": {conclusion: report.ConclusionFailure, branch: "feat/x",
		base: e2e.NewLog().Assign("T1", "LOGIN", "feat/login", "dev", "rev"), head: e2e.NewLog().Join("dev")},
}

// TestCheckCompletesRunsLeftInProgress: the run a killed job left, and one
// someone posted in the action's form (the same app: any workflow of the
// repository posts as GitHub Actions), are completed with the new run's
// conclusion, dated no later than it, whatever the verdict — so the
// commit reads the same whichever run GitHub weighs. A run of another app,
// a job's own check run of the same name, a run of another name, a run on
// another commit and a completed run are left as they were. Without them
// the check makes the same requests as before, and each costs one write.
func TestCheckCompletesRunsLeftInProgress(t *testing.T) {
	t.Parallel()
	for name, v := range verdictScenarios {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			clean := e2e.NewServer(t)
			cleanSc := seedPR(t, clean, v.base.Files(), v.head.Files(), v.branch)
			cleanCalls := calls(clean)
			cleanSc.check(t).only(t)
			cleanCalls = diffCalls(calls(clean), cleanCalls)

			s := e2e.NewServer(t)
			sc := seedPR(t, s, v.base.Files(), v.head.Files(), v.branch)
			other := fakegithub.App{ID: 4242, Slug: "other-ci", Name: "Other CI", Owner: e2e.Owner}
			seed := func(seed fakegithub.CheckRunSeed) int64 {
				if seed.Name == "" {
					seed.Name = "pact"
				}
				if seed.HeadSHA == "" {
					seed.HeadSHA = sc.headSHA
				}
				return s.SeedCheckRun(e2e.Owner, e2e.Repo, seed)
			}
			killed := seed(fakegithub.CheckRunSeed{ExternalID: orphanID(1)})
			forged := seed(fakegithub.CheckRunSeed{ExternalID: orphanID(2), Title: "pact holds"})
			untouched := map[int64]fakegithub.CheckRun{}
			for _, id := range []int64{
				seed(fakegithub.CheckRunSeed{App: other, ExternalID: orphanID(3)}),
				seed(fakegithub.CheckRunSeed{}), // the job's own check run, named like its job
				seed(fakegithub.CheckRunSeed{Name: "pact-lint", ExternalID: orphanID(4)}),
				seed(fakegithub.CheckRunSeed{HeadSHA: sc.baseSHA, ExternalID: orphanID(5)}),
				seed(fakegithub.CheckRunSeed{Status: "completed", Conclusion: report.ConclusionFailure, ExternalID: orphanID(6)}),
			} {
				untouched[id] = fakegithub.CheckRun{}
			}
			for _, r := range s.AllCheckRuns() {
				if _, ok := untouched[r.ID]; ok {
					untouched[r.ID] = r
				}
			}
			before := calls(s)

			res := sc.check(t)

			out := res.only(t)
			if out.Conclusion != v.conclusion {
				t.Fatalf("conclusion %s, want %s", out.Conclusion, v.conclusion)
			}
			runs := map[int64]fakegithub.CheckRun{}
			for _, r := range s.AllCheckRuns() {
				runs[r.ID] = r
			}
			own := runs[out.CheckRunID]
			if own.Status != "completed" || own.Conclusion != v.conclusion || strings.HasPrefix(own.Title, "superseded") {
				t.Errorf("the new run: %s %s %q", own.Status, own.Conclusion, own.Title)
			}
			for _, id := range []int64{killed, forged} {
				r := runs[id]
				if r.Status != "completed" || r.Conclusion != own.Conclusion || r.CompletedAt.After(own.CompletedAt) ||
					r.Title != fmt.Sprintf("superseded by check run %d: %s", own.ID, own.Title) || !strings.Contains(r.Summary, "Check run "+strconv.FormatInt(own.ID, 10)) {
					t.Errorf("run %d left in progress is now %s %s at %v, %q; want completed %s no later than %v, superseded by %d",
						id, r.Status, r.Conclusion, r.CompletedAt, r.Title, own.Conclusion, own.CompletedAt, own.ID)
				}
			}
			if !slices.Equal(out.Superseded, []int64{killed, forged}) {
				t.Errorf("Superseded = %v, want %v", out.Superseded, []int64{killed, forged})
			}
			for id, was := range untouched {
				if now := runs[id]; now.Status != was.Status || now.Conclusion != was.Conclusion || now.Requests != was.Requests {
					t.Errorf("run %d (%s, app %d) changed: %+v -> %+v", id, was.Name, was.App, was, now)
				}
			}
			// The same requests as without them, and one write each.
			got := diffCalls(calls(s), before)
			want := maps.Clone(cleanCalls)
			want["checks/update"] += 2
			if !maps.Equal(got, want) {
				t.Errorf("calls %s, want %s", perOperation(got), perOperation(want))
			}
			noViolations(t, s)
		})
	}
}

// diffCalls is what after counts beyond before.
func diffCalls(after, before map[string]int) map[string]int {
	out := map[string]int{}
	for op, n := range after {
		if d := n - before[op]; d > 0 {
			out[op] = d
		}
	}
	return out
}

// TestCheckNotFailedByARunLeftInProgress: completing a run left in
// progress is no part of the verdict. When GitHub refuses it or does not
// answer, the verdict stands posted, the job succeeds, the run is tried
// once and left for the next check, which completes it.
func TestCheckNotFailedByARunLeftInProgress(t *testing.T) {
	t.Parallel()
	for name, f := range map[string]fakegithub.Fault{
		"refused":      {Status: 502},
		"not answered": {Stall: true},
		"a rate limit": {Status: 403, Header: map[string][]string{"Retry-After": {"30"}}},
		"answer lost":  {Drop: true},
		"gone (404)":   {Status: 404},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			v := verdictScenarios["waiting"]
			s := e2e.NewServer(t)
			sc := seedPR(t, s, v.base.Files(), v.head.Files(), v.branch)
			killed := s.SeedCheckRun(e2e.Owner, e2e.Repo, fakegithub.CheckRunSeed{Name: "pact", HeadSHA: sc.headSHA, ExternalID: orphanID(1)})
			patch := repoPath + "/check-runs/" + strconv.FormatInt(killed, 10)
			f.Method, f.Path, f.Times = "PATCH", patch, 1
			s.Inject(f)
			ev := sc.event(t)
			ev.retry = ghapi.RetryPolicy{AttemptTimeout: 300 * time.Millisecond}

			res := ev.run(t, s)

			out := res.only(t)
			onlyOwn := latestRun(t, s, sc.headSHA)
			if out.Conclusion != v.conclusion || onlyOwn.ID != out.CheckRunID || onlyOwn.Conclusion != v.conclusion || len(out.Superseded) != 0 {
				t.Errorf("verdict %s on run %d (newest %d, %s); superseded %v", out.Conclusion, out.CheckRunID, onlyOwn.ID, onlyOwn.Conclusion, out.Superseded)
			}
			if n := s.CountRequests("PATCH", patch); n != 1 {
				t.Errorf("completing the run left in progress: %d requests, want 1", n)
			}
			for _, r := range s.CheckRuns(sc.headSHA) {
				if r.ID == killed && r.Status != "in_progress" {
					t.Errorf("the run left in progress is %s %s", r.Status, r.Conclusion)
				}
			}
			if slices.ContainsFunc(res.waits, func(d time.Duration) bool { return d >= 30*time.Second }) {
				t.Errorf("waited %v for the run left in progress", res.waits)
			}

			again := sc.check(t).only(t)

			if !slices.Equal(again.Superseded, []int64{killed}) {
				t.Errorf("the next check completed %v, want %d", again.Superseded, killed)
			}
			noneInProgress(t, s)
		})
	}
}

// TestCheckRunsLeftInProgressByTheHundred: someone who posts runs of the
// action's form by the hundred costs each check at most maxSuperseded
// writes (10); the next checks complete the rest.
func TestCheckRunsLeftInProgressByTheHundred(t *testing.T) {
	t.Parallel()
	v := verdictScenarios["passing"]
	s := e2e.NewServer(t)
	sc := seedPR(t, s, v.base.Files(), v.head.Files(), v.branch)
	for i := range 25 {
		s.SeedCheckRun(e2e.Owner, e2e.Repo, fakegithub.CheckRunSeed{Name: "pact", HeadSHA: sc.headSHA, ExternalID: orphanID(i)})
	}
	for i, want := range []int{10, 10, 5, 0} {
		before := countOp(s, "checks/update")
		out := sc.check(t).only(t)
		if len(out.Superseded) != want {
			t.Errorf("check %d completed %d runs left in progress, want %d", i+1, len(out.Superseded), want)
		}
		if got := countOp(s, "checks/update") - before; got != want+1 {
			t.Errorf("check %d: %d updates, want %d and its own", i+1, got, want)
		}
	}
	noneInProgress(t, s)
	noViolations(t, s)
}
