package ghapi

import (
	"testing"

	"github.com/google/go-github/v60/github"

	"github.com/pact-action/pact-action/ghfacts"
)

// The review states have one case, ghfacts' constants; GitHub's answer is
// brought to it here, whatever case it came in, so that the standing
// decision, coverage and the bot compare states exactly.
func TestReviewFactStateHasOneCase(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"APPROVED": ghfacts.ReviewApproved, "approved": ghfacts.ReviewApproved,
		"Changes_Requested": ghfacts.ReviewChangesRequested, "dismissed": ghfacts.ReviewDismissed,
		"commented": ghfacts.ReviewCommented, "PENDING": ghfacts.ReviewPending,
	} {
		if got := reviewFrom(&github.PullRequestReview{ID: github.Int64(1), State: github.String(in)}); got.State != want || !got.Found || got.ID != 1 {
			t.Errorf("reviewFrom(%q) = %+v, want state %q, found under its id", in, got, want)
		}
	}
}
