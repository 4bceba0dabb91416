package projection

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/pact-action/pact-action/pactfile"
	"github.com/pact-action/pact-action/projection/internal/event"
	"github.com/pact-action/pact-action/projection/internal/snapshot"
)

// Draft is an event a writer wants to append. Encode turns it into the one
// log line the envelope (docs/semantics.md, pact v1 §2.1) describes.
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

// formatTS renders an instant the way every writer of ours does: UTC RFC 3339
// with only as many fractional digits as it needs.
func formatTS(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// Encode renders a draft as one JSON line without its terminator. The role is
// always the one the event type implies (docs/semantics.md, pact v1 §2.3).
func Encode(d Draft) ([]byte, error) {
	payload := d.Payload
	if payload == nil {
		payload = struct{}{}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	err := enc.Encode(envelope{EventID: d.EventID, TS: formatTS(d.TS), AgentID: d.AgentID, Role: RoleFor(d.Type),
		EventType: d.Type, TaskID: d.TaskID, Feature: d.Feature, Payload: payload})
	if err != nil {
		return nil, fmt.Errorf("encode %s event: %w", d.Type, err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// LatestTS is the latest valid ts in the log; writers never stamp an event
// earlier, so a new line replays last even when clocks disagree.
func (l *Log) LatestTS() time.Time { return l.latest }

// LatestTS is Log.LatestTS of a log read with its events.
func (l *EventLog) LatestTS() time.Time {
	latest := l.judgedLatest
	for i := range l.Events {
		if ts := l.Events[i].TS; ts.After(latest) {
			latest = ts
		}
	}
	return latest
}

// newEvent decodes the line a writer proposes to append after lines lines.
func newEvent(line []byte, lines int) (Event, error) {
	ev, _, skip, malformed := decodeLine(line)
	if malformed != "" || skip {
		return ev, fmt.Errorf("internal error: the new event does not parse (%s)", malformed)
	}
	ev.Line = lines + 1
	if ev.EventID == "" {
		return ev, fmt.Errorf("internal error: the new event has no event_id")
	}
	return ev, nil
}

// duplicateOf is a writer's refusal of a line whose event_id the log holds
// on line: the replay's event_id.duplicate, said the same way. A writer
// refuses a copy too, which a replay would only warn about.
func duplicateOf(ev *Event, line int) *Rejection {
	r := event.Duplicate(ev.Line, ev.EventID, ev.TaskID, ev.Feature, line, false)
	return &r
}

// propose judges one new line as if appended to the log (res is its
// replay), exactly as a replay of the longer log judges it, and on success
// leaves log and res describing the longer log. It refuses a line whose
// event_id the log already holds. A line whose ts sorts after every event is
// judged against the current state; an earlier one (a review submitted
// before later events) is judged by replaying the longer log, and refused
// when it would change the verdict on any existing line.
func (l *EventLog) propose(res *Result, line []byte) (*Rejection, error) {
	if r := unsupportedRefusal(res); r != nil {
		return r, nil
	}
	ev, err := newEvent(line, l.Lines)
	if err != nil {
		return nil, err
	}
	if at := l.LineOf(ev.EventID); at != 0 {
		return duplicateOf(&ev, at), nil
	}
	if ev.Problem != nil || !ev.TS.Before(l.LatestTS()) {
		if r := res.State.Apply(&ev); r != nil {
			return r, nil
		}
		l.Events = append(l.Events, ev)
		l.Lines = ev.Line
		return nil, nil
	}
	longer := *l
	longer.Events = append(append([]Event(nil), l.Events...), ev)
	longer.Lines = ev.Line
	// Whole verdicts are compared: a rejection past the listing cap counts
	// as much as a listed one. The findings judged on reading
	// (judgedOnRead) are the same in both and left out.
	full := res
	if len(res.Omitted) > 0 {
		full = replayOrdered(l, 0)
	}
	next := replayOrdered(&longer, 0)
	before := map[Code]map[int]bool{}
	for _, r := range full.Rejections {
		if before[r.Code] == nil {
			before[r.Code] = map[int]bool{}
		}
		before[r.Code][r.Line] = true
	}
	for _, r := range next.Rejections {
		if r.Line == ev.Line {
			rej := r
			return &rej, nil
		}
	}
	for _, r := range next.Rejections {
		if !before[r.Code][r.Line] {
			return &Rejection{Line: ev.Line, EventID: ev.EventID, TaskID: ev.TaskID, Feature: ev.Feature, Code: r.Code,
				Message: fmt.Sprintf("its ts %s sorts before later events, and replaying it there would break line %d: %s", ev.TSRaw, r.Line, r.Message)}, nil
		}
	}
	listed := event.NewListing(MaxListed)
	listed.AddAll(next.Rejections)
	if l.judged != nil {
		listed.Merge(l.judged)
	}
	next.Rejections, next.Omitted = listed.Result()
	*l, *res = longer, *next
	return nil, nil
}

// propose is EventLog.propose on a log read without its events: it judges
// the line exactly as EventLog.propose judges it on the whole log,
// provided the line carries a reserved event_id (ReadOptions.Reserve) and
// a ts not before LatestTS, which holds for every line a writer stamps.
func (l *Log) propose(res *Result, line []byte) (*Rejection, error) {
	if r := unsupportedRefusal(res); r != nil {
		return r, nil
	}
	ev, err := newEvent(line, l.Lines)
	if err != nil {
		return nil, err
	}
	at, reserved := l.reserved[ev.EventID]
	switch {
	case len(l.reserved) == 0:
		return nil, errors.New("internal error: the log was read without its events and without a reserved event_id")
	case !reserved:
		return nil, fmt.Errorf("internal error: the log was read for appending event_ids %q, not %q", slices.Sorted(maps.Keys(l.reserved)), ev.EventID)
	case at > 0:
		return duplicateOf(&ev, at), nil
	case ev.Problem == nil && ev.TS.Before(l.latest):
		// The log's own events are gone, so the line can only be judged at
		// the end of replay order.
		return nil, fmt.Errorf("internal error: a line dated %s sorts before the log's latest event, and a log read without its events cannot replay it there", ev.TSRaw)
	}
	if rej := res.State.Apply(&ev); rej != nil {
		return rej, nil
	}
	l.Lines = ev.Line
	l.reserved[ev.EventID] = ev.Line
	if ev.TS.After(l.latest) {
		l.latest = ev.TS
	}
	if l.forSnapshot {
		l.digests = append(l.digests, snapshot.Digest(ev.EventID))
	}
	return nil, nil
}

// unsupportedRefusal is the refusal of every line appended to a log that
// fails closed (Result.Unsupported), or nil.
func unsupportedRefusal(res *Result) *Rejection {
	if res.Unsupported == nil {
		return nil
	}
	r := *res.Unsupported
	return &r
}

// ErrUnterminated is a log whose last line has no line break: the remains
// of an append that was cut off (a full disk, a file-size limit, a crash
// between a write and its fsync on some file systems), or a hand edit.
// Appending after it would seal whatever it holds into a line of its own,
// for ever, in an append-only log; Append refuses instead.
var ErrUnterminated = errors.New("the last line of the log has no line break")

// Appended is what Append decided: the lines to write and the state they
// leave, or nothing.
type Appended struct {
	// Lines are the accepted drafts' lines, in order, without terminators;
	// Tail is what appends them to the log's end (pactfile.AppendLines):
	// the new log is the old one followed by Tail.
	Lines [][]byte
	Tail  []byte
	// Drafts are the drafts as stamped; Refused holds, for each, the
	// rejection that refused it (nil: its line is in Lines).
	Drafts  []Draft
	Refused []*Rejection
	// State is the replay's state with Lines applied: what STATE.yml is
	// regenerated from (Render).
	State *State
}

// Append is the one routine by which an event is written, by pactify on
// disk and by the bot on GitHub alike: each draft is stamped (stamp, when
// not nil, given the log's latest ts; the bot's drafts come stamped from
// the GitHub object they record), encoded, and judged against the state the
// log and the lines accepted before it leave (exactly as a replay of the
// longer log judges it; a line whose event_id the log holds is refused),
// which it is then applied to, in l and res; the accepted lines are
// appended after end, the log's end as pactfile.AppendLines takes it (the
// whole log, or back to its last line break). A log whose last line has no
// line break is refused before anything is judged (ErrUnterminated).
// Append writes nothing: the caller writes Tail and STATE.yml rendered from
// State as one change, or, on any failure, nothing, so that every file is
// as it was.
//
// A log read without its events judges only the lines of its reserved
// event_ids (ReadOptions.Reserve), dated not before LatestTS; any other is
// an error. An EventLog judges any line.
func (l *Log) Append(res *Result, end []byte, stamp func(d *Draft, latest time.Time), drafts ...Draft) (*Appended, error) {
	return appendDrafts(l, res, end, stamp, drafts)
}

// Append is Log.Append on a log read with its events: a line dated before
// later events is judged too, by replaying the longer log, and refused when
// it would change the verdict on any existing line.
func (l *EventLog) Append(res *Result, end []byte, stamp func(d *Draft, latest time.Time), drafts ...Draft) (*Appended, error) {
	return appendDrafts(l, res, end, stamp, drafts)
}

// proposer is a log that judges a line appended to it: Log or EventLog.
type proposer interface {
	LatestTS() time.Time
	propose(res *Result, line []byte) (*Rejection, error)
}

func appendDrafts(l proposer, res *Result, end []byte, stamp func(d *Draft, latest time.Time), drafts []Draft) (*Appended, error) {
	if pactfile.Unterminated(end) {
		return nil, ErrUnterminated
	}
	a := &Appended{Drafts: make([]Draft, len(drafts)), Refused: make([]*Rejection, len(drafts))}
	for i, d := range drafts {
		if stamp != nil {
			stamp(&d, l.LatestTS())
		}
		a.Drafts[i] = d
		line, err := Encode(d)
		if err != nil {
			return nil, err
		}
		rej, err := l.propose(res, line)
		if err != nil {
			return nil, err
		}
		if a.Refused[i] = rej; rej == nil {
			a.Lines = append(a.Lines, line)
		}
	}
	if len(a.Lines) > 0 {
		a.Tail = pactfile.AppendLines(nil, end, a.Lines...)
	}
	a.State = res.State
	return a, nil
}
