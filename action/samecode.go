package action

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"

	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/config"
	"github.com/pact-action/pact-action/ghapi"
	"github.com/pact-action/pact-action/internal/prose"
)

// Same code (docs/semantics.md §5 "Same code"): two commits hold the same
// code when their trees outside the pact directory are identical, by git
// object ids (files, modes, links and submodules). codeIdentity.same is
// the one place that decides it, and every question of sameness asks it:
// a comment's backing, an accept's coverage under stale: tree, the fresh
// review that renews one, the bot's refusal to write on a branch that
// moved, and whether a pull request changes code (unmapped-branches:
// block). A comparison of two commits may name the files that changed for
// a message; it never decides: a three-dot comparison is empty whenever
// the second commit is an ancestor of the first, whatever the code.

// codeIDReader is what code identity asks GitHub: the code identities of
// commits, and under stale: change their merge bases with the default
// branch's tip and what they change against them.
type codeIDReader interface {
	CodeIDs(ctx context.Context, dir string, commits ...string) (map[string]string, error)
	MergeBase(ctx context.Context, base, head string) (string, error)
	CompareCommits(ctx context.Context, base, head string) (ghapi.Divergence, error)
	Diff(ctx context.Context, dir string, pairs ...ghapi.DiffPair) (map[ghapi.DiffPair][]ghapi.PathChange, error)
}

// codeIdentity answers "same code?" for one judgement (or one bot run),
// caching GitHub's answers per commit. Under stale: change it answers
// "same change?" instead (docs/semantics.md §8), wherever it is asked.
type codeIdentity struct {
	gh  codeIDReader
	dir string
	// ids are the code identities of the commits GitHub knows among those
	// asked.
	ids   map[string]string
	asked map[string]bool
	// change is set under stale: change.
	change *changeIdentity
}

// changeIdentity is what "same change?" measures against: the default
// branch's tip when the run read the configuration, and what was learnt.
type changeIdentity struct {
	defaultTip string
	// found are merge bases with defaultTip the judgement read already
	// (GitHub's answer, before oneMergeBase weighs it).
	found map[string]string
	// bases maps a commit to its merge base with defaultTip ("" when GitHub
	// cannot tell); changes, a pair to what it changes.
	bases   map[string]string
	changes map[ghapi.DiffPair]checks.Change
}

// newCodeIdentity answers "same code?" by trees, whatever the stale
// policy: for questions that are not of coverage (does a pull request
// change code at all?).
func newCodeIdentity(gh codeIDReader, s settings) *codeIdentity {
	return &codeIdentity{gh: gh, dir: s.pactDir(), ids: map[string]string{}, asked: map[string]bool{}}
}

// newSameness answers the question coverage, a fresh review, a comment's
// backing and the bot's "branch moved" refusal ask, under the stale
// policy: same change under change (measured against defaultTip, the
// default branch's tip the run read with the configuration), same code
// under every other.
func newSameness(gh codeIDReader, s settings, stale config.Stale, defaultTip string) *codeIdentity {
	c := newCodeIdentity(gh, s)
	if stale == config.StaleChange {
		c.change = &changeIdentity{defaultTip: defaultTip, found: map[string]string{}, bases: map[string]string{}, changes: map[ghapi.DiffPair]checks.Change{}}
	}
	return c
}

// knowMergeBase tells a sameness under stale: change GitHub's merge base
// of commit and the default branch's tip, which the judgement read
// already (it still weighs whether it is the only one).
func (c *codeIdentity) knowMergeBase(commit, mergeBase string) {
	if c.change != nil && commitSHA.MatchString(commit) && commitSHA.MatchString(mergeBase) {
		c.change.found[commit] = mergeBase
	}
}

