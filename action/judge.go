package action

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/config"
	"github.com/pact-action/pact-action/ghapi"
	"github.com/pact-action/pact-action/ghevent"
	"github.com/pact-action/pact-action/ghfacts"
	"github.com/pact-action/pact-action/internal/prose"
	"github.com/pact-action/pact-action/pactfile"
	"github.com/pact-action/pact-action/projection"
)

// target is one commit to post the check on, and what is known of it.
type target struct {
	HeadSHA string
	// Workspace is a checkout that may hold HeadSHA; "" to always use the API.
	Workspace string
	// Known are pull requests read from the API whose head is HeadSHA (the
	// one an event names): judged even when GitHub's listing of open pull
	// requests lags behind.
	Known []ghfacts.PullRequest
	// Open is a listing of the open pull requests already read (a manual
	// run reads it once for every head); nil means read it.
	Open []ghfacts.PullRequest
	// MergeGroup is set when HeadSHA is a merge queue's commit.
	MergeGroup *mergeGroup
}

// mergeGroup is a merge queue's commit: the base it merges into, the pull
// requests it holds, and its parent commit as the event names it
// (merge_group.base_sha: the head of the group queued ahead, or the base
// branch's tip), which judgeMergeGroup checks before trusting.
type mergeGroup struct {
	BaseRef string
	PRs     []int
	Parent  string
}

// settings are the action inputs check mode uses.
type settings struct {
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
	// max-pact-bytes input; default defaultMaxPactBytes): past it the
	// check run is completed as failed, saying so.
	MaxPactBytes int64
	// Now is the clock (tests pin it); nil means time.Now.
	Now func() time.Time
}

// defaultTimeout bounds one judgement: GitHub calls are retried for a few
// minutes at most, so anything longer is stuck.
const defaultTimeout = 10 * time.Minute

// layout names the pact's files in the repository.
func (s settings) layout() pactfile.Layout { return pactfile.Layout(s.PactDir) }

func (s settings) pactDir() string { return s.layout().Dir() }

func (s settings) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// insidePact reports whether a repository path is in the pact directory.
func (s settings) insidePact(p string) bool { return strings.HasPrefix(p, s.pactDir()+"/") }

// judgement is the engine's verdict on one head.
type judgement struct {
	Target   target
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
	// Requests are the review requests of each pull request judged (check
	// carries them out; see reviewrequests.go).
	Requests []reviewRequest
	// older are the check runs the verdict's run supersedes (superseded;
	// check completes them).
	older []int64
	// Namesake is a check run of the verdict's name and app in progress on
	// the head that this action did not create (namesake), 0 when none:
	// most likely the job's own, whose name: is the check's.
	Namesake int64
}

