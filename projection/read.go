package projection

import (
	"bytes"
	"io"
	"runtime"
	"time"

	"github.com/pact-action/pact-action/pactfile"
)

// Read is the one door to log.jsonl: every reader of a log, whatever it
// needs of it, reads and replays it here. What it keeps is an option; the
// verdict (Result) is the same whichever path it takes, as
// TestParseReplayEquivalence and FuzzDecodeDifferential hold:
//
//   - KeepEvents: every event is kept (parse.go), then replayed by the
//     canonical replay (replay.go), for the callers that look at events
//     after the replay (Propose of a line that sorts before later ones,
//     provenance, the bot's duplicates and future lines);
//   - otherwise the log is replayed as it is read (replay_parallel.go): lines
//     are decoded on all cores and no event or line is kept, so memory stays
//     well below the log's size. It is the path of `pactify validate` and of
//     every writing verb.

// Log is a read log.jsonl: what every reading keeps (Scan) and, when read
// with KeepEvents, its events.
type Log struct {
	// Events holds every event of a known type in file order when the log
	// was read with KeepEvents, and nothing otherwise; an event with an
	// envelope defect, which takes no part in ordering, is judged as it is
	// read and not kept whole (LineOf still finds its event_id).
	Events []Event
	Scan
	// judged holds the findings of the events a log that keeps its events
	// judged as it read them and did not keep (judgedOnRead), capped as a
	// replay lists them; judgedLatest is their latest ts.
	judged       *rejectionSet
	judgedLatest time.Time
	// held is what is kept, in file order, of the events with an envelope
	// defect and an event_id (heldEvent), which Events holds not.
	held []heldEvent
	// eventless says the log was read without its events (Events is empty
	// whatever the log holds).
	eventless bool
	// What a log read without its events keeps for a writer about to
	// append lines: the latest ts, and the event_ids reserved
	// (ReadOptions.Reserve) with the line that first used each (0: none).
	latest   time.Time
	reserved map[string]int
	// keepIDs says ids holds the digest (IDDigest) of every event_id of
	// the log, for a snapshot (ReadOptions.Snapshot).
	keepIDs bool
	ids     []uint64
	// size is ReadOptions.Size, for a log read without its events.
	size int64
	// lookup are event_ids whose first line a log read without its events
	// finds (firstLines: 0 for none), for the lines MergeLogs adds to it.
	lookup     []string
	firstLines map[string]int
}

// Scan is what every reading of log.jsonl keeps besides its events: the
// lines that could not be read, any init line that asks for a newer major,
// and the number of lines.
type Scan struct {
	// Malformed lists the first MaxListed malformed lines of each code in
	// file order; MalformedOmitted counts the others by code
	// (docs/semantics.md §7).
	Malformed        []Malformed
	MalformedOmitted map[Code]int
	malformedKept    map[Code]int
	Claims           []VersionClaim
	// Lines is the number of lines in the file, blank ones included.
	Lines int
	// ConflictMarker is the first line that is one of git's conflict
	// markers (pactfile.IsConflictMarker), 0 when none is: the log is in
	// the middle of a merge (docs/semantics.md §8).
	ConflictMarker int
}

// addUnreadable records line n, which could not be read as an event
// (m): a malformed line, and maybe a conflict marker.
func (s *Scan) addUnreadable(n int, line []byte, m Malformed) {
	if s.ConflictMarker == 0 && pactfile.IsConflictMarker(line) {
		s.ConflictMarker = n
	}
	s.addMalformed(m)
}

// ReadOptions say what Read keeps of a log.
type ReadOptions struct {
	// KeepEvents keeps every event in Log.Events. Without it no event is
	// kept, and the log is replayed on all cores as it is read.
	KeepEvents bool
	// Reserve are the event_ids of the lines a writer is about to append
	// to a log read without its events: Log.Propose then judges those
	// lines exactly as on a log that keeps them, and Log.LineOf knows
	// where the log already holds them (a log that keeps its events needs
	// no reservation).
	Reserve []string
	// Snapshot also keeps, of a log read without its events, what
	// EncodeSnapshot needs besides the state: a digest of every event_id.
	Snapshot bool
	// Size is the size of the log in bytes when the caller knows it (0
	// when not): a log read without its events then sizes its table of
	// event ids once, from it, instead of growing it (any size is safe;
	// only time and memory depend on it).
	Size int64
}

// Read reads a log and replays it. It returns an error only when the
// reader fails (or, without KeepEvents, when the log names more distinct
// seats, tasks, features and branches than the parallel replay can hold);
// every defect of the content is in the Log and the Result instead.
func Read(r io.Reader, opts ReadOptions) (*Log, *Result, error) {
	if opts.KeepEvents {
		log, err := parse(r, true)
		if err != nil {
			return log, nil, err
		}
		return log, replay(log), nil
	}
	log := &Log{eventless: true, reserved: reservation(opts.Reserve...), keepIDs: opts.Snapshot, size: opts.Size}
	return readInto(log, r, min(runtime.GOMAXPROCS(0), maxWorkers), chunkBytes)
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
// that names more than the parallel replay holds is read keeping its
// events instead, which gives the same Result.
func ReadBytes(b []byte, opts ReadOptions) (*Log, *Result) {
	opts.Size = int64(len(b))
	log, res, err := Read(bytes.NewReader(b), opts)
	if err != nil {
		opts.KeepEvents = true
		log, res, _ = Read(bytes.NewReader(b), opts) // a bytes.Reader never fails
	}
	return log, res
}
