package action

import (
	"errors"
	"fmt"
	"strings"

	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/config"
	"github.com/pact-action/pact-action/ghapi"
	"github.com/pact-action/pact-action/ghfacts"
	"github.com/pact-action/pact-action/internal/prose"
	"github.com/pact-action/pact-action/projection"
)

// Coverage (checks/coverage.go): for each accept a pull request adds or
// ships, the commit it was given on, the commits after it, whether the
// head holds that commit's code, what changed and who changed it; and,
// when some accept no longer covers the head, the reviews whose approvals
// may renew it.

// coverAccept is one accept whose coverage is judged: its line, the commit
// it was given on ("" and why when that cannot be told) and the commit that
// recorded it.
type coverAccept struct {
	line               int
	anchor, why, intro string
}

// coverage gathers the coverage facts of the accepts the pull request adds
// (added: those its replay applied, with the commits that added them) and
// of those of the merge base's log that it ships (shipped), into pin.Stale
// and pin.HeadCode; it lists the reviews (once) only when some accept does
// not cover the head.
//
// API calls: one code-identity request for the head and every anchor
// (stale: tree), one comparison per anchor whose code differs (to name the
// files) plus at most maxStaleCompares to name the commits that changed
// them; for an accept of the merge base's log that records no commit, the
// commit that added it is looked up from the merge base back (bounded by
// maxCommitFetches and maxLogReads); and when a fresh review may renew an
// accept, the reviews listed and one code-identity request for the commits
// they approved.
func (g *gatherer) coverage(added []addedAccept, shipped []shippedAccept, pin *checks.ProvenanceInput) error {
	policy := g.in.Config.Provenance.Stale
	if policy == config.StaleSticky {
		return nil
	}
	var accepts []coverAccept
	for _, a := range added {
		parent := ""
		if m, ok := g.meta[a.intro]; ok && len(m.Parents) > 0 {
			parent = m.Parents[0]
		}
		ev := &projection.Event{Line: a.line, Payload: projection.Payload{Commit: a.commit, GitHub: a.github}}
		accepts = append(accepts, coverAccept{line: a.line, anchor: checks.AcceptAnchor(ev, pin.Reviews, parent), intro: a.intro})
	}
	for _, a := range shipped {
		ca := coverAccept{line: a.line, anchor: a.commit}
		if ca.anchor == "" {
			// Given on the parent of the commit that added the line, which
			// is in the base branch's history (docs/semantics.md §5).
			sha, why, err := g.introducer(g.in.MergeBase, a.key, int(a.occurrence))
			switch {
			case err != nil:
				return err
			case sha == "":
				ca.why = "the commit that recorded it cannot be found (" + why + ")"
			case len(g.meta[sha].Parents) == 0:
				ca.why = fmt.Sprintf("commit %s that recorded it has no parent", prose.ShortSHA(sha))
			default:
				ca.intro, ca.anchor = sha, g.meta[sha].Parents[0]
			}
		}
		accepts = append(accepts, ca)
	}
	if len(accepts) == 0 {
		return nil
	}
	capAnchors(accepts)
	if policy == config.StaleTree || policy == config.StaleChange {
		anchors := []string{g.head}
		for _, a := range accepts {
			anchors = append(anchors, a.anchor)
		}
		if err := g.codeOf(pin, anchors...); err != nil {
			return err
		}
	}
	renewable := false
	// The facts of one anchor and recording commit are the same for every
	// accept that has them, and shared: a list of the commits after an
	// anchor for each of tens of thousands of accepts would hold more than
	// the log (docs/semantics.md §7).
	facts := map[[2]string]checks.StaleFacts{}
	for _, a := range accepts {
		key := [2]string{a.anchor, a.intro}
		sf, ok := facts[key]
		if !ok {
			var err error
			if sf, err = g.staleFacts(policy, a.anchor, a.intro); err != nil {
				return err
			}
			facts[key] = sf
		}
		sf.AnchorWhy = a.why
		pin.Stale[a.line] = sf
		renewable = renewable || !checks.Covers(policy, sf, pin.HeadCode)
	}
	if !renewable {
		return nil
	}
	if err := g.listReviews(pin); err != nil {
		return err
	}
	approved := []string{g.head}
	for _, r := range pin.Reviews {
		if strings.EqualFold(r.State, ghfacts.ReviewApproved) {
			approved = append(approved, r.CommitID)
		}
	}
	return g.codeOf(pin, approved...)
}

