package action_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pact-action/pact-action/action"
	"github.com/pact-action/pact-action/ghapi"
	"github.com/pact-action/pact-action/internal/prose"
	"github.com/pact-action/pact-action/internal/testkit/e2e"
	"github.com/pact-action/pact-action/internal/testkit/fakegithub"
	"github.com/pact-action/pact-action/projection"
	"github.com/pact-action/pact-action/report"
)

// The fault suite in process: every write the action makes, its answer
// lost in each way GitHub can lose one, and every step's read hung or cut.
// Each must leave GitHub as one clean run would (one commit, one event,
// one reply, no check run in progress), or fail closed saying why, and a
// re-delivery of the same event must then finish the work without
// writing anything twice. The binary suite (binary_faults_test.go) keeps
// what only the binary shows: exit codes and signals.

// hangRetry gives every attempt a quarter of a second, as
// PACT_REQUEST_TIMEOUT=250ms does: a hung request fails soon, and every
// other is answered by the fake in this process in a few milliseconds,
// well within it even on a loaded machine. Were one not, the run would
// retry it or look up what it did, as it does for the faults injected:
// what these tests assert holds after any request timing out.
var hangRetry = ghapi.RetryPolicy{AttemptTimeout: 250 * time.Millisecond}

// lostAnswers are the ways a write's answer is lost after GitHub applied
// it.
var lostAnswers = map[string]fakegithub.Fault{
	"connection dropped": {Drop: true, AfterApply: true},
	"answer cut off":     {Cut: true},
	"no answer in time":  {Stall: true, AfterApply: true},
	"502 after applying": {Status: 502, AfterApply: true},
}

// TestBotWriteAnswerLost: each write of a /pact accept, applied by GitHub
// with its answer lost. The run either finishes as if nothing happened, or
// fails saying why and a re-delivery finishes it: in both cases the branch
// gains one commit holding one event, the comment one reaction, and every
// check run ends completed, the new head's with its verdict.
func TestBotWriteAnswerLost(t *testing.T) {
	t.Parallel()
	writes := []struct{ method, path string }{
		{"POST", repoPath + "/git/trees"},
		{"POST", repoPath + "/git/commits"},
		{"PATCH", repoPath + "/git/refs/heads/feat/login"},
		{"POST", repoPath + "/issues/comments/*/reactions"},
		{"POST", repoPath + "/check-runs"},
		{"PATCH", repoPath + "/check-runs/*"},
	}
	for _, w := range writes {
		for name, f := range lostAnswers {
			t.Run(w.method+" "+w.path+"/"+name, func(t *testing.T) {
				t.Parallel()
				b := newBotScenario(t, botOpts{})
				payload, id := b.comment(t, "revuser", "/pact accept T1", "MEMBER")
				f.Method, f.Path = w.method, w.path
				b.s.Inject(f)

				ev := event{name: "issue_comment", payload: payload, retry: hangRetry}
				first := ev.run(t, b.s)
				if faults(b.s) != 1 {
					t.Fatalf("faults injected = %d, want 1", faults(b.s))
				}
				if first.err != nil {
					t.Logf("the first delivery failed: %v", first.err)
					ev.run(t, b.s).botDone(t)
				}

				commit, evs := b.oneNewCommit(t)
				if len(evs) != 1 {
					t.Errorf("appended %d events, want 1", len(evs))
				}
				noneInProgress(t, b.s)
				onlyRun(t, b.s, commit.SHA, "pact", report.ConclusionSuccess)
				if got := b.reactions(id); !slices.Equal(got, []string{botAccount + ":+1"}) {
					t.Errorf("reactions = %q, want the bot's +1 once", got)
				}
				if r := b.replies(t); len(r) != 0 {
					t.Errorf("replies: %q", r)
				}
				noViolations(t, b.s)
			})
		}
	}
}

