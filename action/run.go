package action

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/pact-action/pact-action/config"
	"github.com/pact-action/pact-action/ghapi"
	"github.com/pact-action/pact-action/ghevent"
	"github.com/pact-action/pact-action/ghfacts"
	"github.com/pact-action/pact-action/internal/prose"
)

// eventEnv is one workflow event as the runner hands it to a job, with the
// action's inputs already read: everything run dispatches on.
type eventEnv struct {
	// EventName is GITHUB_EVENT_NAME; Payload the webhook payload at
	// GITHUB_EVENT_PATH.
	EventName string
	Payload   []byte
	// Mode is the mode input: "auto" (or ""), "check" or "bot".
	Mode string
	// SHA is GITHUB_SHA, the commit a push judges; Workspace is
	// GITHUB_WORKSPACE, a checkout that may hold the head ("" reads every
	// file through the API).
	SHA, Workspace string
	Settings       settings
	// Sleep waits between the bot's attempts to write a branch that moved
	// (nil: wait for real); tests record the waits instead.
	Sleep func(ctx context.Context, d time.Duration) error
	// grace replaces failGrace (tests of a cancelled job shorten it).
	grace time.Duration
}

// eventRun is what one event's run holds for everything it does, built
// once in Run, as policy-bot builds its context once per event: the
// action's inputs, the configuration that grants rights (read once, by
// the first judgement or decision that needs it: trustedconfig.go), the
// pull requests, reviews and comments read from GitHub (facts.go), how
// long a cancelled job's check run may still take, and how to wait. Check
// mode, bot mode and the branch updater share the one value, so every head
// a scheduled run re-judges, and the bot's decision and the check after
// it, weigh the same file. A run judges one head after another, so it
// needs no lock.
type eventRun struct {
	settings
	// config is .github/pact.yml on the default branch; nil until read.
	config *config.File
	facts  *facts
	// grace is how long, after the job was cancelled, a check run's
	// create may still be answered and its completion as failed take.
	grace time.Duration
	// sleep waits between the bot's attempts to write a branch that
	// moved and between the updater's listings.
	sleep func(ctx context.Context, d time.Duration) error
}

// newEventRun is env's run, nothing read yet.
func newEventRun(env eventEnv) *eventRun {
	r := &eventRun{settings: env.Settings, facts: newFacts(), grace: env.grace, sleep: env.Sleep}
	if r.grace <= 0 {
		r.grace = failGrace
	}
	if r.sleep == nil {
		r.sleep = ghapi.SleepContext
	}
	return r
}

// runResult is what Run did for one event. Run always returns one, holding
// whatever was done before an error stopped it.
type runResult struct {
	// Bot is bot mode's outcome, nil when the event ran check mode; it is
	// set even when bot mode failed, with the notices it had gathered.
	Bot *botOutcome
	// Update is what the branch updater did (update.go), nil when the
	// event does not bring pull requests up to date; set even when it
	// failed. On a push it is all the run did.
	Update *updateOutcome
	// Targets are the heads check mode was asked to judge (targets):
	// none when a manual or scheduled run finds no open pull request.
	Targets []target
	// Outcomes are the verdicts of the heads judged, in the order judged;
	// Failed are the heads that could not be judged, each with why.
	Outcomes []*outcome
	Failed   []headFailure
}

// headFailure is a head check mode could not judge, and why: check's
// error, after which its check run (if it had one) was completed as
// failed.
type headFailure struct {
	HeadSHA string
	// PRs are the open pull requests the head is known to head (none for
	// a push or a merge group).
	PRs []int
	Err error
}

// What names the head for a person: its pull requests, then the commit.
func (f headFailure) What() string {
	if len(f.PRs) == 0 {
		return prose.ShortSHA(f.HeadSHA)
	}
	return prNumbers(f.PRs) + " at " + prose.ShortSHA(f.HeadSHA)
}

// notStartedError is the failure of a head check mode never came to: the
// job was cancelled, or the run's budget spent, while it judged an
// earlier one. No check run was created for it.
type notStartedError struct{ Cause error }

func (e *notStartedError) Error() string {
	return fmt.Sprintf("not judged, and no check run posted: the run stopped before it came to this head (%v)", e.Cause)
}

func (e *notStartedError) Unwrap() error { return e.Cause }

// unjudgedError is Run's error when check mode could not judge some of an
// event's several heads (the others were judged): it names each head with
// its error, and unwraps to those errors.
type unjudgedError struct {
	Failed []headFailure
	// Heads is how many heads the event asked to judge.
	Heads int
}

func (e *unjudgedError) Error() string {
	each := make([]string, len(e.Failed))
	for i, f := range e.Failed {
		each[i] = fmt.Sprintf("%s: %v", f.What(), f.Err)
	}
	others := " (the others were judged)"
	if len(e.Failed) == e.Heads {
		others = ""
	}
	return fmt.Sprintf("could not judge %d of %d heads%s: %s", len(e.Failed), e.Heads, others, strings.Join(each, "; "))
}

func (e *unjudgedError) Unwrap() []error {
	errs := make([]error, len(e.Failed))
	for i, f := range e.Failed {
		errs[i] = f.Err
	}
	return errs
}

