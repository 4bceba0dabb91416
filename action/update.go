package action

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/pact-action/pact-action/bot"
	"github.com/pact-action/pact-action/ghapi"
	"github.com/pact-action/pact-action/ghfacts"
	"github.com/pact-action/pact-action/internal/prose"
)

// The branch updater (docs/bot.md, "Keeping pull requests mergeable"):
// when the default branch moves, every open pull request of this
// repository into the default branch whose merge with it conflicts only
// in the pact's files is brought up to date by one commit, a merge of the
// default branch's tip into its branch. bot.DecideUpdate decides each one; this file gathers what it
// asks for, writes the commit through the Git Data API, posts the check
// on it, and says once why a pull request was left to its author.
//
// Calls: one GraphQL listing per 100 open pull requests (a pull request
// that does not conflict costs nothing more), and per conflicting pull
// request the merge base (a comparison), the diff of both sides (one
// GraphQL request for the root trees and one per further level of
// directories that differ, usually two or three),
// the three logs (one GraphQL request; a log over GraphQL's text cut is
// one blobs-API read more), the tree, the commit and the ref update, then
// the pull request and check mode's own calls on the new commit. None
// grows with the log. A pull request the bot leaves to its author costs
// one listing of its newest comments, and one comment the first time.

// updateOutcome is what the updater did in one run.
type updateOutcome struct {
	// Listed is how many open pull requests GitHub listed, Conflicting
	// how many of them it said conflict.
	Listed, Conflicting int
	// Updated are the pull requests brought up to date, each with the
	// check posted on its new head.
	Updated []updatedPR
	// Said are the pull requests the bot replied on: it leaves their
	// update to their authors.
	Said []int
	// Left are the pull requests left as they were, and why.
	Left []leftPR
	// Unknown are the pull requests whose mergeability GitHub was still
	// computing after the last listing: the next scheduled run takes
	// them.
	Unknown []int
	// Failed are the pull requests the updater could not finish.
	Failed []updateFailure
}

// updatedPR is a pull request the updater brought up to date.
type updatedPR struct {
	Number   int
	From, To string
	// Added is how many of the branch's own log lines the merged log
	// holds after the base's.
	Added int
	Check *outcome
}

// leftPR is a pull request the updater left alone, and why.
type leftPR struct {
	Number int
	Why    string
}

// updateFailure is a pull request the updater could not finish: its
// update was not made, or its check could not be posted.
type updateFailure struct {
	Number int
	Err    error
}

// updateError is the updater's error when some pull requests could not be
// updated (the others were): it names each.
type updateError struct{ Failed []updateFailure }

func (e *updateError) Error() string {
	s := fmt.Sprintf("could not bring %d pull request(s) up to date", len(e.Failed))
	for i, f := range e.Failed {
		sep := ": "
		if i > 0 {
			sep = "; "
		}
		s += fmt.Sprintf("%s#%d: %v", sep, f.Number, f.Err)
	}
	return s
}

func (e *updateError) Unwrap() []error {
	errs := make([]error, len(e.Failed))
	for i, f := range e.Failed {
		errs[i] = f.Err
	}
	return errs
}

// Re-listing while GitHub computes mergeability: at most relists more
// listings, after waits of relistWait, doubled each time (7 s in all for
// the defaults); then the scheduled run takes what is still unknown.
const (
	relists    = 3
	relistWait = time.Second
)

// Lines say what the updater did, a line per pull request, for the job
// log and summary.
func (o *updateOutcome) Lines() []string {
	var out []string
	out = append(out, fmt.Sprintf("pact: %d open pull request(s), %d conflicting with their base", o.Listed, o.Conflicting))
	for _, u := range o.Updated {
		verdict := "no check posted"
		if u.Check != nil {
			verdict = "check: " + u.Check.Conclusion
		}
		out = append(out, fmt.Sprintf("pact: #%d brought up to date: %s → %s (%d line(s) of its own after the base's; %s)", u.Number, prose.ShortSHA(u.From), prose.ShortSHA(u.To), u.Added, verdict))
	}
	for _, n := range o.Said {
		out = append(out, fmt.Sprintf("pact: #%d left to its author (replied why)", n))
	}
	for _, l := range o.Left {
		out = append(out, fmt.Sprintf("pact: #%d left as it is: %s", l.Number, l.Why))
	}
	if len(o.Unknown) > 0 {
		out = append(out, fmt.Sprintf("pact: GitHub was still computing whether %s conflict; the next scheduled run takes them", prNumbers(o.Unknown)))
	}
	for _, f := range o.Failed {
		out = append(out, fmt.Sprintf("pact: #%d could not be brought up to date: %v", f.Number, f.Err))
	}
	return out
}

// prNumbers names pull requests for a person: "#1, #2".
func prNumbers(ns []int) string {
	nums := make([]string, len(ns))
	for i, n := range ns {
		nums[i] = fmt.Sprintf("#%d", n)
	}
	return strings.Join(nums, ", ")
}