// TestBotReplyAnswerLost: the bot's reply to a refused command, posted by
// GitHub with its answer lost, is on the pull request once.
func TestBotReplyAnswerLost(t *testing.T) {
	t.Parallel()
	for name, f := range lostAnswers {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b := newBotScenario(t, botOpts{})
			payload, _ := b.comment(t, "revuser", "/pact accept T9", "MEMBER")
			f.Method, f.Path = "POST", repoPath+"/issues/*/comments"
			b.s.Inject(f)

			res := event{name: "issue_comment", payload: payload, retry: hangRetry}.run(t, b.s)

			if faults(b.s) != 1 {
				t.Fatalf("faults injected = %d, want 1", faults(b.s))
			}
			b.assertNothingWritten(t)
			r := b.replies(t)
			if len(r) != 1 || !strings.Contains(r[0], "T9") {
				t.Errorf("replies = %q, want one naming T9", r)
			}
			if res.bot != nil && len(res.bot.Replies) == 0 && len(res.bot.Notices) == 0 {
				t.Errorf("the reply is neither counted posted nor noticed")
			}
			noViolations(t, b.s)
		})
	}
}

// cancelWhenStalled is a context cancelled once the fake served its
// injected fault (a Stall, applied first when AfterApply, is then held):
// the job's SIGTERM arriving while that step waits.
func cancelWhenStalled(t *testing.T, s *fakegithub.Server) context.Context {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	t.Cleanup(cancel)
	go func() {
		defer cancel()
		for deadline := time.Now().Add(20 * time.Second); faults(s) == 0 && time.Now().Before(deadline); {
			time.Sleep(5 * time.Millisecond)
		}
	}()
	return ctx
}

// TestBotCancelledAtEachStep: the job is cancelled (SIGTERM) while each
// step of a /pact accept waits on GitHub, a write applied before. The run
// fails saying it was cancelled, leaves no check run in progress, and the
// re-run of the job finishes the work without writing anything twice: one
// commit, one event, and a verdict on the new head.
func TestBotCancelledAtEachStep(t *testing.T) {
	t.Parallel()
	for _, step := range []struct{ method, path string }{
		{"GET", repoPath + "/pulls/*"},
		{"POST", "/graphql"},
		{"GET", repoPath + "/collaborators/*/permission"},
		{"POST", repoPath + "/git/trees"},
		{"POST", repoPath + "/git/commits"},
		{"PATCH", repoPath + "/git/refs/heads/feat/login"},
		{"POST", repoPath + "/check-runs"},
		{"PATCH", repoPath + "/check-runs/*"},
		{"POST", repoPath + "/issues/comments/*/reactions"},
	} {
		t.Run(step.method+" "+step.path, func(t *testing.T) {
			t.Parallel()
			b := newBotScenario(t, botOpts{})
			payload, id := b.comment(t, "revuser", "/pact accept T1", "MEMBER")
			b.s.Inject(fakegithub.Fault{Method: step.method, Path: step.path, Stall: true, AfterApply: step.method != "GET" && step.path != "/graphql"})

			// The create held when the job is cancelled is given the
			// grace to answer: a second here, not the job's five.
			first := event{name: "issue_comment", payload: payload, ctx: cancelWhenStalled(t, b.s), grace: time.Second}.run(t, b.s)

			if faults(b.s) != 1 {
				t.Fatalf("the step was not reached")
			}
			if first.err != nil {
				contains(t, "error", first.err.Error(), "cancel")
			}
			noneInProgress(t, b.s)
			event{name: "issue_comment", payload: payload}.run(t, b.s).botDone(t)
			commit, evs := b.oneNewCommit(t)
			if len(evs) != 1 {
				t.Errorf("appended %d events, want 1", len(evs))
			}
			noneInProgress(t, b.s)
			latest := latestRun(t, b.s, commit.SHA)
			if latest.Conclusion != report.ConclusionSuccess {
				t.Errorf("the new head's verdict is %s, want %s", latest.Conclusion, report.ConclusionSuccess)
			}
			if got := b.reactions(id); !slices.Equal(got, []string{botAccount + ":+1"}) {
				t.Errorf("reactions = %q, want the bot's +1 once", got)
			}
			noViolations(t, b.s)
		})
	}
}