// capAnchors leaves the accepts given on the first maxAnchors distinct
// commits as they are, and says of the others that the commit they were
// given on cannot be told: they cover nothing (fail closed).
func capAnchors(accepts []coverAccept) {
	anchors := map[string]bool{}
	why := fmt.Sprintf("the accepts this pull request adds or ships were given on more than %d commits, and coverage is judged on the first %d", maxAnchors, maxAnchors)
	for i := range accepts {
		a := &accepts[i]
		if !commitSHA.MatchString(a.anchor) || anchors[a.anchor] {
			continue // never sent to GitHub, or asked already
		}
		if len(anchors) == maxAnchors {
			a.anchor, a.why = "", why
			continue
		}
		anchors[a.anchor] = true
	}
}

// codeOf asks which of the commits hold the head's code (codeIdentity,
// one request for those not asked before), into pin.HeadCode.
func (g *gatherer) codeOf(pin *checks.ProvenanceInput, commits ...string) error {
	if err := g.code.ask(g.ctx, append([]string{g.head}, commits...)...); err != nil {
		return err
	}
	for _, c := range commits {
		if !commitSHA.MatchString(c) {
			continue
		}
		same, err := g.code.same(g.ctx, c, g.head)
		if err != nil {
			return err
		}
		pin.HeadCode[c] = same
	}
	return nil
}

func shortAll(shas []string) []string {
	out := make([]string, len(shas))
	for i, s := range shas {
		out[i] = prose.ShortSHA(s)
	}
	return out
}

// listReviews puts the pull request's reviews, from the run's one source
// (facts.go), into pin, keeping what was learnt of those already there.
func (g *gatherer) listReviews(pin *checks.ProvenanceInput) error {
	reviews, err := g.in.Run.facts.Reviews(g.ctx, g.gh, g.in.PR.Number)
	if err != nil {
		return err
	}
	for id, r := range reviews {
		if _, ok := pin.Reviews[id]; !ok {
			pin.Reviews[id] = r
		}
	}
	return nil
}

// staleFacts gathers what the coverage of an accept given on anchor and
// recorded by commit intro is judged on. Under tree, the code identity of
// the anchor was asked first (codeOf): an anchor GitHub does not know is
// missing, and the files and commits that changed are named only when the
// anchor's code is not the head's.
func (g *gatherer) staleFacts(policy config.Stale, anchor, intro string) (checks.StaleFacts, error) {
	sf := checks.StaleFacts{Anchor: anchor}
	if anchor == "" {
		return sf, nil
	}
	if !commitSHA.MatchString(anchor) {
		// Never put a string from the log into an API path unchecked.
		sf.Missing = true
		return sf, nil
	}
	switch policy {
	case config.StalePush:
		// The listing of the pull request's commits says what came after
		// an anchor in it (or at the merge base) exactly while it holds the
		// head (GitHub lists at most 250); anywhere else, GitHub compares.
		if !g.listed[g.head] || !g.listed[anchor] && anchor != g.in.MergeBase {
			return g.pushFacts(sf, intro)
		}
	case config.StaleTree:
		if !g.code.known(anchor) {
			sf.Missing = true
			return sf, nil
		}
	case config.StaleChange:
		return g.changeFacts(sf)
	}
	before := g.ancestors(anchor)
	var candidates []string
	for _, sha := range g.order {
		if before[sha] || !g.prCommit(sha) {
			continue
		}
		candidates = append(candidates, sha)
		if sha != intro {
			sf.After = append(sf.After, sha)
		}
	}
	if policy != config.StaleTree {
		return sf, nil
	}
	if same, err := g.code.same(g.ctx, anchor, g.head); err != nil || same {
		return sf, err
	}
	// The code differs; GitHub's comparison only names what changed, for
	// the message (it is empty when the head is an ancestor of the anchor).
	files, err := g.compare(anchor, g.head)
	if err != nil && !errors.Is(err, ghapi.ErrNotFound) {
		return sf, err
	}
	sf.Changed = g.outsidePact(files)
	sf.Truncated = len(files) >= compareFileLimit
	if len(sf.Changed) == 0 && !sf.Truncated {
		return sf, nil
	}
	// Name the commits that changed code: ordinary commits first, merges
	// (whose diff against the first parent repeats the merged commits')
	// only when no ordinary commit did.
	var merges []string
	examine := func(sha string) (bool, error) {
		m := g.meta[sha]
		if len(m.Parents) == 0 {
			return false, nil
		}
		if _, done := g.compared[m.Parents[0]+"..."+sha]; !done && g.compares >= maxStaleCompares {
			sf.Unexamined++
			return false, nil
		}
		files, err := g.compare(m.Parents[0], sha)
		if errors.Is(err, ghapi.ErrNotFound) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		return len(g.outsidePact(files)) > 0, nil
	}
	for _, sha := range candidates {
		if len(g.meta[sha].Parents) > 1 {
			merges = append(merges, sha)
			continue
		}
		touched, err := examine(sha)
		if err != nil {
			return sf, err
		}
		if touched {
			sf.Touching = append(sf.Touching, sha)
		}
	}
	for _, sha := range merges {
		if len(sf.Touching) > 0 {
			break
		}
		touched, err := examine(sha)
		if err != nil {
			return sf, err
		}
		if touched {
			sf.Touching = append(sf.Touching, sha)
		}
	}
	return sf, nil
}

