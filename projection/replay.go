package projection

import (
	"fmt"
	"hash/maphash"
	"sort"
	"strings"
	"time"

	"github.com/pact-action/pact-action/internal/prose"
	"github.com/pact-action/pact-action/projection/internal/compact"
	"github.com/pact-action/pact-action/projection/internal/event"
)

// Result is the outcome of a replay.
type Result struct {
	State *State
	// Rejections lists, per code, the MaxListed rejections with the lowest
	// lines; Omitted counts the others (docs/semantics.md §7).
	Rejections []Rejection
	Omitted    []Omitted
	// Unsupported is set when the log fails closed on a newer protocol major;
	// then nothing else was judged and State is empty.
	Unsupported *Rejection
}

// replay is the canonical replay, of a log read with its events
// (ReadEvents): it judges and applies the events in replay order,
// stable sort by ts, ties by line; duplicates of an event_id are left out
// first, in file order. Rejections come back sorted by line. The parallel
// replay (internal/lean, replayLean) gives the same Result.
func replay(log *EventLog) *Result { return replayListing(log, MaxListed) }

// replayListing is replay listing at most limit rejections of each code (0:
// every one, of what the read did not judge: judgedOnRead).
func replayListing(log *EventLog, limit int) *Result {
	res := replayOrdered(log, limit)
	if log.judged != nil && res.Unsupported == nil {
		rs := event.NewListing(limit)
		rs.Merge(log.judged)
		rs.AddAll(res.Rejections)
		rs.AddOmitted(res.Omitted)
		res.Rejections, res.Omitted = rs.Result()
	}
	return res
}

// replayOrdered is replayListing without the findings judged on reading.
func replayOrdered(log *EventLog, limit int) *Result {
	res, _ := replayOnto(log, limit, NewState(), nil, nil)
	return res
}

// idSeed hashes event_ids for the tables of duplicates.
var idSeed = maphash.MakeSeed()

// priorID finds an event_id in the lines before a log that replayOnto
// continues: the line that first used it and the hash of that line
// (EventLog.hash), or ok false.
type priorID func(id string) (line int, hash uint64, ok bool)

// replayOnto is replayOrdered of a log that continues the lines a state st
// was replayed from (MergeLogs): its events are judged and applied to st,
// an event_id first used before it is found by prior (nil: none), and
// every event it orders must sort after those lines, so its ts must not
// be before *after (the latest ts of those lines); otherwise it reports
// false and st is spoilt. With NewState, no prior and no after (nil) it is
// the replay of the whole log.
func replayOnto(log *EventLog, limit int, st *State, prior priorID, after *time.Time) (*Result, bool) {
	res := &Result{State: st}
	if u := unsupported(&log.Scan); u != nil {
		res.State, res.Unsupported = NewState(), u
		return res, true
	}
	rs := event.NewListing(limit)
	order := make([]*Event, 0, len(log.Events))
	// Event ids by their first event: an index below n is one of Events,
	// above it one of held; both are walked in file order.
	var seen compact.IDTable
	n := len(log.Events)
	first := func(k uint32) (id string, line int, hash uint64) {
		if int(k) < n {
			return log.Events[k].EventID, log.Events[k].Line, log.hash(int(k))
		}
		h := &log.held[int(k)-n]
		return h.EventID, h.Line, h.hash
	}
	rehash := func(k uint32) uint64 { id, _, _ := first(k); return maphash.String(idSeed, id) }
	if top := n + len(log.held); top > 0 {
		seen.Reserve(uint32(top-1), rehash)
	}
	dup := func(id string, k int) (line int, hash uint64, ok bool) {
		if prior != nil {
			if line, hash, ok := prior(id); ok {
				return line, hash, true
			}
		}
		j, ok := seen.Insert(maphash.String(idSeed, id), uint32(k), func(o uint32) bool { other, _, _ := first(o); return other == id }, rehash)
		if !ok {
			return 0, 0, false
		}
		_, line, hash = first(j)
		return line, hash, true
	}
	h := 0
	for i := range log.Events {
		ev := &log.Events[i]
		for ; h < len(log.held) && log.held[h].Line < ev.Line; h++ {
			rs.Add(judgeHeld(&log.held[h], n+h, dup))
		}
		if id := ev.EventID; id != "" {
			if line, hash, ok := dup(id, i); ok {
				rs.Add(event.Duplicate(ev.Line, id, ev.TaskID, ev.Feature, line, hash == log.hash(i)))
				continue
			}
		}
		if ev.Problem != nil && ev.Problem.Code != CodeSchemaPayload {
			// A defective envelope (a bad ts among them) takes no part in
			// ordering: report it now. A payload defect is judged in replay
			// order instead, because step 1 still has a state-dependent test
			// (a task event's feature must be its task's) that comes first.
			if ev.MissingEventID() {
				rs.Add(*event.MissingID(ev))
			}
			rs.Add(*event.Reject(ev, ev.Problem.Code, ev.Problem.Message))
			continue
		}
		order = append(order, ev)
	}
	for ; h < len(log.held); h++ {
		rs.Add(judgeHeld(&log.held[h], n+h, dup))
	}
	if less := func(i, j int) bool { return order[i].TS.Before(order[j].TS) }; !sort.SliceIsSorted(order, less) {
		sort.SliceStable(order, less)
	}
	if after != nil && len(order) > 0 && order[0].TS.Before(*after) {
		return res, false
	}

	for _, ev := range order {
		if ev.MissingEventID() {
			rs.Add(*event.MissingID(ev))
		}
		if r := st.Apply(ev); r != nil {
			rs.Add(*r)
		}
	}
	if !st.Initialized {
		rs.Add(Rejection{Code: CodeInitMissing, Message: "the log has no valid init event"})
	}
	res.Rejections, res.Omitted = rs.Result()
	return res, true
}