// TestRejudgeBudgetSpent: the run's budget (PACT_RUN_TIMEOUT) is spent
// while a scheduled run judges the second of three open pull requests.
// The first keeps its verdict, the second's run is completed as failed,
// and the third, never started, is named as not judged with the others:
// the run fails, and its error accounts for every pull request.
func TestRejudgeBudgetSpent(t *testing.T) {
	t.Parallel()
	s := e2e.NewServer(t)
	base := e2e.NewLog().Assign("T1", "A", "feat/a", "dev", "rev").Assign("T2", "B", "feat/b", "dev", "rev").Assign("T3", "C", "feat/c", "dev", "rev")
	s.CommitFiles(e2e.Owner, e2e.Repo, "main", with(base.Files(), ".github/pact.yml", provenanceOff), "lead")
	var heads []string
	var prs []int
	for _, b := range []string{"feat/a", "feat/b", "feat/c"} {
		heads = append(heads, s.CommitFiles(e2e.Owner, e2e.Repo, b, base.Copy().Join("dev").Files(), "dev", fakegithub.From("main")))
		prs = append(prs, s.OpenPR(e2e.Owner, e2e.Repo, fakegithub.PRSeed{Head: b, Base: "main"}))
	}
	s.Inject(fakegithub.Fault{Method: "GET", Path: repoPath + "/compare/*" + heads[1], Stall: true})
	ctx, spend := context.WithCancelCause(t.Context())
	t.Cleanup(func() { spend(nil) })
	go func() {
		for deadline := time.Now().Add(20 * time.Second); faults(s) == 0 && time.Now().Before(deadline); {
			time.Sleep(5 * time.Millisecond)
		}
		spend(&action.RunBudgetError{Budget: time.Minute})
	}()

	res := event{name: "schedule", payload: []byte(`{"schedule":"*/30 * * * *"}`), ctx: ctx}.run(t, s)

	if faults(s) != 1 {
		t.Fatalf("the second head's comparison was not reached")
	}
	// The stalled pull request is the middle one in either order GitHub
	// lists them.
	if len(res.outcomes) != 1 || res.outcomes[0].Target.HeadSHA == heads[1] {
		t.Fatalf("judged %d heads, want the first", len(res.outcomes))
	}
	first, third := 0, 2
	if res.outcomes[0].Target.HeadSHA == heads[2] {
		first, third = 2, 0
	}
	if !slices.Equal(res.failedHeads, []string{heads[1], heads[third]}) {
		t.Errorf("failed heads = %v, want the second and the third", res.failedHeads)
	}
	var unjudged *action.UnjudgedError
	if !errors.As(res.failed(t), &unjudged) {
		t.Fatalf("error %v is not an *action.UnjudgedErrorTestAlias", res.err)
	}
	var notStarted *action.NotStartedError
	var budget *action.RunBudgetError
	if !errors.As(res.err, &notStarted) || !errors.As(res.err, &budget) {
		t.Errorf("error %v does not say the third was not started, for the budget", res.err)
	}
	contains(t, "error", res.err.Error(), "could not judge 2 of 3 heads (the others were judged)",
		fmt.Sprintf("#%d at %s", prs[1], prose.ShortSHA(heads[1])), fmt.Sprintf("#%d at %s", prs[third], prose.ShortSHA(heads[third])),
		"no check run posted", "PACT_RUN_TIMEOUT")
	noneInProgress(t, s)
	onlyRun(t, s, heads[1], "pact", report.ConclusionFailure)
	onlyRun(t, s, heads[first], "pact", res.outcomes[0].Conclusion)
	if runs := s.CheckRuns(heads[third]); len(runs) != 0 {
		t.Errorf("check runs on the head never judged: %+v", runs)
	}
}

// TestCheckAnnotationBatchAnswerLost: a verdict with more annotations than
// one request carries goes in batches, and GitHub appends each batch's.
// The first batch stored with its answer lost is not sent again: the run
// ends with the verdict of a clean run and each annotation once.
func TestCheckAnnotationBatchAnswerLost(t *testing.T) {
	t.Parallel()
	seed := func(t *testing.T) scenario {
		s := e2e.NewServer(t)
		base := e2e.NewLog().Assign("T1", "LOGIN", "feat/login", "dev", "rev")
		head := base.Copy().Join("dev")
		for range 70 {
			head.Add("ghost", projection.TypeJoin, "", "", map[string]any{"roles": []string{"worker"}})
		}
		return seedPR(t, s, base.Files(), head.Files(), "feat/login")
	}
	clean := seed(t)
	clean.check(t).only(t)
	want := onlyRun(t, clean.s, clean.headSHA, "pact", report.ConclusionFailure)
	if len(want.Annotations) <= ghapi.MaxAnnotationsPerRequest {
		t.Fatalf("%d annotations fit in one request", len(want.Annotations))
	}
	for name, f := range lostAnswers {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			sc := seed(t)
			f.Method, f.Path = "PATCH", repoPath+"/check-runs/*"
			sc.s.Inject(f)
			ev := sc.event(t)
			ev.retry = hangRetry

			ev.run(t, sc.s).only(t)

			if faults(sc.s) != 1 {
				t.Fatalf("faults injected = %d, want 1", faults(sc.s))
			}
			got := onlyRun(t, sc.s, sc.headSHA, "pact", want.Conclusion)
			if got.Summary != want.Summary || len(got.Annotations) != len(want.Annotations) {
				t.Errorf("%d annotations, summary:\n%s\nwant %d as without the fault:\n%s", len(got.Annotations), got.Summary, len(want.Annotations), want.Summary)
			}
			seen := map[fakegithub.Annotation]bool{}
			for _, a := range got.Annotations {
				if seen[a] {
					t.Errorf("annotation stored twice: %+v", a)
				}
				seen[a] = true
			}
			noViolations(t, sc.s)
		})
	}
}

