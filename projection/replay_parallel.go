package projection

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/maphash"
	"io"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/pact-action/pact-action/pactfile"
	"github.com/pact-action/pact-action/projection/internal/compact"
	"github.com/pact-action/pact-action/projection/internal/event"
	"github.com/pact-action/pact-action/projection/internal/snapshot"
)

// The replay of a log read without its events (Read):
// the memory-bounded path of `pactify validate` and of every writing verb.
// One goroutine cuts the input into chunks of whole lines, workers decode
// them, and each event is kept only in a compact form (48 bytes, repeated
// strings interned) until it is applied; no line is kept. An event that is
// reported before ordering (an envelope defect) is never applied: it keeps
// only what duplicate event ids need, and nothing when it has no event_id,
// so a flood of short defective lines costs no memory per line
// (docs/semantics.md §7). It returns what
// the canonical replay (replay.go) returns of the same log, and a writer's
// Log.Append judges its new lines as on the whole log.

// leanOptions say how readLean reads a log and what it keeps besides
// the verdict.
type leanOptions struct {
	// workers is the number of goroutines that decode (0: one per
	// processor, up to maxWorkers), chunk about how many bytes each is
	// handed at a time (0: chunkBytes).
	workers, chunk int
	// size is the log's size in bytes when known (0: not): the table of
	// event ids is sized once, from it.
	size int64
	// lookup are event_ids whose first line the reading finds
	// (firstLines: 0 for none).
	lookup []string
	// digests keeps the digest (snapshot.Digest) of every event_id, for a
	// snapshot.
	digests bool
}

// readLean reads r, decoding its lines on opts.workers goroutines; the
// replay (replayLean) comes once it is read. It returns an error only
// when the reader fails, or when the log holds more than the compact
// tables can (more distinct names than a worker numbers, more lines than a
// rec does), and what was read before anyway.
func readLean(r io.Reader, opts leanOptions) (*parallelReplay, error) {
	workers, chunk := opts.workers, opts.chunk
	if workers <= 0 {
		workers = min(runtime.GOMAXPROCS(0), maxWorkers)
	}
	if chunk <= 0 {
		chunk = chunkBytes
	}
	lr := &parallelReplay{chunk: chunk, lookup: opts.lookup, keepDigests: opts.digests, rejected: event.NewListing(MaxListed)}
	if opts.size > 0 {
		lr.ids.Reserve(reservedEvents(opts.size), lr.compactHash)
	}
	return lr, lr.read(r, workers)
}

// rec is one decoded event, compact: symbols instead of strings, the
// event_id in 16 bytes when it has a common form (or, in another form,
// the index of its string in texts), the payload fields a replay reads in
// side tables. Only init events, and events whose ts is not a Unix time in
// nanoseconds (before 1678, after 2261), are kept whole, in fat. The hash
// of the line, which only reading needs (to tell byte-identical duplicate
// event ids), is kept beside it until reading is done (recStore).
type rec struct {
	ts      int64 // Unix nanoseconds (fat: the event's TS)
	id      [16]byte
	line    uint32
	agent   uint32 // symbols
	task    uint32
	feature uint32
	// aux indexes fat (recFat), problems (recProblem), assigns (assign),
	// texts (the reason of changes_requested). A reported rec, and an
	// accept, which Judge and Apply read no payload of, need none of them.
	aux   uint32
	typ   uint8 // index in typeNames
	role  uint8 // index in roleNames
	form  uint8 // compact.IDOther, idHex, idUUID
	flags uint8
}

const (
	recFat       = 1 << iota // the event is fat[aux]
	recMissingID             // no non-empty event_id
	recReported              // reported before ordering (an envelope problem); never applied
	recDisplaced             // out of ts order in the file (finish)
	recProblem               // a payload problem, problems[aux]: judged in order, never applied
	recTextID                // the event_id is texts[textID(r)]
	recSpecText              // an assign's spec is not <dir>/<task_id>.md: assignX.spec indexes texts
)

// textID is the index in texts of a recTextID rec's event_id, held where
// a compact id would be.
func textID(r *rec) uint32 { return binary.LittleEndian.Uint32(r.id[:4]) }

func setTextID(r *rec, i uint32) {
	r.flags |= recTextID
	binary.LittleEndian.PutUint32(r.id[:4], i)
}

