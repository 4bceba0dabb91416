package action

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/config"
	"github.com/pact-action/pact-action/ghapi"
	"github.com/pact-action/pact-action/internal/prose"
	"github.com/pact-action/pact-action/pactfile"
	"github.com/pact-action/pact-action/projection"
	"github.com/pact-action/pact-action/report"
)

// Reader is what judging needs from GitHub: files at a commit, branches,
// the merge base, pull requests, and the facts provenance is judged on.
type Reader interface {
	FileReader
	BlobReader
	ReadTrees(ctx context.Context, reads ...ghapi.TreeRead) ([]ghapi.Tree, error)
	BranchHeadAt(ctx context.Context, branch string, at time.Time) (string, error)
	MergeBase(ctx context.Context, base, head string) (string, error)
	PullRequest(ctx context.Context, number int) (*ghapi.PR, error)
	OpenPullRequests(ctx context.Context) ([]ghapi.PR, error)
	PullCommits(ctx context.Context, number int) ([]ghapi.Commit, error)
	PullRequestChangesOutside(ctx context.Context, number int, inside func(path string) bool) (bool, error)
	Reviews(ctx context.Context, number int) ([]ghapi.Review, error)
	Commit(ctx context.Context, sha string) (*ghapi.Commit, error)
	GetComment(ctx context.Context, kind ghapi.CommentKind, id int64) (*ghapi.PRComment, error)
	CompareFiles(ctx context.Context, base, head string) ([]string, error)
	CodeIDs(ctx context.Context, dir string, commits ...string) (map[string]string, error)
	CompareCommits(ctx context.Context, base, head string) (ghapi.Divergence, error)
	MatchingRefs(ctx context.Context, prefix string) (map[string]string, error)
}

// GitHub is what check mode needs from GitHub: reading, and the Checks API.
type GitHub interface {
	Reader
	CreateCheckRun(ctx context.Context, cr ghapi.CheckRun) (int64, error)
	CompleteCheckRun(ctx context.Context, id int64, conclusion string, out ghapi.Output) error
	FailCheckRun(ctx context.Context, id int64, summary string) error
	RequestReviewers(ctx context.Context, number int, logins, teams []string) (*ghapi.PR, error)
}

var _ BotGitHub = (*ghapi.Client)(nil)

// Target is one commit to post the check on, and what is known of it.
type Target struct {
	HeadSHA string
	// Workspace is a checkout that may hold HeadSHA; "" to always use the API.
	Workspace string
	// Known are pull requests read from the API whose head is HeadSHA (the
	// one an event names): judged even when GitHub's listing of open pull
	// requests lags behind.
	Known []ghapi.PR
	// Open is a listing of the open pull requests already read (a manual
	// run reads it once for every head); nil means read it.
	Open []ghapi.PR
	// MergeGroup is set when HeadSHA is a merge queue's commit.
	MergeGroup *MergeGroup
}

// MergeGroup is a merge queue's commit: the base it merges into, and the
// pull requests it holds.
type MergeGroup struct {
	BaseRef string
	PRs     []int
}

// Settings are the action inputs check mode uses.
type Settings struct {
	CheckName  string
	PactDir    string
	DetailsURL string
	// BotLogin is an extra account the bot commits as (the bot-login
	// input), besides github-actions[bot].
	BotLogin string
	// Timeout bounds one judgement; when it passes, the check run is
	// completed as failed (default defaultTimeout).
	Timeout time.Duration
	// MaxPactBytes bounds what one judgement reads of the pact (the
	// max-pact-bytes input; default DefaultMaxPactBytes): past it the
	// check run is completed as failed, saying so.
	MaxPactBytes int64
	// Now is the clock (tests pin it); nil means time.Now.
	Now func() time.Time
}

// defaultTimeout bounds one judgement: GitHub calls are retried for a few
// minutes at most, so anything longer is stuck.
const defaultTimeout = 10 * time.Minute

// layout names the pact's files in the repository.
func (s Settings) layout() pactfile.Layout { return pactfile.Layout(s.PactDir) }

func (s Settings) pactDir() string { return s.layout().Dir() }