// ask reads the code identities of the commits not asked before, in one
// request; a string that is not a commit id is never sent (it names no
// commit GitHub knows).
func (c *codeIdentity) ask(ctx context.Context, commits ...string) error {
	var want []string
	for _, sha := range commits {
		if !c.asked[sha] && commitSHA.MatchString(sha) {
			c.asked[sha] = true
			want = append(want, sha)
		}
	}
	if len(want) == 0 {
		return nil
	}
	ids, err := c.gh.CodeIDs(ctx, c.dir, want...)
	if err != nil {
		for _, sha := range want {
			delete(c.asked, sha)
		}
		return fmt.Errorf("compare the code of %s: %w", prose.List(shortAll(want), 3), err)
	}
	for _, sha := range want {
		if id, ok := ids[sha]; ok {
			c.ids[sha] = id
		}
	}
	return nil
}

// known reports whether GitHub knows commit sha (asked before).
func (c *codeIdentity) known(sha string) bool {
	_, ok := c.ids[sha]
	return ok
}

// same reports whether commits a and b hold the same code: the same
// commit id (no request), or two commits GitHub knows whose trees agree on
// every entry outside the pact directory. A commit GitHub does not know
// holds the code of no other commit. Under stale: change it reports
// whether they make the same change (sameChange).
func (c *codeIdentity) same(ctx context.Context, a, b string) (bool, error) {
	if a == b && commitSHA.MatchString(a) {
		return true, nil
	}
	if c.change != nil {
		same, _, err := c.sameChange(ctx, a, b)
		return same, err
	}
	if err := c.ask(ctx, a, b); err != nil {
		return false, err
	}
	return c.known(a) && c.known(b) && c.ids[a] == c.ids[b], nil
}

// sameChange reports whether a and b make the same change (docs/semantics.md
// §8): the paths outside the pact directory whose entries differ between
// each commit and its merge base with the default branch's tip, with the
// commit's entries. The merge bases are GitHub's, from the default
// branch's tip the run read with the configuration: never a pull
// request's base, which its author may have created. When it is not the
// same change, differ names the paths where the two changes part (at most
// a few hundred; nil when GitHub cannot tell). Two commits GitHub does not
// know, or cannot find a merge base for, make no change in common.
func (c *codeIdentity) sameChange(ctx context.Context, a, b string) (same bool, differ []string, err error) {
	if a == b && commitSHA.MatchString(a) {
		return true, nil, nil
	}
	ma, err := c.mergeBase(ctx, a)
	if err != nil {
		return false, nil, err
	}
	mb, err := c.mergeBase(ctx, b)
	if err != nil {
		return false, nil, err
	}
	if ma == "" || mb == "" {
		return false, nil, nil
	}
	// The same code on the same code: no need to list the change.
	if err := c.ask(ctx, a, b, ma, mb); err != nil {
		return false, nil, err
	}
	for _, sha := range []string{a, b, ma, mb} {
		if !c.known(sha) {
			return false, nil, nil
		}
	}
	if c.ids[a] == c.ids[b] && c.ids[ma] == c.ids[mb] {
		return true, nil, nil
	}
	pa, pb := ghapi.DiffPair{From: ma, To: a}, ghapi.DiffPair{From: mb, To: b}
	var want []ghapi.DiffPair
	for _, p := range []ghapi.DiffPair{pa, pb} {
		if _, ok := c.change.changes[p]; !ok && !slices.Contains(want, p) {
			want = append(want, p)
		}
	}
	if len(want) > 0 {
		got, err := c.gh.Diff(ctx, c.dir, want...)
		if errors.Is(err, ghapi.ErrDiffTooLarge) {
			slog.Warn("the change is too large to compare; it covers nothing", "commits", prose.List(shortAll([]string{a, b}), 2), "err", err)
			return false, nil, nil
		}
		if err != nil {
			return false, nil, fmt.Errorf("tell what %s change: %w", prose.List(shortAll([]string{a, b}), 2), err)
		}
		for _, p := range want {
			d, ok := got[p]
			if !ok {
				return false, nil, nil
			}
			c.change.changes[p] = changeOf(d)
		}
	}
	same, differ = checks.SameChange(c.change.changes[pa], c.change.changes[pb])
	return same, differ, nil
}

