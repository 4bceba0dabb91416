package ghapi

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/google/go-github/v60/github"
)

// perPage is the page size of every paginated call (GitHub's maximum).
const perPage = 100

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

// Commit is a commit of a pull request.
type Commit struct {
	SHA     string
	Parents []string
	// AuthorLogin and CommitterLogin are the GitHub accounts GitHub
	// associated with the commit's author and committer; empty when the
	// e-mail address matches no account.
	AuthorLogin    string
	CommitterLogin string
	// Verified is commit.verification.verified (signature checked by
	// GitHub).
	Verified bool
	Message  string
	// CommitterDate is the committer date of the commit object; the
	// committer chose it, GitHub does not.
	CommitterDate time.Time
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

func commitFrom(rc *github.RepositoryCommit) Commit {
	cm := Commit{
		SHA:            rc.GetSHA(),
		AuthorLogin:    rc.GetAuthor().GetLogin(),
		CommitterLogin: rc.GetCommitter().GetLogin(),
		Verified:       rc.GetCommit().GetVerification().GetVerified(),
		Message:        rc.GetCommit().GetMessage(),
		CommitterDate:  rc.GetCommit().GetCommitter().GetDate().Time,
	}
	for _, p := range rc.Parents {
		cm.Parents = append(cm.Parents, p.GetSHA())
	}
	return cm
}

// MergeBase returns the merge base of base and head (commit SHAs or branch
// names), from the compare endpoint.
func (c *Client) MergeBase(ctx context.Context, base, head string) (string, error) {
	cmp, _, err := c.gh.Repositories.CompareCommits(ctx, c.owner, c.repo, base, head, &github.ListOptions{PerPage: 1})
	if err != nil {
		return "", wrapErr(fmt.Sprintf("compare %s...%s", base, head), err)
	}
	sha := cmp.GetMergeBaseCommit().GetSHA()
	if sha == "" {
		return "", fmt.Errorf("compare %s...%s: no merge base commit in the answer", base, head)
	}
	return sha, nil
}

// CompareFiles returns the paths changed between the merge base of base and
// head and head (GitHub's three-dot compare), in GitHub's order, without
// duplicates. For a rename both the old and the new path are listed.
// GitHub lists at most 300 files for a comparison; larger comparisons are
// truncated by GitHub.
func (c *Client) CompareFiles(ctx context.Context, base, head string) ([]string, error) {
	opts := &github.ListOptions{PerPage: perPage}
	seen := map[string]bool{}
	var out []string
	add := func(name string) {
		if name != "" && !seen[name] {
			seen[name] = true
			out = append(out, name)
		}
	}
	for {
		cmp, resp, err := c.gh.Repositories.CompareCommits(ctx, c.owner, c.repo, base, head, opts)
		if err != nil {
			return nil, wrapErr(fmt.Sprintf("compare %s...%s", base, head), err)
		}
		for _, f := range cmp.Files {
			add(f.GetPreviousFilename())
			add(f.GetFilename())
		}
		if resp.NextPage == 0 {
			return out, nil
		}
		opts.Page = resp.NextPage
	}
}

// Divergence is how a commit relates to another: the commits reachable
// from head and not from base (AheadBy of them; Commits lists up to the
// oldest 250, oldest first) and BehindBy the other way round.
type Divergence struct {
	AheadBy, BehindBy int
	Commits           []string
}

// CompareCommits compares base with head (one request): how many commits
// each has that the other lacks, and the first of head's. A commit GitHub
// does not know wraps ErrNotFound.
func (c *Client) CompareCommits(ctx context.Context, base, head string) (Divergence, error) {
	cmp, _, err := c.gh.Repositories.CompareCommits(ctx, c.owner, c.repo, base, head, nil)
	if err != nil {
		return Divergence{}, wrapErr(fmt.Sprintf("compare %s...%s", base, head), err)
	}
	d := Divergence{AheadBy: cmp.GetAheadBy(), BehindBy: cmp.GetBehindBy()}
	for _, rc := range cmp.Commits {
		d.Commits = append(d.Commits, rc.GetSHA())
	}
	return d, nil
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

// Permission levels returned by Client.Permission, strongest first.
const (
	PermissionAdmin    = "admin"
	PermissionMaintain = "maintain"
	PermissionWrite    = "write"
	PermissionTriage   = "triage"
	PermissionRead     = "read"
	PermissionNone     = "none"
)

// Permission returns the permission login has on the repository: one of
// "admin", "maintain", "write", "triage", "read", "none". GitHub's
// "permission" field only knows admin/write/read/none; "maintain" and
// "triage" are taken from "role_name". A custom role reports its base
// permission. An unknown user (404) is "none".
func (c *Client) Permission(ctx context.Context, login string) (string, error) {
	u := c.repoPath() + "/collaborators/" + url.PathEscape(login) + "/permission"
	req, err := c.gh.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		return "", fmt.Errorf("get permission of %s: %w", login, err)
	}
	// go-github v60's RepositoryPermissionLevel lacks role_name.
	var body struct {
		Permission string `json:"permission"`
		RoleName   string `json:"role_name"`
	}
	if _, err := c.gh.Do(ctx, req, &body); err != nil {
		werr := wrapErr("get permission of "+login, err)
		if statusOf(werr) == http.StatusNotFound {
			return PermissionNone, nil
		}
		return "", werr
	}
	switch body.RoleName {
	case PermissionMaintain, PermissionTriage:
		return body.RoleName, nil
	}
	switch body.Permission {
	case PermissionAdmin, PermissionWrite, PermissionRead, PermissionNone:
		return body.Permission, nil
	case "":
		return PermissionNone, nil
	}
	return "", fmt.Errorf("get permission of %s: unknown permission %q", login, body.Permission)
}
