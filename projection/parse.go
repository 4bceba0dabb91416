package projection

import (
	"bytes"
	"errors"
	"hash/maphash"
	"io"
	"time"

	"github.com/pact-action/pact-action/pactfile"
	"github.com/pact-action/pact-action/projection/internal/event"
)

var lineSeed = maphash.MakeSeed()

// parse reads a whole log, keeping its events (ReadEvents, with early:
// those whose findings are final on reading are judged then and not kept,
// judgedOnRead). It returns an error only when the reader fails; every
// defect of the content is recorded in the EventLog instead.
func parse(r io.Reader, early bool) (*EventLog, error) {
	return parseFrom(r, early, 1)
}

// parseFrom is parse of the lines of a log from line first on (r starts
// there): they are numbered from first, and only a line 1 loses a BOM.
func parseFrom(r io.Reader, early bool, first int) (*EventLog, error) {
	log := &EventLog{}
	var d decoder
	err := scanLinesFrom(r, first, func(n int, line []byte, tooLong bool) {
		log.Lines = n
		log.add(&d, n, line, tooLong, early)
	})
	return log, err
}

// EachEvent calls fn with every event of a log held in memory, in file
// order, as ReadEvents keeps it (and those it judges on reading and keeps
// not, judgedOnRead), but decoded again from the bytes one line at a time: a caller that needs a few events after a
// replay without its events copies those and holds nothing else. ev is
// only valid during the call.
func EachEvent(b []byte, fn func(ev *Event)) {
	var d decoder
	var ev Event
	_ = scanLines(bytes.NewReader(b), func(n int, line []byte, tooLong bool) { // a bytes.Reader never fails
		if tooLong {
			return
		}
		if _, keep, msg := d.ReadLine(line, &ev); keep && msg == "" {
			ev.Line = n
			fn(&ev)
		}
	})
}

// scanLines calls fn for every line of r with its 1-based number, the line
// without its terminator (LF or CRLF) and, for a line over MaxLineBytes, only
// tooLong set. A leading UTF-8 BOM is dropped. The slice is only valid during
// the call. A final line without a terminator counts unless it is empty (a
// lone CR included); no more than MaxLineBytes+2 bytes of a line are ever
// held. These are the lines of pactfile.SplitLines, read as a stream (held
// to it by FuzzLinesAgreeWithPactfile).
func scanLines(r io.Reader, fn func(n int, line []byte, tooLong bool)) error {
	return scanLinesFrom(r, 1, fn)
}

// scanLinesFrom is scanLines of lines numbered from first.
func scanLinesFrom(r io.Reader, first int, fn func(n int, line []byte, tooLong bool)) error {
	size := 256 << 10
	if l, ok := r.(interface{ Len() int }); ok {
		size = min(size, max(l.Len()+1, 512)) // a reader of known length: no more
	}
	lr := lineReader{r: r, buf: make([]byte, size), n: first - 1}
	for lr.next() {
		fn(lr.n, lr.line, lr.tooLong)
	}
	return lr.err
}

// lineReader splits a stream into lines.
type lineReader struct {
	r            io.Reader
	buf          []byte
	start, end   int // unread bytes are buf[start:end]
	eof          bool
	err          error
	n            int
	line         []byte
	tooLong      bool
	skippingLong bool // inside a line known to be too long: discard to its end
	empty        int  // reads in a row that returned nothing
}

// next reads the next line, or reports false at the end or on a read error
// (then err is set).
func (lr *lineReader) next() bool {
	for {
		data := lr.buf[lr.start:lr.end]
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			lr.start += i + 1
			if lr.skippingLong {
				lr.skippingLong = false
				return lr.emit(nil, true)
			}
			return lr.emit(data[:i], false)
		}
		if lr.skippingLong {
			lr.start = lr.end
		} else if len(data) >= MaxLineBytes+2 {
			// Whatever follows, the line without its terminator is over
			// the bound: stop holding it.
			lr.skippingLong = true
			lr.start = lr.end
		}
		if lr.eof {
			if lr.skippingLong {
				lr.skippingLong = false
				lr.start = lr.end
				return lr.emit(nil, true)
			}
			if lr.start == lr.end || (lr.end-lr.start == 1 && lr.buf[lr.start] == '\r') {
				return false
			}
			lr.start = lr.end
			return lr.emit(data, false)
		}
		if lr.err != nil {
			return false
		}
		lr.fill()
	}
}

func (lr *lineReader) emit(line []byte, tooLong bool) bool {
	lr.n++
	if !tooLong {
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(line) > MaxLineBytes { // measured with any BOM
			line, tooLong = nil, true
		} else if lr.n == 1 {
			line = pactfile.TrimBOM(line)
		}
	}
	lr.line, lr.tooLong = line, tooLong
	return true
}

