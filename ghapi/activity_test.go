package ghapi_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/pact-action/pact-action/ghapi"
	"github.com/pact-action/pact-action/internal/testkit/fakegithub"
)

func TestBranchHeadAt(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	srv := fakegithub.New(t, fakegithub.WithClock(start))
	seedRepo(t, srv)
	var heads []string
	var pushed []time.Time
	for i := range 230 { // more than two pages of the activity API
		srv.SetNow(start.Add(time.Duration(i+1) * time.Hour))
		heads = append(heads, srv.CommitFiles(owner, repo, "topic", map[string]string{"n": fmt.Sprint(i)}, "bob", fakegithub.From("main")))
		pushed = append(pushed, start.Add(time.Duration(i+1)*time.Hour))
	}
	c, _ := newClient(t, srv)
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		at   time.Time
		want string
	}{
		{"the newest push", pushed[229].Add(time.Minute), heads[229]},
		{"a second after that push (stamped a tick after its commit)", pushed[200].Add(2 * time.Second), heads[200]},
		{"the second before that push", pushed[200], heads[199]},
		{"between two pushes", pushed[10].Add(30 * time.Minute), heads[10]},
		{"on the third page", pushed[5].Add(time.Minute), heads[5]},
	} {
		got, err := c.BranchHeadAt(ctx, "topic", tc.at)
		if err != nil || got != tc.want {
			t.Errorf("%s: BranchHeadAt = %s, %v; want %s", tc.name, got, err, tc.want)
		}
	}
	// Before the branch existed, and beyond the pages read: not found.
	for _, at := range []time.Time{start, pushed[0].Add(-time.Second)} {
		if _, err := c.BranchHeadAt(ctx, "topic", at); !errors.Is(err, ghapi.ErrNotFound) {
			t.Errorf("BranchHeadAt(%s) error = %v, want ErrNotFound", at, err)
		}
	}
	// In the second of a push (the fake stamps it a tick after its
	// commit), GitHub's whole-second stamps cannot order the two.
	if _, err := c.BranchHeadAt(ctx, "topic", pushed[200].Add(1500*time.Millisecond)); !errors.Is(err, ghapi.ErrSameSecond) {
		t.Errorf("BranchHeadAt(the second of a push) error = %v, want ErrSameSecond", err)
	}
	if _, err := c.BranchHeadAt(ctx, "nope", pushed[0]); !errors.Is(err, ghapi.ErrNotFound) {
		t.Errorf("BranchHeadAt(unknown branch) error = %v, want ErrNotFound", err)
	}
}
