package action

import (
	"testing"
	"time"

	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/ghapi"
)

// The review states have one case, checks' constants; GitHub's answer is
// brought to it here, whatever case it came in, so that the standing
// decision, coverage and the bot compare states exactly.
func TestReviewFactStateHasOneCase(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"APPROVED": checks.ReviewApproved, "approved": checks.ReviewApproved,
		"Changes_Requested": checks.ReviewChangesRequested, "dismissed": checks.ReviewDismissed,
		"commented": checks.ReviewCommented, "PENDING": checks.ReviewPending,
	} {
		if got := reviewFact(ghapi.Review{ID: 1, State: in}).State; got != want {
			t.Errorf("reviewFact(%q).State = %q, want %q", in, got, want)
		}
	}
	if got := reviewFacts([]ghapi.Review{{ID: 7, State: "approved"}})[7]; !got.Found || got.ID != 7 {
		t.Errorf("reviewFacts keyed review 7 as %+v, want it found under its id", got)
	}
}

func TestCommentFact(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 6, 9, 12, 0, 0, 0, time.FixedZone("x", 3600))
	c := commentFact(ghapi.PRComment{ID: 9, Kind: ghapi.ReviewComment, AuthorLogin: "rev", Body: "/pact accept T1", HTMLURL: "u", Number: 3, CreatedAt: at, UpdatedAt: at})
	want := checks.CommentFact{ID: 9, OnDiff: true, Found: true, AuthorLogin: "rev", Body: "/pact accept T1", URL: "u", Number: 3, CreatedAt: at.UTC(), UpdatedAt: at.UTC()}
	if c.ID != want.ID || c.OnDiff != want.OnDiff || !c.Found || c.AuthorLogin != want.AuthorLogin || c.Body != want.Body ||
		c.URL != want.URL || c.Number != want.Number || c.CreatedAt != want.CreatedAt || c.UpdatedAt != want.UpdatedAt {
		t.Errorf("commentFact = %+v, want %+v", c, want)
	}
	if c.Edited() {
		t.Error("a comment never changed is edited")
	}
	c = commentFact(ghapi.PRComment{ID: 9, Kind: ghapi.IssueComment, CreatedAt: at, UpdatedAt: at.Add(time.Second)})
	if c.OnDiff || !c.Edited() {
		t.Errorf("an issue comment changed a second later: OnDiff %v, Edited %v", c.OnDiff, c.Edited())
	}
}
