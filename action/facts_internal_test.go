package action

import (
	"context"
	"fmt"
	"maps"
	"testing"

	"github.com/pact-action/pact-action/ghapi"
	"github.com/pact-action/pact-action/ghfacts"
)

// countingFacts is a Reader that answers pull request 3, its review 1 and
// review comment 9, counting each question.
type countingFacts struct {
	reader
	calls map[string]int
}

func (c *countingFacts) PullRequest(_ context.Context, n int) (*ghfacts.PullRequest, error) {
	c.calls["pr"]++
	return &ghfacts.PullRequest{Number: n, HeadSHA: "h"}, nil
}

func (c *countingFacts) Reviews(context.Context, int) ([]ghfacts.Review, error) {
	c.calls["reviews"]++
	return []ghfacts.Review{{ID: 1, Found: true, State: ghfacts.ReviewApproved}}, nil
}

func (c *countingFacts) GetComment(_ context.Context, kind ghapi.CommentKind, id int64) (*ghfacts.Comment, error) {
	c.calls[fmt.Sprint("comment ", kind)]++
	if kind != ghapi.ReviewComment {
		return nil, ghapi.ErrNotFound
	}
	return &ghfacts.Comment{ID: id, OnDiff: true, Found: true, Body: "/pact accept T1"}, nil
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