func (s Settings) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// insidePact reports whether a repository path is in the pact directory.
func (s Settings) insidePact(p string) bool { return strings.HasPrefix(p, s.pactDir()+"/") }

// sameCode reports whether a comparison of two commits (files it lists,
// err when GitHub could not compare them) shows the same code in both:
// nothing changed outside the pact directory, and fewer files than GitHub
// lists at most, so that none is hidden.
func (s Settings) sameCode(files []string, err error) bool {
	if err != nil || len(files) >= compareFileLimit {
		return false
	}
	for _, f := range files {
		if !s.insidePact(f) {
			return false
		}
	}
	return true
}

// Judgement is the engine's verdict on one head.
type Judgement struct {
	Target   Target
	Findings []checks.Finding
	State    *projection.State
	// PRs are the pull requests judged (every open one whose head this is);
	// Branches their head branches.
	PRs      []int
	Branches []string
	// Source says where the head files were read from.
	Source string
	// NoPact is set when neither the head nor any merge base has a log.
	NoPact bool
	// Renewed maps an accepted task whose accept no longer covers the head
	// to the review whose approval renews it (checks.PullRequestVerdict).
	Renewed map[string]int64
	// Requests are the review requests of each pull request judged (Check
	// carries them out; see reviewrequests.go).
	Requests []ReviewRequest
}

// Judge judges a commit the way branch protection sees it: as the head of
// every open pull request whose head it is, each against its current base
// as GitHub reports it now (base tip, merge base, and the configuration at
// the base tip), never as an event payload said. A commit that is the head
// of no open pull request gets what validate judges; a merge queue's commit
// is judged against the queue's base for the branches of its pull requests.
//
// Its API calls do not grow with the pact: the open pull requests listed
// once, the head's log, STATE.yml, PROJECT.md and tasks/ listing and every
// base's tip and configuration in one GraphQL request, the task files the
// log assigns in another (readHead), then per pull request its merge base
// and the log there (and provenance, see judgeProvenance). What it reads
// of the pact counts against one budget (Settings.MaxPactBytes).
func Judge(ctx context.Context, gh Reader, t Target, s Settings) (*Judgement, error) {
	budget := newReadBudget(s.MaxPactBytes)
	gh = budgeted{Reader: gh, b: budget}
	var prs []ghapi.PR
	var bases []string
	if t.MergeGroup != nil {
		bases = []string{t.MergeGroup.BaseRef}
	} else {
		var err error
		if prs, err = pullRequestsAt(ctx, gh, t); err != nil {
			return nil, err
		}
		for _, pr := range prs {
			if !slices.Contains(bases, pr.BaseRef) {
				bases = append(bases, pr.BaseRef)
			}
		}
	}
	head, tips, err := readHead(ctx, gh, budget, t, s, bases)
	if err != nil {
		return nil, err
	}
	j := &Judgement{Target: t, State: head.replay.State, Source: head.source}
	if t.MergeGroup != nil {
		return j, judgeMergeGroup(ctx, gh, head, t.MergeGroup, tips[t.MergeGroup.BaseRef], s, j)
	}
	if len(prs) == 0 {
		if head.log == nil {
			j.NoPact = true
			return j, nil
		}
		j.Findings = checks.Run(head.input())
		return j, nil
	}
	noPact := true
	for _, pr := range prs {
		pj, err := judgePR(ctx, gh, head, pr, tips[pr.BaseRef], s)
		if err != nil {
			return nil, fmt.Errorf("judge pull request #%d: %w", pr.Number, err)
		}
		noPact = noPact && pj.noPact
		for task, review := range pj.renewed {
			if j.Renewed == nil {
				j.Renewed = map[string]int64{}
			}
			j.Renewed[task] = review
		}
		j.PRs = append(j.PRs, pr.Number)
		j.Branches = append(j.Branches, pr.HeadRef)
		j.Requests = append(j.Requests, pj.requests)
		j.Findings = merge(j.Findings, pj.findings, pr, len(prs) > 1)
	}
	j.NoPact = noPact
	checks.Sort(j.Findings)
	return j, nil
}

// prJudgement is one pull request's verdict.
type prJudgement struct {
	findings []checks.Finding
	renewed  map[string]int64
	requests ReviewRequest
	noPact   bool
}

