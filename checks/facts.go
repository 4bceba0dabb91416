package checks

import (
	"time"

	"github.com/pact-action/pact-action/projection"
)

// ProvenanceCommit is what GitHub reports about the commit that added a line.
type ProvenanceCommit struct {
	SHA string
	// Parents are the commit's parents, first parent first: an event
	// recorded from a /pact comment was given on the first.
	Parents []string
	// Date is the commit's committer date (the committer chose it); an
	// event stamped more than a day ahead of it and of the judgement's time
	// is provenance.future_ts.
	Date time.Time
	// AuthorLogin and CommitterLogin are the GitHub accounts GitHub links to
	// the commit's author and committer ("" when none).
	AuthorLogin    string
	CommitterLogin string
	// Verified is GitHub's verdict on the commit's signature.
	Verified bool
}

// AddedEvent is one event line the pull request adds (after the merge-base
// prefix) with the commit that added it. A pull request may add hundreds of
// thousands, so they come one at a time (ProvenanceInput.Events) and Event
// is valid only until the next.
type AddedEvent struct {
	Event *projection.Event
	// Commit added the line; nil when it could not be found, and then
	// Unattributed says why.
	Commit       *ProvenanceCommit
	Unattributed string
}

// The facts of GitHub that bot and checks read, one type each: a pull
// request (PRFact), a review (ReviewFact), a comment (CommentFact), a
// commit (ProvenanceCommit). action fills them from ghapi's answers, in
// one place (action/facts.go), and only there.

// PRFact is a pull request as GitHub has it when the job runs.
type PRFact struct {
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
}

// ReviewFact is a submitted pull request review as GitHub reports it when
// the job runs (not as a webhook said: it may since have been superseded).
type ReviewFact struct {
	ID int64
	// Found is false when GitHub has no such review on this pull request.
	Found bool
	// State is one of the Review constants below (upper-case, as GitHub's
	// REST API sends it).
	State       string
	AuthorLogin string
	Body, URL   string
	// CommitID is the head commit the review was given on.
	CommitID string
	// SubmittedAt is when GitHub recorded the review; an event recorded
	// from it carries this instant as its ts.
	SubmittedAt time.Time
	// Awaiting lists the tasks awaiting review in the log at CommitID, when
	// AwaitingKnown: a review can only have accepted (or sent back) those,
	// which keeps one approval from being reused for a task checkpointed
	// after it. When it is not known, nothing the review backs is verified.
	Awaiting      []string
	AwaitingKnown bool
}

// Review states: the one vocabulary, in GitHub's REST API's case, which
// action normalises every state it reads to.
const (
	ReviewApproved         = "APPROVED"
	ReviewChangesRequested = "CHANGES_REQUESTED"
	ReviewCommented        = "COMMENTED"
	ReviewDismissed        = "DISMISSED"
	ReviewPending          = "PENDING"
)

// CommentFact is a pull request comment as GitHub has it when the job
// runs.
type CommentFact struct {
	ID int64
	// OnDiff is set for a review comment on the diff; those and
	// conversation comments have separate id spaces on GitHub.
	OnDiff bool
	// Found is false when GitHub has no such comment.
	Found       bool
	AuthorLogin string
	Body, URL   string
	// Number is the pull request the comment belongs to.
	Number int
	// CreatedAt is when GitHub recorded the comment, UpdatedAt when its
	// body last changed (see Edited).
	CreatedAt, UpdatedAt time.Time
	// Commands are the /pact commands of its current body that record an
	// event.
	Commands []CommentCommand
	// HeadAtComment is the commit the pull request's head branch pointed
	// at when the comment was made (GitHub's push history); "" when it
	// cannot be told, and HeadWhy says why.
	HeadAtComment string
	HeadWhy       string
	// Awaiting lists the tasks awaiting review in the log at HeadAtComment,
	// when AwaitingKnown.
	Awaiting      []string
	AwaitingKnown bool
}

// Edited says the comment's body changed since it was made: anyone with
// write access can edit a comment, so an edited comment is no evidence of
// its author's decision.
func (c CommentFact) Edited() bool { return c.UpdatedAt.After(c.CreatedAt) }

// CommentCommand is a /pact command that records an event: Type is
// projection.TypeAccept or projection.TypeChangesRequested.
type CommentCommand struct {
	Type string
	Task string
}

// Span is a pair of commits, From then To.
type Span struct{ From, To string }

// FirstParent is the first parent of a commit, "" for none.
func (c *ProvenanceCommit) FirstParent() string {
	if c == nil || len(c.Parents) == 0 {
		return ""
	}
	return c.Parents[0]
}

// StaleFacts is what the coverage of one accept is judged on.
type StaleFacts struct {
	// Anchor is the commit the accept was given on ("" when it cannot be
	// told, and AnchorWhy says why); Missing says GitHub does not know that
	// commit.
	Anchor    string
	AnchorWhy string
	Missing   bool
	// After lists the commits that are neither the anchor nor one of its
	// ancestors, other than the commit that recorded the accept, oldest
	// first (push policy; under tree, the candidates).
	After []string
	// Changed lists the paths outside the pact directory that differ
	// between the anchor and the head, when they do (tree policy, to say
	// what changed), or where the anchor's change and the head's part
	// (change policy); Truncated says the list was cut (GitHub's
	// comparison at its file limit), so more may differ.
	Changed   []string
	Truncated bool
	// Touching lists the commits of After (or the accept's own commit)
	// that changed files outside the pact directory, oldest first;
	// Unexamined counts candidates left unexamined to bound API calls.
	Touching   []string
	Unexamined int
	// Behind counts the commits of the anchor's history that the head
	// lacks (push: the head does not build on what was reviewed).
	Behind int
}
