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

// CommentKind tells which kind of comment a reaction is for; GitHub uses a
// different endpoint for each.
type CommentKind int

const (
	// IssueComment is a comment on the conversation of an issue or pull
	// request (/issues/comments/{id}/reactions).
	IssueComment CommentKind = iota
	// ReviewComment is a pull request review comment, on a line of the
	// diff (/pulls/comments/{id}/reactions).
	ReviewComment
)

func (k CommentKind) String() string {
	switch k {
	case IssueComment:
		return "issue comment"
	case ReviewComment:
		return "review comment"
	}
	return fmt.Sprintf("comment kind %d", int(k))
}

var reactionContents = map[string]bool{
	"+1": true, "-1": true, "laugh": true, "confused": true,
	"heart": true, "hooray": true, "rocket": true, "eyes": true,
}

// Comment posts body as a comment on issue or pull request issueNumber and
// returns the comment id.
func (c *Client) Comment(ctx context.Context, issueNumber int, body string) (int64, error) {
	cm, _, err := c.gh.Issues.CreateComment(ctx, c.owner, c.repo, issueNumber, &github.IssueComment{Body: github.String(body)})
	if err != nil {
		return 0, wrapErr(fmt.Sprintf("comment on #%d", issueNumber), err)
	}
	return cm.GetID(), nil
}

// React adds reaction content ("+1", "-1", "laugh", "confused", "heart",
// "hooray", "rocket", "eyes") to comment commentID of the given kind.
// Reacting twice with the same content is not an error.
func (c *Client) React(ctx context.Context, kind CommentKind, commentID int64, content string) error {
	op := fmt.Sprintf("react %q to %s %d", content, kind, commentID)
	if !reactionContents[content] {
		return fmt.Errorf("%s: unknown reaction", op)
	}
	var err error
	switch kind {
	case IssueComment:
		_, _, err = c.gh.Reactions.CreateIssueCommentReaction(ctx, c.owner, c.repo, commentID, content)
	case ReviewComment:
		_, _, err = c.gh.Reactions.CreatePullRequestCommentReaction(ctx, c.owner, c.repo, commentID, content)
	default:
		return fmt.Errorf("%s: unknown comment kind", op)
	}
	return wrapErr(op, err)
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
