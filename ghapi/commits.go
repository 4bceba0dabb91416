package ghapi

import (
	"context"
	"fmt"

	"github.com/google/go-github/v60/github"

	"github.com/pact-action/pact-action/ghfacts"
)

// commitFrom is commit rc in the vocabulary of facts.
func commitFrom(rc *github.RepositoryCommit) ghfacts.Commit {
	cm := ghfacts.Commit{
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
	// Parents are the parents of each commit of Commits.
	Parents map[string][]string
}

// CompareCommits compares base with head (one request): how many commits
// each has that the other lacks, and the first of head's. A commit GitHub
// does not know wraps ErrNotFound.
func (c *Client) CompareCommits(ctx context.Context, base, head string) (Divergence, error) {
	cmp, _, err := c.gh.Repositories.CompareCommits(ctx, c.owner, c.repo, base, head, nil)
	if err != nil {
		return Divergence{}, wrapErr(fmt.Sprintf("compare %s...%s", base, head), err)
	}
	d := Divergence{AheadBy: cmp.GetAheadBy(), BehindBy: cmp.GetBehindBy(), Parents: map[string][]string{}}
	for _, rc := range cmp.Commits {
		d.Commits = append(d.Commits, rc.GetSHA())
		for _, p := range rc.Parents {
			d.Parents[rc.GetSHA()] = append(d.Parents[rc.GetSHA()], p.GetSHA())
		}
	}
	return d, nil
}

// Commit returns one commit of the repository with the GitHub accounts
// GitHub associates with it, like PullCommits does for a pull request's
// commits. It is for commits a pull request's listing lacks (GitHub lists at
// most 250, and may lag just after a push).
func (c *Client) Commit(ctx context.Context, sha string) (*ghfacts.Commit, error) {
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
