package lean

import (
	"bytes"
	"errors"
	"io"
	"time"

	"github.com/pact-action/pact-action/projection/internal/compact"
	"github.com/pact-action/pact-action/projection/internal/event"
)

// chunkBytes is about how many bytes go into one chunk.
const chunkBytes = 512 << 10

type chunkIn struct {
	data    []byte
	first   int  // number of the first line in data
	tooLong bool // instead of data: line first is over MaxLineBytes
	out     chan *chunkOut
}

type chunkOut struct {
	in       *chunkIn
	worker   int
	names    compact.BlockList[string] // the worker's interned strings so far
	lastLine int                       // number of the last line counted, 0 if none
	recs     []rec
	hashes   []uint64 // of each rec's line
	assigns  []assignX
	texts    []string
	problems []event.Problem
	fat      []event.Event
	// reported holds the rejections of the chunk's reported events that
	// have an event_id (a duplicate is reported as one instead), by the
	// aux of their rec; early those of the ones without, which nothing
	// can change, already capped (event.NewListing).
	reported  []reportedX
	early     *event.Listing
	malformed event.Scan // only its Malformed, MalformedOmitted and ConflictMarker
	claims    []event.VersionClaim
	latest    time.Time // the latest ts of the chunk's events
}

// reportedX is what take reports of a reported event that is no
// duplicate: missing (event_id.missing, when the id is not a string) and
// its problem.
type reportedX struct {
	missing, problem event.Rejection
	hasMissing       bool
}

// cutChunks reads r into chunks that end at a line end, counting lines.
// A line over the bound is not held: it becomes a tooLong chunk and the
// rest of it is skipped.
func cutChunks(r io.Reader, chunkBytes int, free chan *chunkIn, send func(*chunkIn)) error {
	next := func(size int) *chunkIn {
		select {
		case in := <-free:
			if cap(in.data) >= size {
				return in
			}
		default:
		}
		return &chunkIn{data: make([]byte, 0, size), out: make(chan *chunkOut, 1)}
	}
	line := 1
	// Start small, for the many small logs, and double up to chunkBytes.
	size := min(chunkBytes, 16<<10)
	in := next(size)
	skipping, eof, empty := false, false, 0
	for {
		// Fill the buffer.
		for !eof && len(in.data) < cap(in.data) {
			n, err := r.Read(in.data[len(in.data):cap(in.data)])
			in.data = in.data[:len(in.data)+n]
			switch {
			case errors.Is(err, io.EOF):
				eof = true
			case err != nil:
				return err
			case n == 0:
				if empty++; empty >= 100 {
					return io.ErrNoProgress
				}
			default:
				empty = 0
			}
		}
		if skipping {
			i := bytes.IndexByte(in.data, '\n')
			if i < 0 {
				in.data = in.data[:0]
				if eof {
					return nil
				}
				continue
			}
			in.data = in.data[:copy(in.data, in.data[i+1:])]
			skipping = false
			line++
		}
		last := bytes.LastIndexByte(in.data, '\n')
		if last < 0 {
			switch {
			case eof:
				if len(in.data) > 0 {
					in.first = line
					send(in)
				}
				return nil
			case len(in.data) >= event.MaxLineBytes+2:
				// Whatever follows, this line is over the bound.
				send(&chunkIn{first: line, tooLong: true, out: make(chan *chunkOut, 1)})
				in.data = in.data[:0]
				skipping = true
			case len(in.data) == cap(in.data):
				bigger := next(2 * cap(in.data))
				bigger.data = append(bigger.data[:0], in.data...)
				in = bigger
			}
			continue
		}
		rest := in.data[last+1:]
		size = min(2*size, chunkBytes)
		following := next(len(rest) + size)
		following.data = append(following.data[:0], rest...)
		in.data = in.data[:last+1]
		in.first = line
		line += bytes.Count(in.data, []byte{'\n'})
		send(in)
		in = following
		if eof && len(in.data) == 0 {
			return nil
		}
	}
}

// reset empties a chunkOut for reuse; what it held lives on in the log's
// tables.
func (out *chunkOut) reset() {
	clear(out.texts)
	clear(out.problems)
	clear(out.fat)
	clear(out.reported)
	*out = chunkOut{recs: out.recs[:0], hashes: out.hashes[:0], assigns: out.assigns[:0], texts: out.texts[:0], problems: out.problems[:0], fat: out.fat[:0], reported: out.reported[:0]}
}
