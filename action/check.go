package action

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/pact-action/pact-action/ghapi"
	"github.com/pact-action/pact-action/internal/prose"
	"github.com/pact-action/pact-action/report"
)

// outcome is what a check-mode run did.
type outcome struct {
	*judgement
	Conclusion string
	Summary    string
	CheckRunID int64
	// Fallback is set when no check run could be created (a read-only
	// token); FallbackReason says why in one line.
	Fallback       bool
	FallbackReason string
	// NoPullRequest is set when the commit heads no open pull request
	// GitHub lists: then no check run is posted at all (noPullRequestNote
	// says why), and only what validate checks was judged.
	NoPullRequest bool
	// Superseded are the older check runs left in progress on the head
	// that this one completed (supersede).
	Superseded []int64
}

// noPullRequestNote says why a run that finds no open pull request for its
// commit posts no check run: GitHub's listing lags just after a pull
// request is opened or pushed, and the newest check run on a commit is the
// one branch protection reads, so a verdict judged without the pull
// request must never stand in for the pull request's own.
const noPullRequestNote = "No check run was posted: this commit is the head of no open pull request that GitHub lists now. " +
	"A pull request's own run posts its verdict (GitHub's listing can lag just after a pull request is opened or pushed, and a verdict judged without the pull request must never replace it); only what `pactify validate` checks was judged here."

// check creates the check run first (so a crash can never leave it stuck in
// progress: it is completed as failed on every way out, a timeout and a
// cancelled job included), judges the target, asks GitHub for the reviews
// the verdict waits for (requestReviews; never changing the verdict), and
// completes the run with the verdict, the most important findings
// annotated (report.CheckRunAnnotations).
func check(ctx context.Context, gh checkGitHub, t target, r *eventRun) (*outcome, error) {
	s := r.settings
	out := &outcome{}
	if t.MergeGroup == nil {
		// Which pull requests the commit heads is asked before any check
		// run exists, so a failure here leaves none in progress.
		prs, err := pullRequestsAt(ctx, gh, t)
		if err != nil {
			return nil, err
		}
		t.Known, t.Open = prs, prs
		out.NoPullRequest = len(prs) == 0
	}
	if out.NoPullRequest {
		return out, out.judgeUnposted(ctx, gh, t, r)
	}
	// A create the job's cancellation interrupts may still have been
	// applied: it is given failGrace more to learn the run's id, which
	// fail then completes.
	grace := r.grace
	cctx, cancelCreate := graceContext(ctx, grace)
	cr := ghapi.CheckRun{Name: s.CheckName, HeadSHA: t.HeadSHA, Status: "in_progress", DetailsURL: s.DetailsURL, ExternalID: newExternalID()}
	created, createErr := gh.CreateCheckRun(cctx, cr)
	cancelCreate()
	switch {
	case createErr == nil:
		out.CheckRunID = created.ID
	case ctx.Err() != nil:
		// The create GitHub was still holding when the grace ran out may
		// have been applied: a run found by its external id is completed
		// as failed, in fail's context, rather than left in progress.
		fctx, cancel := failContext(ctx, grace)
		defer cancel()
		if id, found, err := gh.FindCheckRun(fctx, cr); err == nil && found {
			out.CheckRunID = id
			if err := out.fail(ctx, gh, stopped(ctx), grace); err != nil {
				return nil, &runLeftInProgressError{ID: id, Err: err, Why: stopped(ctx)}
			}
		}
		return nil, fmt.Errorf("create the %q check run on %s: %w", s.CheckName, prose.ShortSHA(t.HeadSHA), stopped(ctx))
	case errors.Is(createErr, ghapi.ErrForbidden) || errors.Is(createErr, ghapi.ErrNotFound):
		out.Fallback = true
		out.FallbackReason = "the token cannot create check runs (a pull request from a fork gets a read-only token), so the verdict goes to workflow annotations and the job summary instead"
	default:
		return nil, fmt.Errorf("create the %q check run on %s: %w", s.CheckName, prose.ShortSHA(t.HeadSHA), createErr)
	}
	timeout := s.Timeout
	if timeout <= 0 {
		timeout = defaultTimeout
	}
	jctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	// The judgement runs apart, so that a read stuck where cancellation
	// cannot reach still lets this function complete the run and return.
	type result struct {
		j   *judgement
		err error
	}
	done := make(chan result, 1)
	go func() {
		j, err := judge(jctx, gh, t, r, created)
		done <- result{j, err}
	}()
	var res result
	select {
	case res = <-done:
	case <-jctx.Done():
		res.err = fmt.Errorf("gave up after %s: %w", timeout, jctx.Err())
		if ctx.Err() != nil {
			res.err = stopped(ctx)
		}
	}
	var completedAt time.Time
	if res.err == nil {
		out.judgement = res.j
		res.j.requestReviews(jctx, gh)
		completedAt = s.now()
		res.err = out.complete(ctx, gh, t, s)
	}
	if res.err != nil {
		if err := out.fail(ctx, gh, res.err, grace); err != nil {
			return nil, &runLeftInProgressError{ID: out.CheckRunID, Err: err, Why: res.err}
		}
		return nil, res.err
	}
	out.supersede(ctx, gh, completedAt)
	return out, nil
}

