package projection

import (
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/pact-action/pact-action/projection/internal/snapshot"
)

// A snapshot is what a writer needs of a replayed log to judge and append
// one more line without replaying it: the State, the number of lines, the
// latest ts and a digest of every event_id the log holds (a duplicate is
// judged, and a digest that matches sends the writer back to the log).
// It is a cache: the replay stays the oracle, and every doubt about a
// snapshot (its bytes here, its identity in pactdir) means replaying the
// log. Its byte format (internal/snapshot) is compact and versioned:
// SnapshotFormat, and the build of the program that wrote it, which must
// be the reader's. This file says what a snapshot holds of a Log and its
// State, in which order.

// SnapshotFormat is the version of the snapshot encoding; a snapshot of any
// other version is not read.
const SnapshotFormat = snapshot.Format

// errSnapshot is every reason a snapshot is not used: its bytes are not a
// snapshot of this format and build, or it cannot judge the line about to
// be appended. The caller replays the log instead.
var errSnapshot = errors.New("snapshot not usable")

// Snapshotable reports whether EncodeSnapshot can encode log and res: a log
// read for a snapshot (ReadOptions.Snapshot, or a snapshot's own) whose
// replay did not fail closed.
func (l *Log) Snapshotable(res *Result) bool {
	return l != nil && res != nil && l.forSnapshot && res.Unsupported == nil && res.State != nil
}

// EncodeSnapshot writes the snapshot of log and res (Snapshotable), built
// by the program of version build. It streams: the payload's size and
// checksum come last.
func EncodeSnapshot(w io.Writer, build string, log *Log, res *Result) error {
	if !log.Snapshotable(res) {
		return fmt.Errorf("%w: the log was not read for a snapshot", errSnapshot)
	}
	e, err := snapshot.NewEncoder(w, build)
	if err != nil {
		return err
	}
	if err := encodeState(e, res.State); err != nil {
		return err
	}
	e.Uvarint(uint64(log.Lines))
	e.Time(log.latest)
	e.Uvarint(uint64(len(log.digests)))
	for _, d := range log.digests {
		e.U64(d)
		e.Flush()
	}
	return e.Close()
}

// DecodeSnapshot reads a snapshot EncodeSnapshot wrote with the same build,
// as the log and replay it describes, read for a writer that will append
// the line of event_id reserve (as ReadOptions.Reserve). Any defect, another
// format or build, or a reserve whose digest the snapshot holds (the id may
// be the log's: only the log can tell) is an error, and the caller replays
// the log. It never panics, and it allocates at most a small multiple of
// len(b). The texts of the state are substrings of b, which is taken as a
// string so that it is not copied.
func DecodeSnapshot(b string, build, reserve string) (*Log, *Result, error) {
	fail := func(what string) (*Log, *Result, error) {
		return nil, nil, fmt.Errorf("%w: %s", errSnapshot, what)
	}
	d, err := snapshot.Open(b, build)
	if err != nil {
		return fail(err.Error())
	}
	st := decodeState(d)
	log := &Log{forSnapshot: true, reserved: reservation(reserve)}
	log.Lines = d.Int()
	log.latest = d.Time()
	n := d.Count(8)
	if d.Err() == nil {
		log.digests = make([]uint64, n)
		for i := range log.digests {
			log.digests[i] = d.U64()
		}
	}
	switch {
	case d.Err() != nil:
		return fail(d.Err().Error())
	case !d.Done():
		return fail("trailing bytes")
	case reserve != "" && slices.Contains(log.digests, snapshot.Digest(reserve)):
		return fail("the new event_id's digest is the log's")
	}
	return log, &Result{State: st}, nil
}

// Codes of task statuses in a snapshot.
var statusCodes = []TaskStatus{StatusAssigned, StatusInProgress, StatusAwaitingReview, StatusAccepted}

