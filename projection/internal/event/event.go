// Package event holds the words both readings of the log are told in:
// an event as a line decodes to (Event, its Payload and Problem), what a
// reading keeps of the lines that are not events (Scan), a finding of the
// replay (Rejection, with its stable Code) and how findings are listed
// (Listing, MaxListed). Projection's decoder fills them and its replays
// judge them, the canonical one and the lean one (internal/lean) alike;
// projection names every one of them for its callers. It holds no
// meaning of its own: what an event means is projection's.
package event

import (
	"time"

	"github.com/pact-action/pact-action/pactfile"
)

// The seven v1 event types (docs/semantics.md, pact v1 §2.2).
const (
	TypeInit             = "init"
	TypeAssign           = "assign"
	TypeJoin             = "join"
	TypeCheckpoint       = "checkpoint"
	TypeAccept           = "accept"
	TypeChangesRequested = "changes_requested"
	TypeMerge            = "merge"
)

// The three roles (docs/semantics.md, pact v1 §2.3).
const (
	RoleOrchestrator = "orchestrator"
	RoleWorker       = "worker"
	RoleReviewer     = "reviewer"
)

// MaxLineBytes bounds one log line. Longer lines are reported, never buffered
// whole, so a hostile log cannot exhaust memory.
const MaxLineBytes = 1 << 20

// Seat is one roster entry of the init event (docs/semantics.md, pact v1
// §6.2): the same seat PROJECT.md's charter lists, so one type.
type Seat = pactfile.Seat

// GitHubRef is the provenance a bot-written event carries in payload.github:
// the review or the comment (one of the two ids), where it is, who gave it
// and the head it was given on. The bot has always written url, login and
// head_sha even when empty, and its lines must keep their bytes
// (events.go).
type GitHubRef struct {
	ReviewID  int64  `json:"review_id,omitempty"`
	CommentID int64  `json:"comment_id,omitempty"`
	URL       string `json:"url"`
	Login     string `json:"login"`
	HeadSHA   string `json:"head_sha"`
}

// Payload holds the payload fields v1 gives meaning to; everything else in a
// payload is ignored (docs/semantics.md, pact v1 §1.2.1).
type Payload struct {
	// init
	Project         string
	ProtocolVersion int
	Seats           []Seat
	BaseBranch      string
	// assign
	Owner, Reviewer, Branch, Spec string
	// join
	Roles []string
	// checkpoint
	Evidence string
	// changes_requested
	Reason string
	// accept / changes_requested, optional: the commit the review was given on
	// and where it came from.
	Commit string
	GitHub *GitHubRef
}

// Event is one parsed log line of a known v1 type.
type Event struct {
	Line    int // 1-based line number in the file
	EventID string
	TS      time.Time
	TSRaw   string
	AgentID string
	Role    string
	Type    string
	TaskID  string
	Feature string
	Payload Payload
	// Problem is the first envelope or payload defect found while parsing;
	// such an event is reported and never applied.
	Problem *Problem
	// idNotString marks an event_id that is present but not a string.
	idNotString bool
}

// MissingEventID reports whether the event lacks a non-empty event_id. A
// non-string event_id is not missing: it is an envelope defect (docs/semantics.md
// §7), reported once as schema.envelope.
func (e *Event) MissingEventID() bool { return e.EventID == "" && !e.idNotString }

// MarkIDNotString marks ev's event_id as present but not a string, as the
// decoder finds it (a function, not a method: the readers of an Event see
// only MissingEventID).
func MarkIDNotString(ev *Event) { ev.idNotString = true }

// Problem is a defect found in a single line before replay.
type Problem struct {
	Code    Code
	Message string
}

// Malformed is a non-blank line that is not a usable JSON object: Code is
// CodeMalformedJSON, or CodeDuplicateKey for JSON that names a member twice
// in one object (docs/semantics.md §7), which is not applied either.
type Malformed struct {
	Line    int
	Code    Code
	Message string
}

// VersionClaim records an init line that asks for a protocol major above the
// supported one; one such line makes the whole log fail closed.
type VersionClaim struct {
	Line    int
	Version string // the literal, so huge numbers are reported as written
	TS      time.Time
	TSValid bool
}
