package action_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/pact-action/pact-action/action"
	"github.com/pact-action/pact-action/ghapi"
	"github.com/pact-action/pact-action/ghevent"
	"github.com/pact-action/pact-action/internal/testkit/e2e"
	"github.com/pact-action/pact-action/internal/testkit/fakegithub"
)

// The in-process harness: for one workflow event it calls action.RunTestAlias, the
// dispatch cmd/pact-action calls (resolve mode auto, parse the payload,
// then bot mode, or the check on every target of the event), against the
// fake GitHub's URL, with the settings the binary derives from e2e.Run's
// runner environment and default inputs. What only the binary does
// (inputs, outputs, exit codes, the job summary, the JSON report, the fork
// fallback to workflow annotations, signals) is tested through it in
// binary_test.go.

// TestMain keeps the action's own log (slog's default logger) to warnings
// and errors: in-process, every run writes to the one test log.
func TestMain(m *testing.M) {
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	os.Exit(m.Run())
}

// Under e2e.Run's environment: the check run's details_url (from
// GITHUB_SERVER_URL, GITHUB_REPOSITORY and GITHUB_RUN_ID) and GITHUB_SHA.
const (
	runDetailsURL = "https://github.example/" + e2e.Owner + "/" + e2e.Repo + "/actions/runs/4242"
	runnerSHA     = "0000000000000000000000000000000000000000"
)

// event is one workflow event delivered to the action.
type event struct {
	name    string
	payload []byte
	// mode is the mode input; "" is auto.
	mode string
	// sha is GITHUB_SHA ("" is runnerSHA); workspace is the checkout
	// ("" reads the head through the API, as an empty checkout does).
	sha, workspace string
	// settings adjusts what the binary would pass (a timeout, say).
	settings func(*action.Settings)
	// ctx replaces the test's context: cancelling it is what SIGTERM does;
	// grace, when set, shortens what the cancelled job leaves its check
	// run's requests.
	ctx   context.Context
	grace time.Duration
	// retry replaces the client's retry policy (a short AttemptTimeout,
	// as PACT_REQUEST_TIMEOUT sets it, for a GitHub that hangs).
	retry ghapi.RetryPolicy
}

// result is what one event did.
type result struct {
	// outcomes are check mode's verdicts, one per target; bot is bot
	// mode's outcome. err is what the binary would print before exiting 2.
	outcomes []*action.Outcome
	bot      *action.BotOutcome
	// update is what the branch updater did (nil: it did not run).
	update *action.UpdateOutcome
	err    error
	// failedHeads are the heads check mode could not judge (err says why).
	failedHeads []string
	// log is what the GitHub client logged (retries, rate limits): the
	// binary's stderr.
	log string
	// waits are the delays the client (retries) and the bot (a branch
	// that moved) asked for; the harness does not sleep them.
	waits []time.Duration
}

// settings are what the binary passes with the default inputs.
func settings() action.Settings {
	return action.Settings{CheckName: "pact", PactDir: ".pact", DetailsURL: runDetailsURL}
}

// recorder collects a run's log and waits; the client calls it from
// several goroutines.
type recorder struct {
	mu    sync.Mutex
	log   bytes.Buffer
	waits []time.Duration
}

func (r *recorder) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.log.Write(p)
}

func (r *recorder) sleep(ctx context.Context, d time.Duration) error {
	r.mu.Lock()
	r.waits = append(r.waits, d)
	r.mu.Unlock()
	return ctx.Err()
}

// client is the GitHub client the binary builds, pointed at the fake.
func client(t *testing.T, s *fakegithub.Server, rec *recorder, retry ...ghapi.RetryPolicy) *ghapi.Client {
	t.Helper()
	var p ghapi.RetryPolicy
	if len(retry) > 0 {
		p = retry[0]
	}
	gh, err := ghapi.New(t.Context(), ghapi.Options{Token: e2e.Token, APIURL: s.URL, GraphQLURL: s.URL + "/graphql",
		Owner: e2e.Owner, Repo: e2e.Repo, HTTPClient: s.Client(), Sleep: rec.sleep, Logger: slog.New(slog.NewTextHandler(rec, nil)), Retry: p})
	if err != nil {
		t.Fatal(err)
	}
	return gh
}

// run delivers the event to the action, as one workflow step would: through
// action.RunTestAlias, the dispatch the binary calls.
func (ev event) run(t *testing.T, s *fakegithub.Server) (r result) {
	t.Helper()
	ctx := ev.ctx
	if ctx == nil {
		ctx = t.Context()
	}
	sha := ev.sha
	if sha == "" {
		sha = runnerSHA
	}
	st := settings()
	if ev.settings != nil {
		ev.settings(&st)
	}
	rec := &recorder{}
	gh := client(t, s, rec, ev.retry)
	env := action.Env{EventName: ev.name, Payload: ev.payload, Mode: ev.mode, SHA: sha, Workspace: ev.workspace,
		Settings: st, Sleep: rec.sleep}
	if ev.grace > 0 {
		action.SetCancelGrace(&env, ev.grace)
	}
	res, err := action.Run(ctx, env, gh)
	var unknown *ghevent.UnknownEventError
	if errors.As(err, &unknown) {
		t.Fatal(err) // a test delivers only events the action acts on
	}
	r = result{outcomes: res.Outcomes, bot: res.Bot, update: res.Update, err: err, log: rec.log.String(), waits: slices.Clone(rec.waits)}
	for _, f := range res.Failed {
		r.failedHeads = append(r.failedHeads, f.HeadSHA)
	}
	return r
}

// only is the verdict of a check-mode run that judged one head.
func (r result) only(t *testing.T) *action.Outcome {
	t.Helper()
	if r.err != nil {
		t.Fatalf("the run failed: %v\nlog:\n%s", r.err, r.log)
	}
	if len(r.outcomes) != 1 {
		t.Fatalf("judged %d heads, want 1", len(r.outcomes))
	}
	return r.outcomes[0]
}

// botDone is bot mode's outcome of a run that must not fail.
func (r result) botDone(t *testing.T) *action.BotOutcome {
	t.Helper()
	if r.err != nil || r.bot == nil {
		t.Fatalf("bot mode failed: %v\nlog:\n%s", r.err, r.log)
	}
	return r.bot
}

// failed fails unless the run failed (the binary exits 2), and returns
// the error it failed with.
func (r result) failed(t *testing.T) error {
	t.Helper()
	if r.err == nil {
		t.Fatalf("the run did not fail")
	}
	return r.err
}