// maxSuperseded bounds the older runs one check completes (supersede): a
// job killed outright leaves one, and whoever posts runs of this name by
// the hundred must not make a check spend its writes on them; the next
// run completes the next ones.
const maxSuperseded = 10

// supersedeBound bounds the time all of a check's completions of older
// runs may take together, after its verdict is posted: one attempt each,
// never retried.
const supersedeBound = 10 * time.Second

// superseded are the runs listed in progress on the head (sorted by id)
// that the run own supersedes: those this action created (newExternalID's
// form; never a job's own check run of the same name, which GitHub
// completes, nor one another tool made), older than own (GitHub numbers
// check runs as it creates them) and never own, the oldest first, at most
// maxSuperseded.
func superseded(listed []ghapi.ListedRun, own int64) []int64 {
	var out []int64
	for _, r := range listed {
		if len(out) == maxSuperseded {
			break
		}
		if r.ID < own && isOwnExternalID(r.ExternalID) {
			out = append(out, r.ID)
		}
	}
	return out
}

// namesake is a run listed in progress on the head, other than own, that
// this action did not create (no external id of newExternalID's form), 0
// when there is none. GitHub posts a check run for every job, named after
// the job's name: (its id when it has none), from the app the workflow's
// token posts as; so a job whose name: is the check's, which the job's
// GITHUB_JOB (its id) cannot tell, shows here while it runs. A run some
// other workflow posts under the name shows here too.
func namesake(listed []ghapi.ListedRun, own int64) int64 {
	for _, r := range listed {
		if r.ID != own && !isOwnExternalID(r.ExternalID) {
			return r.ID
		}
	}
	return 0
}

// supersede completes the older runs of this check's name, app and head
// still in progress (the judgement listed them with the head) with this
// run's conclusion, dated completedAt, no later than this run's own
// completion: a job killed outright (a lost runner, out of memory, a
// cancellation past its grace) leaves its run so for good, and docs/check.md
// ("Where it runs") promises every run the action creates ends completed.
// The conclusion is this run's, so that whichever run of the name GitHub
// weighs — the newest by id or by completion, or each of several — the
// commit reads exactly as this verdict. It runs once the verdict is
// posted and never fails the check: a completion GitHub refuses or leaves
// unanswered (one attempt each, supersedeBound in all) is logged, and the
// next run on the commit tries again.
func (out *outcome) supersede(ctx context.Context, gh checkGitHub, completedAt time.Time) {
	if out.judgement == nil || len(out.older) == 0 || out.Fallback || ctx.Err() != nil {
		return
	}
	sctx, cancel := context.WithTimeout(ctx, supersedeBound)
	defer cancel()
	title, summary := report.Superseded(out.CheckRunID, report.Title(out.Findings))
	for _, id := range out.older {
		if err := gh.SupersedeCheckRun(sctx, id, out.Conclusion, completedAt, ghapi.Output{Title: title, Summary: summary}); err != nil {
			slog.Warn("could not complete an older check run left in progress; the next run on this commit tries again", "check_run", id, "superseded_by", out.CheckRunID, "err", err)
			continue
		}
		slog.Info("completed a check run an earlier job left in progress, as superseded by this one", "check_run", id, "superseded_by", out.CheckRunID, "conclusion", out.Conclusion)
		out.Superseded = append(out.Superseded, id)
	}
}

