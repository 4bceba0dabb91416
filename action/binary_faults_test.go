package action_test

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pact-action/pact-action/internal/testkit/e2e"
	"github.com/pact-action/pact-action/internal/testkit/fakegithub"
	"github.com/pact-action/pact-action/report"
)

// The fault suite of the action, through the real binary: a GitHub that
// hangs, drops or cuts its answers never leaves a check run in progress,
// nor makes a second one, and a read cut once changes no verdict. The
// deadlines are set short through their environment variables
// (docs/check.md, "Where it runs"); no test asserts a duration.

// shortDeadlines gives every attempt 300ms: a hung request fails soon,
// and the fake answers any other in a few milliseconds, well within it
// even on a loaded machine (and were one not, the binary would ask again
// or look up what it did, as it does for the faults injected).
var shortDeadlines = map[string]string{"PACT_REQUEST_TIMEOUT": "300ms"}

func env(extra map[string]string) map[string]string {
	out := map[string]string{}
	for _, m := range []map[string]string{shortDeadlines, extra} {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

// faultScenario is a pull request waiting for its review: its verdict,
// action_required, is the one every fault must leave unchanged.
func faultScenario(t *testing.T) (*fakegithub.Server, scenario, e2e.Run) {
	t.Helper()
	s := e2e.NewServer(t)
	base := e2e.NewLog().Assign("T1", "LOGIN", "feat/login", "dev", "rev")
	sc := seedPR(t, s, base.Files(), base.Copy().Join("dev").Checkpoint("dev", "T1", "LOGIN").Files(), "feat/login")
	return s, sc, e2e.Run{Server: s, EventName: "pull_request", Payload: prPayload(t, s, sc.number, sc.branch, "main"), Env: env(nil)}
}

// noneInProgress fails when a check run of the fake is not completed, and
// returns them all.
func noneInProgress(t *testing.T, s *fakegithub.Server) []fakegithub.CheckRun {
	t.Helper()
	runs := s.AllCheckRuns()
	for _, r := range runs {
		if r.Status != "completed" {
			t.Errorf("check run %d (%s) is left %s", r.ID, r.Name, r.Status)
		}
	}
	return runs
}

// TestBinaryCreateAnswerLost: GitHub creates the run, and its answer is
// lost (the connection dropped, the body cut, or no answer in time): the
// run is found by its external id and completed with the verdict; no
// second run is made.
func TestBinaryCreateAnswerLost(t *testing.T) {
	t.Parallel()
	for name, f := range map[string]fakegithub.Fault{
		"connection dropped": {Drop: true, AfterApply: true},
		"answer cut off":     {Cut: true},
		"no answer in time":  {Stall: true, AfterApply: true},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s, sc, run := faultScenario(t)
			f.Method, f.Path = "POST", repoPath+"/check-runs"
			s.Inject(f)

			res := run.Exec(t)

			wantExit(t, res, 0)
			runs := noneInProgress(t, s)
			if len(runs) != 1 || runs[0].HeadSHA != sc.headSHA || runs[0].Conclusion != report.ConclusionWaiting {
				t.Errorf("check runs = %+v, want one, %s", runs, report.ConclusionWaiting)
			}
			if n := s.CountRequests("POST", repoPath+"/check-runs"); n != 1 {
				t.Errorf("creates = %d, want 1", n)
			}
			contains(t, "stderr", res.Stderr, "the check run was created though its answer was lost")
			noViolations(t, s)
		})
	}
}

// TestBinaryCompleteHangs: the request completing the run gets no answer;
// it is sent again with a fresh deadline, once the run is read to be
// still in progress, and the run is completed with the verdict.
func TestBinaryCompleteHangs(t *testing.T) {
	t.Parallel()
	s, sc, run := faultScenario(t)
	s.Inject(fakegithub.Fault{Method: "PATCH", Path: repoPath + "/check-runs/*", Stall: true})

	res := run.Exec(t)

	wantExit(t, res, 0)
	noneInProgress(t, s)
	onlyRun(t, s, sc.headSHA, "pact", report.ConclusionWaiting)
	if n := s.CountRequests("PATCH", repoPath+"/check-runs/*"); n != 2 {
		t.Errorf("completing requests = %d, want 2", n)
	}
	contains(t, "stderr", res.Stderr, "GitHub did not answer PATCH", "within "+shortDeadlines["PACT_REQUEST_TIMEOUT"])
	noViolations(t, s)
}

// TestBinaryCompleteRefused: GitHub refuses every attempt to complete the
// run, with its verdict and then as failed: the job exits 2 with one line
// naming the run and saying what to do.
func TestBinaryCompleteRefused(t *testing.T) {
	t.Parallel()
	s, sc, run := faultScenario(t)
	s.FailNext("PATCH", repoPath+"/check-runs/*", 502, nil, 99)

	res := run.Exec(t)

	wantExit(t, res, 2)
	runs := s.CheckRuns(sc.headSHA)
	if len(runs) != 1 {
		t.Fatalf("check runs = %+v, want 1", runs)
	}
	last := res.Stderr[strings.LastIndex(strings.TrimRight(res.Stderr, "\n"), "\n")+1:]
	want := "pact-action: check run " + strconv.FormatInt(runs[0].ID, 10) + " is left in progress"
	if !strings.HasPrefix(last, want) || !strings.Contains(last, "re-run the job") || !strings.Contains(last, "502") {
		t.Errorf("last line of stderr = %q, want it to start %q, give the status and say what to do", last, want)
	}
	// Three attempts with the verdict, three to fail it.
	if n := s.CountRequests("PATCH", repoPath+"/check-runs/*"); n != 6 {
		t.Errorf("completing requests = %d, want 6", n)
	}
}

