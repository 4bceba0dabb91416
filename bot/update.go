package bot

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/ghfacts"
	"github.com/pact-action/pact-action/pactfile"
	"github.com/pact-action/pact-action/projection"
)

// The branch update (docs/bot.md, "Keeping pull requests mergeable"): an
// open pull request into the default branch that GitHub says conflicts
// with it is brought up to date by one merge commit of the base's tip into
// its branch, when the only paths both sides changed are the pact's log
// and STATE.yml. The log is merged by projection.MergeLogs
// (docs/semantics.md §8), STATE.yml is rendered from the merged log, and
// every other path is taken from the side that changed it: a path both sides changed differently is a real
// conflict, never resolved here. DecideUpdate is that decision, pure, for
// one pull request; action gathers the facts it names and writes the
// commit.

// UpdateFacts are what DecideUpdate decides one pull request's update on.
// Every field but PR and PactDir is nil or zero until DecideUpdate asks
// for it.
type UpdateFacts struct {
	// PR is the pull request as GitHub listed it with its mergeability
	// (CONFLICTING): its head and base, refs and commits, and whether its
	// head lives in a fork.
	PR      ghfacts.PullRequest
	PactDir string
	// DefaultBranch is the repository's default branch as GitHub names
	// it: the bot never writes it, even as a pull request's head.
	DefaultBranch string
	// MergeBase is the merge base of the head and the base's tip; Base
	// and Head are what each changes since it, every path (the pact's
	// too), by checks.Entry. DiffTooLarge says the diff was past its
	// bounds and cannot be had.
	MergeBase    string
	Base, Head   checks.Change
	DiffTooLarge bool
	// Logs are the pact's log at the merge base, the base's tip and the
	// head (nil where there is none).
	Logs *UpdateLogs
}

// UpdateLogs are the three logs a merge of the pact's log reads.
type UpdateLogs struct {
	MergeBase, Base, Head []byte
}

// UpdateNeed names the fact DecideUpdate needs next.
type UpdateNeed int

// The facts of an update, in the order they are asked.
const (
	UpdateNeedNothing UpdateNeed = iota // decided
	UpdateNeedChanges                   // MergeBase, and Base and Head (or DiffTooLarge)
	UpdateNeedLogs                      // Logs
)

// UpdateDecision is what to do for one pull request: ask for a fact
// (Need), leave it alone silently (Skip says why, for the job log), say
// once why the bot does not update it (Reply, keyed by Marker), or write
// the merge commit: the head's entry at every path in TakeHead, the pact's
// merged log and STATE.yml at LogPath and StatePath when Log is set, over
// the base's tip's tree, with Message.
type UpdateDecision struct {
	Need UpdateNeed
	Skip string
	// Reply says why the bot leaves the update to the author, with the
	// commands to run; Marker is hidden in it so that the same reply is
	// not posted again for the same head and base.
	Reply, Marker string
	TakeHead      []string
	// Log is the merged log in parts (projection.Merged.Parts: the base's
	// log as it was read, then the branch's lines, never joined) and State
	// its render (nil: the pact's files need no merge; the base's tip's
	// stand).
	LogPath, StatePath string
	Log                [][]byte
	State              []byte
	Message            string
	// Merged is the merge of the logs (its counts, for the job log).
	Merged *projection.Merged
}

// maxConflictPaths bounds the paths a reply names.
const maxConflictPaths = 20