// runLeftInProgressError is a check run that could not be completed:
// neither with its verdict nor as failed, GitHub refusing or not answering
// every attempt (ghapi bounds them).
type runLeftInProgressError struct {
	ID int64
	// Err is why completing it failed; Why, why it was being failed.
	Err, Why error
}

func (e *runLeftInProgressError) Error() string {
	return fmt.Sprintf("check run %d is left in progress, as GitHub refused or did not answer every attempt to complete it (%v); re-run the job: its new check run replaces this one",
		e.ID, e.Err)
}

func (e *runLeftInProgressError) Unwrap() []error { return []error{e.Err, e.Why} }

// runBudgetError is the cause of a run's context past its budget (the
// whole run's, PACT_RUN_TIMEOUT).
type runBudgetError struct{ Budget time.Duration }

func (e *runBudgetError) Error() string {
	return fmt.Sprintf("the run took longer than its budget of %s (PACT_RUN_TIMEOUT); re-run the job, or raise PACT_RUN_TIMEOUT if the log shows GitHub answering slowly but surely", e.Budget)
}

// stopped says why ctx ended: the run's budget, or the job was cancelled.
func stopped(ctx context.Context) error {
	var budget *runBudgetError
	if errors.As(context.Cause(ctx), &budget) {
		return budget
	}
	return fmt.Errorf("the job was cancelled: %w", ctx.Err())
}

// graceContext is ctx that ends grace after ctx does: for a request that
// must outlive the job's cancellation a little.
func graceContext(ctx context.Context, grace time.Duration) (context.Context, context.CancelFunc) {
	gctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stop := context.AfterFunc(ctx, func() {
		t := time.NewTimer(grace)
		defer t.Stop()
		select {
		case <-t.C:
			cancel()
		case <-gctx.Done():
		}
	})
	return gctx, func() {
		stop()
		cancel()
	}
}

// judgeUnposted judges a commit that heads no open pull request, for the
// job summary and outputs only: no check run is created.
func (out *outcome) judgeUnposted(ctx context.Context, gh checkGitHub, t target, r *eventRun) error {
	s := r.settings
	timeout := s.Timeout
	if timeout <= 0 {
		timeout = defaultTimeout
	}
	jctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	j, err := judge(jctx, gh, t, r, ghapi.CreatedRun{})
	if err != nil {
		return err
	}
	out.judgement = j
	return out.complete(ctx, gh, t, s)
}