// update brings the open pull requests of listing up to date with their
// bases, one at a time: each one GitHub says conflicts is decided by
// bot.DecideUpdate and written, replied on or left; while GitHub is still
// computing some pull requests' mergeability it lists them again, a few
// times. A pull request it cannot finish is recorded and the others are
// still updated; the error then names each.
func update(ctx context.Context, gh botGitHub, listing *ghapi.OpenPRs, r *eventRun) (*updateOutcome, error) {
	out := &updateOutcome{Listed: len(listing.PRs)}
	seen := map[int]bool{}
	for round := 0; ; round++ {
		var unknown []int
		for _, pr := range listing.PRs {
			if seen[pr.Number] {
				continue
			}
			switch pr.Mergeable {
			case ghfacts.Unknown:
				unknown = append(unknown, pr.Number)
				continue
			case ghfacts.Conflicting:
				out.Conflicting++
				if err := out.one(ctx, gh, pr, listing.DefaultBranch, r); err != nil {
					out.Failed = append(out.Failed, updateFailure{Number: pr.Number, Err: err})
				}
			}
			seen[pr.Number] = true
			if ctx.Err() != nil {
				return out, stopped(ctx)
			}
		}
		if len(unknown) == 0 {
			break
		}
		if round == relists {
			out.Unknown = unknown
			break
		}
		if err := r.sleep(ctx, relistWait<<round); err != nil {
			return out, err
		}
		var err error
		if listing, err = gh.OpenPullRequestsMergeable(ctx); err != nil {
			// What is unknown stays for the scheduled run, as when the
			// listings run out.
			slog.Warn("could not list the open pull requests again", "err", err)
			out.Unknown = unknown
			break
		}
	}
	if len(out.Failed) > 0 {
		return out, &updateError{Failed: out.Failed}
	}
	return out, nil
}

// one decides and makes the update of one conflicting pull request: it
// gathers the facts bot.DecideUpdate asks for, then writes the merge,
// replies once, or leaves it. The error is a failure to finish it.
func (o *updateOutcome) one(ctx context.Context, gh botGitHub, pr ghfacts.PullRequest, defaultBranch string, r *eventRun) error {
	f := bot.UpdateFacts{PR: pr, PactDir: r.pactDir(), DefaultBranch: defaultBranch}
	var head []ghapi.PathChange
	var baseTree string
	d := bot.DecideUpdate(f)
	for ; d.Need != bot.UpdateNeedNothing; d = bot.DecideUpdate(f) {
		switch d.Need {
		case bot.UpdateNeedChanges:
			var err error
			if head, err = changesSinceMergeBase(ctx, gh, &f); err != nil {
				return err
			}
		case bot.UpdateNeedLogs:
			var err error
			baseTree, err = readUpdateLogs(ctx, gh, &f, r.settings)
			var tooLarge *pactTooLargeError
			if errors.As(err, &tooLarge) {
				return o.say(ctx, gh, pr.Number, d.Marker, bot.UpdateCannot(pr.BaseRef, pr.HeadRef, bot.UpdateWhyBudget), r)
			}
			if err != nil {
				return err
			}
		default:
			return fmt.Errorf("internal error: bot.DecideUpdate needs %d, which the updater cannot gather", d.Need)
		}
	}
	switch {
	case d.Skip != "":
		o.Left = append(o.Left, leftPR{Number: pr.Number, Why: d.Skip})
		return nil
	case d.Reply != "":
		return o.say(ctx, gh, pr.Number, d.Marker, d.Reply, r)
	}
	changes := []ghapi.TreeChange{{Path: d.LogPath, Content: ghapi.File(d.Log)}, {Path: d.StatePath, Content: ghapi.File{d.State}}}
	byPath := map[string]ghapi.PathChange{}
	for _, c := range head {
		byPath[c.Path] = c
	}
	for _, p := range d.TakeHead {
		c := byPath[p]
		changes = append(changes, ghapi.TreeChange{Path: p, Entry: c.After, Delete: c.After.Absent()})
	}
	// The merge commit's parents: the head first (the branch moves from
	// it, and attribution walks its first parents to the pull request's
	// own lines), then the base's tip, whose lines reach the branch only
	// through it (docs/security.md, "Bringing a branch up to date").
	newHead, err := gh.CommitTree(ctx, pr.HeadRef, []string{pr.HeadSHA, pr.BaseSHA}, baseTree, changes, d.Message)
	switch {
	case errors.Is(err, ghapi.ErrNotFastForward):
		o.Left = append(o.Left, leftPR{Number: pr.Number, Why: "the branch moved while the bot merged; the next push or scheduled run tries again"})
		return nil
	case errors.Is(err, ghapi.ErrWorkflowFile):
		return o.say(ctx, gh, pr.Number, d.Marker, bot.UpdateCannot(pr.BaseRef, pr.HeadRef, bot.UpdateWhyWorkflows), r)
	case errors.Is(err, ghapi.ErrForbidden) || errors.Is(err, ghapi.ErrNotFound):
		slog.Warn("the token cannot write the branch", "branch", pr.HeadRef, "err", err)
		return o.say(ctx, gh, pr.Number, d.Marker, bot.UpdateCannot(pr.BaseRef, pr.HeadRef, bot.UpdateWhyForbidden), r)
	case err != nil:
		return fmt.Errorf("merge %s into %s: %w", pr.BaseRef, pr.HeadRef, err)
	}
	u := updatedPR{Number: pr.Number, From: pr.HeadSHA, To: newHead, Added: d.Merged.Added}
	slog.Info("brought a pull request up to date", "pr", pr.Number, "from", pr.HeadSHA, "to", newHead, "added", u.Added)
	// A commit pushed with the workflow's token starts no workflow, so
	// the check on it is posted here, judged as the pull request's own
	// run would judge it (GitHub read again: someone may have pushed
	// since, and then this commit heads nothing and gets no check run).
	fact, err := gh.PullRequest(ctx, pr.Number)
	if err == nil {
		u.Check, err = check(ctx, gh, target{HeadSHA: newHead, Known: []ghfacts.PullRequest{*fact}, Open: []ghfacts.PullRequest{}}, r)
	}
	o.Updated = append(o.Updated, u)
	if err != nil {
		return fmt.Errorf("brought up to date at %s, but its check: %w", prose.ShortSHA(newHead), err)
	}
	return nil
}