// judgePR judges head as the head of pr, against pr's current base (its
// tip and configuration as read with the head).
func judgePR(ctx context.Context, gh Reader, head *headFiles, pr ghapi.PR, base baseTip, s Settings) (prJudgement, error) {
	logPath := s.layout().Log()
	mergeBase, baseLog, err := mergeBaseLog(ctx, gh, head, base, s)
	if err != nil {
		return prJudgement{}, err
	}
	if head.log == nil && baseLog == nil {
		return prJudgement{noPact: true}, nil
	}
	in := head.input()
	cf := checks.ParseConfig(base.config)
	facts := checks.PullRequestFacts{BaseLog: baseLog, HeadLog: head.log, Branches: []string{pr.HeadRef}, Config: cf}
	if in.Replay.Unsupported != nil {
		return prJudgement{findings: checks.PullRequest(in, facts)}, nil
	}
	if cf.Err == nil {
		if facts.Provenance, err = gatherProvenance(ctx, gh, provenanceInput{PR: pr, MergeBase: mergeBase,
			BaseLog: baseLog, HeadLog: head.log, Log: head.parsed, Replay: in.Replay, Config: cf.Config, Settings: s}); err != nil {
			return prJudgement{}, err
		}
	}
	if cf.Config.UnmappedBranches == config.UnmappedBlock {
		// Asked only when the answer decides: an unmapped branch under
		// block is an error exactly when code changes.
		if would := checks.Unmapped(logPath, in.Replay.State, baseLog, pr.HeadRef, cf.Config.UnmappedBranches, true); checks.Count(would).Errors > 0 {
			if facts.ChangesOutsidePact, err = gh.PullRequestChangesOutside(ctx, pr.Number, s.insidePact); err != nil {
				return prJudgement{}, fmt.Errorf("list the files pull request #%d changes: %w", pr.Number, err)
			}
		}
	}
	v := checks.JudgePullRequest(in, facts)
	return prJudgement{findings: v.Findings, renewed: v.Renewed, requests: planReviewRequests(pr, cf, in, facts, v.Findings)}, nil
}

// judgeMergeGroup judges a merge queue's commit: valid and append-only
// against the queue's base, and every feature of every queued pull
// request's branch accepted.
func judgeMergeGroup(ctx context.Context, gh Reader, head *headFiles, mg *MergeGroup, base baseTip, s Settings, j *Judgement) error {
	prs, err := queuedPRs(ctx, gh, mg, base.sha, head.sha)
	if err != nil {
		return err
	}
	for _, n := range prs {
		pr, err := gh.PullRequest(ctx, n)
		if err != nil {
			return fmt.Errorf("read pull request #%d of the merge group: %w", n, err)
		}
		j.PRs = append(j.PRs, n)
		j.Branches = append(j.Branches, pr.HeadRef)
	}
	_, baseLog, err := mergeBaseLog(ctx, gh, head, base, s)
	if err != nil {
		return err
	}
	if head.log == nil && baseLog == nil {
		j.NoPact = true
		return nil
	}
	j.Findings = checks.PullRequest(head.input(), checks.PullRequestFacts{BaseLog: baseLog, HeadLog: head.log, Branches: j.Branches,
		Config: checks.ParseConfig(base.config), MergeGroup: true})
	return nil
}

// queuedPRs lists the pull requests a merge queue's commit carries: the one
// its ref names, and every one queued ahead of it. The queue builds each
// entry's group on the group ahead of it and keeps a branch
// gh-readonly-queue/<base>/pr-<n>-<sha> at each group's head, so an entry
// is carried exactly when its group's head is among the commits this group
// adds to the base branch's tip (those already merged are in the base).
// More commits than GitHub lists in a comparison fail closed.
func queuedPRs(ctx context.Context, gh Reader, mg *MergeGroup, baseTip, head string) ([]int, error) {
	refs, err := gh.MatchingRefs(ctx, "heads/gh-readonly-queue/"+mg.BaseRef+"/")
	if err != nil {
		return nil, fmt.Errorf("list the merge queue's branches into %s: %w", mg.BaseRef, err)
	}
	d, err := gh.CompareCommits(ctx, baseTip, head)
	if err != nil {
		return nil, fmt.Errorf("compare merge group %s with %s: %w", prose.ShortSHA(head), mg.BaseRef, err)
	}
	if d.AheadBy > len(d.Commits) {
		return nil, fmt.Errorf("merge group %s adds %d commits to %s, more than GitHub lists in a comparison (%d), so the pull requests queued ahead of it cannot be told", prose.ShortSHA(head), d.AheadBy, mg.BaseRef, len(d.Commits))
	}
	carried := map[string]bool{head: true}
	for _, c := range d.Commits {
		carried[c] = true
	}
	prs := slices.Clone(mg.PRs)
	for ref, sha := range refs {
		if !carried[sha] {
			continue
		}
		for _, n := range MergeGroupPRs(ref) {
			if !slices.Contains(prs, n) {
				prs = append(prs, n)
			}
		}
	}
	slices.Sort(prs)
	return prs, nil
}