// judge judges a commit the way branch protection sees it: as the head of
// every open pull request whose head it is, each against its current base
// as GitHub reports it now (base tip and merge base), never as an event
// payload said, and all under the configuration on the default branch
// (trustedconfig.go), whatever their bases. A commit that is the head
// of no open pull request gets what validate judges; a merge queue's commit
// is judged against the queue's base for the branches of its pull requests.
//
// Its API calls do not grow with the pact: the open pull requests listed
// once, the head's log, STATE.yml, PROJECT.md and tasks/ listing, every
// base's tip and the configuration in one GraphQL request, the task files the
// log assigns in another (readHead), then per pull request its merge base
// and the log there (and provenance, see judgeProvenance). What it reads
// of the pact counts against one budget (settings.MaxPactBytes). posted is
// the check run the verdict goes to (check creates it; none when the
// verdict is not posted): the head's read lists the older runs it
// supersedes.
func judge(ctx context.Context, gh reader, t target, r *eventRun, posted ghapi.CreatedRun) (*judgement, error) {
	s := r.settings
	budget := newReadBudget(s.MaxPactBytes)
	gh = budgeted{reader: gh, b: budget}
	var prs []ghfacts.PullRequest
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
	head, tips, cfg, err := readHead(ctx, gh, budget, t, r, posted, bases)
	if err != nil {
		return nil, err
	}
	slog.Debug("configuration", "from", describeConfig(cfg))
	j := &judgement{Target: t, State: head.replay.State, Source: head.source, older: superseded(head.runs, posted.ID), Namesake: namesake(head.runs, posted.ID)}
	if t.MergeGroup != nil {
		return j, judgeMergeGroup(ctx, gh, head, t.MergeGroup, tips[t.MergeGroup.BaseRef], cfg, s, j)
	}
	if len(prs) == 0 {
		if head.log == nil {
			j.NoPact = true
			return j, nil
		}
		j.Findings = checks.Run(head.input(nil))
		return j, nil
	}
	noPact := true
	for _, pr := range prs {
		pj, err := judgePR(ctx, gh, head, pr, tips[pr.BaseRef], cfg, r)
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
	// Several pull requests each bring their own findings: the verdict
	// lists MaxListed of each code whatever their number.
	j.Findings = checks.Cap(j.Findings)
	return j, nil
}

// prJudgement is one pull request's verdict.
type prJudgement struct {
	findings []checks.Finding
	renewed  map[string]int64
	requests reviewRequest
	noPact   bool
}

// judgePR judges head as the head of pr, against pr's current base (its
// tip as read with the head), under the run's configuration cfg. A pull
// request into another base than the default branch is also judged as
// the pull request into the default branch its head would make, and gets
// the worse verdict (docs/semantics.md §5): where the head meets the
// default branch is read here, and checks.JudgePullRequest weighs both.
// Provenance takes as judged only the lines where the head meets the
// default branch, for a base its author created holds lines nobody
// judged.
func judgePR(ctx context.Context, gh reader, head *headFiles, pr ghfacts.PullRequest, base baseTip, cfg *config.File, r *eventRun) (prJudgement, error) {
	s := r.settings
	own, into, err := meetBases(ctx, gh, head, base, cfg, pr.BaseRef, s)
	if err != nil {
		return prJudgement{}, err
	}
	if head.log == nil && own.log == nil && into.log == nil {
		return prJudgement{noPact: true}, nil
	}
	changed, err := changedTaskFiles(ctx, head, s, own, into)
	if err != nil {
		return prJudgement{}, err
	}
	in := head.input(changed)
	cf := *cfg
	facts := checks.PullRequestFacts{BaseLog: own.log, HeadLog: head.log, Branches: []string{pr.HeadRef}, Config: cf,
		Default: into.defaultBase(own, cfg)}
	if in.Replay.Unsupported != nil {
		return prJudgement{findings: checks.PullRequest(in, facts)}, nil
	}
	if cf.Err == nil {
		if facts.Provenance, err = gatherProvenance(ctx, gh, provenanceInput{PR: pr, MergeBase: into.mergeBase,
			BaseLog: into.log, HeadLog: head.log, Replay: in.Replay, ShippedAtBase: facts.ShippedAtBase(in.Replay.State),
			Config: cf.Config, ConfigBranch: cfg.Branch, DefaultTip: cfg.Commit, HeadMeets: into.mergeBaseWith(cfg.Commit), Run: r}); err != nil {
			return prJudgement{}, err
		}
	}
	if cf.Config.UnmappedBranches == config.UnmappedBlock {
		if err := askChangesOutsidePact(ctx, gh, s, in, head, pr, own, into, &facts); err != nil {
			return prJudgement{}, err
		}
	}
	v := checks.JudgePullRequest(in, facts)
	return prJudgement{findings: v.Findings, renewed: v.Renewed, requests: planReviewRequests(pr, cf, in, facts, v.Findings)}, nil
}

// askChangesOutsidePact tells, for each base the head is judged against,
// whether it changes files outside the pact directory there. It is asked
// only when the answer decides: an unmapped branch under
// unmapped-branches: block is an error exactly when code changes.
func askChangesOutsidePact(ctx context.Context, gh reader, s settings, in checks.Input, head *headFiles, pr ghfacts.PullRequest, own, into *meeting, facts *checks.PullRequestFacts) error {
	logPath := s.layout().Log()
	decides := func(log []byte) bool {
		would := checks.Unmapped(logPath, in.Replay.State, log, pr.HeadRef, config.UnmappedBlock, true)
		return checks.Count(would).Errors > 0
	}
	ids := newCodeIdentity(gh, s)
	var ask []string
	if decides(own.log) {
		ask = append(ask, own.mergeBase)
	}
	if facts.Default != nil && decides(into.log) {
		ask = append(ask, into.mergeBase)
	}
	if len(ask) == 0 {
		return nil
	}
	// One request for every commit asked.
	if err := ids.ask(ctx, append(ask, head.sha)...); err != nil {
		return fmt.Errorf("tell whether pull request #%d changes code: %w", pr.Number, err)
	}
	for _, mb := range ask {
		same, err := ids.same(ctx, mb, head.sha)
		if err != nil {
			return fmt.Errorf("tell whether pull request #%d changes code: %w", pr.Number, err)
		}
		if mb == own.mergeBase {
			facts.ChangesOutsidePact = !same
		}
		if facts.Default != nil && mb == into.mergeBase {
			facts.Default.ChangesOutsidePact = !same
		}
	}
	return nil
}

// meeting is where a head meets one base: their merge base, the log there
// (nil: none) and its listing of tasks/ (task file name to blob id).
type meeting struct {
	// tip is the base's tip the merge base was asked with.
	tip       string
	mergeBase string
	log       []byte
	tasks     map[string]string
}

// mergeBaseWith is m's merge base when it was asked of tip ("" else).
func (m *meeting) mergeBaseWith(tip string) string {
	if m.tip != tip {
		return ""
	}
	return m.mergeBase
}

// defaultBase is m, where the head meets the default branch, as the
// engine weighs it: nil when it is own, where the head meets the pull
// request's base (the base is the default branch).
func (m *meeting) defaultBase(own *meeting, cfg *config.File) *checks.DefaultBase {
	if m == own {
		return nil
	}
	return &checks.DefaultBase{Branch: cfg.Branch, Log: m.log}
}

// meetBases reads where the head meets the pull request's base (own) and
// where it meets the default branch (into); into is own when the base is
// the default branch (docs/semantics.md §5: the two verdicts a pull
// request into another base gets).
func meetBases(ctx context.Context, gh reader, head *headFiles, base baseTip, cfg *config.File, baseRef string, s settings) (own, into *meeting, err error) {
	if own, err = meet(ctx, gh, head, base, s); err != nil {
		return nil, nil, err
	}
	if baseRef == cfg.Branch {
		return own, own, nil
	}
	if into, err = meet(ctx, gh, head, baseTip{sha: cfg.Commit}, s); err != nil {
		return nil, nil, fmt.Errorf("the default branch %s: %w", cfg.Branch, err)
	}
	return own, into, nil
}

// judgeMergeGroup judges a merge queue's commit: valid and append-only
// against the queue's base and against the commit it is queued behind (the
// group ahead of it, whose lines it must keep though the base does not
// have them yet), and every feature of every queued pull request's branch
// accepted.
func judgeMergeGroup(ctx context.Context, gh reader, head *headFiles, mg *mergeGroup, base baseTip, cfg *config.File, s settings, j *judgement) error {
	prs, ahead, err := queuedPRs(ctx, gh, mg, base.sha, head.sha)
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
	own, into, err := meetBases(ctx, gh, head, base, cfg, mg.BaseRef, s)
	if err != nil {
		return err
	}
	parentLog, err := groupParentLog(ctx, gh, head, mg.Parent, own.mergeBase, ahead, s)
	if err != nil {
		return err
	}
	if head.log == nil && own.log == nil && into.log == nil && parentLog == nil {
		j.NoPact = true
		return nil
	}
	changed, err := changedTaskFiles(ctx, head, s, own, into)
	if err != nil {
		return err
	}
	facts := checks.PullRequestFacts{BaseLog: own.log, HeadLog: head.log, Branches: j.Branches, Config: *cfg, MergeGroup: true,
		Default: into.defaultBase(own, cfg)}
	j.Findings = checks.PullRequest(head.input(changed), facts)
	mergeBase := own.mergeBase
	// The first place the log diverges is enough: a group that rewrites
	// the base's lines rewrites those of the group ahead too.
	if mg.Parent != mergeBase && !slices.ContainsFunc(j.Findings, func(f checks.Finding) bool { return f.Code == checks.CodeLogRewritten }) {
		j.Findings = append(j.Findings, checks.GroupHistory(s.layout().Log(), mg.Parent, parentLog, head.log)...)
		checks.Sort(j.Findings)
	}
	return nil
}

// groupParentLog reads the log at a merge group's parent commit, which the
// event names: it must be a commit id the group's head builds on, and,
// when the queue's branches show groups queued ahead of this one (ahead:
// their heads), the latest of them — the queue builds each group on the
// one ahead of it, so any other parent would judge the group against a
// log that lacks what the pull requests ahead add, or already holds what
// this one changes in it. Otherwise the group is not judged. The parent
// that is the merge base with the base branch (no group ahead) costs
// nothing: that log is already read.
func groupParentLog(ctx context.Context, gh reader, head *headFiles, parent, mergeBase string, ahead []string, s settings) ([]byte, error) {
	names := func(what string) error {
		return fmt.Errorf("the merge_group event names %s as the commit merge group %s is queued behind (base_sha), %s, so what is queued ahead of it cannot be judged", prose.ShortSHA(parent), prose.ShortSHA(head.sha), what)
	}
	switch {
	case !commitSHA.MatchString(parent):
		return nil, fmt.Errorf("the merge_group event names %q as the commit merge group %s is queued behind (base_sha), which is not a commit id, so what is queued ahead of it cannot be judged", parent, prose.ShortSHA(head.sha))
	case parent == head.sha:
		return nil, names("but that is the group itself, which must build on its parent")
	case len(ahead) > 0 && !slices.Contains(ahead, parent):
		return nil, names(fmt.Sprintf("but the merge queue's branches say group %s is queued ahead of it", prose.ShortSHA(ahead[0])))
	case len(ahead) == 0 && parent == mergeBase:
		return nil, nil
	}
	for _, a := range ahead {
		if a == parent {
			continue
		}
		// Every group ahead must be behind the parent: the parent is the
		// latest of them.
		mb, err := gh.MergeBase(ctx, a, parent)
		if err != nil {
			return nil, fmt.Errorf("find whether group %s is queued ahead of %s: %w", prose.ShortSHA(a), prose.ShortSHA(parent), err)
		}
		if mb != a {
			return nil, names(fmt.Sprintf("but the merge queue's branches say group %s is queued ahead of it, after that commit", prose.ShortSHA(a)))
		}
	}
	if len(ahead) == 0 {
		// No group ahead: the parent is the base's tip (or a commit
		// before it), which the group must build on.
		mb, err := gh.MergeBase(ctx, parent, head.sha)
		if err != nil {
			return nil, fmt.Errorf("find whether merge group %s builds on %s, the commit the merge_group event says it is queued behind: %w", prose.ShortSHA(head.sha), prose.ShortSHA(parent), err)
		}
		if mb != parent {
			return nil, names("but the group does not build on it")
		}
	}
	return readRequired(ctx, apiSource{gh: gh, ref: parent}, s.layout().Log())
}

// queuedPRs lists the pull requests a merge queue's commit carries: the one
// its ref names, and every one queued ahead of it. The queue builds each
// entry's group on the group ahead of it and keeps a branch
// gh-readonly-queue/<base>/pr-<n>-<sha> at each group's head, so an entry
// is carried exactly when its group's head is among the commits this group
// adds to the base branch's tip (those already merged are in the base).
// It also returns the heads of the groups queued ahead (carried, other
// than head itself). More commits than GitHub lists in a comparison fail
// closed.
func queuedPRs(ctx context.Context, gh reader, mg *mergeGroup, baseTip, head string) (prs []int, ahead []string, err error) {
	refs, err := gh.MatchingRefs(ctx, "heads/gh-readonly-queue/"+mg.BaseRef+"/")
	if err != nil {
		return nil, nil, fmt.Errorf("list the merge queue's branches into %s: %w", mg.BaseRef, err)
	}
	d, err := gh.CompareCommits(ctx, baseTip, head)
	if err != nil {
		return nil, nil, fmt.Errorf("compare merge group %s with %s: %w", prose.ShortSHA(head), mg.BaseRef, err)
	}
	if d.AheadBy > len(d.Commits) {
		return nil, nil, fmt.Errorf("merge group %s adds %d commits to %s, more than GitHub lists in a comparison (%d), so the pull requests queued ahead of it cannot be told", prose.ShortSHA(head), d.AheadBy, mg.BaseRef, len(d.Commits))
	}
	carried := map[string]bool{head: true}
	for _, c := range d.Commits {
		carried[c] = true
	}
	prs = slices.Clone(mg.PRs)
	for ref, sha := range refs {
		if !carried[sha] {
			continue
		}
		if sha != head && !slices.Contains(ahead, sha) {
			ahead = append(ahead, sha)
		}
		for _, n := range ghevent.MergeGroupPRs(ref) {
			if !slices.Contains(prs, n) {
				prs = append(prs, n)
			}
		}
	}
	slices.Sort(prs)
	slices.Sort(ahead)
	return prs, ahead, nil
}

// meet finds the merge base of head and base's tip and reads, in one
// GraphQL request, the log there and its listing of tasks/: what the
// head's log must extend, and what tells the task files the head adds or
// changes (docs/semantics.md §7 "Task files").
func meet(ctx context.Context, gh reader, head *headFiles, base baseTip, s settings) (*meeting, error) {
	mergeBase, err := gh.MergeBase(ctx, base.sha, head.sha)
	if err != nil {
		return nil, fmt.Errorf("find the merge base of %s and %s: %w", prose.ShortSHA(base.sha), prose.ShortSHA(head.sha), err)
	}
	tasksDir := s.layout().Tasks()
	trees, err := gh.ReadTrees(ctx, ghapi.TreeRead{Commit: mergeBase, Files: []string{s.layout().Log()}, Dirs: []string{tasksDir}})
	if err != nil {
		return nil, fmt.Errorf("read the merge base %s: %w", prose.ShortSHA(mergeBase), err)
	}
	log, err := readRequired(ctx, treeSource{tree: trees[0]}, s.layout().Log())
	if err != nil {
		return nil, err
	}
	return &meeting{tip: base.sha, mergeBase: mergeBase, log: asPrefixOf(head.log, log), tasks: treeListing(trees[0], tasksDir)}, nil
}

// changedTaskFiles reads the head's task files that the pull request adds
// or changes against any base it is judged against.
func changedTaskFiles(ctx context.Context, head *headFiles, s settings, bases ...*meeting) (map[string][]byte, error) {
	if head.log == nil || head.replay.Unsupported != nil {
		return nil, nil
	}
	listings := make([]map[string]string, len(bases))
	for i, b := range bases {
		listings[i] = b.tasks
	}
	return head.changedTaskFiles(ctx, s, listings...)
}

// asPrefixOf is base as the first bytes of head when head's log begins with
// it, as an append-only log does: held once rather than twice, since a
// judgement's memory is bounded by the bytes it reads (docs/semantics.md
// §7). Otherwise (a rewritten log, or none) it is base.
func asPrefixOf(head, base []byte) []byte {
	if base != nil && bytes.HasPrefix(head, base) {
		return head[:len(base):len(base)]
	}
	return base
}

// pullRequestsAt lists the open pull requests whose head is t.HeadSHA: the
// known ones (still open, same head) and GitHub's listing.
func pullRequestsAt(ctx context.Context, gh reader, t target) ([]ghfacts.PullRequest, error) {
	open := t.Open
	if open == nil {
		var err error
		if open, err = gh.OpenPullRequests(ctx); err != nil {
			return nil, fmt.Errorf("list the open pull requests: %w", err)
		}
	}
	var out []ghfacts.PullRequest
	seen := map[int]bool{}
	for _, pr := range append(append([]ghfacts.PullRequest(nil), t.Known...), open...) {
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
func merge(all, add []checks.Finding, pr ghfacts.PullRequest, several bool) []checks.Finding {
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
