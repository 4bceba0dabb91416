package checks

// The facts of GitHub that checks reads are ghfacts' (a pull request, a
// review, a comment, a commit), as ghapi returns them: this file holds
// only what provenance weighs beside them.

import (
	"github.com/pact-action/pact-action/ghfacts"
	"github.com/pact-action/pact-action/projection"
)

// AddedEvent is one event line the pull request adds (after the merge-base
// prefix) with the commit that added it. A pull request may add hundreds of
// thousands, so they come one at a time (ProvenanceInput.Events) and Event
// is valid only until the next. It is not another shape of an event: it
// pairs the decoded event (projection.Event) with the GitHub fact
// provenance weighs it by, the commit that added its line.
type AddedEvent struct {
	Event *projection.Event
	// Commit added the line; nil when it could not be found, and then
	// Unattributed says why.
	Commit       *ghfacts.Commit
	Unattributed string
}

// CommentCommand is a /pact command that records an event: Type is
// projection.TypeAccept or projection.TypeChangesRequested.
type CommentCommand struct {
	Type string
	Task string
}

// Span is a pair of commits, From then To.
type Span struct{ From, To string }

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
