package action

import (
	"context"
	"time"

	"github.com/pact-action/pact-action/ghapi"
	"github.com/pact-action/pact-action/ghfacts"
)

// reader is what judging needs from GitHub: files at a commit, branches,
// the merge base, pull requests, and the facts provenance is judged on.
type reader interface {
	fileReader
	blobReader
	ReadTrees(ctx context.Context, reads ...ghapi.TreeRead) ([]ghapi.Tree, error)
	BranchHeadAt(ctx context.Context, branch string, at time.Time) (string, error)
	MergeBase(ctx context.Context, base, head string) (string, error)
	PullRequest(ctx context.Context, number int) (*ghfacts.PullRequest, error)
	OpenPullRequests(ctx context.Context) ([]ghfacts.PullRequest, error)
	PullCommits(ctx context.Context, number int) ([]ghfacts.Commit, error)
	Reviews(ctx context.Context, number int) ([]ghfacts.Review, error)
	Commit(ctx context.Context, sha string) (*ghfacts.Commit, error)
	GetComment(ctx context.Context, kind ghapi.CommentKind, id int64) (*ghfacts.Comment, error)
	CompareFiles(ctx context.Context, base, head string) ([]string, error)
	CodeIDs(ctx context.Context, dir string, commits ...string) (map[string]string, error)
	Diff(ctx context.Context, dir string, pairs ...ghapi.DiffPair) (map[ghapi.DiffPair][]ghapi.PathChange, error)
	CompareCommits(ctx context.Context, base, head string) (ghapi.Divergence, error)
	MatchingRefs(ctx context.Context, prefix string) (map[string]string, error)
}

// checkGitHub is what check mode needs from checkGitHub: reading, the Checks API,
// and asking for reviews. It writes no commit, comment or reaction: those
// are botGitHub's (bot.go), and a check-mode run is handed a checkOnly.
type checkGitHub interface {
	reader
	CreateCheckRun(ctx context.Context, cr ghapi.CheckRun) (ghapi.CreatedRun, error)
	FindCheckRun(ctx context.Context, cr ghapi.CheckRun) (int64, bool, error)
	CompleteCheckRun(ctx context.Context, id int64, conclusion string, out ghapi.Output) error
	FailCheckRun(ctx context.Context, id int64, summary string) error
	SupersedeCheckRun(ctx context.Context, id int64, conclusion string, completedAt time.Time, out ghapi.Output) error
	RequestReviewers(ctx context.Context, number int, logins, teams []string) (*ghfacts.PullRequest, error)
}

// checkOnly is the client a check-mode run is handed: GitHub's methods and
// no others, so that no judgement can write a commit, even by asserting
// its client's type back to the one run was given.
type checkOnly struct{ checkGitHub }

var _ botGitHub = (*ghapi.Client)(nil)