const noAux = ^uint32(0)

// Symbols carry the number of the worker that interned them in their top
// bits.
const (
	symWorkerShift = 27
	symIndexMask   = 1<<symWorkerShift - 1
	maxWorkers     = 1 << (32 - symWorkerShift)
)

func (lr *parallelReplay) name(sym uint32) string {
	return *lr.names[sym>>symWorkerShift].At(sym & symIndexMask)
}

// Codes of typeNames.
const (
	typeAssign  = 2
	typeAccept  = 5
	typeChanges = 6
)

var (
	typeNames = [...]string{"", TypeInit, TypeAssign, TypeJoin, TypeCheckpoint, TypeAccept, TypeChangesRequested, TypeMerge}
	roleNames = [...]string{RoleOrchestrator, RoleWorker, RoleReviewer}
)

func typeCode(t string) uint8 {
	for i, n := range typeNames {
		if n == t {
			return uint8(i)
		}
	}
	return 0
}

func roleCode(r string) uint8 {
	switch r {
	case RoleWorker:
		return 1
	case RoleReviewer:
		return 2
	}
	return 0
}

// assignX is the payload of an assign: symbols, and the spec, which is
// usually <dir>/<task_id>.md (pactify assign's default): then only the
// symbol of <dir>/ is kept; any other spec is kept in texts. It holds no
// pointer (16 bytes; 32 with the spec's string), so the collector never
// scans its blocks: 413,086 of them at 2M events.
type assignX struct {
	owner, reviewer, branch uint32
	// spec is the symbol of <dir>/, or, when the rec has recSpecText, the
	// index in texts of the spec (noAux: "").
	spec uint32
}

// recStore is the list of recs, with the hash of each rec's line in
// blocks of their own, let go once reading is done (dropHashes).
type recStore struct {
	compact.BlockList[rec]
	hashes compact.BlockList[uint64]
}

// hash is the hash of the line of rec i, while reading.
func (s *recStore) hash(i uint32) uint64 { return *s.hashes.At(i) }

func (s *recStore) push(r *rec, hash uint64) uint32 {
	s.hashes.Push(hash)
	return s.Push(*r)
}

func (s *recStore) dropHashes() { s.hashes = compact.BlockList[uint64]{} }

// Unix seconds within which a ts is held in a rec as Unix nanoseconds.
const (
	minNanoSec = math.MinInt64/1_000_000_000 + 1
	maxNanoSec = math.MaxInt64/1_000_000_000 - 1
)

// inNanos says whether t is held in a rec (ts) rather than whole (fat).
func inNanos(t time.Time) bool {
	sec := t.Unix()
	return sec >= minNanoSec && sec <= maxNanoSec
}

// ---- reading: one goroutine cuts the input into chunks of whole lines,
// workers decode them, and the caller's goroutine takes the results in file
// order and finds duplicate event ids; the events are applied once all are
// read (applying them as they come, through a reordering heap, was measured
// slower on two cores: it takes the time of a decoder) ----

// expectedLineBytes is a little less than the usual size of a line of a
// log (about 256 bytes in the bench repositories of CONTRIBUTING.md): a
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
	problems []Problem
	fat      []Event
	// reported holds the rejections of the chunk's reported events that
	// have an event_id (a duplicate is reported as one instead), by the
	// aux of their rec; early those of the ones without, which nothing
	// can change, already capped (newRejectionSet).
	reported  []reportedX
	early     *event.Listing
	malformed Scan // only its Malformed and MalformedOmitted
	claims    []VersionClaim
	latest    time.Time // the latest ts of the chunk's events
}

// reportedX is what take reports of a reported event that is no
// duplicate: missing (event_id.missing, when the id is not a string) and
// its problem.
type reportedX struct {
	missing, problem Rejection
	hasMissing       bool
}

// key is where a rec goes in replay order: by ts, ties by file order (i,
// the rec's index).
type key struct {
	sec  int64
	nsec int32
	i    uint32
}

func (a key) less(b key) bool {
	return a.sec < b.sec || (a.sec == b.sec && (a.nsec < b.nsec || (a.nsec == b.nsec && a.i < b.i)))
}

