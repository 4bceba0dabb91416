package projection

import (
	"cmp"
	"fmt"
	"hash/maphash"
	"io"
	"runtime"
	"slices"
	"time"
	"unicode/utf8"
)

// ParseReplay reads a log and replays it in one go. It returns exactly what
//
//	log, err := Parse(r); res := Replay(log)
//
// returns, except that log.Events stays nil: events are decoded on all cores
// and kept only in a compact form (about 64 bytes each, strings that repeat
// interned once) until they are applied, and no line is kept. It is the path
// of `pactify validate`, whose memory stays far below the log's size.
func ParseReplay(r io.Reader) (*Log, *Result, error) {
	lr := newLeanReplay()
	err := lr.read(r, runtime.GOMAXPROCS(0))
	if err != nil {
		return lr.log, nil, err
	}
	return lr.log, lr.finish(), nil
}

// rec is one decoded event, compact: symbols instead of strings, the
// event_id in 16 bytes when it has a common form, the payload fields a
// replay reads in side tables. Init events, events with a problem and
// events whose event_id has another form are kept whole in fat.
type rec struct {
	sec     int64
	hash    uint64 // of the line's bytes, to tell byte-identical duplicates
	line    int64
	id      [16]byte
	nsec    int32
	agent   uint32 // symbols
	task    uint32
	feature uint32
	// aux indexes fat (recFat), assigns (assign), texts (the reason of
	// changes_requested, the commit of accept; noAux without one).
	aux   uint32
	typ   uint8 // index in typeNames
	role  uint8 // index in roleNames
	form  uint8 // idOther, idHex, idUUID
	flags uint8
}

const (
	recFat       = 1 << iota // the event is fat[aux]
	recMissingID             // no non-empty event_id
	recReported              // reported before ordering (an envelope problem); never applied
)

const noAux = ^uint32(0)

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

type assignX struct {
	owner, reviewer, branch uint32
	spec                    string
}

// recBlock is the number of recs in one block of a recStore.
const recBlock = 1 << 14

// recStore is an append-only list of recs in blocks, so growing it never
// copies what it holds.
type recStore struct {
	blocks [][]rec
	n      int
}

func (s *recStore) at(i uint32) *rec { return &s.blocks[i/recBlock][i%recBlock] }

func (s *recStore) push(r *rec) uint32 {
	if s.n%recBlock == 0 {
		s.blocks = append(s.blocks, make([]rec, recBlock))
	}
	i := s.n
	s.blocks[i/recBlock][i%recBlock] = *r
	s.n++
	return uint32(i)
}

// idTable finds duplicate event ids. It stores a 32-bit hash and an index
// per id (8 bytes a slot, at most half full) and asks its owner to compare
// the ids themselves.
type idTable struct {
	slots []uint64 // hash<<32 | index+1; 0 is empty
	n     int
}

var idSeed = maphash.MakeSeed()