// mergeBaseLog finds the merge base of head and base's tip, and reads the
// log there (nil: none): what the head's log must extend.
func mergeBaseLog(ctx context.Context, gh Reader, head *headFiles, base baseTip, s Settings) (mergeBase string, log []byte, err error) {
	if mergeBase, err = gh.MergeBase(ctx, base.sha, head.sha); err != nil {
		return "", nil, fmt.Errorf("find the merge base of %s and %s: %w", prose.ShortSHA(base.sha), prose.ShortSHA(head.sha), err)
	}
	log, err = readRequired(ctx, apiSource{gh: gh, ref: mergeBase}, s.layout().Log())
	return mergeBase, log, err
}

// pullRequestsAt lists the open pull requests whose head is t.HeadSHA: the
// known ones (still open, same head) and GitHub's listing.
func pullRequestsAt(ctx context.Context, gh Reader, t Target) ([]ghapi.PR, error) {
	open := t.Open
	if open == nil {
		var err error
		if open, err = gh.OpenPullRequests(ctx); err != nil {
			return nil, fmt.Errorf("list the open pull requests: %w", err)
		}
	}
	var out []ghapi.PR
	seen := map[int]bool{}
	for _, pr := range append(append([]ghapi.PR(nil), t.Known...), open...) {
		if seen[pr.Number] || pr.State != "open" || pr.HeadSHA != t.HeadSHA {
			continue
		}
		seen[pr.Number] = true
		out = append(out, pr)
	}
	return out, nil
}

// merge adds one pull request's findings to those of others with the same
// head: what validate finds is the same for all and kept once; what is the
// pull request's own says which one, when there are several.
func merge(all, add []checks.Finding, pr ghapi.PR, several bool) []checks.Finding {
	have := map[checks.Finding]bool{}
	for _, f := range all {
		have[f] = true
	}
	for _, f := range add {
		if several && isPRFinding(f.Code) {
			f.Message = fmt.Sprintf("pull request #%d into %s: %s", pr.Number, pr.BaseRef, f.Message)
		}
		if !have[f] {
			have[f] = true
			all = append(all, f)
		}
	}
	return all
}

func isPRFinding(code projection.Code) bool {
	switch code {
	case checks.CodeLogRewritten, checks.CodePRUnaccepted, checks.CodePRUnmappedBranch, checks.CodeProvenanceUnverified,
		checks.CodeProvenanceStale, checks.CodeProvenanceFutureTS, checks.CodeConfigInvalid:
		return true
	}
	return false
}

// Outcome is what a check-mode run did.
type Outcome struct {
	*Judgement
	Conclusion string
	Summary    string
	CheckRunID int64
	// Fallback is set when no check run could be created (a read-only
	// token); FallbackReason says why in one line.
	Fallback       bool
	FallbackReason string
	// NoPullRequest is set when the commit heads no open pull request
	// GitHub lists: then no check run is posted at all (NoPullRequestNote
	// says why), and only what validate checks was judged.
	NoPullRequest bool
}

// NoPullRequestNote says why a run that finds no open pull request for its
// commit posts no check run: GitHub's listing lags just after a pull
// request is opened or pushed, and the newest check run on a commit is the
// one branch protection reads, so a verdict judged without the pull
// request must never stand in for the pull request's own.
const NoPullRequestNote = "No check run was posted: this commit is the head of no open pull request that GitHub lists now. " +
	"A pull request's own run posts its verdict (GitHub's listing can lag just after a pull request is opened or pushed, and a verdict judged without the pull request must never replace it); only what `pactify validate` checks was judged here."