// changeOf is a diff GitHub listed, as the engine weighs it.
func changeOf(paths []ghapi.PathChange) checks.Change {
	out := make(checks.Change, len(paths))
	for _, p := range paths {
		out[p.Path] = checks.PathChange{Before: gitEntry(p.Before), After: gitEntry(p.After)}
	}
	return out
}

// gitEntry writes an entry as checks.Change does: "" for none.
func gitEntry(e ghapi.GitEntry) string {
	if e.Absent() {
		return ""
	}
	return checks.Entry(e.Mode, e.Type, e.OID)
}

// mergeBase is sha's merge base with the default branch's tip ("" when
// GitHub cannot tell: a commit it does not know, no history in common, or
// more than one merge base, see oneMergeBase).
func (c *codeIdentity) mergeBase(ctx context.Context, sha string) (string, error) {
	if !commitSHA.MatchString(sha) {
		return "", nil
	}
	if mb, ok := c.change.bases[sha]; ok {
		return mb, nil
	}
	mb, known := c.change.found[sha]
	if !known {
		var err error
		mb, err = c.gh.MergeBase(ctx, c.change.defaultTip, sha)
		switch {
		case errors.Is(err, ghapi.ErrNotFound):
			mb = ""
		case err != nil:
			return "", fmt.Errorf("find where %s meets the default branch: %w", prose.ShortSHA(sha), err)
		}
	}
	if mb != "" {
		one, err := c.oneMergeBase(ctx, mb, sha)
		if err != nil {
			return "", fmt.Errorf("find where %s meets the default branch: %w", prose.ShortSHA(sha), err)
		}
		if !one {
			slog.Warn("a commit meets the default branch at more than one merge base, or GitHub cannot tell; its change covers nothing", "commit", sha, "merge_base", mb)
			mb = ""
		}
	}
	c.change.bases[sha] = mb
	return mb, nil
}

// maxBaseRoots bounds the commits oneMergeBase asks GitHub about.
const maxBaseRoots = 10

// oneMergeBase reports whether mb, GitHub's merge base of sha and the
// default branch's tip, is their only one. GitHub names one merge base,
// but where there are several (a criss-cross: sha merged a branch that
// the default branch merged too, over another commit), git merges sha
// from all of them at once, and a change measured from the one GitHub
// names can hide what the merge does: a branch that merged the default
// branch's fix with its code thrown away changes nothing against the
// other merge base, yet its merge reverts the fix. There is another merge
// base exactly when a commit that sha has and mb lacks is on the default
// branch too; and then so is one of the first of those commits (whose
// parents mb has), so only they are asked: one comparison, and a merge
// base per such commit, usually one. Past GitHub's listing of the
// comparison or maxBaseRoots first commits, it cannot tell: false.
func (c *codeIdentity) oneMergeBase(ctx context.Context, mb, sha string) (bool, error) {
	if mb == sha || mb == c.change.defaultTip {
		return true, nil // sha or the tip holds the other: one merge base
	}
	d, err := c.gh.CompareCommits(ctx, mb, sha)
	switch {
	case errors.Is(err, ghapi.ErrNotFound):
		return false, nil
	case err != nil:
		return false, err
	case d.AheadBy > len(d.Commits):
		return false, nil
	}
	after := make(map[string]bool, len(d.Commits))
	for _, x := range d.Commits {
		after[x] = true
	}
	var first []string
	for _, x := range d.Commits {
		if !slices.ContainsFunc(d.Parents[x], func(p string) bool { return after[p] }) {
			first = append(first, x)
		}
	}
	if len(first) > maxBaseRoots {
		return false, nil
	}
	for _, x := range first {
		xb, err := c.gh.MergeBase(ctx, c.change.defaultTip, x)
		if err != nil && !errors.Is(err, ghapi.ErrNotFound) {
			return false, err
		}
		if xb == x {
			return false, nil // x is on the default branch: another merge base
		}
	}
	return true, nil
}
