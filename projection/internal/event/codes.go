package event

// Code is a stable finding code from docs/semantics.md §6. Codes are a public
// contract: they never change meaning, so they live in one place.
type Code string

// The replay-time codes. checks adds the codes that are not tied to replaying
// one event (drift, task files, history, provenance), but they share this type.
const (
	CodeMalformedJSON      Code = "log.malformed_json"
	CodeDuplicateKey       Code = "log.duplicate_key"
	CodeSchemaEnvelope     Code = "schema.envelope"
	CodeSchemaPayload      Code = "schema.payload"
	CodeEventIDMissing     Code = "event_id.missing"
	CodeEventIDDuplicate   Code = "event_id.duplicate"
	CodeRoleMismatch       Code = "role.mismatch"
	CodeInitMissing        Code = "init.missing"
	CodeInitDuplicate      Code = "init.duplicate"
	CodeVersionUnsupported Code = "version.unsupported"
	CodeUnknownSeat        Code = "roster.unknown_seat"
	CodeInvalidSeatID      Code = "roster.invalid_seat_id"
	CodeRoleNotHeld        Code = "roster.role_not_held"
	CodeTaskUnknown        Code = "task.unknown"
	CodeTaskDuplicateID    Code = "task.duplicate_id"
	CodeTaskUnsafeID       Code = "task.unsafe_id"
	CodeTaskNotOwner       Code = "task.not_owner"
	CodeOwnerIsReviewer    Code = "rule1.owner_is_reviewer"
	CodeSelfAccept         Code = "rule1.self_accept"
	CodeNotReviewer        Code = "rule1.not_reviewer"
	CodeInvalidTransition  Code = "state.invalid_transition"
	CodeFeatureUnknown     Code = "feature.unknown"
	CodeRule2Unaccepted    Code = "rule2.unaccepted_tasks"
)
