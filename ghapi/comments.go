package ghapi

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"

	"github.com/google/go-github/v60/github"

	"github.com/pact-action/pact-action/ghfacts"
	"github.com/pact-action/pact-action/internal/prose"
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

// maxCommentBody is GitHub's limit for a comment's body, in characters;
// counted in bytes, a cut body is never over it.
const maxCommentBody = 65536

// Comment posts body as a comment on issue or pull request issueNumber and
// returns the comment id. A post whose outcome is unknown (no answer, a cut
// answer, a 5xx) is looked for among the newest comments before it is
// sent again, so that a reply is never posted twice.
func (c *Client) Comment(ctx context.Context, issueNumber int, body string) (int64, error) {
	op := fmt.Sprintf("comment on #%d", issueNumber)
	// A reply lists what the pull request's pact holds (its tasks), which
	// the pull request chooses: cut, it is still posted.
	body = prose.Clip(body, maxCommentBody, truncated)
	for attempt := 1; ; attempt++ {
		cm, _, err := c.gh.Issues.CreateComment(context.WithValue(ctx, applyOnceKey{}, true), c.owner, c.repo, issueNumber, &github.IssueComment{Body: github.String(body)})
		if err == nil {
			return cm.GetID(), nil
		}
		err = wrapErr(op, err)
		if !outcomeUnknown(err) || ctx.Err() != nil {
			return 0, err
		}
		id, found, ferr := c.findComment(ctx, issueNumber, body)
		switch {
		case found:
			c.logger.Warn("the comment was posted though its answer was lost", "issue", issueNumber, "comment", id, "error", err)
			return id, nil
		case ferr != nil:
			return 0, fmt.Errorf("%w; it may have been posted, and looking for it failed too: %w", err, ferr)
		case attempt == writeAttempts:
			return 0, fmt.Errorf("%w (%d attempts)", err, attempt)
		}
		delay := c.backoff(attempt)
		c.logger.Warn("github request failed, retrying", "method", http.MethodPost, "path", "issues/comments", "attempt", attempt,
			"status", statusOf(err), "delay", delay, "error", err, "note", "the comment was not posted; posting it again")
		if err := c.sleep(ctx, delay); err != nil {
			return 0, fmt.Errorf("%w (%d attempts)", err, attempt)
		}
	}
}

// findComment looks for a comment with exactly body among the newest of
// issue number (its last page of 100 comments): the one a post whose
// answer was lost may have made. The same reply posted by an earlier run
// is taken for it too, which says the same thing.
func (c *Client) findComment(ctx context.Context, number int, body string) (int64, bool, error) {
	list, err := c.newestComments(ctx, number)
	if err != nil {
		return 0, false, err
	}
	for i := len(list) - 1; i >= 0; i-- {
		if list[i].GetBody() == body {
			return list[i].GetID(), true, nil
		}
	}
	return 0, false, nil
}

// newestComments lists the newest comments of issue number: its last page
// of 100, oldest first.
func (c *Client) newestComments(ctx context.Context, number int) ([]*github.IssueComment, error) {
	op := fmt.Sprintf("look for a comment on #%d", number)
	opts := &github.IssueListCommentsOptions{ListOptions: github.ListOptions{PerPage: 100}}
	list, resp, err := c.gh.Issues.ListComments(ctx, c.owner, c.repo, number, opts)
	if err != nil {
		return nil, wrapErr(op, err)
	}
	if resp.LastPage > 1 {
		opts.Page = resp.LastPage
		if list, _, err = c.gh.Issues.ListComments(ctx, c.owner, c.repo, number, opts); err != nil {
			return nil, wrapErr(op, err)
		}
	}
	return list, nil
}

// HasComment reports whether one of the newest 100 comments of issue
// number holds marker and was written by one of authors (logins, compared
// without case): how a reply said once is found before it is said again.
// Only the authors count, so nobody else can silence a reply by quoting
// its marker.
func (c *Client) HasComment(ctx context.Context, number int, marker string, authors []string) (bool, error) {
	list, err := c.newestComments(ctx, number)
	if err != nil {
		return false, err
	}
	for _, cm := range list {
		if !strings.Contains(cm.GetBody(), marker) {
			continue
		}
		for _, a := range authors {
			if strings.EqualFold(cm.GetUser().GetLogin(), a) {
				return true, nil
			}
		}
	}
	return false, nil
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

// GetComment returns comment id of the given kind. A comment that does not
// exist (or is of the other kind: the two kinds have separate ids) yields
// ErrNotFound.
func (c *Client) GetComment(ctx context.Context, kind CommentKind, id int64) (*ghfacts.Comment, error) {
	op := fmt.Sprintf("get %s %d", kind, id)
	switch kind {
	case IssueComment:
		ic, _, err := c.gh.Issues.GetComment(ctx, c.owner, c.repo, id)
		if err != nil {
			return nil, wrapErr(op, err)
		}
		c := issueCommentFrom(ic)
		return &c, nil
	case ReviewComment:
		rc, _, err := c.gh.PullRequests.GetComment(ctx, c.owner, c.repo, id)
		if err != nil {
			return nil, wrapErr(op, err)
		}
		c := reviewCommentFrom(rc)
		return &c, nil
	}
	return nil, fmt.Errorf("%s: unknown comment kind", op)
}

// issueCommentFrom is conversation comment ic in the vocabulary of facts,
// its times in UTC.
func issueCommentFrom(ic *github.IssueComment) ghfacts.Comment {
	return ghfacts.Comment{ID: ic.GetID(), Found: true, Body: ic.GetBody(), AuthorLogin: ic.GetUser().GetLogin(),
		Number: numberFromURL(ic.GetIssueURL()), URL: ic.GetHTMLURL(),
		CreatedAt: ic.GetCreatedAt().UTC(), UpdatedAt: ic.GetUpdatedAt().UTC()}
}

// reviewCommentFrom is review comment rc, on the diff, in the vocabulary
// of facts, its times in UTC.
func reviewCommentFrom(rc *github.PullRequestComment) ghfacts.Comment {
	return ghfacts.Comment{ID: rc.GetID(), OnDiff: true, Found: true, Body: rc.GetBody(), AuthorLogin: rc.GetUser().GetLogin(),
		Number: numberFromURL(rc.GetPullRequestURL()), URL: rc.GetHTMLURL(),
		CreatedAt: rc.GetCreatedAt().UTC(), UpdatedAt: rc.GetUpdatedAt().UTC()}
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