// judgeHeld is the finding of a held event (index k of the replay's id
// table): a later use of an event_id, or its envelope defect.
func judgeHeld(h *heldEvent, k int, dup func(id string, k int) (int, uint64, bool)) Rejection {
	if line, hash, ok := dup(h.EventID, k); ok {
		return event.Duplicate(h.Line, h.EventID, h.TaskID, h.Feature, line, hash == h.hash)
	}
	return Rejection{Line: h.Line, EventID: h.EventID, TaskID: h.TaskID, Feature: h.Feature, Code: h.Problem.Code, Message: h.Problem.Message}
}

// unsupported implements the fail-closed rule of docs/semantics.md §7: the first
// init in replay order that asks for a newer major is the only finding.
func unsupported(scan *Scan) *Rejection {
	if len(scan.Claims) == 0 {
		return nil
	}
	first := scan.Claims[0]
	for _, c := range scan.Claims[1:] {
		switch {
		case c.TSValid && (!first.TSValid || c.TS.Before(first.TS)):
			first = c
		}
	}
	return &Rejection{Line: first.Line, Code: CodeVersionUnsupported,
		Message: fmt.Sprintf("the log declares protocol_version %s but this tool supports only version %d; upgrade pact-action/pactify to a release that supports it", quoted(first.Version), SupportedProtocolVersion)}
}

// Judge runs every check of docs/semantics.md §1 for ev against the state and
// returns the first failure, without changing the state. event_id presence is
// not judged here (it never stops an event).
func (s *State) Judge(ev *Event) *Rejection {
	r, _ := s.judge(ev)
	return r
}

// judge is Judge, which also returns the task ev names (nil when there is
// none): every check, and Apply, looks at the one task looked up here.
func (s *State) judge(ev *Event) (*Rejection, *Task) {
	// 1: envelope, found while parsing, then the one envelope test that
	// needs the state; 2: payload, found while parsing.
	if ev.Problem != nil && ev.Problem.Code != CodeSchemaPayload {
		return event.Reject(ev, ev.Problem.Code, ev.Problem.Message), nil
	}
	t := s.Tasks[ev.TaskID]
	return s.judgeWith(ev, t), t
}

