package lean

import (
	"encoding/binary"
	"math"
	"time"

	"github.com/pact-action/pact-action/projection/internal/compact"
	"github.com/pact-action/pact-action/projection/internal/event"
)

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
	form  uint8 // compact.IDOther, IDHex, IDUUID
	flags uint8
}

const (
	recFat       = 1 << iota // the event is fat[aux]
	recMissingID             // no non-empty event_id
	recReported              // reported before ordering (an envelope problem); never applied
	recDisplaced             // out of ts order in the file (Replay)
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

func (lr *Reading) name(sym uint32) string {
	return *lr.names[sym>>symWorkerShift].At(sym & symIndexMask)
}

// Codes of typeNames.
const (
	typeAssign  = 2
	typeAccept  = 5
	typeChanges = 6
)

var (
	typeNames = [...]string{"", event.TypeInit, event.TypeAssign, event.TypeJoin, event.TypeCheckpoint, event.TypeAccept, event.TypeChangesRequested, event.TypeMerge}
	roleNames = [...]string{event.RoleOrchestrator, event.RoleWorker, event.RoleReviewer}
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
	case event.RoleWorker:
		return 1
	case event.RoleReviewer:
		return 2
	}
	return 0
}

// assignX is the payload of an assign: symbols, and the spec, which is
// usually <dir>/<task_id>.md (pactify assign's default): then only the
// symbol of <dir>/ is kept; any other spec is kept in texts. It holds no
// pointer (16 bytes; 32 with the spec's string), so the collector never
// scans its blocks, one per task.
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
func (lr *Reading) keyOf(r *rec, i uint32) key {
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
