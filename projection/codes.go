package projection

import "github.com/pact-action/pact-action/projection/internal/event"

// Code is a stable finding code from docs/semantics.md §6. Codes are a public
// contract: they never change meaning, so they live in one place
// (internal/event, which both readings fill).
type Code = event.Code

// The replay-time codes. checks adds the codes that are not tied to replaying
// one event (drift, task files, history, provenance), but they share this type.
const (
	CodeMalformedJSON      = event.CodeMalformedJSON
	CodeDuplicateKey       = event.CodeDuplicateKey
	CodeSchemaEnvelope     = event.CodeSchemaEnvelope
	CodeSchemaPayload      = event.CodeSchemaPayload
	CodeEventIDMissing     = event.CodeEventIDMissing
	CodeEventIDDuplicate   = event.CodeEventIDDuplicate
	CodeRoleMismatch       = event.CodeRoleMismatch
	CodeInitMissing        = event.CodeInitMissing
	CodeInitDuplicate      = event.CodeInitDuplicate
	CodeVersionUnsupported = event.CodeVersionUnsupported
	CodeUnknownSeat        = event.CodeUnknownSeat
	CodeInvalidSeatID      = event.CodeInvalidSeatID
	CodeRoleNotHeld        = event.CodeRoleNotHeld
	CodeTaskUnknown        = event.CodeTaskUnknown
	CodeTaskDuplicateID    = event.CodeTaskDuplicateID
	CodeTaskUnsafeID       = event.CodeTaskUnsafeID
	CodeTaskNotOwner       = event.CodeTaskNotOwner
	CodeOwnerIsReviewer    = event.CodeOwnerIsReviewer
	CodeSelfAccept         = event.CodeSelfAccept
	CodeNotReviewer        = event.CodeNotReviewer
	CodeInvalidTransition  = event.CodeInvalidTransition
	CodeFeatureUnknown     = event.CodeFeatureUnknown
	CodeRule2Unaccepted    = event.CodeRule2Unaccepted
)