// keyOf is the key of rec r, index i.
func (lr *parallelReplay) keyOf(r *rec, i uint32) key {
	if r.flags&recFat != 0 {
		ts := lr.fat[r.aux].TS
		return key{ts.Unix(), int32(ts.Nanosecond()), i}
	}
	sec, nsec := r.ts/1e9, r.ts%1e9
	if nsec < 0 {
		sec, nsec = sec-1, nsec+1e9
	}
	return key{sec, int32(nsec), i}
}

type parallelReplay struct {
	chunk int
	// What reading keeps besides the verdict: the Scan, the latest ts, the
	// first line of each event_id of lookup, and with keepDigests the
	// digest of every event_id.
	scan        Scan
	latest      time.Time
	lookup      []string
	firstLines  map[string]int
	keepDigests bool
	digests     []uint64
	// names holds each worker's interned strings: symbol s is
	// names[s>>symWorkerShift].At(s&symIndexMask).
	names    []compact.BlockList[string]
	recs     recStore
	assigns  compact.BlockList[assignX]
	texts    compact.BlockList[string]
	problems []Problem
	fat      []Event

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
	scratch  Event
}

// read cuts r into chunks, decodes them with workers goroutines and takes
// their results in file order.
func (lr *parallelReplay) read(r io.Reader, workers int) error {
	jobs := make(chan *chunkIn, workers)
	order := make(chan *chunkIn, 2*workers+2)
	free := make(chan *chunkIn, 2*workers+4)
	outs := make(chan *chunkOut, 2*workers+4)
	lr.names = make([]compact.BlockList[string], workers)
	var done sync.WaitGroup
	overflow := make([]bool, workers)
	for w := 0; w < workers; w++ {
		done.Add(1)
		go func() {
			defer done.Done()
			d := decoder{lean: true, names: compact.Interner{Base: uint32(w) << symWorkerShift, KeepAll: true}}
			for in := range jobs {
				var out *chunkOut
				select {
				case out = <-outs:
				default:
					out = &chunkOut{}
				}
				out.worker = w
				decodeChunk(&d, in, out)
				overflow[w] = overflow[w] || d.names.Len() > symIndexMask
				in.out <- out
			}
			// Only the names are needed from here on.
			d.names.Release()
		}()
	}
	var readErr error
	go func() {
		defer close(order)
		defer close(jobs)
		readErr = cutChunks(r, lr.chunk, free, func(in *chunkIn) {
			order <- in
			jobs <- in
		})
	}()
	for in := range order {
		out := <-in.out
		lr.take(out)
		in.data = in.data[:0]
		select {
		case free <- in:
		default:
		}
		out.reset()
		select {
		case outs <- out:
		default:
		}
	}
	done.Wait()
	if len(lr.lookup) > 0 {
		lr.firstLines = make(map[string]int, len(lr.lookup))
		for _, id := range lr.lookup {
			lr.firstLines[id] = lr.firstLineOf(id)
		}
	}
	// Duplicates are all found: the id tables and line hashes are no
	// longer needed, and are let go before the digests of a snapshot are
	// made (at 2M events 34 MB, and 16 MB of digests).
	lr.ids, lr.strIDs, lr.hashes = compact.IDTable{}, compact.IDTable{}, nil
	lr.recs.dropHashes()
	if lr.keepDigests {
		lr.digests = lr.idDigests()
	}
	switch {
	case readErr != nil:
	case slices.Contains(overflow, true):
		readErr = errors.New("the log names more distinct seats, tasks, features and branches than this reader can hold")
	case lr.tooLarge:
		readErr = errors.New("the log has more lines than this reader can hold")
	}
	return readErr
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
			case len(in.data) >= MaxLineBytes+2:
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

// decodeChunk decodes the lines of one chunk (a worker's part), cut as
// pactfile cuts a log's lines, with the rules of Log.add.
func decodeChunk(d *decoder, in *chunkIn, out *chunkOut) {
	out.in = in
	defer func() { out.names = d.names.Names() }()
	if in.tooLong {
		event.AddMalformed(&out.malformed, Malformed{Code: CodeMalformedJSON, Line: in.first, Message: event.TooLongMessage})
		out.lastLine = in.first
		return
	}
	var ev Event
	n := in.first - 1
	for line, data, ok := pactfile.CutLine(in.data); ok; line, data, ok = pactfile.CutLine(data) {
		n++
		out.lastLine = n
		if len(line) > MaxLineBytes {
			event.AddMalformed(&out.malformed, Malformed{Code: CodeMalformedJSON, Line: n, Message: event.TooLongMessage})
			continue
		}
		if n == 1 {
			line = pactfile.TrimBOM(line)
		}
		claim, keep, msg := d.readLine(line, &ev)
		if msg != "" {
			event.AddUnreadable(&out.malformed, n, line, Malformed{Code: d.badCode, Line: n, Message: msg})
			continue
		}
		if claim != nil {
			claim.Line = n
			out.claims = append(out.claims, *claim)
		}
		if !keep {
			continue
		}
		ev.Line = n
		out.add(d, &ev, maphash.Bytes(lineSeed, line))
	}
}

// add keeps one decoded event.
func (out *chunkOut) add(d *decoder, ev *Event, hash uint64) {
	if ev.TS.After(out.latest) {
		out.latest = ev.TS
	}
	r := rec{line: uint32(ev.Line), typ: typeCode(ev.Type), role: roleCode(ev.Role), form: d.idForm, aux: noAux}
	if d.idForm != compact.IDOther {
		r.id = d.idBytes
	} else if ev.MissingEventID() {
		r.flags |= recMissingID
	}
	if ev.Problem != nil && ev.Problem.Code != CodeSchemaPayload {
		out.addReported(d, ev, r, hash)
		return
	}
	if ev.Type == TypeInit || !inNanos(ev.TS) {
		if d.idForm != compact.IDOther {
			ev.EventID = compact.FormatID(d.idForm, &d.idBytes)
		}
		r.flags |= recFat
		r.aux = uint32(len(out.fat))
		out.fat = append(out.fat, *ev)
		out.keep(&r, hash)
		return
	}
	r.ts = ev.TS.UnixNano()
	if d.idForm == compact.IDOther && ev.EventID != "" {
		setTextID(&r, uint32(len(out.texts)))
		out.texts = append(out.texts, ev.EventID)
	}
	r.agent, r.task, r.feature = d.symOf[symAgent], d.symOf[symTask], d.symOf[symFeature]
	if ev.Problem != nil {
		// Judge reads only the envelope of an event with a payload problem.
		r.flags |= recProblem
		r.aux = uint32(len(out.problems))
		out.problems = append(out.problems, *ev.Problem)
		out.keep(&r, hash)
		return
	}
	switch ev.Type {
	case TypeAssign:
		r.aux = uint32(len(out.assigns))
		a, dirForm := d.assignOf(ev)
		if !dirForm {
			r.flags |= recSpecText
			if ev.Payload.Spec != "" {
				a.spec = uint32(len(out.texts))
				out.texts = append(out.texts, ev.Payload.Spec)
			}
		}
		out.assigns = append(out.assigns, a)
	case TypeChangesRequested:
		r.aux = uint32(len(out.texts))
		out.texts = append(out.texts, ev.Payload.Reason)
	}
	out.keep(&r, hash)
}

// assignOf is the assignX of ev, an assign just decoded, and whether its
// spec is <dir>/<task_id>.md (when not, a.spec is noAux: the caller keeps
// the spec).
func (d *decoder) assignOf(ev *Event) (a assignX, dirForm bool) {
	a = assignX{owner: d.symOf[symOwner], reviewer: d.symOf[symReviewer], branch: d.symOf[symBranch], spec: noAux}
	if dir, ok := strings.CutSuffix(ev.Payload.Spec, ev.TaskID+".md"); ok && ev.TaskID != "" {
		d.intern([]byte(dir), symOther)
		a.spec = d.symOf[symOther]
		return a, true
	}
	return a, false
}

// keep appends r, the rec of a line of the given hash.
func (out *chunkOut) keep(r *rec, hash uint64) {
	out.recs = append(out.recs, *r)
	out.hashes = append(out.hashes, hash)
}

// addReported keeps what an event reported before ordering needs. Without
// an event_id it can neither be a duplicate nor have one, so its
// rejections are final: they go to early, which keeps only the first
// MaxListed of each code. With one, take decides whether it is a
// duplicate; its rec then only holds the id.
func (out *chunkOut) addReported(d *decoder, ev *Event, r rec, hash uint64) {
	if d.idForm != compact.IDOther {
		ev.EventID = compact.FormatID(d.idForm, &d.idBytes)
	}
	x := reportedX{problem: *event.Reject(ev, ev.Problem.Code, ev.Problem.Message)}
	if ev.MissingEventID() {
		x.missing, x.hasMissing = *event.MissingID(ev), true
	}
	if ev.EventID == "" {
		if out.early == nil {
			out.early = event.NewListing(MaxListed)
		}
		if x.hasMissing {
			out.early.Add(x.missing)
		}
		out.early.Add(x.problem)
		return
	}
	r.flags |= recReported
	if d.idForm == compact.IDOther {
		setTextID(&r, uint32(len(out.texts)))
		out.texts = append(out.texts, ev.EventID)
	}
	r.aux = uint32(len(out.reported))
	out.reported = append(out.reported, x)
	out.keep(&r, hash)
}

// take merges one chunk's results, in file order: its recs are kept, their
// event ids checked against the earlier ones, envelope problems reported,
// and the other events handed on to the replay.
func (lr *parallelReplay) take(out *chunkOut) {
	log := &lr.scan
	for _, m := range out.malformed.Malformed {
		event.AddMalformed(log, m)
	}
	for code, n := range out.malformed.MalformedOmitted {
		event.OmitMalformed(log, code, n)
	}
	log.Claims = append(log.Claims, out.claims...)
	if log.ConflictMarker == 0 {
		log.ConflictMarker = out.malformed.ConflictMarker
	}
	if out.lastLine > 0 {
		log.Lines = out.lastLine
	}
	if uint64(out.lastLine) > math.MaxUint32 {
		lr.tooLarge = true // a rec holds a line in 32 bits
	}
	if out.latest.After(lr.latest) {
		lr.latest = out.latest
	}
	lr.names[out.worker] = out.names
	assignBase, textBase, problemBase, fatBase := uint32(lr.assigns.Len()), uint32(lr.texts.Len()), uint32(len(lr.problems)), uint32(len(lr.fat))
	lr.assigns.PushAll(out.assigns)
	lr.texts.PushAll(out.texts)
	lr.problems = append(lr.problems, out.problems...)
	lr.fat = append(lr.fat, out.fat...)
	// Hash the chunk's compact ids and touch their slots first, so the
	// cache misses of the lookups below overlap instead of queueing.
	lr.hashes = lr.hashes[:0]
	var touch uint32
	if len(out.recs) > 0 {
		lr.ids.Reserve(uint32(lr.recs.Len()+len(out.recs)-1), lr.compactHash)
	}
	for i := range out.recs {
		r := &out.recs[i]
		h := uint64(0)
		if r.form != compact.IDOther {
			h = compactIDHash(r)
			touch += lr.ids.Touch(h)
		}
		lr.hashes = append(lr.hashes, h)
	}
	lr.touched += touch
	for i := range out.recs {
		r := &out.recs[i]
		if r.flags&recTextID != 0 {
			setTextID(r, textID(r)+textBase)
		}
		var reported *reportedX
		switch {
		case r.flags&recReported != 0:
			reported, r.aux = &out.reported[r.aux], noAux
		case r.flags&recFat != 0:
			r.aux += fatBase
		case r.flags&recProblem != 0:
			r.aux += problemBase
		case r.typ == typeAssign:
			r.aux += assignBase
			if a := lr.assigns.At(r.aux); r.flags&recSpecText != 0 && a.spec != noAux {
				a.spec += textBase
			}
		case r.typ == typeChanges:
			r.aux += textBase
		}
		idx := uint32(lr.recs.Len())
		if first, dup := lr.firstUse(r, lr.hashes[i], idx); dup {
			f := lr.recs.At(first)
			var taskID, feature string
			if reported != nil {
				taskID, feature = reported.problem.TaskID, reported.problem.Feature
			} else {
				taskID, feature = lr.taskFeature(r)
			}
			lr.rejected.Add(event.Duplicate(int(r.line), lr.eventID(r), taskID, feature, int(f.line), lr.recs.hash(first) == out.hashes[i]))
			continue // never kept: ids point at first uses only
		}
		lr.recs.push(r, out.hashes[i])
		if reported != nil {
			if reported.hasMissing {
				lr.rejected.Add(reported.missing)
			}
			lr.rejected.Add(reported.problem)
		}
	}
	if out.early != nil {
		lr.rejected.Merge(out.early)
	}
}

// firstUse records r's event_id as used by rec idx, or returns the rec that
// used it first.
func (lr *parallelReplay) firstUse(r *rec, hash uint64, idx uint32) (uint32, bool) {
	switch {
	case r.form != compact.IDOther:
		return lr.ids.Insert(hash, idx, func(o uint32) bool {
			other := lr.recs.At(o)
			return other.form == r.form && other.id == r.id
		}, lr.compactHash)
	default:
		if id := lr.stringID(r); id != "" {
			return lr.strIDs.Insert(maphash.String(idSeed, id), idx, func(o uint32) bool {
				return lr.stringID(lr.recs.At(o)) == id
			}, lr.stringHash)
		}
	}
	return 0, false
}

// compactIDHash is the hash of a rec's event_id in ids.
func compactIDHash(r *rec) uint64 { return maphash.Bytes(idSeed, r.id[:]) + uint64(r.form) }

// compactHash is the hash of rec i's event_id in ids.
func (lr *parallelReplay) compactHash(i uint32) uint64 { return compactIDHash(lr.recs.At(i)) }

// stringHash is the hash of rec i's event_id in strIDs.
func (lr *parallelReplay) stringHash(i uint32) uint64 {
	return maphash.String(idSeed, lr.stringID(lr.recs.At(i)))
}

// firstLineOf is the line of the first event that used the event_id id, or
// 0; it asks the tables firstUse filled, so it must run before they go.
func (lr *parallelReplay) firstLineOf(id string) int {
	var idx uint32
	var found bool
	var b [16]byte
	if form := compact.ParseID(&b, []byte(id)); form != compact.IDOther {
		idx, found = lr.ids.Find(compactIDHash(&rec{id: b, form: form}), func(o uint32) bool {
			other := lr.recs.At(o)
			return other.form == form && other.id == b
		})
	} else {
		idx, found = lr.strIDs.Find(maphash.String(idSeed, id), func(o uint32) bool {
			return lr.stringID(lr.recs.At(o)) == id
		})
	}
	if !found {
		return 0
	}
	return int(lr.recs.At(idx).line)
}

func (lr *parallelReplay) eventID(r *rec) string {
	if r.form != compact.IDOther {
		return compact.FormatID(r.form, &r.id)
	}
	return lr.stringID(r)
}

// stringID is the event_id of a rec whose id has no compact form ("" when
// it has none).
func (lr *parallelReplay) stringID(r *rec) string {
	switch {
	case r.form != compact.IDOther:
		return ""
	case r.flags&recTextID != 0:
		return *lr.texts.At(textID(r))
	case r.flags&recFat != 0:
		return lr.fat[r.aux].EventID
	}
	return ""
}

// taskFeature is the task_id and feature of a rec that is not reported.
func (lr *parallelReplay) taskFeature(r *rec) (string, string) {
	if r.flags&recFat != 0 {
		ev := &lr.fat[r.aux]
		return ev.TaskID, ev.Feature
	}
	return lr.name(r.task), lr.name(r.feature)
}

// apply judges and applies r by apply, as replay's loop does.
func (lr *parallelReplay) apply(apply func(*Event) *Rejection, r *rec) {
	ev := &lr.scratch
	if r.flags&recFat != 0 {
		ev = &lr.fat[r.aux]
	} else {
		lr.materialize(r, ev)
	}
	if r.flags&recMissingID != 0 {
		lr.rejected.Add(*event.MissingID(ev))
	}
	if rj := apply(ev); rj != nil {
		if rj.EventID == "" && r.flags&recFat == 0 {
			rj.EventID = lr.eventID(r)
		}
		lr.rejected.Add(*rj)
	}
}

// replay orders the kept events (stable by ts, ties by line) and judges
// and applies each by apply (State.Apply of the state replayLean makes),
// as the canonical replay does; it returns the rejections, those found on
// reading first. It runs once, on a log that does not fail closed.
//
// Kept events are in file order, and mostly in ts order too. Those that are
// not ≥ every earlier one are set aside (copied) and sorted; the rest is in
// order already, and merging the two gives the replay order. The blocks of
// recs are then read in order only, and each is let go once applied: the
// recs shrink while the state grows. So do the blocks of assigns, each let
// go once the last rec that reads it is applied (at 2M events they held
// 20 MB until the state was whole).
func (lr *parallelReplay) replay(apply func(*Event) *Rejection) *event.Listing {
	type aside struct {
		k key
		r rec
	}
	var displaced []aside
	var top key
	topSet := false
	assignRefs := make([]int32, lr.assigns.Blocks())
	for i := 0; i < lr.recs.Len(); i++ {
		r := lr.recs.At(uint32(i))
		if r.flags&recReported != 0 {
			continue
		}
		if a, ok := assignOfRec(r); ok {
			assignRefs[a/compact.BlockSize]++
		}
		k := lr.keyOf(r, uint32(i))
		if topSet && k.less(top) {
			displaced = append(displaced, aside{k, *r})
			r.flags |= recDisplaced
			continue
		}
		top, topSet = k, true
	}
	slices.SortFunc(displaced, func(a, b aside) int {
		if a.k.less(b.k) {
			return -1
		}
		return 1
	})
	applyRec := func(r *rec) {
		lr.apply(apply, r)
		if a, ok := assignOfRec(r); ok {
			if assignRefs[a/compact.BlockSize]--; assignRefs[a/compact.BlockSize] == 0 {
				lr.assigns.Drop(int(a / compact.BlockSize))
			}
		}
	}
	d := 0
	for i := 0; i < lr.recs.Len(); i++ {
		r := lr.recs.At(uint32(i))
		if r.flags&(recReported|recDisplaced) == 0 {
			for k := lr.keyOf(r, uint32(i)); d < len(displaced) && displaced[d].k.less(k); d++ {
				applyRec(&displaced[d].r)
			}
			applyRec(r)
		}
		if (i+1)%compact.BlockSize == 0 {
			lr.recs.Drop(i / compact.BlockSize)
		}
	}
	for ; d < len(displaced); d++ {
		applyRec(&displaced[d].r)
	}
	lr.recs, lr.assigns = recStore{}, compact.BlockList[assignX]{}
	return lr.rejected
}

// assigns is how many assign events the log holds, at most: what the state
// they are applied to is sized for (newStateFor).
func (lr *parallelReplay) assignCount() int { return lr.assigns.Len() }

// assignOfRec is the index in assigns of the payload of r, when it has
// one there (materialize reads it).
func assignOfRec(r *rec) (uint32, bool) {
	return r.aux, r.flags&(recFat|recProblem) == 0 && r.typ == typeAssign
}

// materialize rebuilds the Event a rec stands for, with every field Judge
// and Apply read: not the event_id, which a rejection gets afterwards, nor
// an accept's commit.
func (lr *parallelReplay) materialize(r *rec, ev *Event) {
	*ev = Event{Line: int(r.line), AgentID: lr.name(r.agent), Role: roleNames[r.role],
		Type: typeNames[r.typ], TaskID: lr.name(r.task), Feature: lr.name(r.feature)}
	if r.flags&recProblem != 0 {
		ev.Problem = &lr.problems[r.aux]
		return
	}
	switch ev.Type {
	case TypeAssign:
		a := lr.assigns.At(r.aux)
		ev.Payload.Owner, ev.Payload.Reviewer, ev.Payload.Branch = lr.name(a.owner), lr.name(a.reviewer), lr.name(a.branch)
		switch {
		case r.flags&recSpecText == 0:
			ev.Payload.Spec = lr.name(a.spec) + ev.TaskID + ".md"
		case a.spec != noAux:
			ev.Payload.Spec = *lr.texts.At(a.spec)
		}
	case TypeChangesRequested:
		ev.Payload.Reason = *lr.texts.At(r.aux)
	}
}

// idDigests lists the digest of every event_id the tables of firstUse
// hold (first uses only; a duplicate digests the same), for a snapshot.
func (lr *parallelReplay) idDigests() []uint64 {
	out := make([]uint64, 0, lr.recs.Len())
	for i := 0; i < lr.recs.Len(); i++ {
		r := lr.recs.At(uint32(i))
		switch {
		case r.form != compact.IDOther:
			out = append(out, snapshot.CompactDigest(r.form, &r.id))
		default:
			if id := lr.stringID(r); id != "" {
				out = append(out, snapshot.TextDigest(id))
			}
		}
	}
	return out
}