// insert records index under hash unless an equal id is already there, whose
// index it then returns.
func (t *idTable) insert(hash uint64, index uint32, equal func(other uint32) bool) (uint32, bool) {
	if 2*(t.n+1) > len(t.slots) {
		t.grow()
	}
	h := uint32(hash >> 32)
	mask := uint32(len(t.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := t.slots[i]
		if s == 0 {
			t.slots[i] = uint64(h)<<32 | uint64(index+1)
			t.n++
			return 0, false
		}
		if uint32(s>>32) == h && equal(uint32(s)-1) {
			return uint32(s) - 1, true
		}
	}
}

func (t *idTable) grow() {
	size := 2 * len(t.slots)
	if size < 1024 {
		size = 1024
	}
	old := t.slots
	t.slots = make([]uint64, size)
	mask := uint32(size - 1)
	for _, s := range old {
		if s == 0 {
			continue
		}
		i := uint32(s>>32) & mask
		for t.slots[i] != 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = s
	}
}

// duplicateID is the rejection of a later use of an event_id.
func duplicateID(line int, id, taskID, feature string, firstLine int, identical bool) Rejection {
	msg := fmt.Sprintf("event_id %q was already used on line %d", id, firstLine)
	if identical {
		msg += " by a byte-identical line (a copied or re-merged line)"
	}
	return Rejection{Line: line, EventID: id, TaskID: taskID, Feature: feature, Code: CodeEventIDDuplicate, Message: msg, Identical: identical}
}

// sortRejections orders rejections by line, lineless ones last, keeping the
// judged order among equals.
func sortRejections(rs []Rejection) {
	slices.SortStableFunc(rs, func(a, b Rejection) int {
		switch {
		case a.Line == b.Line:
			return 0
		case a.Line == 0:
			return 1
		case b.Line == 0:
			return -1
		}
		return cmp.Compare(a.Line, b.Line)
	})
}

// ---- reading: lines are cut by one goroutine, decoded by the others ----

// chunkBytes is about how many bytes of lines go into one chunk.
const chunkBytes = 512 << 10

type lineRef struct {
	n       int
	lo, hi  int
	tooLong bool
}

type chunkIn struct {
	data  []byte
	lines []lineRef
	out   chan *chunkOut
}

type chunkOut struct {
	in        *chunkIn
	recs      []rec
	names     []string // symbols of this chunk
	assigns   []assignX
	texts     []string
	fat       []Event
	malformed []Malformed
	claims    []VersionClaim
}

type leanReplay struct {
	log *Log
	res *Result

	names   []string // symbols of the whole log
	symbol  map[string]uint32
	remap   []uint32
	recs    recStore
	assigns []assignX
	texts   []string
	fat     []Event
	ids     idTable
	strIDs  idTable // event ids of other forms (fat events)
	// applicable counts recs that go into replay order.
	applicable int
}

func newLeanReplay() *leanReplay {
	return &leanReplay{log: &Log{}, res: &Result{State: NewState()}, symbol: map[string]uint32{}}
}

// read splits r into chunks of lines, decodes them with workers goroutines
// and merges the results in file order.
func (lr *leanReplay) read(r io.Reader, workers int) error {
	if workers < 1 {
		workers = 1
	}
	jobs := make(chan *chunkIn, workers)
	order := make(chan *chunkIn, 2*workers+2)
	free := make(chan *chunkIn, 2*workers+4)
	outs := make(chan *chunkOut, 2*workers+4)
	for i := 0; i < workers; i++ {
		go func() {
			var d decoder
			d.lean = true
			for in := range jobs {
				var out *chunkOut
				select {
				case out = <-outs:
				default:
					out = &chunkOut{}
				}
				in.out <- decodeChunk(&d, in, out)
			}
		}()
	}
	var readErr error
	go func() {
		defer close(order)
		defer close(jobs)
		readErr = cutChunks(r, free, func(in *chunkIn) {
			order <- in
			jobs <- in
		})
	}()
	for in := range order {
		out := <-in.out
		lr.merge(out)
		in.data, in.lines = in.data[:0], in.lines[:0]
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
	return readErr
}

// cutChunks reads lines with the same rules as ScanLines and hands them on
// in chunks.
func cutChunks(r io.Reader, free chan *chunkIn, send func(*chunkIn)) error {
	next := func() *chunkIn {
		select {
		case in := <-free:
			return in
		default:
			return &chunkIn{data: make([]byte, 0, chunkBytes+4096), lines: make([]lineRef, 0, chunkBytes/128), out: make(chan *chunkOut, 1)}
		}
	}
	in := next()
	lines := lineReader{r: r, buf: make([]byte, 256<<10)}
	for lines.next() {
		lo := len(in.data)
		in.data = append(in.data, lines.line...)
		in.lines = append(in.lines, lineRef{n: lines.n, lo: lo, hi: len(in.data), tooLong: lines.tooLong})
		if len(in.data) >= chunkBytes {
			send(in)
			in = next()
		}
	}
	if len(in.lines) > 0 {
		send(in)
	}
	return lines.err
}

// reset empties a merged chunkOut for reuse; what it held lives on in the
// log's tables.
func (out *chunkOut) reset() {
	clear(out.names)
	clear(out.texts)
	clear(out.fat)
	clear(out.assigns)
	*out = chunkOut{recs: out.recs[:0], names: out.names[:0], assigns: out.assigns[:0], texts: out.texts[:0], fat: out.fat[:0]}
}

// decodeChunk decodes the lines of one chunk (a worker's part).
func decodeChunk(d *decoder, in *chunkIn, out *chunkOut) *chunkOut {
	out.in = in
	d.resetSyms()
	d.names = out.names[:0]
	var ev Event
	for _, l := range in.lines {
		if l.tooLong {
			out.malformed = append(out.malformed, Malformed{Line: l.n, Message: tooLongMessage})
			continue
		}
		line := in.data[l.lo:l.hi]
		if isBlank(line) {
			continue
		}
		if !utf8.Valid(line) {
			out.malformed = append(out.malformed, Malformed{Line: l.n, Message: "line is not valid UTF-8"})
			continue
		}
		claim, skip, msg := d.decode(line, &ev)
		if msg != "" {
			out.malformed = append(out.malformed, Malformed{Line: l.n, Message: msg})
			continue
		}
		if claim != nil {
			claim.Line = l.n
			out.claims = append(out.claims, *claim)
		}
		if skip {
			continue
		}
		ev.Line = l.n
		out.add(d, &ev, maphash.Bytes(lineSeed, line))
	}
	out.names = d.names
	d.names = nil
	return out
}

// add keeps one decoded event.
func (out *chunkOut) add(d *decoder, ev *Event, hash uint64) {
	r := rec{line: int64(ev.Line), hash: hash, typ: typeCode(ev.Type), role: roleCode(ev.Role), form: d.idForm, aux: noAux}
	if d.idForm != idOther {
		r.id = d.idBytes
	} else if ev.EventID == "" {
		r.flags |= recMissingID
	}
	if ev.Problem == nil || ev.Problem.Code == CodeSchemaPayload {
		r.sec, r.nsec = ev.TS.Unix(), int32(ev.TS.Nanosecond())
	}
	if ev.Problem != nil && ev.Problem.Code != CodeSchemaPayload {
		r.flags |= recReported
	}
	if ev.Problem != nil || ev.Type == TypeInit || (d.idForm == idOther && ev.EventID != "") {
		if d.idForm != idOther {
			ev.EventID = formatID(d.idForm, &d.idBytes)
		}
		r.flags |= recFat
		r.aux = uint32(len(out.fat))
		out.fat = append(out.fat, *ev)
		out.recs = append(out.recs, r)
		return
	}
	r.agent, r.task, r.feature = d.symOf[symAgent], d.symOf[symTask], d.symOf[symFeature]
	switch ev.Type {
	case TypeAssign:
		r.aux = uint32(len(out.assigns))
		out.assigns = append(out.assigns, assignX{owner: d.symOf[symOwner], reviewer: d.symOf[symReviewer], branch: d.symOf[symBranch], spec: ev.Payload.Spec})
	case TypeChangesRequested:
		r.aux = uint32(len(out.texts))
		out.texts = append(out.texts, ev.Payload.Reason)
	case TypeAccept:
		if ev.Payload.Commit != "" {
			r.aux = uint32(len(out.texts))
			out.texts = append(out.texts, ev.Payload.Commit)
		}
	}
	out.recs = append(out.recs, r)
}

// merge takes one chunk's results, in file order: symbols become the log's,
// duplicate event ids and envelope problems are reported (as Replay does
// before ordering), and the rest is kept for the replay.
func (lr *leanReplay) merge(out *chunkOut) {
	log := lr.log
	log.Malformed = append(log.Malformed, out.malformed...)
	log.Claims = append(log.Claims, out.claims...)
	if n := len(out.in.lines); n > 0 {
		log.Lines = out.in.lines[n-1].n
	}
	lr.remap = lr.remap[:0]
	for _, s := range out.names {
		g, ok := lr.symbol[s]
		if !ok {
			g = uint32(len(lr.names))
			lr.names = append(lr.names, s)
			lr.symbol[s] = g
		}
		lr.remap = append(lr.remap, g)
	}
	assignBase, textBase, fatBase := uint32(len(lr.assigns)), uint32(len(lr.texts)), uint32(len(lr.fat))
	for _, a := range out.assigns {
		lr.assigns = append(lr.assigns, assignX{owner: lr.remap[a.owner], reviewer: lr.remap[a.reviewer], branch: lr.remap[a.branch], spec: a.spec})
	}
	lr.texts = append(lr.texts, out.texts...)
	lr.fat = append(lr.fat, out.fat...)
	for i := range out.recs {
		r := &out.recs[i]
		switch {
		case r.flags&recFat != 0:
			r.aux += fatBase
		default:
			r.agent, r.task, r.feature = lr.remap[r.agent], lr.remap[r.task], lr.remap[r.feature]
			switch typeNames[r.typ] {
			case TypeAssign:
				r.aux += assignBase
			case TypeChangesRequested, TypeAccept:
				if r.aux != noAux {
					r.aux += textBase
				}
			}
		}
		if first, dup := lr.firstUse(r); dup {
			f := lr.recs.at(first)
			taskID, feature := lr.taskFeature(r)
			lr.res.Rejections = append(lr.res.Rejections, duplicateID(int(r.line), lr.eventID(r), taskID, feature, int(f.line), f.hash == r.hash))
			continue
		}
		lr.recs.push(r)
		if r.flags&recReported != 0 {
			ev := &lr.fat[r.aux]
			if r.flags&recMissingID != 0 {
				lr.res.Rejections = append(lr.res.Rejections, *missingID(ev))
			}
			lr.res.Rejections = append(lr.res.Rejections, *rejection(ev, ev.Problem.Code, ev.Problem.Message))
			continue
		}
		lr.applicable++
	}
}

// firstUse looks r's event_id up among the ids seen so far, recording it
// (as the next rec) when it is new.
func (lr *leanReplay) firstUse(r *rec) (uint32, bool) {
	next := uint32(lr.recs.n)
	switch {
	case r.form != idOther:
		h := maphash.Bytes(idSeed, r.id[:]) + uint64(r.form)
		return lr.ids.insert(h, next, func(o uint32) bool {
			other := lr.recs.at(o)
			return other.form == r.form && other.id == r.id
		})
	case r.flags&recFat != 0 && lr.fat[r.aux].EventID != "":
		id := lr.fat[r.aux].EventID
		return lr.strIDs.insert(maphash.String(idSeed, id), next, func(o uint32) bool {
			return lr.fat[lr.recs.at(o).aux].EventID == id
		})
	}
	return 0, false
}

func (lr *leanReplay) eventID(r *rec) string {
	if r.flags&recFat != 0 {
		return lr.fat[r.aux].EventID
	}
	if r.form != idOther {
		return formatID(r.form, &r.id)
	}
	return ""
}

func (lr *leanReplay) taskFeature(r *rec) (string, string) {
	if r.flags&recFat != 0 {
		ev := &lr.fat[r.aux]
		return ev.TaskID, ev.Feature
	}
	return lr.names[r.task], lr.names[r.feature]
}

// finish orders the kept events like Replay (stable by ts, ties by line)
// and applies them.
func (lr *leanReplay) finish() *Result {
	res := lr.res
	if u := unsupported(lr.log); u != nil {
		return &Result{State: NewState(), Unsupported: u}
	}
	// Events are kept in file order; a log written by our tools is in ts
	// order already, and then there is nothing to sort.
	type key struct {
		sec  int64
		nsec int32
		i    uint32
	}
	var keys []key
	sorted := true
	var last *rec
	for i := 0; i < lr.recs.n; i++ {
		r := lr.recs.at(uint32(i))
		if r.flags&recReported != 0 {
			continue
		}
		if last != nil && (r.sec < last.sec || (r.sec == last.sec && r.nsec < last.nsec)) {
			sorted = false
			break
		}
		last = r
	}
	if !sorted {
		keys = make([]key, 0, lr.applicable)
		for i := 0; i < lr.recs.n; i++ {
			if r := lr.recs.at(uint32(i)); r.flags&recReported == 0 {
				keys = append(keys, key{r.sec, r.nsec, uint32(i)})
			}
		}
		slices.SortFunc(keys, func(a, b key) int {
			if c := cmp.Compare(a.sec, b.sec); c != 0 {
				return c
			}
			if c := cmp.Compare(a.nsec, b.nsec); c != 0 {
				return c
			}
			return cmp.Compare(a.i, b.i)
		})
	}
	st := res.State
	var scratch Event
	apply := func(r *rec) {
		ev := &scratch
		if r.flags&recFat != 0 {
			ev = &lr.fat[r.aux]
		} else {
			lr.materialize(r, ev)
		}
		if r.flags&recMissingID != 0 {
			res.Rejections = append(res.Rejections, *missingID(ev))
		}
		if rj := st.Apply(ev); rj != nil {
			if rj.EventID == "" && r.flags&recFat == 0 && r.form != idOther {
				rj.EventID = formatID(r.form, &r.id)
			}
			res.Rejections = append(res.Rejections, *rj)
		}
	}
	if sorted {
		for i := 0; i < lr.recs.n; i++ {
			if r := lr.recs.at(uint32(i)); r.flags&recReported == 0 {
				apply(r)
			}
		}
	} else {
		for _, k := range keys {
			apply(lr.recs.at(k.i))
		}
	}
	if !st.Initialized {
		res.Rejections = append(res.Rejections, Rejection{Code: CodeInitMissing, Message: "the log has no valid init event"})
	}
	sortRejections(res.Rejections)
	return res
}

// materialize rebuilds the Event a rec stands for, with every field Judge
// and Apply read. The event_id is spelled out only where Apply keeps it
// (accept); a rejection gets it afterwards.
func (lr *leanReplay) materialize(r *rec, ev *Event) {
	*ev = Event{Line: int(r.line), TS: time.Unix(r.sec, int64(r.nsec)).UTC(), AgentID: lr.names[r.agent], Role: roleNames[r.role],
		Type: typeNames[r.typ], TaskID: lr.names[r.task], Feature: lr.names[r.feature], hash: r.hash}
	switch ev.Type {
	case TypeAssign:
		a := &lr.assigns[r.aux]
		ev.Payload.Owner, ev.Payload.Reviewer, ev.Payload.Branch, ev.Payload.Spec = lr.names[a.owner], lr.names[a.reviewer], lr.names[a.branch], a.spec
	case TypeChangesRequested:
		ev.Payload.Reason = lr.texts[r.aux]
	case TypeAccept:
		if r.aux != noAux {
			ev.Payload.Commit = lr.texts[r.aux]
		}
		if r.form != idOther {
			ev.EventID = formatID(r.form, &r.id)
		}
	}
}
