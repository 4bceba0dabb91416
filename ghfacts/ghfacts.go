// Package ghfacts is the one vocabulary of GitHub facts pact-action reads:
// a pull request, a review and its states, a comment, a commit, the head
// of a branch at some time. ghapi returns these types as they are, and
// checks, bot and action read them, so no code converts one shape of a
// fact into another. It imports nothing of ours: every package that speaks
// of GitHub may import it, the pure ones included.
//
// Each is GitHub's record as the job reads it when it runs, never a
// webhook payload's, which a re-run replays unchanged. What is derived
// from a fact (a comment's /pact commands, the tasks awaiting review at a
// commit) belongs to the code that derives it, not here.
package ghfacts

import "time"

// PullRequest is a pull request as GitHub has it when the job runs.
type PullRequest struct {
	Number int
	Title  string
	// State is "open" or "closed".
	State string
	Draft bool
	// HeadSHA and HeadRef are the head commit and branch name (in the
	// head repository, which differs from the base one for forks).
	HeadSHA, HeadRef string
	// HeadRepoFullName is "owner/repo" of the head repository; empty when
	// that repository was deleted.
	HeadRepoFullName string
	BaseRef, BaseSHA string
	// Fork: the head branch lives in another repository, which the
	// workflow's token cannot write and whose push history it cannot read
	// (also when the head repository was deleted).
	Fork        bool
	AuthorLogin string
	// RequestedReviewers and RequestedTeams are the accounts and the team
	// slugs whose review is requested and not yet given (a review removes
	// its author's request).
	RequestedReviewers, RequestedTeams []string
	// Mergeable is GitHub's mergeability (Mergeable, Conflicting or
	// Unknown) when the listing that read the pull request asked for it,
	// "" otherwise. GitHub computes it lazily, so it is Unknown for a
	// while after the head or the base's tip moved; the listing with
	// mergeability reads no title, draft, author or requests.
	Mergeable string
}

// Mergeability of a pull request as GitHub computes it (GraphQL's
// MergeableState).
const (
	Mergeable   = "MERGEABLE"
	Conflicting = "CONFLICTING"
	Unknown     = "UNKNOWN"
)

// Review is a submitted pull request review as GitHub reports it when the
// job runs (not as a webhook said: it may since have been superseded).
type Review struct {
	ID int64
	// Found is false when GitHub has no such review on this pull request
	// (the zero Review).
	Found bool
	// State is one of the Review constants below, in the case of GitHub's
	// REST API, to which ghapi normalises every state it reads.
	State       string
	AuthorLogin string
	Body, URL   string
	// CommitID is the head commit the review was given on.
	CommitID string
	// SubmittedAt is when GitHub recorded the review (UTC); an event
	// recorded from it carries this instant as its ts.
	SubmittedAt time.Time
}

// Review states: the one vocabulary, in GitHub's REST API's case.
const (
	ReviewApproved         = "APPROVED"
	ReviewChangesRequested = "CHANGES_REQUESTED"
	ReviewCommented        = "COMMENTED"
	ReviewDismissed        = "DISMISSED"
	ReviewPending          = "PENDING"
)

// Comment is a pull request comment as GitHub has it when the job runs:
// on its conversation (an issue comment) or on a line of its diff (a
// review comment).
type Comment struct {
	ID int64
	// OnDiff is set for a review comment on the diff; those and
	// conversation comments have separate id spaces on GitHub.
	OnDiff bool
	// Found is false when GitHub has no such comment (the zero Comment).
	Found       bool
	AuthorLogin string
	Body, URL   string
	// Number is the pull request the comment belongs to, read from its
	// issue_url or pull_request_url; 0 when GitHub sent neither.
	Number int
	// CreatedAt is when GitHub recorded the comment, UpdatedAt when its
	// body last changed (see Edited); both UTC.
	CreatedAt, UpdatedAt time.Time
}

// Edited says the comment's body changed since it was made: anyone with
// write access can edit a comment, so an edited comment is no evidence of
// its author's decision.
func (c Comment) Edited() bool { return c.UpdatedAt.After(c.CreatedAt) }

// Commit is a commit as GitHub reports it, with the accounts it links to.
type Commit struct {
	SHA string
	// Parents are the commit's parents, first parent first: an event
	// recorded from a /pact comment was given on the first.
	Parents []string
	// AuthorLogin and CommitterLogin are the GitHub accounts GitHub links
	// to the commit's author and committer; "" when the e-mail address
	// matches no account.
	AuthorLogin    string
	CommitterLogin string
	// Verified is GitHub's verdict on the commit's signature
	// (commit.verification.verified).
	Verified bool
	Message  string
	// CommitterDate is the committer date of the commit object: the
	// committer chose it, GitHub does not. An event stamped more than a
	// day ahead of it and of the judgement's time is provenance.future_ts.
	CommitterDate time.Time
}

// FirstParent is the first parent of a commit, "" for none.
func (c *Commit) FirstParent() string {
	if c == nil || len(c.Parents) == 0 {
		return ""
	}
	return c.Parents[0]
}

// HeadAt is the commit a branch pointed at, at some time, from GitHub's
// push history: SHA, or Why it cannot be told (no push history, a fork,
// history that does not reach back, a push in the same second).
type HeadAt struct{ SHA, Why string }
