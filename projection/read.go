package projection

import (
	"bytes"
	"io"
	"time"

	"github.com/pact-action/pact-action/projection/internal/event"
	"github.com/pact-action/pact-action/projection/internal/lean"
)

// Every reader of log.jsonl reads and replays it here, by one of two
// doors whose verdict (Result) is the same, as TestParseReplayEquivalence
// and FuzzDecodeDifferential hold:
//
//   - Read (and ReadBytes) keeps no event: the log is replayed as it is
//     read, its lines decoded on all cores by the lean reading fenced in
//     internal/lean, so memory stays well below the log's size. It gives
//     a Log, and is the path of `pactify validate`, of every writing verb
//     and of the check.
//   - ReadEvents keeps every event (parse.go), then replays them by the
//     canonical replay (replay.go). It gives an EventLog, for the callers
//     that look at events after the replay: a line dated before later
//     events is judged by replaying the longer log (the bot's write of a
//     review given before them).

// Log is a log read without its events (Read): what every reading keeps
// (Scan) and what a writer about to append lines needs of the rest: the
// latest ts, the line that first used each event_id it reserved
// (ReadOptions.Reserve) and, read for a snapshot, a digest of every
// event_id.
type Log struct {
	Scan
	latest time.Time
	// reserved are the event_ids reserved, with the line that first used
	// each (0: none).
	reserved map[string]int
	// forSnapshot says digests holds the digest (snapshot.Digest) of every
	// event_id of the log (ReadOptions.Snapshot).
	forSnapshot bool
	digests     []uint64
}

// EventLog is a log read with its events (ReadEvents): what every reading
// keeps (Scan) and its events.
type EventLog struct {
	// Events holds every event of a known type in file order; an event with
	// an envelope defect, which takes no part in ordering, is judged as it
	// is read and not kept whole (LineOf still finds its event_id).
	Events []Event
	Scan
	// hashes holds the hash of each event's line (lineSeed), by its index
	// in Events, to tell byte-identical duplicate event_ids from others
	// (0 past its end: an event a caller added).
	hashes []uint64
	// judged holds the findings of the events that were judged as they
	// were read and not kept (judgedOnRead), capped as a replay lists
	// them; judgedLatest is their latest ts.
	judged       *event.Listing
	judgedLatest time.Time
	// held is what is kept, in file order, of the events with an envelope
	// defect and an event_id (heldEvent), which Events holds not.
	held []heldEvent
}

// ReadOptions say what Read keeps of a log besides the verdict.
type ReadOptions struct {
	// Reserve are the event_ids of the lines a writer is about to append:
	// Log.Append then judges those lines exactly as on a log that keeps
	// its events, and Log.LineOf knows where the log already holds them.
	Reserve []string
	// Snapshot also keeps what EncodeSnapshot needs besides the state: a
	// digest of every event_id.
	Snapshot bool
	// Size is the size of the log in bytes when the caller knows it (0
	// when not): the table of event ids is then sized once, from it,
	// instead of grown (any size is safe; only time and memory depend on
	// it).
	Size int64
}

// Read reads a log without keeping its events and replays it as it reads.
// It returns an error only when the reader fails, or when the log names
// more distinct seats, tasks, features and branches than the parallel
// replay can hold; every defect of the content is in the Log and the
// Result instead.
func Read(r io.Reader, opts ReadOptions) (*Log, *Result, error) {
	reserved := reservation(opts.Reserve...)
	lookup := make([]string, 0, len(reserved))
	for id := range reserved {
		lookup = append(lookup, id)
	}
	rd, err := lean.Read(r, leanDecoder, lean.Options{Size: opts.Size, Lookup: lookup, Digests: opts.Snapshot})
	for id := range reserved {
		reserved[id] = rd.FirstLines[id]
	}
	log := &Log{Scan: rd.Scan, latest: rd.Latest, reserved: reserved, forSnapshot: opts.Snapshot, digests: rd.Digests}
	if err != nil {
		return log, nil, err
	}
	return log, replayLean(rd), nil
}

// reservation is the reserved event_ids, none of them found yet (nil for
// none; an empty event_id is no event_id a writer appends).
func reservation(ids ...string) map[string]int {
	var m map[string]int
	for _, id := range ids {
		if id == "" {
			continue
		}
		if m == nil {
			m = map[string]int{}
		}
		m[id] = 0
	}
	return m
}

// ReadBytes is Read of a log held in memory, which cannot fail: a log
// that names more than the parallel replay holds is read with its events
// instead (ReadEvents), which gives the same Result, and the Log keeps
// what Read would of it (no snapshot).
func ReadBytes(b []byte, opts ReadOptions) (*Log, *Result) {
	opts.Size = int64(len(b))
	log, res, err := Read(bytes.NewReader(b), opts)
	if err != nil {
		events, res := ReadEvents(b)
		return events.withoutEvents(opts.Reserve), res
	}
	return log, res
}

// ReadEvents reads a log held in memory keeping every event, and replays
// it by the canonical replay.
func ReadEvents(b []byte) (*EventLog, *Result) {
	log, _ := parse(bytes.NewReader(b), true) // a bytes.Reader never fails
	return log, replay(log)
}

// withoutEvents is what a Log read without its events keeps of l, for a
// writer about to append the lines of the reserved event_ids.
func (l *EventLog) withoutEvents(reserve []string) *Log {
	log := &Log{Scan: l.Scan, latest: l.LatestTS(), reserved: reservation(reserve...)}
	for id := range log.reserved {
		log.reserved[id] = l.LineOf(id)
	}
	return log
}

// replayLean replays a log read without its events (lean.Read) by the
// judge of the canonical replay (State.Apply): the state is sized for its
// assigns, and the findings listed as the canonical replay lists them.
func replayLean(rd *lean.Reading) *Result {
	if u := unsupported(&rd.Scan); u != nil {
		return &Result{State: NewState(), Unsupported: u}
	}
	st := newStateFor(rd.Assigns())
	listed := rd.Replay(st.Apply)
	st.trimUnused()
	if !st.Initialized {
		listed.Add(Rejection{Code: CodeInitMissing, Message: "the log has no valid init event"})
	}
	res := &Result{State: st}
	res.Rejections, res.Omitted = listed.Result()
	return res
}