// encodeState writes what a snapshot holds of a state: every field, and
// the indexes of the replay (the task list, the join queue, where each
// feature's open tasks start), so that it decodes to a state equal to the
// replay's.
func encodeState(e *snapshot.Encoder, s *State) error {
	tasks := s.TaskList()
	if len(s.Tasks) != len(tasks) || len(s.Features) != len(s.FeatureOrder) {
		return fmt.Errorf("%w: the state's tables disagree with their orders", errSnapshot)
	}
	e.Bool(s.Initialized)
	e.Uvarint(uint64(s.InitLine))
	e.Str(s.Project)
	e.Varint(int64(s.ProtocolVersion))
	e.Str(s.BaseBranch)
	e.List(s.Seats == nil, len(s.Seats))
	for _, seat := range s.Seats {
		e.Str(seat.ID)
		e.Strs(seat.Roles)
		e.Str(seat.Entry)
	}
	online := make([]string, 0, len(s.Online))
	for id, on := range s.Online {
		if !on {
			return fmt.Errorf("%w: a seat is listed offline", errSnapshot)
		}
		online = append(online, id)
	}
	slices.Sort(online)
	e.Strs(online)
	e.Uvarint(uint64(s.Applied))
	e.Bool(s.taskList != nil && len(s.taskList) == len(s.TaskOrder))
	queued := map[*Task]bool{}
	for owner, q := range s.joinQueue {
		for _, t := range q {
			if t.Owner != owner || queued[t] {
				return fmt.Errorf("%w: the join queue is not by owner", errSnapshot)
			}
			queued[t] = true
		}
	}
	e.Bool(s.TaskOrder != nil)
	e.Uvarint(uint64(len(tasks)))
	index := make(map[string]uint32, len(tasks))
	for i, t := range tasks {
		if t == nil || t.ID != s.TaskOrder[i] || s.Tasks[t.ID] != t {
			return fmt.Errorf("%w: the state's tasks disagree with their order", errSnapshot)
		}
		index[t.ID] = uint32(i)
		code := slices.Index(statusCodes, t.Status)
		if code < 0 {
			return fmt.Errorf("%w: task %s has no known status", errSnapshot, t.ID)
		}
		flags := byte(code)
		if queued[t] {
			flags |= 4
			delete(queued, t)
		}
		e.Byte(flags)
		e.Str(t.ID)
		e.Word(t.Feature)
		e.Word(t.Owner)
		e.Word(t.Reviewer)
		e.Word(t.Branch)
		e.Str(t.Spec)
		e.Uvarint(uint64(t.Rounds))
		e.Word(t.LastReason)
		e.Uvarint(uint64(t.AssignLine))
		e.Uvarint(uint64(t.AcceptLine))
		e.Flush()
	}
	if len(queued) > 0 {
		return fmt.Errorf("%w: the join queue holds a task the state does not", errSnapshot)
	}
	e.Bool(s.FeatureOrder != nil)
	e.Uvarint(uint64(len(s.FeatureOrder)))
	for _, id := range s.FeatureOrder {
		f := s.Features[id]
		if f == nil || f.ID != id {
			return fmt.Errorf("%w: the state's features disagree with their order", errSnapshot)
		}
		e.Word(f.ID)
		e.List(f.Tasks == nil, len(f.Tasks))
		for _, t := range f.Tasks {
			i, ok := index[t]
			if !ok {
				return fmt.Errorf("%w: feature %s names a task the state does not hold", errSnapshot, id)
			}
			e.Uvarint(uint64(i))
		}
		e.Bool(f.Shipped)
		e.Uvarint(uint64(f.MergeLine))
		e.Uvarint(uint64(f.firstOpen))
		e.Flush()
	}
	e.Bool(s.joinQueue != nil)
	e.Uvarint(uint64(s.queued))
	return nil
}