func (s *State) judgeWith(ev *Event, t *Task) *Rejection {
	if t != nil && ev.Feature != "" && ev.Feature != t.Feature &&
		(ev.Type == TypeCheckpoint || ev.Type == TypeAccept || ev.Type == TypeChangesRequested) {
		return event.Reject(ev, CodeSchemaEnvelope, fmt.Sprintf("feature %q does not match task %s's feature %q", ev.Feature, t.ID, quoted(t.Feature)))
	}
	if ev.Problem != nil {
		return event.Reject(ev, ev.Problem.Code, ev.Problem.Message)
	}
	// 3: role.
	if want := RoleFor(ev.Type); ev.Role != want {
		return event.Reject(ev, CodeRoleMismatch, fmt.Sprintf("role %q contradicts event_type %s, which implies role %q", ev.Role, ev.Type, want))
	}
	// 4: init.
	if ev.Type == TypeInit {
		if s.Initialized {
			return event.Reject(ev, CodeInitDuplicate, fmt.Sprintf("a second init event; the log was initialised on line %d", s.InitLine))
		}
	} else if !s.Initialized {
		return event.Reject(ev, CodeInitMissing, fmt.Sprintf("%s event comes before any valid init event in replay order", ev.Type))
	}
	// 5: roster.
	if r := s.judgeRoster(ev); r != nil {
		return r
	}
	// 6: task and feature existence.
	if r := s.judgeExistence(ev, t); r != nil {
		return r
	}
	// 7: authorization (Rule 1, ownership).
	if r := s.judgeAuthorization(ev, t); r != nil {
		return r
	}
	// 8: state transition.
	if r := s.judgeTransition(ev, t); r != nil {
		return r
	}
	// 9: Rule 2.
	if ev.Type == TypeMerge {
		if open, more := s.openTasks(ev.Feature); len(open) > 0 {
			return event.Reject(ev, CodeRule2Unaccepted, fmt.Sprintf("merge of feature %s while %s", ev.Feature, describeOpen(open, more)))
		}
	}
	return nil
}

// Bounds of Rule 2's message: a merge line names at most maxNamedOpen of
// its feature's open tasks, found within maxOpenScan tasks, each id cut
// to maxQuotedBytes. A line of the log costs what it holds: a million
// merge lines of a feature with a hundred thousand tasks must not each
// list them (docs/semantics.md §7, bounded output and memory).
const (
	maxNamedOpen   = 3
	maxOpenScan    = 256
	maxQuotedBytes = 200
)

// openTasks is the first open (not accepted) tasks of feature, at most
// maxNamedOpen, and what it says of the others: "" when there are none,
// "more" when another one is open, "possibly more" when the tasks after
// maxOpenScan were not looked at.
func (s *State) openTasks(feature string) (open []*Task, more string) {
	f := s.Features[feature]
	if f == nil {
		return nil, ""
	}
	for f.firstOpen < len(f.Tasks) && s.Tasks[f.Tasks[f.firstOpen]].Status == StatusAccepted {
		f.firstOpen++
	}
	for i, id := range f.Tasks[f.firstOpen:] {
		if i == maxOpenScan {
			return open, "possibly more"
		}
		if t := s.Tasks[id]; t.Status != StatusAccepted {
			if len(open) == maxNamedOpen {
				return open, "more"
			}
			open = append(open, t)
		}
	}
	return open, ""
}

func describeOpen(open []*Task, more string) string {
	parts := make([]string, len(open), len(open)+1)
	for i, t := range open {
		parts[i] = fmt.Sprintf("%s is %s", quoted(t.ID), t.Status)
	}
	if more != "" {
		parts = append(parts, "and "+more+" not accepted")
	}
	return strings.Join(parts, ", ")
}

// quoted bounds a value someone else wrote that a message quotes from
// another line than its own (a task's feature, owner or reviewer, from
// its assign): quoted whole, one short line could make every finding
// about it as long as that value.
func quoted(s string) string { return prose.Clip(s, maxQuotedBytes, "…") }