// run is the one run of a workflow event, which RunWorkflow and the
// tests share: it resolves mode auto (ghevent.ModeFor), reads the
// payload, brings the open pull requests up to date with their bases when
// the event asks for it (ghevent.UpdatesBranches: a push to the default
// branch, which is then all the run does, and a manual or scheduled run
// outside mode check; update.go), and runs bot mode on a review or
// comment, or check mode on every head the event asks to judge (targets)
// — a manual or scheduled run re-judges every open pull request in either
// mode (ghevent.Rejudges), but for the heads the updater just wrote and
// judged.
//
// Check mode judges one head at a time, each with its own check run,
// budget and verdict: a head that cannot be judged (too large a pact,
// GitHub failing) is recorded in Failed and the others are still judged,
// unless the job was cancelled, when the next heads would fail the same
// way. The error is then that head's own when the event had one head, and
// an *unjudgedError when it had several. Any other error stopped the run
// where it arose: an event mode auto does not know
// (*ghevent.UnknownEventError), a payload that is not JSON, an event that
// names nothing to judge (*noTargetError), a failure listing the targets,
// or bot mode's failure. Reporting the result (outputs, job summary, exit
// code) is the caller's: RunWorkflow's (jobreport.go).
func run(ctx context.Context, env eventEnv, gh botGitHub) (*runResult, error) {
	res := &runResult{}
	input, err := ghevent.ParseMode(env.Mode)
	if err != nil {
		return res, err
	}
	mode := input
	if mode == "auto" {
		if mode, err = ghevent.ModeFor(env.EventName); err != nil {
			return res, err
		}
	}
	ev, err := ghevent.Parse(env.Payload)
	if err != nil {
		return res, err
	}
	// One configuration and one source of facts for the whole run
	// (trustedconfig.go, facts.go): every head a scheduled run re-judges
	// is weighed by the same file.
	r := newEventRun(env)
	var updateErr error
	if ghevent.MayUpdateBranches(input, env.EventName, ev) {
		// The listing also names the default branch as GitHub has it now,
		// which says whether a push is to it.
		listing, err := gh.OpenPullRequestsMergeable(ctx)
		switch {
		case err != nil && env.EventName == "push":
			return res, fmt.Errorf("list the open pull requests to bring up to date: %w", err)
		case err != nil:
			updateErr = fmt.Errorf("list the open pull requests to bring up to date: %w", err)
		case ghevent.UpdatesBranches(input, env.EventName, ev, listing.DefaultBranch):
			res.Update, updateErr = update(ctx, gh, listing, r)
			if env.EventName == "push" || ctx.Err() != nil {
				return res, updateErr
			}
		}
	}
	if mode == "bot" && !ghevent.Rejudges(env.EventName) {
		res.Bot, err = botMode(ctx, gh, ev, env.EventName, r)
		return res, err
	}
	// From here on the run only judges: it is handed no client that can
	// write a commit (github.go).
	cgh := checkOnly{gh}
	if res.Targets, err = targets(ctx, cgh, ev, env.EventName, env.SHA, env.Workspace); err != nil {
		return res, also(err, updateErr)
	}
	if res.Update != nil {
		// The heads the updater wrote were judged as it wrote them.
		res.Targets = slices.DeleteFunc(res.Targets, func(t target) bool {
			for _, u := range res.Update.Updated {
				if u.To == t.HeadSHA && u.Check != nil {
					res.Outcomes = append(res.Outcomes, u.Check)
					return true
				}
			}
			return false
		})
	}
	for i, t := range res.Targets {
		out, err := check(ctx, cgh, t, r)
		if err == nil {
			res.Outcomes = append(res.Outcomes, out)
			continue
		}
		res.Failed = append(res.Failed, headFailure{HeadSHA: t.HeadSHA, PRs: t.prs(), Err: err})
		if ctx.Err() != nil {
			// The job is cancelled or its budget spent: the next heads
			// would fail the same way. Each is named as not judged, so the
			// job's message and summary account for every head it was
			// asked to judge.
			for _, rest := range res.Targets[i+1:] {
				res.Failed = append(res.Failed, headFailure{HeadSHA: rest.HeadSHA, PRs: rest.prs(), Err: &notStartedError{Cause: stopped(ctx)}})
			}
			break
		}
	}
	switch {
	case len(res.Failed) == 0:
		return res, updateErr
	case len(res.Targets) == 1:
		return res, also(res.Failed[0].Err, updateErr)
	}
	return res, also(&unjudgedError{Failed: res.Failed, Heads: len(res.Targets)}, updateErr)
}

// also is err with the updater's error too, when there is one: each is
// what it is alone.
func also(err, updateErr error) error {
	if updateErr == nil {
		return err
	}
	return errors.Join(err, updateErr)
}

// prs are the numbers of the open pull requests t is known to head.
func (t target) prs() []int {
	var out []int
	for _, list := range [][]ghfacts.PullRequest{t.Known, t.Open} {
		for _, pr := range list {
			if pr.HeadSHA == t.HeadSHA && !slices.Contains(out, pr.Number) {
				out = append(out, pr.Number)
			}
		}
	}
	return out
}