// say posts reply on pull request number once: not again when a comment
// of the bot's own accounts already carries marker (the same head and
// base: a push delivered twice, a scheduled run after the push).
func (o *updateOutcome) say(ctx context.Context, gh botGitHub, number int, marker, reply string, r *eventRun) error {
	said, err := gh.HasComment(ctx, number, marker, botLogins(r.BotLogin))
	if err != nil {
		return fmt.Errorf("look for the bot's earlier reply: %w", err)
	}
	if said {
		o.Left = append(o.Left, leftPR{Number: number, Why: "left to its author, as the bot already said"})
		return nil
	}
	if err := postReply(ctx, gh, number, reply+"\n\n"+marker); err != nil {
		return fmt.Errorf("reply why it is left to its author: %w", err)
	}
	o.Said = append(o.Said, number)
	return nil
}

// changesSinceMergeBase fills f with the merge base of the pull request's
// head and base tip and what each changed since (every path, the pact's
// too: Diff with no directory left out), in one batched diff; it returns
// the head's changes as GitHub's entries, which a merge takes by id. A
// diff past Diff's bounds is f.DiffTooLarge: no update.
func changesSinceMergeBase(ctx context.Context, gh reader, f *bot.UpdateFacts) ([]ghapi.PathChange, error) {
	mb, err := gh.MergeBase(ctx, f.PR.BaseSHA, f.PR.HeadSHA)
	if err != nil {
		return nil, fmt.Errorf("find the merge base of %s and %s: %w", prose.ShortSHA(f.PR.BaseSHA), prose.ShortSHA(f.PR.HeadSHA), err)
	}
	base, head := ghapi.DiffPair{From: mb, To: f.PR.BaseSHA}, ghapi.DiffPair{From: mb, To: f.PR.HeadSHA}
	diffs, err := gh.Diff(ctx, "", base, head)
	if errors.Is(err, ghapi.ErrDiffTooLarge) {
		f.MergeBase, f.DiffTooLarge = mb, true
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	b, bok := diffs[base]
	h, hok := diffs[head]
	if !bok || !hok {
		return nil, fmt.Errorf("diff %s..%s and ..%s: GitHub does not know one of these commits", prose.ShortSHA(mb), prose.ShortSHA(f.PR.BaseSHA), prose.ShortSHA(f.PR.HeadSHA))
	}
	f.MergeBase, f.Base, f.Head = mb, changeOf(b), changeOf(h)
	return h, nil
}

// readUpdateLogs reads the pact's log at the merge base, the base's tip
// and the head in one request, bounded by max-pact-bytes all together,
// into f (nil where a commit has none), and returns the base tip's tree,
// which the merge is written over.
func readUpdateLogs(ctx context.Context, gh reader, f *bot.UpdateFacts, s settings) (string, error) {
	logPath := s.layout().Log()
	budget := newReadBudget(s.MaxPactBytes)
	var reads []ghapi.TreeRead
	for _, c := range []string{f.MergeBase, f.PR.BaseSHA, f.PR.HeadSHA} {
		reads = append(reads, ghapi.TreeRead{Commit: c, Files: []string{logPath}, Take: budget.take})
	}
	trees, err := gh.ReadTrees(ctx, reads...)
	if err != nil {
		return "", fmt.Errorf("read the logs to merge: %w", err)
	}
	logs := make([][]byte, len(trees))
	for i, t := range trees {
		if logs[i], err = readRequired(ctx, treeSource{tree: t, blobs: gh}, logPath); err != nil {
			return "", err
		}
	}
	f.Logs = &bot.UpdateLogs{MergeBase: logs[0], Base: logs[1], Head: logs[2]}
	return trees[1].RootTree, nil
}
