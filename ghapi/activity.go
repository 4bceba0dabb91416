package ghapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// A branch's past, from GitHub's own record of the pushes to it.

// maxActivityPages bounds the pages of push history read for one question
// (100 entries each, newest first).
const maxActivityPages = 3

// ErrNoPushHistory is a server without the repository activity API (an
// older GitHub Enterprise Server): it keeps no push history to ask.
var ErrNoPushHistory = errors.New("the server keeps no push history (no repository activity API)")

// ErrSameSecond is a push stamped in the same second as the instant asked
// about: GitHub's stamps are whole seconds, so which came first cannot be
// told.
var ErrSameSecond = errors.New("a push to the branch is stamped in the same second, so which came first cannot be told")

// BranchHeadAt returns the commit branch pointed at, at instant at, from
// GitHub's own record of the pushes to it (the repository activity API:
// server-stamped, unlike a commit's dates, which its author chooses). It
// wraps ErrNotFound when the record does not reach back to at (the branch
// was created later, or its history is older than what is read),
// ErrSameSecond when a push is stamped in at's second, and
// ErrNoPushHistory when the server has no such record.
func (c *Client) BranchHeadAt(ctx context.Context, branch string, at time.Time) (string, error) {
	op := fmt.Sprintf("find the head of %s at %s", branch, at.UTC().Format(time.RFC3339))
	q := url.Values{"ref": {"refs/heads/" + branch}, "direction": {"desc"}, "per_page": {strconv.Itoa(perPage)}}
	for page := 0; page < maxActivityPages; page++ {
		req, err := c.gh.NewRequest(http.MethodGet, c.repoPath()+"/activity?"+q.Encode(), nil)
		if err != nil {
			return "", fmt.Errorf("%s: %w", op, err)
		}
		var acts []struct {
			After        string    `json:"after"`
			Ref          string    `json:"ref"`
			Timestamp    time.Time `json:"timestamp"`
			ActivityType string    `json:"activity_type"`
		}
		resp, err := c.gh.Do(ctx, req, &acts)
		if err != nil {
			werr := wrapErr(op, err)
			if page == 0 && statusOf(werr) == http.StatusNotFound {
				return "", fmt.Errorf("%s: %w", op, ErrNoPushHistory)
			}
			return "", werr
		}
		for _, a := range acts {
			if a.Ref != "refs/heads/"+branch {
				continue
			}
			if a.Timestamp.Truncate(time.Second).Equal(at.Truncate(time.Second)) {
				return "", fmt.Errorf("%s: %w", op, ErrSameSecond)
			}
			if a.Timestamp.After(at) {
				continue
			}
			if a.ActivityType == "branch_deletion" {
				return "", fmt.Errorf("%s: the branch did not exist then: %w", op, ErrNotFound)
			}
			return a.After, nil
		}
		if resp.After == "" {
			break
		}
		q.Set("after", resp.After) // the activity API pages by cursor
	}
	return "", fmt.Errorf("%s: GitHub's push history of the branch does not reach back that far: %w", op, ErrNotFound)
}
