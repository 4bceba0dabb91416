package ghapi

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/google/go-github/v60/github"

	"github.com/pact-action/pact-action/ghfacts"
)

// prFrom is pull request p in the vocabulary of facts.
func prFrom(p *github.PullRequest) ghfacts.PullRequest {
	pr := ghfacts.PullRequest{
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
func (c *Client) PullRequest(ctx context.Context, number int) (*ghfacts.PullRequest, error) {
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
func (c *Client) RequestReviewers(ctx context.Context, number int, logins, teams []string) (*ghfacts.PullRequest, error) {
	p, _, err := c.gh.PullRequests.RequestReviewers(ctx, c.owner, c.repo, number, github.ReviewersRequest{Reviewers: logins, TeamReviewers: teams})
	if err != nil {
		return nil, wrapErr(fmt.Sprintf("request reviews on pull request #%d", number), err)
	}
	pr := prFrom(p)
	return &pr, nil
}

// OpenPullRequests lists all open pull requests of the repository.
func (c *Client) OpenPullRequests(ctx context.Context) ([]ghfacts.PullRequest, error) {
	opts := &github.PullRequestListOptions{State: "open", ListOptions: github.ListOptions{PerPage: perPage}}
	var out []ghfacts.PullRequest
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
func (c *Client) PullCommits(ctx context.Context, number int) ([]ghfacts.Commit, error) {
	opts := &github.ListOptions{PerPage: perPage}
	var out []ghfacts.Commit
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

// reviewFrom is review r in the vocabulary of facts: its state in the
// one case of the Review constants, its time in UTC.
func reviewFrom(r *github.PullRequestReview) ghfacts.Review {
	return ghfacts.Review{
		ID:          r.GetID(),
		Found:       true,
		State:       strings.ToUpper(r.GetState()),
		AuthorLogin: r.GetUser().GetLogin(),
		CommitID:    r.GetCommitID(),
		Body:        r.GetBody(),
		URL:         r.GetHTMLURL(),
		SubmittedAt: r.GetSubmittedAt().UTC(),
	}
}

// Reviews lists the reviews of pull request number, oldest first.
func (c *Client) Reviews(ctx context.Context, number int) ([]ghfacts.Review, error) {
	opts := &github.ListOptions{PerPage: perPage}
	var out []ghfacts.Review
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

// OpenPRs is the repository's default branch, as GitHub names it when
// asked, and its open pull requests with their mergeability
// (ghfacts.PullRequest.Mergeable).
type OpenPRs struct {
	DefaultBranch string
	PRs           []ghfacts.PullRequest
}

// maxPRPages bounds the pages of 100 open pull requests one listing reads.
const maxPRPages = 50

// OpenPullRequestsMergeable lists the open pull requests, oldest first,
// each with its mergeability, head and base (refs and commits), and the
// repository's default branch, in one GraphQL request per 100 pull
// requests: a pull request that does not conflict costs nothing more to
// tell apart. It needs GitHub's GraphQL API: where that does not answer,
// the error says so.
func (c *Client) OpenPullRequestsMergeable(ctx context.Context) (*OpenPRs, error) {
	const query = `query($owner: String!, $name: String!, $after: String) {
  repository(owner: $owner, name: $name) {
    defaultBranchRef { name }
    pullRequests(states: [OPEN], first: 100, after: $after, orderBy: {field: CREATED_AT, direction: ASC}) {
      pageInfo { hasNextPage endCursor }
      nodes { number mergeable isCrossRepository baseRefName baseRefOid headRefName headRefOid headRepository { nameWithOwner } }
    }
  }
}`
	out := &OpenPRs{}
	var after any
	for page := 1; ; page++ {
		var raw struct {
			Repository *struct {
				DefaultBranchRef *struct {
					Name string `json:"name"`
				} `json:"defaultBranchRef"`
				PullRequests struct {
					PageInfo struct {
						HasNextPage bool   `json:"hasNextPage"`
						EndCursor   string `json:"endCursor"`
					} `json:"pageInfo"`
					Nodes []struct {
						Number            int    `json:"number"`
						Mergeable         string `json:"mergeable"`
						IsCrossRepository bool   `json:"isCrossRepository"`
						BaseRefName       string `json:"baseRefName"`
						BaseRefOID        string `json:"baseRefOid"`
						HeadRefName       string `json:"headRefName"`
						HeadRefOID        string `json:"headRefOid"`
						HeadRepository    *struct {
							NameWithOwner string `json:"nameWithOwner"`
						} `json:"headRepository"`
					} `json:"nodes"`
				} `json:"pullRequests"`
			} `json:"repository"`
		}
		err := c.graphql(ctx, "list open pull requests and their mergeability", query, map[string]any{"owner": c.owner, "name": c.repo, "after": after}, &raw)
		if errors.Is(err, errNoGraphQL) {
			return nil, fmt.Errorf("%w (telling which pull requests conflict needs GitHub's GraphQL API)", err)
		}
		if err != nil {
			return nil, err
		}
		if raw.Repository == nil {
			return nil, fmt.Errorf("list open pull requests and their mergeability: GitHub's answer has no repository: %w", ErrNotFound)
		}
		if b := raw.Repository.DefaultBranchRef; b != nil {
			out.DefaultBranch = b.Name
		}
		for _, n := range raw.Repository.PullRequests.Nodes {
			pr := ghfacts.PullRequest{Number: n.Number, State: "open", Mergeable: n.Mergeable, BaseRef: n.BaseRefName, BaseSHA: n.BaseRefOID,
				HeadRef: n.HeadRefName, HeadSHA: n.HeadRefOID, Fork: n.IsCrossRepository || n.HeadRepository == nil}
			if n.HeadRepository != nil {
				pr.HeadRepoFullName = n.HeadRepository.NameWithOwner
			}
			if pr.Number == 0 || pr.HeadSHA == "" || pr.BaseSHA == "" {
				return nil, fmt.Errorf("list open pull requests and their mergeability: GitHub's answer is incomplete (a pull request without its number, head or base); re-run the job")
			}
			out.PRs = append(out.PRs, pr)
		}
		info := raw.Repository.PullRequests.PageInfo
		if !info.HasNextPage {
			return out, nil
		}
		if page == maxPRPages || info.EndCursor == "" {
			return nil, fmt.Errorf("list open pull requests and their mergeability: more than %d open pull requests", maxPRPages*100)
		}
		after = info.EndCursor
	}
}
