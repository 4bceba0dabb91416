package ghapi

import (
	"context"
	"fmt"

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
