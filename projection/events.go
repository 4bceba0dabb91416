package projection

import "slices"

// The one place an event of ours is built: a constructor per v1 event type
// (docs/semantics.md, pact v1 §2.4) returning the Draft that Encode turns
// into the line. Each payload type's json names are the ones the decoder
// reads back (envelope.go: payload, provenance, gitHub), and
// TestConstructorsRoundTrip holds the two to each other, and to
// schemas/event.schema.json, for every type. pactify, the bot and the test
// fixtures all write through here; the writer adds the event_id and the ts.
//
// The field order of a payload type is the key order on the line, and
// lines already written must keep their bytes (the bot recognises a
// re-delivered review by its line being byte for byte the one it would
// write): init and assign keep the alphabetical order of the maps pactify
// first wrote them from; accept and changes_requested keep the order the
// bot has always written. cmd/pactify/testdata/log_lines.golden and
// bot/testdata/lines.golden pin both.

// InitPayload is the payload of init.
type InitPayload struct {
	BaseBranch      string `json:"base_branch"`
	Project         string `json:"project"`
	ProtocolVersion int    `json:"protocol_version"`
	Seats           []Seat `json:"seats"`
}

// AssignPayload is the payload of assign.
type AssignPayload struct {
	Branch   string `json:"branch"`
	Owner    string `json:"owner"`
	Reviewer string `json:"reviewer"`
	Spec     string `json:"spec"`
}

// JoinPayload is the payload of join.
type JoinPayload struct {
	Roles []string `json:"roles"`
}

// CheckpointPayload is the payload of checkpoint.
type CheckpointPayload struct {
	Evidence string `json:"evidence"`
}

// AcceptPayload is the payload of accept: both fields are optional, the
// provenance our tools add (payload.commit: the commit the review was given
// on; payload.github: the GitHub review or comment behind a bot's event).
type AcceptPayload struct {
	Commit string     `json:"commit,omitempty"`
	GitHub *GitHubRef `json:"github,omitempty"`
}

// ChangesRequestedPayload is the payload of changes_requested: the reason,
// and the same optional provenance as an accept's.
type ChangesRequestedPayload struct {
	Reason string     `json:"reason"`
	Commit string     `json:"commit,omitempty"`
	GitHub *GitHubRef `json:"github,omitempty"`
}

// NewInit is the init event that starts a pact, at the protocol version
// this engine implements.
func NewInit(agent, project, baseBranch string, seats []Seat) Draft {
	s := make([]Seat, len(seats))
	for i, seat := range seats {
		seat.Roles = list(seat.Roles)
		s[i] = seat
	}
	return Draft{AgentID: agent, Type: TypeInit,
		Payload: InitPayload{BaseBranch: baseBranch, Project: project, ProtocolVersion: SupportedProtocolVersion, Seats: s}}
}

// NewAssign is the assign event that creates task in feature.
func NewAssign(agent, task, feature string, p AssignPayload) Draft {
	return Draft{AgentID: agent, Type: TypeAssign, TaskID: task, Feature: feature, Payload: p}
}

// NewJoin is the join event of seat agent, declaring roles.
func NewJoin(agent string, roles []string) Draft {
	return Draft{AgentID: agent, Type: TypeJoin, Payload: JoinPayload{Roles: list(roles)}}
}

// NewCheckpoint is the checkpoint event that submits task for review.
func NewCheckpoint(agent, task, feature, evidence string) Draft {
	return Draft{AgentID: agent, Type: TypeCheckpoint, TaskID: task, Feature: feature, Payload: CheckpointPayload{Evidence: evidence}}
}

// NewAccept is the accept event of task by its reviewer seat agent.
func NewAccept(agent, task, feature string, p AcceptPayload) Draft {
	return Draft{AgentID: agent, Type: TypeAccept, TaskID: task, Feature: feature, Payload: p}
}

// NewChangesRequested is the changes_requested event on task by its
// reviewer seat agent.
func NewChangesRequested(agent, task, feature string, p ChangesRequestedPayload) Draft {
	return Draft{AgentID: agent, Type: TypeChangesRequested, TaskID: task, Feature: feature, Payload: p}
}

// NewMerge is the merge event of feature; its payload is {}.
func NewMerge(agent, feature string) Draft {
	return Draft{AgentID: agent, Type: TypeMerge, Feature: feature}
}

// list is a list field as the decoder requires it: an array, never null.
func list(s []string) []string {
	if s == nil {
		return []string{}
	}
	return slices.Clone(s)
}
