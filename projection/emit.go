package projection

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"
)

// Draft is an event a writer wants to append. Encode turns it into the one
// log line the spec's envelope (§2.1) describes.
type Draft struct {
	EventID string
	TS      time.Time
	AgentID string
	Type    string
	TaskID  string
	Feature string
	// Payload is marshalled as the payload object; nil means {}.
	Payload any
}

// envelope keeps the spec's field order on the wire, which makes logs
// diffable and easy to read.
type envelope struct {
	EventID   string `json:"event_id"`
	TS        string `json:"ts"`
	AgentID   string `json:"agent_id"`
	Role      string `json:"role"`
	EventType string `json:"event_type"`
	TaskID    string `json:"task_id"`
	Feature   string `json:"feature"`
	Payload   any    `json:"payload"`
}

// FormatTS renders an instant the way every writer of ours does: UTC RFC 3339
// with only as many fractional digits as it needs.
func FormatTS(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// Encode renders a draft as one JSON line without its terminator. The role is
// always the one the event type implies (spec §2.3).
func Encode(d Draft) ([]byte, error) {
	payload := d.Payload
	if payload == nil {
		payload = struct{}{}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	err := enc.Encode(envelope{EventID: d.EventID, TS: FormatTS(d.TS), AgentID: d.AgentID, Role: RoleFor(d.Type),
		EventType: d.Type, TaskID: d.TaskID, Feature: d.Feature, Payload: payload})
	if err != nil {
		return nil, fmt.Errorf("encode %s event: %w", d.Type, err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// LatestTS is the latest valid ts in the log; writers never stamp an event
// before it, so a new line always replays after every existing one even when
// clocks disagree.
func LatestTS(log *Log) time.Time {
	var latest time.Time
	for i := range log.Events {
		if ts := log.Events[i].TS; ts.After(latest) {
			latest = ts
		}
	}
	return latest
}

// Propose judges one new line as if appended to log, exactly as a replay of
// the longer log would judge it, and returns the replay with the event
// applied. It refuses a line that is not a v1 event, one whose event_id the
// log already holds, and one that does not sort after every existing event.
func Propose(log *Log, res *Result, line []byte) (*Rejection, error) {
	if res.Unsupported != nil {
		r := *res.Unsupported
		return &r, nil
	}
	ev, _, skip, malformed := decodeLine(line)
	if malformed != "" || skip {
		return nil, fmt.Errorf("internal error: the new event does not parse (%s)", malformed)
	}
	ev.Line = log.Lines + 1
	if ev.Problem == nil && ev.TS.Before(LatestTS(log)) {
		return nil, fmt.Errorf("internal error: the new event's ts %s sorts before the log's latest event", ev.TSRaw)
	}
	if ev.EventID == "" {
		return nil, fmt.Errorf("internal error: the new event has no event_id")
	}
	for i := range log.Events {
		if log.Events[i].EventID == ev.EventID {
			return &Rejection{Line: ev.Line, EventID: ev.EventID, TaskID: ev.TaskID, Feature: ev.Feature, Code: CodeEventIDDuplicate,
				Message: fmt.Sprintf("event_id %s is already in the log on line %d", ev.EventID, log.Events[i].Line)}, nil
		}
	}
	if r := res.State.Apply(&ev); r != nil {
		return r, nil
	}
	log.Events = append(log.Events, ev)
	log.Lines = ev.Line
	return nil, nil
}
