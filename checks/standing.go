package checks

import (
	"fmt"
	"sort"
	"strings"

	"github.com/pact-action/pact-action/ghfacts"
)

// StandingDecision says whether review id, among a pull request's reviews
// (keyed by id), is still its author's standing decision, and why not: the
// review must exist and not be dismissed, and the author's latest review
// that is a decision (not a comment, not pending) must decide the same way
// (approve, or request changes). An approval that the reviewer later
// overrode by requesting changes, or that was dismissed, backs nothing;
// two approvals in a row both stand. The bot asks this before it records a
// review, and the provenance rule before it counts one as evidence.
func StandingDecision(reviews map[int64]ghfacts.Review, id int64) string {
	r, ok := reviews[id]
	switch {
	case !ok || !r.Found:
		return fmt.Sprintf("review %d does not exist on this pull request", id)
	case r.State == ghfacts.ReviewDismissed:
		return fmt.Sprintf("review %d by %s was dismissed", id, provAccount(r.AuthorLogin))
	case !isDecision(r.State):
		return fmt.Sprintf("review %d by %s is %s, not a decision", id, provAccount(r.AuthorLogin), strings.ToLower(r.State))
	}
	ids := make([]int64, 0, len(reviews))
	for other, o := range reviews {
		if o.Found && strings.EqualFold(o.AuthorLogin, r.AuthorLogin) && (isDecision(o.State) || o.State == ghfacts.ReviewDismissed) {
			ids = append(ids, other)
		}
	}
	sort.Slice(ids, func(a, b int) bool {
		ta, tb := reviews[ids[a]].SubmittedAt, reviews[ids[b]].SubmittedAt
		if !ta.Equal(tb) {
			return ta.Before(tb)
		}
		return ids[a] < ids[b]
	})
	latestID := ids[len(ids)-1]
	if latest := reviews[latestID]; latest.State != r.State {
		return fmt.Sprintf("review %d by %s was overridden by their later review %d, which is %s", id, provAccount(r.AuthorLogin), latestID, strings.ToLower(latest.State))
	}
	return ""
}

func isDecision(state string) bool {
	return state == ghfacts.ReviewApproved || state == ghfacts.ReviewChangesRequested
}