// complete renders the verdict and posts it.
func (out *outcome) complete(ctx context.Context, gh checkGitHub, t target, s settings) error {
	j := out.judgement
	out.Conclusion = report.Conclusion(j.Findings)
	anns, unannotated := report.CheckRunAnnotations(j.Findings)
	v := report.Verdict{CheckName: s.CheckName, HeadBranch: firstOr(j.Branches, ""), HeadSHA: t.HeadSHA, Findings: j.Findings, State: j.State}
	if !out.Fallback {
		v.Unannotated = unannotated
	}
	v.Requested, v.RequestNotes = j.requested()
	if mg := t.MergeGroup; mg != nil {
		v.Group = &report.Group{PRs: j.PRs, Branches: j.Branches, BaseRef: mg.BaseRef}
	}
	switch {
	case j.NoPact:
		v.Note = "This commit has no " + s.layout().Log() + "; there is nothing to enforce."
	case len(j.PRs) > 1 && t.MergeGroup == nil:
		v.Note = fmt.Sprintf("This commit is the head of %d open pull requests; each was judged against its own base, and the verdict is the strictest.", len(j.PRs))
	case out.NoPullRequest:
		v.Note = noPullRequestNote
	}
	if out.Fallback {
		v.Note = out.FallbackReason
	}
	out.Summary = report.Summary(v)
	if out.Fallback || out.NoPullRequest {
		return nil
	}
	if err := gh.CompleteCheckRun(ctx, out.CheckRunID, out.Conclusion, ghapi.Output{
		Title: report.Title(j.Findings), Summary: out.Summary, Text: report.Text(j.Findings), Annotations: annotations(anns),
	}); err != nil {
		return fmt.Errorf("post the verdict to check run %d: %w", out.CheckRunID, err)
	}
	return nil
}

// failGrace bounds the requests that mark a run failed after the job was
// cancelled: the runner kills the container a few seconds after SIGTERM.
const failGrace = 5 * time.Second

// fail completes the check run as failed with why, whatever ctx says: in
// a context of its own, so that its requests have fresh deadlines however
// the judgement ended. After the job was cancelled, it has grace
// (failGrace) in all; otherwise ghapi bounds its attempts (docs/check.md,
// "Where it runs").
func (out *outcome) fail(ctx context.Context, gh checkGitHub, why error, grace time.Duration) error {
	if out.CheckRunID == 0 {
		return nil
	}
	fctx, cancel := failContext(ctx, grace)
	defer cancel()
	if err := gh.FailCheckRun(fctx, out.CheckRunID, stoppedSummary(why)); err != nil {
		slog.Error("could not mark the check run as failed", "check_run", out.CheckRunID, "err", err)
		return err
	}
	return nil
}

// failContext is the context of the requests that complete a run as
// failed, whatever became of ctx: fresh deadlines after a timeout or the
// run's budget, grace in all after the job was cancelled.
func failContext(ctx context.Context, grace time.Duration) (context.Context, context.CancelFunc) {
	fctx := context.WithoutCancel(ctx)
	var budget *runBudgetError
	if ctx.Err() != nil && !errors.As(context.Cause(ctx), &budget) {
		return context.WithTimeout(fctx, grace)
	}
	return fctx, func() {}
}

// externalIDPrefix begins the external id of every check run the action
// creates.
const externalIDPrefix = "pact-action-"

// newExternalID tags one check run so a create that failed after GitHub
// applied it can be found instead of repeated, and so that a later run
// tells the runs of this action apart (isOwnExternalID).
func newExternalID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand never fails on supported platforms
	return externalIDPrefix + hex.EncodeToString(b[:])
}

// isOwnExternalID reports an external id of newExternalID's form. Anyone
// who posts check runs can give one this form; it tells this action's
// runs from GitHub's and other tools', not from a forger's.
func isOwnExternalID(id string) bool {
	hexPart, ok := strings.CutPrefix(id, externalIDPrefix)
	if !ok || len(hexPart) != 32 {
		return false
	}
	_, err := hex.DecodeString(hexPart)
	return err == nil
}

func annotations(anns []report.Annotation) []ghapi.Annotation {
	var out []ghapi.Annotation
	for _, a := range anns {
		out = append(out, ghapi.Annotation{Path: a.Path, StartLine: a.Line, EndLine: a.Line, Level: a.Level, Title: a.Title, Message: a.Message})
	}
	return out
}

func firstOr(s []string, def string) string {
	if len(s) > 0 {
		return s[0]
	}
	return def
}