func (s *State) judgeRoster(ev *Event) *Rejection {
	seats := s.Seats
	if ev.Type == TypeInit {
		seats = ev.Payload.Seats
		var bad []string
		for _, seat := range seats {
			if !IsSlug(seat.ID) {
				bad = append(bad, fmt.Sprintf("%q", seat.ID))
			}
		}
		if len(bad) > 0 {
			return event.Reject(ev, CodeInvalidSeatID, fmt.Sprintf("seat id %s does not match ^[a-z0-9][a-z0-9-]*$", strings.Join(bad, ", ")))
		}
	}
	seat, ok := findSeat(seats, ev.AgentID)
	if !ok {
		return event.Reject(ev, CodeUnknownSeat, fmt.Sprintf("agent_id %q is not a declared seat", ev.AgentID))
	}
	if need := RoleFor(ev.Type); !seat.Holds(need) {
		return event.Reject(ev, CodeRoleNotHeld, fmt.Sprintf("seat %s does not hold the %s role that %s events need (it holds %s)", seat.ID, need, ev.Type, quoted(strings.Join(seat.Roles, ", "))))
	}
	if ev.Type == TypeAssign {
		for _, who := range []struct{ field, id string }{{"owner", ev.Payload.Owner}, {"reviewer", ev.Payload.Reviewer}} {
			if _, ok := findSeat(seats, who.id); !ok {
				return event.Reject(ev, CodeUnknownSeat, fmt.Sprintf("assign %s %q is not a declared seat", who.field, who.id))
			}
		}
	}
	return nil
}

func findSeat(seats []Seat, id string) (Seat, bool) {
	for _, seat := range seats {
		if seat.ID == id {
			return seat, true
		}
	}
	return Seat{}, false
}

