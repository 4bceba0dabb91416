package action

import (
	"context"
	"time"

	"github.com/pact-action/pact-action/ghapi"
)

// Reader is what judging needs from GitHub: files at a commit, branches,
// the merge base, pull requests, and the facts provenance is judged on.
type Reader interface {
	FileReader
	BlobReader
	ReadTrees(ctx context.Context, reads ...ghapi.TreeRead) ([]ghapi.Tree, error)
	BranchHeadAt(ctx context.Context, branch string, at time.Time) (string, error)
	MergeBase(ctx context.Context, base, head string) (string, error)
	PullRequest(ctx context.Context, number int) (*ghapi.PR, error)
	OpenPullRequests(ctx context.Context) ([]ghapi.PR, error)
	PullCommits(ctx context.Context, number int) ([]ghapi.Commit, error)
	Reviews(ctx context.Context, number int) ([]ghapi.Review, error)
	Commit(ctx context.Context, sha string) (*ghapi.Commit, error)
	GetComment(ctx context.Context, kind ghapi.CommentKind, id int64) (*ghapi.PRComment, error)
	CompareFiles(ctx context.Context, base, head string) ([]string, error)
	CodeIDs(ctx context.Context, dir string, commits ...string) (map[string]string, error)
	Diff(ctx context.Context, dir string, pairs ...ghapi.DiffPair) (map[ghapi.DiffPair][]ghapi.PathChange, error)
	CompareCommits(ctx context.Context, base, head string) (ghapi.Divergence, error)
	MatchingRefs(ctx context.Context, prefix string) (map[string]string, error)
}

// GitHub is what check mode needs from GitHub: reading, and the Checks API.
type GitHub interface {
	Reader
	CreateCheckRun(ctx context.Context, cr ghapi.CheckRun) (ghapi.CreatedRun, error)
	FindCheckRun(ctx context.Context, cr ghapi.CheckRun) (int64, bool, error)
	CompleteCheckRun(ctx context.Context, id int64, conclusion string, out ghapi.Output) error
	FailCheckRun(ctx context.Context, id int64, summary string) error
	SupersedeCheckRun(ctx context.Context, id int64, conclusion string, completedAt time.Time, out ghapi.Output) error
	RequestReviewers(ctx context.Context, number int, logins, teams []string) (*ghapi.PR, error)
}

var _ BotGitHub = (*ghapi.Client)(nil)
