package action_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pact-action/pact-action/ghapi"
	"github.com/pact-action/pact-action/internal/testkit/fakegithub"
	"github.com/pact-action/pact-action/report"
)

// The fault suite in process: every write the action makes, its answer
// lost in each way GitHub can lose one, and every step's read hung or cut.
// Each must leave GitHub as one clean run would (one commit, one event,
// one reply, no check run in progress), or fail closed saying why, and a
// re-delivery of the same event must then finish the work without
// writing anything twice. The binary suite (faults_binary_test.go) keeps
// what only the binary shows: exit codes and signals.

// hangRetry gives every attempt a second, as PACT_REQUEST_TIMEOUT=1s does:
// a hung request fails soon, any other is answered long before.
var hangRetry = ghapi.RetryPolicy{AttemptTimeout: time.Second}

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

				commits := b.newCommits(t)
				if len(commits) != 1 {
					t.Fatalf("new commits = %d, want 1", len(commits))
				}
				if _, evs := appended(t, b.s, b.headSHA, commits[0].SHA); len(evs) != 1 {
					t.Errorf("appended %d events, want 1", len(evs))
				}
				noneInProgress(t, b.s)
				onlyRun(t, b.s, commits[0].SHA, "pact", report.ConclusionSuccess)
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

			first := event{name: "issue_comment", payload: payload, ctx: cancelWhenStalled(t, b.s)}.run(t, b.s)

			if faults(b.s) != 1 {
				t.Fatalf("the step was not reached")
			}
			if first.err != nil {
				contains(t, "error", first.err.Error(), "cancel")
			}
			noneInProgress(t, b.s)
			event{name: "issue_comment", payload: payload}.run(t, b.s).botDone(t)
			commits := b.newCommits(t)
			if len(commits) != 1 {
				t.Fatalf("new commits = %d, want 1", len(commits))
			}
			if _, evs := appended(t, b.s, b.headSHA, commits[0].SHA); len(evs) != 1 {
				t.Errorf("appended %d events, want 1", len(evs))
			}
			noneInProgress(t, b.s)
			latest := latestRun(t, b.s, commits[0].SHA)
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
