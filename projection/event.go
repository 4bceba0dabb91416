package projection

import "github.com/pact-action/pact-action/projection/internal/event"

// The words a reading of the log is told in are defined with the fast
// path's (internal/event), which both readings fill, and named here for
// projection's callers.

// The seven v1 event types (docs/semantics.md, pact v1 §2.2).
const (
	TypeInit             = event.TypeInit
	TypeAssign           = event.TypeAssign
	TypeJoin             = event.TypeJoin
	TypeCheckpoint       = event.TypeCheckpoint
	TypeAccept           = event.TypeAccept
	TypeChangesRequested = event.TypeChangesRequested
	TypeMerge            = event.TypeMerge
)

// The three roles (docs/semantics.md, pact v1 §2.3).
const (
	RoleOrchestrator = event.RoleOrchestrator
	RoleWorker       = event.RoleWorker
	RoleReviewer     = event.RoleReviewer
)

// SupportedProtocolVersion is the protocol major this engine implements.
const SupportedProtocolVersion = 1

// MaxLineBytes bounds one log line. Longer lines are reported, never buffered
// whole, so a hostile log cannot exhaust memory.
const MaxLineBytes = event.MaxLineBytes

// MaxListed is how many lines of one finding code a reading of the log
// lists in full; beyond it they are only counted (docs/semantics.md §7,
// bounded output and memory): the cap is taken as lines are read, not when
// findings are shown.
const MaxListed = event.MaxListed

// RoleFor returns the role a v1 event type implies (docs/semantics.md, pact v1 §2.3), or "" for a
// type v1 does not know.
func RoleFor(eventType string) string {
	switch eventType {
	case TypeInit, TypeAssign, TypeMerge:
		return RoleOrchestrator
	case TypeJoin, TypeCheckpoint:
		return RoleWorker
	case TypeAccept, TypeChangesRequested:
		return RoleReviewer
	}
	return ""
}

// isKnownType reports whether t is one of the seven v1 event types.
func isKnownType(t string) bool { return RoleFor(t) != "" }

type (
	// Seat is one roster entry of the init event (docs/semantics.md, pact
	// v1 §6.2): the same seat PROJECT.md's charter lists, so one type.
	Seat = event.Seat
	// GitHubRef is the provenance a bot-written event carries in
	// payload.github: the review or the comment, where it is, who gave it
	// and the head it was given on.
	GitHubRef = event.GitHubRef
	// Payload holds the payload fields v1 gives meaning to; everything else
	// in a payload is ignored (docs/semantics.md, pact v1 §1.2.1).
	Payload = event.Payload
	// Event is one parsed log line of a known v1 type.
	Event = event.Event
	// Problem is a defect found in a single line before replay.
	Problem = event.Problem
	// Malformed is a non-blank line that is not a usable JSON object.
	Malformed = event.Malformed
	// VersionClaim records an init line that asks for a protocol major
	// above the supported one; one such line makes the whole log fail
	// closed.
	VersionClaim = event.VersionClaim
	// Scan is what every reading of log.jsonl keeps besides its events:
	// the lines that could not be read, any init line that asks for a
	// newer major, the number of lines and the first conflict marker.
	Scan = event.Scan
	// Rejection is one event the replay reported, with the stable code of
	// the first check it failed (docs/semantics.md §1).
	Rejection = event.Rejection
	// Omitted is how many rejections of one code (and, for
	// event_id.duplicate, of one kind: Identical) a Result counts but does
	// not list, past MaxListed.
	Omitted = event.Omitted
)