// TestCheckStepFaults: each read of a check, hung, failing with 5xx for
// longer than the retries last, or answered 200 with JSON that parses but
// lacks what GitHub always sends. The check fails closed: an error naming
// what failed, its run completed as failure saying so, never in progress
// and never a verdict the pull request did not earn.
func TestCheckStepFaults(t *testing.T) {
	t.Parallel()
	steps := []struct {
		name, method, path string
		// truncated is a 200 answer that parses as JSON.
		truncated string
	}{
		{"the pull request", "GET", repoPath + "/pulls/*", `{}`},
		{"the trees and the configuration (GraphQL)", "POST", "/graphql", `{"data":{}}`},
		{"the merge base", "GET", repoPath + "/compare/*", `{}`},
		// An empty listing is GitHub's answer when no pull request is
		// open: the one the event names is judged all the same (below).
		{"the open pull requests", "GET", repoPath + "/pulls", ""},
	}
	kinds := map[string]func(path, truncated string) (fakegithub.Fault, []string){
		"hung": func(p, _ string) (fakegithub.Fault, []string) {
			return fakegithub.Fault{Stall: true, Times: 1000}, []string{"GitHub did not answer", "within " + hangRetry.AttemptTimeout.String(), "gave up after 5 attempts"}
		},
		"5xx storm": func(p, _ string) (fakegithub.Fault, []string) {
			return fakegithub.Fault{Status: 502, Times: 1000}, []string{"gave up after 5 attempts", "502"}
		},
		"200 with truncated JSON": func(p, body string) (fakegithub.Fault, []string) {
			return fakegithub.Fault{Status: 200, Body: []byte(body), Times: 1000}, nil
		},
	}
	for _, st := range steps {
		for kind, mk := range kinds {
			if kind == "200 with truncated JSON" && st.truncated == "" {
				continue
			}
			t.Run(st.name+"/"+kind, func(t *testing.T) {
				t.Parallel()
				s, sc, _ := faultScenario(t)
				f, want := mk(st.path, st.truncated)
				f.Method, f.Path = st.method, st.path
				s.Inject(f)
				ev := sc.event(t)
				ev.retry = hangRetry

				res := ev.run(t, s)

				if faults(s) == 0 {
					t.Fatalf("the step was not reached")
				}
				noneInProgress(t, s)
				for _, r := range s.CheckRuns(sc.headSHA) {
					if r.Conclusion != report.ConclusionFailure {
						t.Errorf("check run %d is %s, want failure:\n%s", r.ID, r.Conclusion, r.Summary)
					}
				}
				if res.err == nil {
					t.Fatalf("the check did not fail; outcomes: %+v", res.outcomes)
				}
				contains(t, "error", res.err.Error(), want...)
				if st.truncated != "" && kind == "200 with truncated JSON" {
					contains(t, "error", res.err.Error(), "answer")
				}
				noViolations(t, s)
			})
		}
	}
	t.Run("the open pull requests/200 with an empty list", func(t *testing.T) {
		t.Parallel()
		s, sc, _ := faultScenario(t)
		s.Inject(fakegithub.Fault{Method: "GET", Path: repoPath + "/pulls", Status: 200, Body: []byte(`[]`), Times: 1000})

		sc.check(t).only(t)

		onlyRun(t, s, sc.headSHA, "pact", report.ConclusionWaiting)
	})
}
