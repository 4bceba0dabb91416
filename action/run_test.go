package action_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/pact-action/pact-action/action"
	"github.com/pact-action/pact-action/ghevent"
	"github.com/pact-action/pact-action/internal/testkit/e2e"
)

// What Run refuses, it refuses before asking GitHub anything: an event
// mode auto does not know, a mode that is none of the three, a payload
// that is not JSON.
func TestRunRefusesBeforeAskingGitHub(t *testing.T) {
	t.Parallel()
	s := e2e.NewServer(t)
	gh := client(t, s, &recorder{})
	for _, tc := range []struct {
		name string
		env  action.Env
		want string
	}{
		{"an unknown event under auto", action.Env{EventName: "check_suite", Payload: []byte(`{}`)},
			`mode auto does not know what to do on "check_suite" events`},
		{"an unknown mode", action.Env{EventName: "pull_request", Mode: "fix", Payload: []byte(`{}`)}, `the mode input must be auto, check or bot, not "fix"`},
		{"a payload that is not JSON", action.Env{EventName: "pull_request", Mode: "auto", Payload: []byte(`{"pull_request":`)}, "not valid JSON"},
	} {
		res, err := action.Run(t.Context(), tc.env, gh)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
		var unknown *ghevent.UnknownEventError
		if errors.As(err, &unknown) != (tc.env.EventName == "check_suite") {
			t.Errorf("%s: %T, want an *UnknownEventError exactly for the unknown event", tc.name, err)
		}
		if res == nil || res.Bot != nil || len(res.Targets)+len(res.Outcomes)+len(res.Failed) != 0 {
			t.Errorf("%s: result %+v, want an empty one", tc.name, res)
		}
	}
	if n := len(s.Requests()); n != 0 {
		t.Errorf("%d API requests for events Run refuses", n)
	}
}

// TestRunBotModeRejudgesOnManualRuns: under mode bot, a manual or scheduled
// run is check mode on every open pull request, not bot mode.
func TestRunBotModeRejudgesOnManualRuns(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"workflow_dispatch", "schedule"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := e2e.NewServer(t)
			sc := seedPR(t, s, e2e.NewLog().Files(), e2e.NewLog().Join("dev").Files(), "feat/x")
			r := event{name: name, mode: "bot", payload: []byte(`{}`)}.run(t, s)
			if r.bot != nil {
				t.Fatalf("ran bot mode: %+v", r.bot)
			}
			out := r.only(t)
			if out.Target.HeadSHA != sc.headSHA {
				t.Errorf("judged %s, want the open pull request's head %s", out.Target.HeadSHA, sc.headSHA)
			}
			onlyRun(t, s, sc.headSHA, "pact", out.Conclusion)
		})
	}
}

// The error of a run that could not judge some of several heads names
// each with its own error, and unwraps to them.
func TestUnjudgedError(t *testing.T) {
	t.Parallel()
	budget := &action.PactTooLargeError{Path: ".pact/log.jsonl", Size: 2 << 20, Left: 1 << 20, Max: 1 << 20}
	err := error(&action.UnjudgedError{Heads: 3, Failed: []action.HeadFailure{
		{HeadSHA: "1111111111111111111111111111111111111111", Err: budget},
		{HeadSHA: "2222222222222222222222222222222222222222", Err: errors.New("read pull request #2: boom")},
	}})
	want := "could not judge 2 of 3 heads (the others were judged): 111111111111: " + budget.Error() + "; 222222222222: read pull request #2: boom"
	if err.Error() != want {
		t.Errorf("error = %q\nwant    %q", err, want)
	}
	var tl *action.PactTooLargeError
	if !errors.As(err, &tl) || tl != budget {
		t.Errorf("errors.As does not reach the first head's error")
	}
	// None judged: the message does not say the others were.
	none := &action.UnjudgedError{Heads: 2, Failed: []action.HeadFailure{
		{HeadSHA: "1111111111111111111111111111111111111111", PRs: []int{4}, Err: errors.New("boom")},
		{HeadSHA: "2222222222222222222222222222222222222222", PRs: []int{5, 6}, Err: &action.NotStartedError{Cause: context.Canceled}},
	}}
	want = "could not judge 2 of 2 heads: #4 at 111111111111: boom; #5, #6 at 222222222222: not judged, and no check run posted: the run stopped before it came to this head (context canceled)"
	if none.Error() != want {
		t.Errorf("error = %q\nwant    %q", none, want)
	}
}
