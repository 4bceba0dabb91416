package ghapi

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/google/go-github/v60/github"
)

// PR is a pull request.
type PR struct {
	Number int
	Title  string
	// State is "open" or "closed".
	State string
	Draft bool
	// HeadSHA and HeadRef are the head commit and branch name (in the
	// head repository, which differs from the base one for forks).
	HeadSHA string
	HeadRef string
	// HeadRepoFullName is "owner/repo" of the head repository; empty when
	// that repository was deleted.
	HeadRepoFullName string
	BaseRef          string
	BaseSHA          string
	// Fork reports that the head repository is not the base repository.
	// It is true when the head repository was deleted.
	Fork        bool
	AuthorLogin string
	// RequestedReviewers and RequestedTeams are the accounts and the team
	// slugs whose review is requested and not yet given (a review removes
	// its author's request).
	RequestedReviewers []string
	RequestedTeams     []string
}

// Review is a pull request review.
type Review struct {
	ID int64
	// State is upper-case as REST sends it: APPROVED, CHANGES_REQUESTED,
	// COMMENTED, DISMISSED or PENDING.
	State       string
	AuthorLogin string
	// CommitID is the head commit the review was made on.
	CommitID    string
	Body        string
	HTMLURL     string
	SubmittedAt time.Time
}

func prFrom(p *github.PullRequest) PR {
	pr := PR{
		Number:      p.GetNumber(),
		Title:       p.GetTitle(),
		State:       p.GetState(),
		Draft:       p.GetDraft(),
		HeadSHA:     p.GetHead().GetSHA(),
		HeadRef:     p.GetHead().GetRef(),
		BaseRef:     p.GetBase().GetRef(),
		BaseSHA:     p.GetBase().GetSHA(),
		AuthorLogin: p.GetUser().GetLogin(),
	}
	for _, u := range p.RequestedReviewers {
		pr.RequestedReviewers = append(pr.RequestedReviewers, u.GetLogin())
	}
	for _, t := range p.RequestedTeams {
		pr.RequestedTeams = append(pr.RequestedTeams, t.GetSlug())
	}
	headRepo := p.GetHead().GetRepo()
	baseRepo := p.GetBase().GetRepo()
	pr.HeadRepoFullName = headRepo.GetFullName()
	switch {
	case headRepo == nil:
		pr.Fork = true
	case headRepo.GetID() != 0 && baseRepo.GetID() != 0:
		pr.Fork = headRepo.GetID() != baseRepo.GetID()
	default:
		pr.Fork = !strings.EqualFold(headRepo.GetFullName(), baseRepo.GetFullName())
	}
	return pr
}

// PullRequest returns pull request number.
func (c *Client) PullRequest(ctx context.Context, number int) (*PR, error) {
	p, _, err := c.gh.PullRequests.Get(ctx, c.owner, c.repo, number)
	if err != nil {
		return nil, wrapErr(fmt.Sprintf("get pull request #%d", number), err)
	}
	pr := prFrom(p)
	if pr.Number != number || pr.HeadSHA == "" || pr.HeadRef == "" {
		// Everything judged hangs on the head: an answer without it (cut
		// by a proxy into JSON that still parses) is not a pull request.
		return nil, fmt.Errorf("get pull request #%d: GitHub's answer is incomplete (no number, head commit or branch); re-run the job", number)
	}
	return &pr, nil
}

// RequestReviewers asks for the review of pull request number by the
// accounts logins and the teams (slugs of the repository owner's
// organization), in one request, and returns the pull request as GitHub
// holds it after. Asking again for a pending reviewer changes nothing;
// asking one who has reviewed is GitHub's re-request. A token without
// pull-requests: write gets ErrForbidden (or ErrNotFound); an account
// GitHub cannot ask (the author, a non-collaborator, an app, a team the
// token cannot see) fails the whole request with a 422 APIError.
func (c *Client) RequestReviewers(ctx context.Context, number int, logins, teams []string) (*PR, error) {
	p, _, err := c.gh.PullRequests.RequestReviewers(ctx, c.owner, c.repo, number, github.ReviewersRequest{Reviewers: logins, TeamReviewers: teams})
	if err != nil {
		return nil, wrapErr(fmt.Sprintf("request reviews on pull request #%d", number), err)
	}
	pr := prFrom(p)
	return &pr, nil
}

// OpenPullRequests lists all open pull requests of the repository.
func (c *Client) OpenPullRequests(ctx context.Context) ([]PR, error) {
	opts := &github.PullRequestListOptions{State: "open", ListOptions: github.ListOptions{PerPage: perPage}}
	var out []PR
	for {
		page, resp, err := c.gh.PullRequests.List(ctx, c.owner, c.repo, opts)
		if err != nil {
			return nil, wrapErr("list open pull requests", err)
		}
		for _, p := range page {
			out = append(out, prFrom(p))
		}
		if resp.NextPage == 0 {
			return out, nil
		}
		opts.Page = resp.NextPage
	}
}

// PullCommits lists the commits of pull request number, oldest first.
// GitHub returns at most 250 commits for a pull request; longer pull
// requests are silently truncated by GitHub.
func (c *Client) PullCommits(ctx context.Context, number int) ([]Commit, error) {
	opts := &github.ListOptions{PerPage: perPage}
	var out []Commit
	for {
		page, resp, err := c.gh.PullRequests.ListCommits(ctx, c.owner, c.repo, number, opts)
		if err != nil {
			return nil, wrapErr(fmt.Sprintf("list commits of pull request #%d", number), err)
		}
		for _, rc := range page {
			out = append(out, commitFrom(rc))
		}
		if resp.NextPage == 0 {
			return out, nil
		}
		opts.Page = resp.NextPage
	}
}

func reviewFrom(r *github.PullRequestReview) Review {
	return Review{
		ID:          r.GetID(),
		State:       r.GetState(),
		AuthorLogin: r.GetUser().GetLogin(),
		CommitID:    r.GetCommitID(),
		Body:        r.GetBody(),
		HTMLURL:     r.GetHTMLURL(),
		SubmittedAt: r.GetSubmittedAt().Time,
	}
}

// Reviews lists the reviews of pull request number, oldest first.
func (c *Client) Reviews(ctx context.Context, number int) ([]Review, error) {
	opts := &github.ListOptions{PerPage: perPage}
	var out []Review
	for {
		page, resp, err := c.gh.PullRequests.ListReviews(ctx, c.owner, c.repo, number, opts)
		if err != nil {
			return nil, wrapErr(fmt.Sprintf("list reviews of pull request #%d", number), err)
		}
		for _, r := range page {
			out = append(out, reviewFrom(r))
		}
		if resp.NextPage == 0 {
			return out, nil
		}
		opts.Page = resp.NextPage
	}
}
