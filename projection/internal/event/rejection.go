package event

import "fmt"

// Rejection is one event the replay reported, with the stable code of the
// first check it failed (docs/semantics.md §1). A rejected event is not applied,
// except that an event_id.missing rejection travels with the event, which is
// still judged and, when nothing else fails, applied.
type Rejection struct {
	Line    int // 0 when the finding has no line (init.missing at the end)
	EventID string
	TaskID  string
	Feature string
	Code    Code
	Message string
	// Identical marks an event_id.duplicate whose two lines are byte-identical,
	// which docs/semantics.md §7 reports as a warning.
	Identical bool
}

// Reject is the rejection of ev with code and msg.
func Reject(ev *Event, code Code, msg string) *Rejection {
	return &Rejection{Line: ev.Line, EventID: ev.EventID, TaskID: ev.TaskID, Feature: ev.Feature, Code: code, Message: msg}
}

// MissingID is the event_id.missing rejection of ev.
func MissingID(ev *Event) *Rejection {
	return Reject(ev, CodeEventIDMissing, fmt.Sprintf("%s event has no non-empty event_id", ev.Type))
}

// Duplicate is the rejection of a later use of an event_id, first used on
// line firstLine (identical: by a byte-identical line).
func Duplicate(line int, id, taskID, feature string, firstLine int, identical bool) Rejection {
	msg := fmt.Sprintf("event_id %q was already used on line %d", id, firstLine)
	if identical {
		msg += " by a byte-identical line (a copied or re-merged line)"
	}
	return Rejection{Line: line, EventID: id, TaskID: taskID, Feature: feature, Code: CodeEventIDDuplicate, Message: msg, Identical: identical}
}
