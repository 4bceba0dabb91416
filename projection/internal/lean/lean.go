// Package lean is the replay of a log read without its events: the
// memory-bounded path of `pactify validate`, of every writing verb and of
// the check. One goroutine cuts the input into chunks of whole lines,
// workers decode them (each with a decoder of projection's, in its lean
// mode), and each event is kept only in a compact form (48 bytes,
// repeated strings interned) until it is applied; no line is kept. An
// event that is reported before ordering (an envelope defect) is never
// applied: it keeps only what duplicate event ids need, and nothing when
// it has no event_id, so a flood of short defective lines costs no memory
// per line (docs/semantics.md §7). Once read, the events are ordered as
// the canonical replay orders them and judged and applied by projection's
// judge, handed in (Reading.Replay): the verdict is the canonical
// replay's, as projection's differential tests and fuzz targets hold
// (TestParseReplayEquivalence, FuzzDecodeDifferential).
package lean

import (
	"io"
	"runtime"
	"time"

	"github.com/pact-action/pact-action/projection/internal/compact"
	"github.com/pact-action/pact-action/projection/internal/event"
)

// Decoder decodes the lines of a log one at a time, as projection's
// decoder does in its lean mode: it leaves an event_id of a compact form
// in Marks instead of the Event, and interns into Marks.Names, whose
// symbols it keeps (KeepAll, numbered from the base it was made with).
// Each worker has its own.
type Decoder interface {
	// ReadLine takes one line of the log (its CR and any BOM already off):
	// a blank line is nothing; a line that is not valid UTF-8, or not an
	// event, is malformed (why, its code in Marks.BadCode); any other may
	// claim a newer protocol version, and keep says ev (zeroed and filled)
	// is an event to apply.
	ReadLine(line []byte, ev *event.Event) (claim *event.VersionClaim, keep bool, malformed string)
	// Lean is where the decoder leaves what it read of each line besides
	// ev: the same Marks for the decoder's life.
	Lean() *Marks
}

// Marks is what a Decoder leaves of the line it last read besides the
// Event.
type Marks struct {
	// BadCode is the code of a malformed line: CodeMalformedJSON or
	// CodeDuplicateKey.
	BadCode event.Code
	// IDForm and ID hold the event_id when it has a compact form
	// (compact.ParseID; IDForm is compact.IDOther when not).
	IDForm uint8
	ID     [16]byte
	// Syms holds the symbol of the last value interned of each field
	// (SymAgent …); Names numbers them.
	Syms  [NumSyms]uint32
	Names compact.Interner
}

// Fields whose symbols a Decoder keeps in Marks.Syms.
const (
	SymAgent = iota
	SymTask
	SymFeature
	SymOwner
	SymReviewer
	SymBranch
	SymOther // seat ids, roles and entries: interned, symbol unused
	NumSyms
)

// Options say how Read reads a log and what it keeps besides the verdict.
type Options struct {
	// Workers is the number of goroutines that decode (0: one per
	// processor, up to maxWorkers), Chunk about how many bytes each is
	// handed at a time (0: chunkBytes).
	Workers, Chunk int
	// Size is the log's size in bytes when known (0: not): the table of
	// event ids is sized once, from it.
	Size int64
	// Lookup are event_ids whose first line the reading finds
	// (Reading.FirstLines).
	Lookup []string
	// Digests keeps the digest (snapshot.Digest) of every event_id, for a
	// snapshot.
	Digests bool
}

// Read reads r, decoding its lines on opts.Workers goroutines, each with
// a decoder of newDecoder (given the base of its symbols); the replay
// comes once it is read (Reading.Replay). It returns an error only when
// the reader fails, or when the log holds more than the compact tables
// can (more distinct names than a worker numbers, more lines than a rec
// does), and what was read before anyway.
func Read(r io.Reader, newDecoder func(symBase uint32) Decoder, opts Options) (*Reading, error) {
	workers, chunk := opts.Workers, opts.Chunk
	if workers <= 0 {
		workers = min(runtime.GOMAXPROCS(0), maxWorkers)
	}
	if chunk <= 0 {
		chunk = chunkBytes
	}
	lr := &Reading{chunk: chunk, lookup: opts.Lookup, keepDigests: opts.Digests, rejected: event.NewListing(event.MaxListed)}
	if opts.Size > 0 {
		lr.ids.Reserve(reservedEvents(opts.Size), lr.compactHash)
	}
	return lr, lr.read(r, newDecoder, workers)
}

// Reading is a log read without its events: what it keeps besides the
// verdict, and its events, compact, until they are replayed.
type Reading struct {
	// Scan is what every reading keeps besides the events; Latest is the
	// latest ts of the log's events.
	Scan   event.Scan
	Latest time.Time
	// FirstLines holds the line that first used each event_id of
	// Options.Lookup (0: none); Digests the digest of every event_id, with
	// Options.Digests.
	FirstLines map[string]int
	Digests    []uint64

	chunk       int
	lookup      []string
	keepDigests bool
	// names holds each worker's interned strings: symbol s is
	// names[s>>symWorkerShift].At(s&symIndexMask).
	names    []compact.BlockList[string]
	recs     recStore
	assigns  compact.BlockList[assignX]
	texts    compact.BlockList[string]
	problems []event.Problem
	fat      []event.Event

	ids     compact.IDTable // compact event ids → first rec
	strIDs  compact.IDTable // other event ids (of fat recs) → first rec
	hashes  []uint64
	touched uint32 // keeps the touches of take
	// tooLarge says the log has more lines than a rec can number.
	tooLarge bool

	// rejected collects the rejections: first those made before ordering
	// (duplicates and envelope problems), in file order, then those of
	// the replay.
	rejected *event.Listing
	scratch  event.Event
}

// Assigns is how many assign events the log holds, at most: what the state
// they are applied to is sized for.
func (lr *Reading) Assigns() int { return lr.assigns.Len() }

// expectedLineBytes is a little less than the usual size of a line of a
// log (about 256 bytes in the bench repositories of docs/performance.md): a
// log of known size reserves its event-id table for size/expectedLineBytes
// events. A log of shorter lines grows the table once or twice; one of
// longer lines leaves part of it empty.
const expectedLineBytes = 224

// maxReservedEvents caps what a size reserves (a 64 MiB table, a log of
// about 1.9 GB): the size is the file system's word, and a sparse file of
// a terabyte must not make the table before a byte is read; a larger log
// grows the table as it is read.
const maxReservedEvents = 1 << 23

// reservedEvents is how many events a log of size bytes reserves its
// event-id table for.
func reservedEvents(size int64) uint32 {
	return uint32(min(max(size, 0)/expectedLineBytes, maxReservedEvents))
}