// TestBinaryReadCutOnce: a read whose answer is cut off mid-way is asked
// again, and the verdict is the one without the fault.
func TestBinaryReadCutOnce(t *testing.T) {
	t.Parallel()
	for _, f := range []fakegithub.Fault{
		{Method: "GET", Path: repoPath + "/compare/*", Cut: true},
		{Method: "GET", Path: repoPath + "/pulls", Cut: true},
		{Method: "GET", Path: repoPath + "/pulls/*", Cut: true},
		{Method: "POST", Path: "/graphql", Cut: true},
	} {
		t.Run(f.Method+" "+f.Path, func(t *testing.T) {
			t.Parallel()
			s, _, run := faultScenario(t)
			clean := run.Exec(t)
			wantExit(t, clean, 0)
			s.Inject(f)

			res := run.Exec(t)

			wantExit(t, res, 0)
			if faults(s) != 1 {
				t.Fatalf("answers cut = %d, want 1", faults(s))
			}
			runs := noneInProgress(t, s)
			if len(runs) != 2 || runs[0].Conclusion != runs[1].Conclusion || runs[0].Summary != runs[1].Summary || runs[0].Text != runs[1].Text {
				t.Errorf("check runs differ with the fault:\n%+v\n%+v", runs[0], runs[1])
			}
			if !slicesEqual(clean.Codes(), res.Codes()) {
				t.Errorf("finding codes %v, without the fault %v", res.Codes(), clean.Codes())
			}
			contains(t, "stderr", res.Stderr, "github answer cut off, asking again")
			noViolations(t, s)
		})
	}
}

func slicesEqual(a, b []string) bool { return strings.Join(a, "\n") == strings.Join(b, "\n") }

// TestBinaryHungGitHub: GitHub stops answering the reads of the judgement
// (the requests before the run exists are answered, and so is the one
// that completes it):
// past the run's budget the run is completed as failed, saying so, and the
// job exits 2.
func TestBinaryHungGitHub(t *testing.T) {
	t.Parallel()
	s, sc, run := faultScenario(t)
	for _, f := range []fakegithub.Fault{
		{Method: "GET", Path: repoPath + "/compare/*"},
		{Method: "POST", Path: "/graphql"},
	} {
		f.Stall, f.Times = true, 1000
		s.Inject(f)
	}
	const budget = "2s"
	run.Env = env(map[string]string{"PACT_RUN_TIMEOUT": budget})
	run.Timeout = 30 * time.Second

	res := run.Exec(t)

	wantExit(t, res, 2)
	noneInProgress(t, s)
	got := onlyRun(t, s, sc.headSHA, "pact", report.ConclusionFailure)
	contains(t, "check run summary", got.Summary, "stopped before it finished", "budget of "+budget)
	contains(t, "stderr", res.Stderr, "PACT_RUN_TIMEOUT")
}

// TestBinaryKilledJobRerun: a job killed outright (SIGKILL: the runner
// lost, out of memory, the cancel's grace spent) after it created its
// check run leaves that run in progress; re-running the job posts a new
// run and completes the old one with the new verdict, saying which run
// superseded it.
func TestBinaryKilledJobRerun(t *testing.T) {
	t.Parallel()
	s, sc, run := faultScenario(t)
	// The judgement's read hangs: the run exists, in progress, when the
	// job is killed.
	s.Inject(fakegithub.Fault{Method: "POST", Path: "/graphql", Stall: true})
	killed := run
	killed.Timeout = 30 * time.Second
	killed.While = func(p *os.Process) {
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if stalled(s) {
				_ = p.Kill()
				return
			}
		}
	}
	if res := killed.Exec(t); res.Code == 0 {
		t.Fatalf("the killed job exited 0:\n%s", res.Stderr)
	}
	left := s.CheckRuns(sc.headSHA)
	if len(left) != 1 || left[0].Status != "in_progress" {
		t.Fatalf("check runs after the kill = %+v, want one in progress", left)
	}

	res := run.Exec(t)

	wantExit(t, res, 0)
	runs := noneInProgress(t, s)
	if len(runs) != 2 {
		t.Fatalf("check runs = %+v, want the killed job's and the re-run's", runs)
	}
	orphan, own := runs[0], runs[1]
	if own.Conclusion != report.ConclusionWaiting || orphan.Conclusion != own.Conclusion ||
		orphan.Title != fmt.Sprintf("superseded by check run %d: %s", own.ID, own.Title) {
		t.Errorf("the re-run's run %d: %s %q; the killed job's: %s %q", own.ID, own.Conclusion, own.Title, orphan.Conclusion, orphan.Title)
	}
	contains(t, "stderr", res.Stderr, "completed a check run an earlier job left in progress", "check_run="+strconv.FormatInt(orphan.ID, 10))
	noViolations(t, s)
}