// UnsafeTaskID explains why id cannot be a file name under tasks/, or returns
// "" when it can (docs/semantics.md §4).
func UnsafeTaskID(id string) string {
	switch {
	case strings.ContainsAny(id, `/\`):
		return "it contains a path separator"
	case strings.Contains(id, ".."):
		return "it contains \"..\""
	case strings.ContainsRune(id, 0):
		return "it contains a NUL byte"
	case strings.HasPrefix(id, "."):
		return "it starts with \".\""
	}
	return ""
}

// judgeExistence, judgeAuthorization and judgeTransition are given t, the
// task ev names (nil when there is none).
func (s *State) judgeExistence(ev *Event, t *Task) *Rejection {
	switch ev.Type {
	case TypeAssign:
		if why := UnsafeTaskID(ev.TaskID); why != "" {
			return event.Reject(ev, CodeTaskUnsafeID, fmt.Sprintf("task id %q cannot be a file name under tasks/: %s", ev.TaskID, why))
		}
		if t != nil {
			return event.Reject(ev, CodeTaskDuplicateID, fmt.Sprintf("task %s was already assigned on line %d (feature %s)", ev.TaskID, t.AssignLine, quoted(t.Feature)))
		}
	case TypeCheckpoint, TypeAccept, TypeChangesRequested:
		if t == nil {
			return event.Reject(ev, CodeTaskUnknown, fmt.Sprintf("%s of task %s, which was never assigned", ev.Type, ev.TaskID))
		}
	case TypeMerge:
		if f := s.Features[ev.Feature]; f == nil || len(f.Tasks) == 0 {
			return event.Reject(ev, CodeFeatureUnknown, fmt.Sprintf("merge of feature %s, which has no tasks", ev.Feature))
		}
	}
	return nil
}

func (s *State) judgeAuthorization(ev *Event, t *Task) *Rejection {
	switch ev.Type {
	case TypeAssign:
		if ev.Payload.Owner == ev.Payload.Reviewer {
			return event.Reject(ev, CodeOwnerIsReviewer, fmt.Sprintf("task %s names %s as both owner and reviewer", ev.TaskID, ev.Payload.Owner))
		}
	case TypeCheckpoint:
		if ev.AgentID != t.Owner {
			return event.Reject(ev, CodeTaskNotOwner, fmt.Sprintf("checkpoint of %s by %s, but %s owns it", t.ID, ev.AgentID, quoted(t.Owner)))
		}
	case TypeAccept, TypeChangesRequested:
		if ev.AgentID == t.Owner {
			return event.Reject(ev, CodeSelfAccept, fmt.Sprintf("%s of %s by its own owner %s", ev.Type, t.ID, quoted(t.Owner)))
		}
		if ev.AgentID != t.Reviewer {
			return event.Reject(ev, CodeNotReviewer, fmt.Sprintf("%s of %s by %s, but only its reviewer %s may review it", ev.Type, t.ID, ev.AgentID, quoted(t.Reviewer)))
		}
	}
	return nil
}

func (s *State) judgeTransition(ev *Event, t *Task) *Rejection {
	switch ev.Type {
	case TypeAssign:
		if f := s.Features[ev.Feature]; f != nil && f.Shipped {
			return event.Reject(ev, CodeInvalidTransition, fmt.Sprintf("assign of %s into feature %s, which has already shipped", ev.TaskID, ev.Feature))
		}
	case TypeCheckpoint, TypeAccept, TypeChangesRequested:
		if f := s.Features[t.Feature]; f.Shipped {
			return event.Reject(ev, CodeInvalidTransition, fmt.Sprintf("%s of %s, whose feature %s has already shipped", ev.Type, t.ID, quoted(t.Feature)))
		}
		want := StatusAwaitingReview
		if ev.Type == TypeCheckpoint {
			want = StatusInProgress
		}
		if t.Status != want {
			return event.Reject(ev, CodeInvalidTransition, fmt.Sprintf("%s of %s needs it %s, but it is %s%s", ev.Type, t.ID, want, t.Status, transitionHint(ev.Type, t.Status)))
		}
	case TypeMerge:
		if s.Features[ev.Feature].Shipped {
			return event.Reject(ev, CodeInvalidTransition, fmt.Sprintf("merge of feature %s, which has already shipped on line %d", ev.Feature, s.Features[ev.Feature].MergeLine))
		}
	}
	return nil
}

func transitionHint(typ string, st TaskStatus) string {
	if typ == TypeCheckpoint && st == StatusAssigned {
		return " (the owner must join first)"
	}
	return ""
}

// Apply judges ev and, when it passes, applies it. It returns the rejection
// (and leaves the state unchanged) when it does not.
func (s *State) Apply(ev *Event) *Rejection {
	r, t := s.judge(ev)
	if r != nil {
		return r
	}
	s.Applied++
	switch ev.Type {
	case TypeInit:
		s.Initialized = true
		s.InitLine = ev.Line
		s.Project = ev.Payload.Project
		s.ProtocolVersion = ev.Payload.ProtocolVersion
		s.BaseBranch = ev.Payload.BaseBranch
		s.Seats = append([]Seat(nil), ev.Payload.Seats...)
	case TypeAssign:
		t := &Task{ID: ev.TaskID, Feature: ev.Feature, Owner: ev.Payload.Owner, Reviewer: ev.Payload.Reviewer,
			Branch: ev.Payload.Branch, Spec: ev.Payload.Spec, Status: StatusAssigned, AssignLine: ev.Line}
		s.Tasks[t.ID] = t
		s.TaskOrder = append(s.TaskOrder, t.ID)
		s.taskList = append(s.taskList, t)
		f := s.Features[ev.Feature]
		if f == nil {
			f = &Feature{ID: ev.Feature}
			s.Features[f.ID] = f
			s.FeatureOrder = append(s.FeatureOrder, f.ID)
		}
		f.Tasks = append(f.Tasks, t.ID)
	case TypeJoin:
		s.Online[ev.AgentID] = true
		for _, t := range s.takeJoinQueue(ev.AgentID) {
			if t.Owner == ev.AgentID && t.Status == StatusAssigned {
				t.Status = StatusInProgress
			}
		}
	case TypeCheckpoint:
		t.Status = StatusAwaitingReview
	case TypeAccept:
		t.Status, t.AcceptLine = StatusAccepted, ev.Line
	case TypeChangesRequested:
		t.Status = StatusInProgress
		t.Rounds++
		t.LastReason = ev.Payload.Reason
	case TypeMerge:
		f := s.Features[ev.Feature]
		f.Shipped, f.MergeLine = true, ev.Line
	}
	return nil
}

// takeJoinQueue returns the tasks of TaskOrder owned by seat that may still
// be assigned, and forgets them: a task only leaves assigned, so once a join
// has moved it, no later join needs to look at it again.
func (s *State) takeJoinQueue(seat string) []*Task {
	if s.joinQueue == nil {
		s.joinQueue = map[string][]*Task{}
	}
	for ; s.queued < len(s.TaskOrder); s.queued++ {
		if t := s.Tasks[s.TaskOrder[s.queued]]; t.Status == StatusAssigned {
			s.joinQueue[t.Owner] = append(s.joinQueue[t.Owner], t)
		}
	}
	q := s.joinQueue[seat]
	delete(s.joinQueue, seat)
	return q
}