// DecideUpdate decides one pull request's update from f, asking for the
// facts it lacks in turn (UpdateDecision.Need):
//
//	for d := bot.DecideUpdate(f); d.Need != bot.UpdateNeedNothing; d = bot.DecideUpdate(f) {
//		gather(d, &f) // one question to GitHub
//	}
//
// A fork's branch is never written: the token cannot push there; nor the
// default branch; and only the default branch is merged into another. A path
// both sides changed to different entries is a real conflict unless it
// is the pact's log or STATE.yml; a file one side puts where the other
// needs a directory is one too. The pact's log is merged only when it is
// a regular file on both sides; MergeLogs' real conflicts are the
// author's, with their reason.
func DecideUpdate(f UpdateFacts) UpdateDecision {
	pr := f.PR
	layout := pactfile.Layout(f.PactDir)
	d := UpdateDecision{Marker: updateMarker(pr.HeadSHA, pr.BaseRef), LogPath: layout.Log(), StatePath: layout.State()}
	switch {
	case pr.Fork:
		d.Reply = updateFork(pr.BaseRef, pr.HeadRef)
		return d
	case pr.HeadRef == f.DefaultBranch:
		d.Skip = "its head is the default branch, which the bot never writes"
		return d
	case pr.BaseRef != f.DefaultBranch:
		// Anyone who can push creates branches, and may open a pull
		// request from any branch of the repository (a teammate's, say)
		// into one of theirs: merging such a base would write their code
		// onto a branch they did not push, under the bot's name. Only the
		// default branch's tip, which nobody the check stops can push, is
		// ever merged (docs/security.md, "Bringing a branch up to date").
		d.Skip = "its base " + pr.BaseRef + " is not the default branch, the only branch the bot merges into others (anyone who can push can create a base and point a pull request from any branch at it); its author brings it up to date"
		return d
	}
	switch {
	case f.DiffTooLarge:
		d.Reply = UpdateCannot(pr.BaseRef, pr.HeadRef, updateWhyTooLarge)
		return d
	case f.Base == nil || f.Head == nil:
		d.Need = UpdateNeedChanges
		return d
	}
	conflicts, pact := bothChanged(f.Base, f.Head, d.LogPath, d.StatePath)
	conflicts = append(conflicts, clashes(f.Base, f.Head)...)
	if len(conflicts) > 0 {
		slices.Sort(conflicts)
		conflicts = slices.Compact(conflicts)
		d.Reply = updateConflict(pr.BaseRef, pr.HeadRef, firstN(conflicts, maxConflictPaths), max(0, len(conflicts)-maxConflictPaths), pact)
		return d
	}
	if !pact {
		d.Skip = "GitHub says it conflicts with its base, but no path is changed by both: the conflict is not the pact's (a rename, say), so it is left to its author"
		return d
	}
	for _, side := range []checks.Change{f.Base, f.Head} {
		if c, ok := side[d.LogPath]; ok && !checks.EntryIsFile(c.After) {
			d.Reply = updateConflict(pr.BaseRef, pr.HeadRef, []string{d.LogPath}, 0, true)
			return d
		}
	}
	if f.Logs == nil {
		d.Need = UpdateNeedLogs
		return d
	}
	if f.Logs.Base == nil || f.Logs.Head == nil {
		// A merge would create the log, or bring back one a side deleted.
		d.Reply = UpdateCannot(pr.BaseRef, pr.HeadRef, updateWhyNoLog)
		return d
	}
	merged, err := projection.MergeLogs(f.Logs.MergeBase, f.Logs.Base, f.Logs.Head)
	var conflict *projection.MergeConflict
	switch {
	case errors.As(err, &conflict):
		d.Reply = updatePactConflict(pr.BaseRef, pr.HeadRef, d.LogPath, conflict.Explain("the merge base", pr.BaseRef, "this branch"))
		return d
	case err != nil:
		d.Reply = UpdateCannot(pr.BaseRef, pr.HeadRef, updateWhyUnreadable(err))
		return d
	case merged.Result.Unsupported != nil:
		d.Reply = UpdateCannot(pr.BaseRef, pr.HeadRef, updateWhyVersion)
		return d
	}
	d.Merged, d.Log, d.State = merged, merged.Parts(), projection.RenderBytes(merged.Result.State)
	for p := range f.Head {
		if _, both := f.Base[p]; !both && p != d.LogPath && p != d.StatePath {
			d.TakeHead = append(d.TakeHead, p)
		}
	}
	slices.Sort(d.TakeHead)
	d.Message = updateMessage(pr.BaseRef, pr.HeadRef, merged.Added)
	return d
}

// bothChanged lists the paths base and head both changed to different
// entries, but the pact's log and STATE.yml; pact says one of those two
// was changed by both (the merge then needs the logs).
func bothChanged(base, head checks.Change, logPath, statePath string) (conflicts []string, pact bool) {
	for p, h := range head {
		b, ok := base[p]
		switch {
		case !ok:
		case p == logPath || p == statePath:
			pact = pact || b.After != h.After
		case b.After != h.After:
			conflicts = append(conflicts, p)
		}
	}
	return conflicts, pact
}

// clashes lists the paths where one side leaves a file (or link, or
// submodule) and the other needs a directory: no path is changed by both,
// yet the two trees do not merge. Each side's own tree is whole, so a
// clash needs a change on each side.
func clashes(base, head checks.Change) []string {
	var out []string
	for _, sides := range [][2]checks.Change{{base, head}, {head, base}} {
		for p, c := range sides[0] {
			if c.After == "" {
				continue
			}
			for dir := parent(p); dir != ""; dir = parent(dir) {
				if o, ok := sides[1][dir]; ok && o.After != "" {
					out = append(out, dir)
				}
			}
		}
	}
	return out
}

func parent(p string) string {
	i := strings.LastIndexByte(p, '/')
	if i < 0 {
		return ""
	}
	return p[:i]
}

func firstN(s []string, n int) []string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// updateMessage is the merge commit's message: git's own first line, and
// what the bot did.
func updateMessage(baseRef, headRef string, added int) string {
	return fmt.Sprintf("Merge branch '%s' into %s\n\nBrought up to date by pact-action: the only paths both branches changed were the pact's. "+
		"Its log is %s's with this branch's %d new line(s) after it (docs/semantics.md §8), STATE.yml is rendered from it, and every other path is as the one branch that changed it left it.",
		baseRef, headRef, baseRef, added)
}