// decodeState reads what encodeState wrote, refusing (d.Fail) a state the
// replay could not have made: tables that disagree with their orders, a
// task of no feature, a join queue of tasks it does not hold.
func decodeState(d *snapshot.Decoder) *State {
	s := NewState()
	s.Initialized = d.Bool()
	s.InitLine = d.Int()
	s.Project = d.Str()
	s.ProtocolVersion = int(d.Varint())
	s.BaseBranch = d.Str()
	// A seat takes at least 3 bytes: two texts and a list.
	if n, ok := d.List(3); ok {
		s.Seats = make([]Seat, n)
		for i := range s.Seats {
			s.Seats[i] = Seat{ID: d.Str(), Roles: d.Strs(), Entry: d.Str()}
		}
	}
	online := d.Strs()
	for i, id := range online {
		if i > 0 && online[i-1] >= id {
			d.Fail("seats online out of order")
		}
		s.Online[id] = true
	}
	s.Applied = d.Int()
	hasList := d.Bool()
	hasOrder := d.Bool()
	// A task takes at least 11 bytes: flags, 7 texts or words and 3 numbers.
	n := d.Count(11)
	if d.Err() != nil {
		return s
	}
	s.Tasks = make(map[string]*Task, n)
	if hasOrder {
		s.TaskOrder = make([]string, 0, n)
	}
	list := make([]*Task, n)
	tasks := make([]Task, n)
	queue := map[string][]*Task{}
	for i := range tasks {
		t := &tasks[i]
		flags := d.Byte()
		if int(flags&3) >= len(statusCodes) || flags&^7 != 0 {
			d.Fail("bad task flags")
		}
		t.Status = statusCodes[flags&3]
		t.ID, t.Feature, t.Owner, t.Reviewer, t.Branch, t.Spec = d.Str(), d.Word(), d.Word(), d.Word(), d.Word(), d.Str()
		t.Rounds = d.Int()
		t.LastReason = d.Word()
		t.AssignLine, t.AcceptLine = d.Int(), d.Int()
		if d.Err() != nil {
			return s
		}
		if s.Tasks[t.ID] != nil {
			d.Fail("a task twice")
			return s
		}
		if flags&4 != 0 {
			queue[t.Owner] = append(queue[t.Owner], t)
		}
		s.Tasks[t.ID] = t
		s.TaskOrder = append(s.TaskOrder, t.ID)
		list[i] = t
	}
	if !hasOrder && n > 0 {
		d.Fail("tasks without an order")
	}
	if hasList {
		s.taskList = list
	}
	hasFeatures := d.Bool()
	n = d.Count(5)
	if d.Err() != nil {
		return s
	}
	if hasFeatures {
		s.FeatureOrder = make([]string, 0, n)
	} else if n > 0 {
		d.Fail("features without an order")
	}
	features := make([]Feature, n)
	for i := range features {
		f := &features[i]
		f.ID = d.Word()
		if m, ok := d.List(1); ok {
			f.Tasks = make([]string, m)
			for j := range f.Tasks {
				k := d.Uvarint()
				if k >= uint64(len(list)) {
					d.Fail("a feature names no task")
					return s
				}
				f.Tasks[j] = list[k].ID
			}
		}
		f.Shipped = d.Bool()
		f.MergeLine = d.Int()
		f.firstOpen = d.Int()
		if d.Err() != nil {
			return s
		}
		if s.Features[f.ID] != nil || f.firstOpen > len(f.Tasks) {
			d.Fail("a bad feature")
			return s
		}
		s.Features[f.ID] = f
		s.FeatureOrder = append(s.FeatureOrder, f.ID)
	}
	for _, t := range list {
		if f := s.Features[t.Feature]; f == nil {
			// Judge looks a task's feature up without asking.
			d.Fail("a task of no feature")
			return s
		}
	}
	if d.Bool() {
		s.joinQueue = queue
	} else if len(queue) > 0 {
		d.Fail("queued tasks without a queue")
	}
	s.queued = d.Int()
	if s.queued > len(s.TaskOrder) {
		d.Fail("queued past the tasks")
	}
	return s
}
