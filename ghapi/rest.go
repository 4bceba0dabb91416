package ghapi

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	"github.com/google/go-github/v60/github"
)

// getJSON GETs path (relative to the API base, with an optional raw query)
// into v, wrapping errors with op.
func (c *Client) getJSON(ctx context.Context, op, path, query string, v any) error {
	_, err := c.get(ctx, op, path, query, v)
	return err
}

func (c *Client) get(ctx context.Context, op, path, query string, v any) (*github.Response, error) {
	if query != "" {
		path += "?" + query
	}
	req, err := c.gh.NewRequest(http.MethodGet, path, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	resp, err := c.gh.Do(ctx, req, v)
	if err != nil {
		return resp, wrapErr(op, err)
	}
	return resp, nil
}

// getPagesOf GETs every page of a list endpoint, handing each decoded
// page to add.
func getPagesOf[T any](ctx context.Context, c *Client, op, path, query string, add func(*T)) error {
	q := url.Values{}
	if query != "" {
		var err error
		if q, err = url.ParseQuery(query); err != nil {
			return fmt.Errorf("%s: %w", op, err)
		}
	}
	q.Set("per_page", strconv.Itoa(perPage))
	for page := 1; ; {
		q.Set("page", strconv.Itoa(page))
		var v T
		resp, err := c.get(ctx, op, path, q.Encode(), &v)
		if err != nil {
			return err
		}
		add(&v)
		if resp.NextPage == 0 || resp.NextPage <= page {
			return nil
		}
		page = resp.NextPage
	}
}

// perPage is the page size of every paginated call (GitHub's maximum).
const perPage = 100