// Check creates the check run first (so a crash can never leave it stuck in
// progress: it is completed as failed on every way out, a timeout and a
// cancelled job included), judges the target, asks GitHub for the reviews
// the verdict waits for (requestReviews; never changing the verdict), and
// completes the run with the verdict, the most important findings
// annotated (report.CheckRunAnnotations).
func Check(ctx context.Context, gh GitHub, t Target, s Settings) (*Outcome, error) {
	out := &Outcome{}
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
		return out, out.judgeUnposted(ctx, gh, t, s)
	}
	id, createErr := gh.CreateCheckRun(ctx, ghapi.CheckRun{Name: s.CheckName, HeadSHA: t.HeadSHA, Status: "in_progress", DetailsURL: s.DetailsURL, ExternalID: newExternalID()})
	switch {
	case createErr == nil:
		out.CheckRunID = id
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
		j   *Judgement
		err error
	}
	done := make(chan result, 1)
	go func() {
		j, err := Judge(jctx, gh, t, s)
		done <- result{j, err}
	}()
	var r result
	select {
	case r = <-done:
	case <-jctx.Done():
		r.err = fmt.Errorf("gave up after %s: %w", timeout, jctx.Err())
		if ctx.Err() != nil {
			r.err = fmt.Errorf("the job was cancelled: %w", ctx.Err())
		}
	}
	if r.err == nil {
		out.Judgement = r.j
		r.j.requestReviews(jctx, gh)
		r.err = out.complete(ctx, gh, t, s)
	}
	if r.err != nil {
		out.fail(ctx, gh, r.err)
		return nil, r.err
	}
	return out, nil
}

// judgeUnposted judges a commit that heads no open pull request, for the
// job summary and outputs only: no check run is created.
func (out *Outcome) judgeUnposted(ctx context.Context, gh GitHub, t Target, s Settings) error {
	timeout := s.Timeout
	if timeout <= 0 {
		timeout = defaultTimeout
	}
	jctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	j, err := Judge(jctx, gh, t, s)
	if err != nil {
		return err
	}
	out.Judgement = j
	return out.complete(ctx, gh, t, s)
}

// complete renders the verdict and posts it.
func (out *Outcome) complete(ctx context.Context, gh GitHub, t Target, s Settings) error {
	j := out.Judgement
	out.Conclusion = report.Conclusion(j.Findings)
	anns, unannotated := report.CheckRunAnnotations(j.Findings)
	v := report.Verdict{CheckName: s.CheckName, HeadBranch: firstOr(j.Branches, ""), HeadSHA: t.HeadSHA, Findings: j.Findings, State: j.State}
	if !out.Fallback {
		v.Unannotated = unannotated
	}
	v.Requested, v.RequestNotes = j.requested()
	switch {
	case j.NoPact:
		v.Note = "This commit has no " + s.layout().Log() + "; there is nothing to enforce."
	case len(j.PRs) > 1:
		v.Note = fmt.Sprintf("This commit is the head of %d open pull requests; each was judged against its own base, and the verdict is the strictest.", len(j.PRs))
	case out.NoPullRequest:
		v.Note = NoPullRequestNote
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

// failGrace bounds the request that marks a run failed after the job was
// cancelled: the runner kills the container a few seconds after SIGTERM.
const failGrace = 5 * time.Second

// fail completes the check run as failed with why, whatever ctx says.
func (out *Outcome) fail(ctx context.Context, gh GitHub, why error) {
	if out.CheckRunID == 0 {
		return
	}
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), failGrace)
	defer cancel()
	if err := gh.FailCheckRun(fctx, out.CheckRunID, StoppedSummary(why)); err != nil {
		slog.Error("could not mark the check run as failed", "check_run", out.CheckRunID, "err", err)
	}
}

// newExternalID tags one check run so a create that failed after GitHub
// applied it can be found instead of repeated.
func newExternalID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand never fails on supported platforms
	return "pact-action-" + hex.EncodeToString(b[:])
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
