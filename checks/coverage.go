package checks

import (
	"fmt"
	"sort"

	"github.com/pact-action/pact-action/config"
	"github.com/pact-action/pact-action/ghfacts"
	"github.com/pact-action/pact-action/internal/prose"
	"github.com/pact-action/pact-action/projection"
)

// Coverage (docs/semantics.md §5): an accept covers the code it was given
// on, never a branch name. For every feature a pull request ships, a task
// counts as accepted only when its accept covers the pull request's head
// under the stale policy, wherever the accept's line came from (the merge
// base's log or the pull request's own lines):
//
//   - tree: the files outside the pact directory at the accept's anchor
//     (payload.commit, or the parent of the commit that added its line) are
//     the head's;
//   - push: no commit came after the anchor other than the one that
//     recorded the accept;
//   - change: the pull request's change against the default branch (every
//     path outside the pact directory whose entry differs between a commit
//     and its merge base with the default branch's tip, with the commit's
//     entry) is the anchor's (docs/semantics.md §8), so that a merge of
//     the default branch touching none of its paths keeps the accept;
//   - sticky: every accept covers.
//
// An anchor GitHub no longer knows does not cover. Since a second accept of
// an accepted task is not a valid transition, the way back is a fresh
// review: the standing GitHub approval of an account that may review the
// task, given on a commit with the head's code outside the pact directory.
// It renews the accept's coverage without a new line.
//
// uncovered is the one predicate; provenance (provenance.stale on the
// accepts a pull request adds) and Rule 2 (pr.unaccepted_feature) both ask
// it, and the gatherer asks Covers to know when a fresh review is worth
// looking for.

// Covers reports whether an accept with these facts covers the head under
// policy; headCode says which commits hold the head's files outside the
// pact directory (a commit absent holds other code, or was not asked).
func Covers(policy config.Stale, sf StaleFacts, headCode map[string]bool) bool {
	msg, _ := uncovered(policy, sf, headCode, "")
	return msg == ""
}

// uncovered says why an accept does not cover the head ("" when it does):
// a sentence for a provenance.stale finding, and a short reason for the
// waiting message ("… because <reason>").
func uncovered(policy config.Stale, sf StaleFacts, headCode map[string]bool, pactDir string) (msg, reason string) {
	if policy == config.StaleSticky {
		return "", ""
	}
	anchor := prose.ShortSHA(sf.Anchor)
	switch {
	case sf.Anchor == "" && sf.AnchorWhy != "":
		return "the commit it was given on cannot be told: " + sf.AnchorWhy, "the commit its accept was given on cannot be told"
	case sf.Anchor == "":
		return "it does not record the commit it was given on (payload.commit), so the code it covers cannot be told", "its accept records no commit"
	case sf.Missing:
		return fmt.Sprintf("it was given on commit %s, which GitHub does not know (a force-push may have dropped it)", anchor),
			fmt.Sprintf("the commit %s its accept was given on is gone", anchor)
	}
	if policy == config.StalePush {
		if sf.Behind > 0 {
			return fmt.Sprintf("it was given on commit %s, and the head lacks %s of its history (the branch was reset or rebased; provenance stale: push)", anchor, prose.Plural(sf.Behind, "commit")),
				fmt.Sprintf("the head does not build on %s, the commit its accept was given on", anchor)
		}
		if len(sf.After) == 0 {
			return "", ""
		}
		return fmt.Sprintf("it was given on commit %s and %s came after it: %s (provenance stale: push)", anchor, prose.Plural(len(sf.After), "commit"), provList(sf.After, 5)),
			fmt.Sprintf("%s (%s) came after the accept on %s", prose.Plural(len(sf.After), "commit"), provList(sf.After, 3), anchor)
	}
	if headCode[sf.Anchor] {
		return "", ""
	}
	if policy == config.StaleChange {
		return changed(sf, anchor, pactDir)
	}
	if len(sf.Changed) == 0 && !sf.Truncated {
		return fmt.Sprintf("it was given on commit %s, whose files outside %s are not the head's (no commit of this pull request after it made the change; the branch was rebased or its history rewritten)", anchor, pactDir),
			fmt.Sprintf("the code differs from %s, the commit its accept was given on", anchor)
	}
	files := provList(sf.Changed, 5)
	changed := provList(sf.Changed, 3)
	if sf.Truncated {
		files += " (GitHub's comparison was cut short, so there may be more)"
		changed += " and more"
	}
	msg = fmt.Sprintf("it was given on commit %s, and files outside %s changed since: %s", anchor, pactDir, files)
	switch {
	case len(sf.Touching) > 0:
		msg += "; changed by " + provList(sf.Touching, 5)
		if sf.Unexamined > 0 {
			msg += fmt.Sprintf(" (and %s not examined)", prose.Plural(sf.Unexamined, "later commit"))
		}
	case sf.Unexamined > 0:
		msg += fmt.Sprintf("; %s after it were not examined one by one", prose.Plural(sf.Unexamined, "commit"))
	default:
		msg += " (no commit of this pull request after it made the change; the branch was rebased or its history rewritten)"
	}
	return msg, fmt.Sprintf("%s changed since the accept on %s", changed, anchor)
}