// fill reads more input after moving the unread bytes to the front, growing
// the buffer while one line does not fit (up to the bound).
func (lr *lineReader) fill() {
	if lr.start > 0 {
		lr.end = copy(lr.buf, lr.buf[lr.start:lr.end])
		lr.start = 0
	}
	if lr.end == len(lr.buf) {
		size := 2 * len(lr.buf)
		if size > MaxLineBytes+2 {
			size = MaxLineBytes + 2
		}
		if size > len(lr.buf) {
			nb := make([]byte, size)
			copy(nb, lr.buf[:lr.end])
			lr.buf = nb
		}
	}
	n, err := lr.r.Read(lr.buf[lr.end:])
	lr.end += n
	if n == 0 && err == nil {
		if lr.empty++; lr.empty >= 100 {
			err = io.ErrNoProgress
		}
	} else {
		lr.empty = 0
	}
	if errors.Is(err, io.EOF) {
		lr.eof = true
	} else if err != nil {
		lr.err = err
	}
}

func isBlank(line []byte) bool {
	for _, c := range line {
		if c != ' ' && c != '\t' && c != '\r' {
			return false
		}
	}
	return true
}

func (l *EventLog) add(d *decoder, n int, line []byte, tooLong, early bool) {
	if tooLong {
		event.AddMalformed(&l.Scan, Malformed{Code: CodeMalformedJSON, Line: n, Message: event.TooLongMessage})
		return
	}
	l.Events = append(l.Events, Event{})
	ev := &l.Events[len(l.Events)-1]
	claim, keep, msg := d.ReadLine(line, ev)
	if !keep {
		l.Events = l.Events[:len(l.Events)-1]
	}
	if msg != "" {
		event.AddUnreadable(&l.Scan, n, line, Malformed{Code: d.BadCode, Line: n, Message: msg})
		return
	}
	if claim != nil {
		claim.Line = n
		l.Claims = append(l.Claims, *claim)
	}
	if !keep {
		return
	}
	ev.Line = n
	hash := maphash.Bytes(lineSeed, line)
	if !early || ev.Problem == nil || ev.Problem.Code == CodeSchemaPayload {
		l.hashes = append(l.hashes, hash)
		return
	}
	// An envelope defect takes no part in ordering: this is the rule of the
	// lean reading (internal/lean), since a line two bytes long must
	// not cost a whole Event (docs/semantics.md §7).
	if judgedOnRead(ev) {
		l.judgeOnRead(ev)
	} else {
		l.held = append(l.held, heldEvent{Line: n, EventID: ev.EventID, TaskID: ev.TaskID, Feature: ev.Feature, hash: hash, Problem: ev.Problem})
		l.judgedLatest = laterOf(l.judgedLatest, ev.TS)
	}
	l.Events = l.Events[:len(l.Events)-1]
}

// judgedOnRead says an event's findings are final when it is read, so a
// log that keeps its events needs none of it but them (and its ts, for
// LatestTS): an envelope defect takes no part in ordering, and without an
// event_id no later line can be its duplicate.
func judgedOnRead(ev *Event) bool {
	return ev.EventID == "" && ev.Problem != nil && ev.Problem.Code != CodeSchemaPayload
}

// heldEvent is what a log that keeps its events keeps of one with an
// envelope defect and an event_id: what its finding is, unless it reuses
// an earlier event_id, and what a later use of its event_id is told.
type heldEvent struct {
	Line                     int
	EventID, TaskID, Feature string
	hash                     uint64
	Problem                  *Problem
}

func laterOf(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// judgeOnRead records the findings of an event judgedOnRead, as the
// replay would report them, capped as it lists them.
func (l *EventLog) judgeOnRead(ev *Event) {
	if l.judged == nil {
		l.judged = event.NewListing(MaxListed)
	}
	if ev.MissingEventID() {
		l.judged.Add(*event.MissingID(ev))
	}
	l.judged.Add(*event.Reject(ev, ev.Problem.Code, ev.Problem.Message))
	l.judgedLatest = laterOf(l.judgedLatest, ev.TS)
}

// LineOf is the line of the first event that uses the event_id id (0:
// none), whatever its findings.
func (l *EventLog) LineOf(id string) int {
	for i := range l.Events {
		if l.Events[i].EventID == id {
			line := l.Events[i].Line
			for j := range l.held {
				if l.held[j].Line < line && l.held[j].EventID == id {
					return l.held[j].Line
				}
			}
			return line
		}
	}
	for j := range l.held {
		if l.held[j].EventID == id {
			return l.held[j].Line
		}
	}
	return 0
}

// hash is the hash of the line of event i (Events), 0 for an event a
// caller added.
func (l *EventLog) hash(i int) uint64 {
	if i < len(l.hashes) {
		return l.hashes[i]
	}
	return 0
}

// LineOf is the line that first used the event_id id, of the ones
// reserved (ReadOptions.Reserve), 0 for none; the log knows no other.
func (l *Log) LineOf(id string) int { return l.reserved[id] }