// changeFacts fills in, under stale: change, where the change accepted on
// sf.Anchor and the head's part (docs/semantics.md §8): the paths whose
// change differs, which the message names. The answer is cached from
// codeOf's question.
func (g *gatherer) changeFacts(sf checks.StaleFacts) (checks.StaleFacts, error) {
	same, differ, err := g.code.sameChange(g.ctx, sf.Anchor, g.head)
	switch {
	case err != nil:
		return sf, err
	case !g.code.known(sf.Anchor):
		sf.Missing = true
	case !same:
		sf.Changed = differ
		sf.Truncated = len(differ) >= checks.MaxChangeDifference
	}
	return sf, nil
}

// pushFacts fills in the commits after sf.Anchor (other than intro, the
// one that recorded the accept) from GitHub's comparison of the anchor
// with the head, and how many of the anchor's commits the head lacks.
func (g *gatherer) pushFacts(sf checks.StaleFacts, intro string) (checks.StaleFacts, error) {
	g.compares++
	d, err := g.gh.CompareCommits(g.ctx, sf.Anchor, g.head)
	switch {
	case errors.Is(err, ghapi.ErrNotFound):
		sf.Missing = true
		return sf, nil
	case err != nil:
		return sf, err
	}
	for _, c := range d.Commits {
		if c != intro {
			sf.After = append(sf.After, c)
		}
	}
	if len(sf.After) == 0 && d.AheadBy > len(d.Commits) {
		sf.After = append(sf.After, g.head) // more than GitHub lists
	}
	sf.Behind = d.BehindBy
	return sf, nil
}

// comparison is a cached CompareFiles answer: the files, or the error of a
// commit GitHub does not know.
type comparison struct {
	files []string
	err   error
}

// compare returns the paths changed from base to head, cached per pair.
func (g *gatherer) compare(base, head string) ([]string, error) {
	key := base + "..." + head
	if c, ok := g.compared[key]; ok {
		return c.files, c.err
	}
	g.compares++
	files, err := g.gh.CompareFiles(g.ctx, base, head)
	if err != nil && !errors.Is(err, ghapi.ErrNotFound) {
		return nil, err
	}
	g.compared[key] = comparison{files: files, err: err}
	return files, err
}

func (g *gatherer) outsidePact(files []string) []string {
	var out []string
	for _, f := range files {
		if !g.in.Run.insidePact(f) {
			out = append(out, f)
		}
	}
	return out
}