// changed says why an accept does not cover the head under stale: change:
// the pull request's change against the default branch is not the one
// accepted (docs/semantics.md §8).
func changed(sf StaleFacts, anchor, pactDir string) (msg, reason string) {
	if len(sf.Changed) == 0 {
		return fmt.Sprintf("it was given on commit %s, and the pull request's change outside %s against the default branch cannot be compared with the one accepted (GitHub cannot tell where one of them meets the default branch, or one meets it at more than one merge base, or the change is too large to compare; provenance stale: change)", anchor, pactDir),
			fmt.Sprintf("the change cannot be compared with the one accepted on %s", anchor)
	}
	paths := provList(sf.Changed, 5)
	if sf.Truncated {
		paths += " and more"
	}
	return fmt.Sprintf("it was given on commit %s, and the pull request's change outside %s against the default branch is no longer the one accepted: it differs at %s (provenance stale: change)", anchor, pactDir, paths),
		fmt.Sprintf("the change at %s differs from the one accepted on %s", provList(sf.Changed, 3), anchor)
}

// shippedAtBase lists the features the merge base's log (baseLog; nil:
// none) had shipped among those on the branches, replaying it only when
// the head's replay has shipped one of them: only then can it differ from
// what the head says.
func shippedAtBase(head *projection.State, baseLog []byte, branches []string) map[string]bool {
	if head == nil || baseLog == nil {
		return nil
	}
	var base *projection.State
	out := map[string]bool{}
	for _, b := range branches {
		for _, f := range head.FeaturesOnBranch(b) {
			if !head.Features[f].Shipped {
				continue
			}
			if base == nil {
				_, res := projection.ReadBytes(baseLog, projection.ReadOptions{})
				base = res.State
			}
			if bf := base.Features[f]; bf != nil && bf.Shipped {
				out[f] = true
			}
		}
	}
	return out
}

// shipping lists the features a pull request from branch ships: each with
// a task on it that the merge base had not shipped (shippedAtBase). One
// the head's replay has shipped is still the pull request's when it adds
// the merge event itself, and stays subject to Rule 2 and coverage
// (docs/semantics.md §5 "Coverage").
func shipping(st *projection.State, branch string, shippedAtBase map[string]bool) []string {
	var out []string
	for _, f := range st.FeaturesOnBranch(branch) {
		if !shippedAtBase[f] {
			out = append(out, f)
		}
	}
	return out
}

// ShippedAccepts lists the accepted tasks of the features a pull request
// from these branches ships (shipping), in assign order: the tasks whose
// accepts must cover its head.
func ShippedAccepts(st *projection.State, branches []string, shippedAtBase map[string]bool) []*projection.Task {
	if st == nil {
		return nil
	}
	var out []*projection.Task
	seen := map[string]bool{}
	for _, b := range branches {
		for _, f := range shipping(st, b, shippedAtBase) {
			for _, id := range st.Features[f].Tasks {
				if t := st.Tasks[id]; t.Status == projection.StatusAccepted && !seen[id] {
					seen[id] = true
					out = append(out, t)
				}
			}
		}
	}
	return out
}

// freshReview finds the review that renews the coverage of t's accept: the
// standing approval (StandingDecision) of an account that may review t
// (config.ReviewRight: it holds t's reviewer seat and not its owner's),
// given on a commit that holds the head's code. It returns the earliest
// such review's id (0: none).
func (j judge) freshReview(t *projection.Task) int64 {
	var ids []int64
	for id, r := range j.in.Reviews {
		if r.Found && r.State == ghfacts.ReviewApproved && j.in.HeadCode[r.CommitID] &&
			j.cfg.ReviewRight(r.AuthorLogin, t.Owner, t.Reviewer) == config.MayReview && StandingDecision(j.in.Reviews, id) == "" {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return 0
	}
	sort.Slice(ids, func(a, b int) bool { return ids[a] < ids[b] })
	return ids[0]
}

// cover judges whether t's accept covers the head (its facts gathered, by
// its line; none gathered: nothing to judge), recording in res a fresh
// review that renews it, and says why not ("" when it covers).
func (j judge) cover(t *projection.Task, res *provenanceResult) (msg, reason string) {
	sf, ok := j.in.Stale[t.AcceptLine]
	if !ok {
		return "", ""
	}
	msg, reason = uncovered(j.cfg.Provenance.Stale, sf, j.in.HeadCode, j.pactDir())
	if msg == "" {
		return "", ""
	}
	if id := j.freshReview(t); id != 0 {
		res.Renewed[t.ID] = id
		return "", ""
	}
	return msg, reason
}

// baseCoverage judges the accepts a pull request ships without adding
// them (their lines are in the merge base's log): under require an accept
// that does not cover the head leaves its task waiting for a fresh review;
// under warn it is a provenance.stale warning, into found.
func (j judge) baseCoverage(added map[int]bool, res *provenanceResult, found *listing) {
	for _, t := range ShippedAccepts(j.in.State, j.in.Branches, j.in.ShippedAtBase) {
		if added[t.AcceptLine] {
			continue // judged with the lines the pull request adds
		}
		msg, reason := j.cover(t, res)
		if msg == "" {
			continue
		}
		if j.require {
			res.NotAccepted[t.ID] = reason
			continue
		}
		f := newFinding(CodeProvenanceStale, j.in.LogPath, t.AcceptLine, fmt.Sprintf(
			"the accept of %s on line %d, recorded before this pull request, does not cover its head: %s.", t.ID, t.AcceptLine, msg))
		f.TaskID, f.Feature = t.ID, t.Feature
		f.Severity = SeverityWarning
		f.Hint = freshReviewHint(t, j.cfg.LoginsOf(t.Reviewer))
		found.add(f)
	}
}
