package ghapi

import (
	"context"
	"fmt"
	"net/url"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-github/v60/github"
)

// Lookups by id that the provenance check of pull-request mode needs beyond
// the pull request's own listings.

// Commit returns one commit of the repository with the GitHub accounts
// GitHub associates with it, like PullCommits does for a pull request's
// commits. It is for commits a pull request's listing lacks (GitHub lists at
// most 250, and may lag just after a push).
func (c *Client) Commit(ctx context.Context, sha string) (*Commit, error) {
	if sha == "" {
		return nil, fmt.Errorf("get commit: empty sha")
	}
	// Files are paginated on this endpoint; the commit's metadata is all
	// that is needed, so ask for as few as possible.
	rc, _, err := c.gh.Repositories.GetCommit(ctx, c.owner, c.repo, sha, &github.ListOptions{PerPage: 1})
	if err != nil {
		return nil, wrapErr("get commit "+sha, err)
	}
	cm := commitFrom(rc)
	return &cm, nil
}

// PRComment is a comment on a pull request: on its conversation (an issue
// comment) or on a line of its diff (a review comment).
type PRComment struct {
	ID          int64
	Kind        CommentKind
	Body        string
	AuthorLogin string
	// Number is the pull request (or issue) the comment belongs to, read
	// from its issue_url or pull_request_url; 0 when GitHub sent neither.
	Number    int
	HTMLURL   string
	CreatedAt time.Time
	UpdatedAt time.Time
}

// GetComment returns comment id of the given kind. A comment that does not
// exist (or is of the other kind: the two kinds have separate ids) yields
// ErrNotFound.
func (c *Client) GetComment(ctx context.Context, kind CommentKind, id int64) (*PRComment, error) {
	op := fmt.Sprintf("get %s %d", kind, id)
	switch kind {
	case IssueComment:
		ic, _, err := c.gh.Issues.GetComment(ctx, c.owner, c.repo, id)
		if err != nil {
			return nil, wrapErr(op, err)
		}
		return &PRComment{ID: ic.GetID(), Kind: kind, Body: ic.GetBody(), AuthorLogin: ic.GetUser().GetLogin(),
			Number: numberFromURL(ic.GetIssueURL()), HTMLURL: ic.GetHTMLURL(),
			CreatedAt: ic.GetCreatedAt().Time, UpdatedAt: ic.GetUpdatedAt().Time}, nil
	case ReviewComment:
		rc, _, err := c.gh.PullRequests.GetComment(ctx, c.owner, c.repo, id)
		if err != nil {
			return nil, wrapErr(op, err)
		}
		return &PRComment{ID: rc.GetID(), Kind: kind, Body: rc.GetBody(), AuthorLogin: rc.GetUser().GetLogin(),
			Number: numberFromURL(rc.GetPullRequestURL()), HTMLURL: rc.GetHTMLURL(),
			CreatedAt: rc.GetCreatedAt().Time, UpdatedAt: rc.GetUpdatedAt().Time}, nil
	}
	return nil, fmt.Errorf("%s: unknown comment kind", op)
}

// numberFromURL reads the number at the end of .../issues/N or .../pulls/N.
func numberFromURL(raw string) int {
	u, err := url.Parse(raw)
	if err != nil {
		return 0
	}
	p := strings.TrimRight(u.Path, "/")
	switch path.Base(path.Dir(p)) {
	case "issues", "pulls":
	default:
		return 0
	}
	n, err := strconv.Atoi(path.Base(p))
	if err != nil || n <= 0 {
		return 0
	}
	return n
}
