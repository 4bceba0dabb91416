package action

import (
	"context"
	"fmt"
	"maps"
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

// countingFacts is a Reader that answers pull request 3, its review 1 and
// review comment 9, counting each question.
type countingFacts struct {
	Reader
	calls map[string]int
}

func (c *countingFacts) PullRequest(_ context.Context, n int) (*ghapi.PR, error) {
	c.calls["pr"]++
	return &ghapi.PR{Number: n, HeadSHA: "h"}, nil
}

func (c *countingFacts) Reviews(context.Context, int) ([]ghapi.Review, error) {
	c.calls["reviews"]++
	return []ghapi.Review{{ID: 1, State: "APPROVED"}}, nil
}

func (c *countingFacts) GetComment(_ context.Context, kind ghapi.CommentKind, id int64) (*ghapi.PRComment, error) {
	c.calls[fmt.Sprint("comment ", kind)]++
	if kind != ghapi.ReviewComment {
		return nil, ghapi.ErrNotFound
	}
	return &ghapi.PRComment{ID: id, Kind: kind, Body: "/pact accept T1"}, nil
}

// The run's facts read each pull request, reviews and comment once, for
// the bot's decision and provenance alike, until forgotten; what a caller
// does to its answer is its own.
func TestFactsReadOnceUntilForgotten(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	gh := &countingFacts{calls: map[string]int{}}
	f := newFacts()
	ask := func() {
		t.Helper()
		if pr, err := f.PR(ctx, gh, 3); err != nil || pr.Number != 3 {
			t.Fatalf("PR = %+v, %v", pr, err)
		}
		r, err := f.Reviews(ctx, gh, 3)
		if err != nil || !r[1].Found {
			t.Fatalf("Reviews = %+v, %v", r, err)
		}
		delete(r, 1)
		// The bot knows the kind; provenance tries one, then the other.
		if c, err := f.Comment(ctx, gh, 9, ghapi.ReviewComment); err != nil || !c.Found {
			t.Fatalf("Comment(review) = %+v, %v", c, err)
		}
		if c, err := f.Comment(ctx, gh, 9, ghapi.IssueComment, ghapi.ReviewComment); err != nil || !c.Found || c.ID != 9 {
			t.Fatalf("Comment(issue, review) = %+v, %v", c, err)
		}
	}
	ask()
	ask()
	want := map[string]int{"pr": 1, "reviews": 1, fmt.Sprint("comment ", ghapi.ReviewComment): 1, fmt.Sprint("comment ", ghapi.IssueComment): 1}
	if !maps.Equal(gh.calls, want) {
		t.Errorf("asked twice: calls %v, want %v", gh.calls, want)
	}
	f.forget()
	ask()
	for k, n := range want {
		if gh.calls[k] != 2*n {
			t.Errorf("after forget: %s asked %d times, want %d", k, gh.calls[k], 2*n)
		}
	}
	var none *facts
	if _, err := none.Reviews(ctx, gh, 3); err != nil || gh.calls["reviews"] != 3 {
		t.Errorf("no run's facts: reviews asked %d times, want 3 (%v)", gh.calls["reviews"], err)
	}
}
