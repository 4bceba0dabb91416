package projection

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"math/bits"
	"slices"
	"time"

	"github.com/pact-action/pact-action/projection/internal/compact"
)

// A snapshot is what a writer needs of a replayed log to judge and append
// one more line without replaying it: the State, the number of lines, the
// latest ts and a digest of every event_id the log holds (a duplicate is
// judged, and a digest that matches sends the writer back to the log).
// It is a cache: the replay stays the oracle, and every doubt about a
// snapshot (its bytes here, its identity in pactdir) means replaying the
// log. The encoding is compact and versioned: SnapshotFormat, and the
// build of the program that wrote it, which must be the reader's.

// SnapshotFormat is the version of the snapshot encoding; a snapshot of any
// other version is not read. Format 2 no longer holds a task's accept commit,
// accept event_id and time of its last change, which the state no longer
// keeps.
const SnapshotFormat = 2

// snapshotMagic opens every snapshot.
const snapshotMagic = "PACTSNAP"

// ErrSnapshot is every reason a snapshot is not used: its bytes are not a
// snapshot of this format and build, or it cannot judge the line about to
// be appended. The caller replays the log instead.
var ErrSnapshot = errors.New("snapshot not usable")

// IDDigest is the digest of an event_id a snapshot holds for it: the
// compact forms (intern.go) are digested from their 16 bytes, any other id
// from its text, so the same id always has the same digest.
func IDDigest(id string) uint64 {
	var b [16]byte
	if form := compact.ParseID(&b, []byte(id)); form != compact.IDOther {
		return compactDigest(form, &b)
	}
	return textDigest(id)
}

func compactDigest(form uint8, id *[16]byte) uint64 {
	x := binary.LittleEndian.Uint64(id[:8]) ^ bits.RotateLeft64(binary.LittleEndian.Uint64(id[8:]), 29) ^ uint64(form)<<58
	return mix64(x)
}

func textDigest(s string) uint64 {
	h := uint64(14695981039346656037) // FNV-1a
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return mix64(h ^ 1<<63)
}

// mix64 is SplitMix64's finaliser.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// idDigests lists the digest of every event_id the tables of firstUse
// hold (first uses only; a duplicate digests the same), for a snapshot.
func (lr *parallelReplay) idDigests() []uint64 {
	out := make([]uint64, 0, lr.recs.Len())
	for i := 0; i < lr.recs.Len(); i++ {
		r := lr.recs.At(uint32(i))
		switch {
		case r.form != compact.IDOther:
			out = append(out, compactDigest(r.form, &r.id))
		default:
			if id := lr.stringID(r); id != "" {
				out = append(out, textDigest(id))
			}
		}
	}
	return out
}

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
		return fmt.Errorf("%w: the log was not read for a snapshot", ErrSnapshot)
	}
	if _, err := w.Write(appendSnapshotHead(nil, build)); err != nil {
		return err
	}
	e := &snapEncoder{w: w, b: make([]byte, 0, 2*flushBytes), dict: map[string]uint64{}}
	if err := e.state(res.State); err != nil {
		return err
	}
	e.uvarint(uint64(log.Lines))
	e.time(log.latest)
	e.uvarint(uint64(len(log.digests)))
	for _, d := range log.digests {
		e.b = binary.LittleEndian.AppendUint64(e.b, d)
		e.flush(false)
	}
	e.flush(true)
	if e.err != nil {
		return e.err
	}
	var tail [12]byte
	binary.LittleEndian.PutUint64(tail[:], e.n)
	binary.LittleEndian.PutUint32(tail[8:], e.crc)
	_, err := w.Write(tail[:])
	return err
}

// appendSnapshotHead appends what precedes a snapshot's payload: the
// magic, the format and the build.
func appendSnapshotHead(b []byte, build string) []byte {
	b = append(b, snapshotMagic...)
	b = binary.LittleEndian.AppendUint32(b, SnapshotFormat)
	b = binary.AppendUvarint(b, uint64(len(build)))
	return append(b, build...)
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// DecodeSnapshot reads a snapshot EncodeSnapshot wrote with the same build,
// as the log and replay it describes, read for a writer that will append
// the line of event_id reserve (as ReadOptions.Reserve). Any defect, another
// format or build, or a reserve whose digest the snapshot holds (the id may
// be the log's: only the log can tell) is ErrSnapshot. It never panics, and
// it allocates at most a small multiple of len(b). The texts of the state
// are substrings of b, which is taken as a string so that it is not copied.
func DecodeSnapshot(b string, build, reserve string) (*Log, *Result, error) {
	fail := func(what string) (*Log, *Result, error) {
		return nil, nil, fmt.Errorf("%w: %s", ErrSnapshot, what)
	}
	if len(b) < len(snapshotMagic)+4+12 || b[:len(snapshotMagic)] != snapshotMagic {
		return fail("not a snapshot")
	}
	if v := binary.LittleEndian.Uint32([]byte(b[len(snapshotMagic) : len(snapshotMagic)+4])); v != SnapshotFormat {
		return fail(fmt.Sprintf("format %d, not %d", v, SnapshotFormat))
	}
	tail := []byte(b[len(b)-12:])
	d := &snapDecoder{s: b[len(snapshotMagic)+4 : len(b)-12]}
	if got := d.str(); d.err != nil || got != build {
		return fail("written by another build")
	}
	d.s, d.off = d.s[d.off:], 0
	if binary.LittleEndian.Uint64(tail) != uint64(len(d.s)) || checksum(d.s) != binary.LittleEndian.Uint32(tail[8:]) {
		return fail("damaged")
	}
	st := d.state()
	log := &Log{forSnapshot: true, reserved: reservation(reserve)}
	log.Lines = d.int()
	log.latest = d.time()
	n := d.count(8)
	if d.err == nil {
		log.digests = make([]uint64, n)
		for i := range log.digests {
			log.digests[i] = d.u64()
		}
	}
	switch {
	case d.err != nil:
		return fail(d.err.Error())
	case d.off != len(d.s):
		return fail("trailing bytes")
	case reserve != "" && slices.Contains(log.digests, IDDigest(reserve)):
		return fail("the new event_id's digest is the log's")
	}
	return log, &Result{State: st}, nil
}

// checksum is the CRC-32C of s, copied a piece at a time.
func checksum(s string) uint32 {
	var buf [64 << 10]byte
	var sum uint32
	for len(s) > 0 {
		n := copy(buf[:], s)
		sum = crc32.Update(sum, castagnoli, buf[:n])
		s = s[n:]
	}
	return sum
}

// Codes of task statuses in a snapshot.
var statusCodes = []TaskStatus{StatusAssigned, StatusInProgress, StatusAwaitingReview, StatusAccepted}

// flushBytes is how much the encoder gathers before it writes.
const flushBytes = 64 << 10

// snapEncoder writes the payload through a small buffer, counting and
// checksumming it; its first error stops it. Texts that repeat (features,
// seats, branches, reasons) are written once and then by number (dict).
type snapEncoder struct {
	w    io.Writer
	b    []byte
	n    uint64
	crc  uint32
	err  error
	dict map[string]uint64
}

func (e *snapEncoder) flush(all bool) {
	if len(e.b) < flushBytes && !all || e.err != nil {
		return
	}
	e.n += uint64(len(e.b))
	e.crc = crc32.Update(e.crc, castagnoli, e.b)
	_, e.err = e.w.Write(e.b)
	e.b = e.b[:0]
}

// word is a text that may repeat: 0 and the text the first time, its
// number + 1 after.
func (e *snapEncoder) word(s string) {
	if k, ok := e.dict[s]; ok {
		e.uvarint(k + 1)
		return
	}
	e.dict[s] = uint64(len(e.dict))
	e.uvarint(0)
	e.str(s)
}

func (e *snapEncoder) uvarint(v uint64) { e.b = binary.AppendUvarint(e.b, v) }
func (e *snapEncoder) varint(v int64)   { e.b = binary.AppendVarint(e.b, v) }
func (e *snapEncoder) str(s string)     { e.uvarint(uint64(len(s))); e.b = append(e.b, s...) }

func (e *snapEncoder) bool(v bool) {
	if v {
		e.b = append(e.b, 1)
	} else {
		e.b = append(e.b, 0)
	}
}

// time keeps an instant as its Unix seconds and nanoseconds; instants of
// the replay are UTC, and the zero one stays zero.
func (e *snapEncoder) time(t time.Time) {
	if t.IsZero() {
		e.b = append(e.b, 0)
		return
	}
	e.b = append(e.b, 1)
	e.varint(t.Unix())
	e.uvarint(uint64(t.Nanosecond()))
}

// list starts a list of n elements, or none when it is nil: its length
// plus one, 0 for nil, so that a nil list and an empty one read back as
// they were (snapDecoder.list).
func (e *snapEncoder) list(isNil bool, n int) {
	if isNil {
		e.uvarint(0)
		return
	}
	e.uvarint(uint64(n) + 1)
}

func (e *snapEncoder) strs(l []string) {
	e.list(l == nil, len(l))
	for _, s := range l {
		e.str(s)
	}
}

func (e *snapEncoder) state(s *State) error {
	tasks := s.TaskList()
	if len(s.Tasks) != len(tasks) || len(s.Features) != len(s.FeatureOrder) {
		return fmt.Errorf("%w: the state's tables disagree with their orders", ErrSnapshot)
	}
	e.bool(s.Initialized)
	e.uvarint(uint64(s.InitLine))
	e.str(s.Project)
	e.varint(int64(s.ProtocolVersion))
	e.str(s.BaseBranch)
	e.list(s.Seats == nil, len(s.Seats))
	for _, seat := range s.Seats {
		e.str(seat.ID)
		e.strs(seat.Roles)
		e.str(seat.Entry)
	}
	online := make([]string, 0, len(s.Online))
	for id, on := range s.Online {
		if !on {
			return fmt.Errorf("%w: a seat is listed offline", ErrSnapshot)
		}
		online = append(online, id)
	}
	slices.Sort(online)
	e.strs(online)
	e.uvarint(uint64(s.Applied))
	e.bool(s.taskList != nil && len(s.taskList) == len(s.TaskOrder))
	queued := map[*Task]bool{}
	for owner, q := range s.joinQueue {
		for _, t := range q {
			if t.Owner != owner || queued[t] {
				return fmt.Errorf("%w: the join queue is not by owner", ErrSnapshot)
			}
			queued[t] = true
		}
	}
	e.bool(s.TaskOrder != nil)
	e.uvarint(uint64(len(tasks)))
	index := make(map[string]uint32, len(tasks))
	for i, t := range tasks {
		if t == nil || t.ID != s.TaskOrder[i] || s.Tasks[t.ID] != t {
			return fmt.Errorf("%w: the state's tasks disagree with their order", ErrSnapshot)
		}
		index[t.ID] = uint32(i)
		code := slices.Index(statusCodes, t.Status)
		if code < 0 {
			return fmt.Errorf("%w: task %s has no known status", ErrSnapshot, t.ID)
		}
		flags := byte(code)
		if queued[t] {
			flags |= 4
			delete(queued, t)
		}
		e.b = append(e.b, flags)
		e.str(t.ID)
		e.word(t.Feature)
		e.word(t.Owner)
		e.word(t.Reviewer)
		e.word(t.Branch)
		e.str(t.Spec)
		e.uvarint(uint64(t.Rounds))
		e.word(t.LastReason)
		e.uvarint(uint64(t.AssignLine))
		e.uvarint(uint64(t.AcceptLine))
		e.flush(false)
	}
	if len(queued) > 0 {
		return fmt.Errorf("%w: the join queue holds a task the state does not", ErrSnapshot)
	}
	e.bool(s.FeatureOrder != nil)
	e.uvarint(uint64(len(s.FeatureOrder)))
	for _, id := range s.FeatureOrder {
		f := s.Features[id]
		if f == nil || f.ID != id {
			return fmt.Errorf("%w: the state's features disagree with their order", ErrSnapshot)
		}
		e.word(f.ID)
		e.list(f.Tasks == nil, len(f.Tasks))
		for _, t := range f.Tasks {
			i, ok := index[t]
			if !ok {
				return fmt.Errorf("%w: feature %s names a task the state does not hold", ErrSnapshot, id)
			}
			e.uvarint(uint64(i))
		}
		e.bool(f.Shipped)
		e.uvarint(uint64(f.MergeLine))
		e.uvarint(uint64(f.firstOpen))
		e.flush(false)
	}
	e.bool(s.joinQueue != nil)
	e.uvarint(uint64(s.queued))
	return nil
}

// snapDecoder reads what snapEncoder wrote; its first error stops it, and
// every later read returns zero values.
type snapDecoder struct {
	s    string
	off  int
	err  error
	dict []string
}

func (d *snapDecoder) fail(what string) {
	if d.err == nil {
		d.err = errors.New(what)
	}
}

// uvarint is binary.Uvarint of the text, and refuses an overlong
// encoding too: every value has one encoding.
func (d *snapDecoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	var x uint64
	for i, shift := d.off, uint(0); i < len(d.s) && i-d.off < binary.MaxVarintLen64; i, shift = i+1, shift+7 {
		c := d.s[i]
		if c < 0x80 {
			if i-d.off == binary.MaxVarintLen64-1 && c > 1 || i > d.off && c == 0 {
				break
			}
			d.off = i + 1
			return x | uint64(c)<<shift
		}
		x |= uint64(c&0x7f) << shift
	}
	d.fail("bad number")
	return 0
}

func (d *snapDecoder) varint() int64 {
	u := d.uvarint()
	x := int64(u >> 1)
	if u&1 != 0 {
		x = ^x
	}
	return x
}

// int is a non-negative int.
func (d *snapDecoder) int() int {
	v := d.uvarint()
	if v > math.MaxInt32 {
		d.fail("number out of range")
		return 0
	}
	return int(v)
}

// count is the length of a list whose every element takes at least min
// bytes: never more than the bytes left can hold, so nothing is allocated
// beyond what was read.
func (d *snapDecoder) count(min int) int {
	v := d.uvarint()
	if v > uint64((len(d.s)-d.off)/min) {
		d.fail("list longer than the snapshot")
		return 0
	}
	return int(v)
}

// list reads what snapEncoder.list wrote: whether the list is there (not
// nil) and its length, bounded as count's.
func (d *snapDecoder) list(min int) (n int, present bool) {
	v := d.uvarint()
	if v == 0 || d.err != nil {
		return 0, false
	}
	if v-1 > uint64((len(d.s)-d.off)/min) {
		d.fail("list longer than the snapshot")
		return 0, false
	}
	return int(v - 1), true
}

func (d *snapDecoder) byte() byte {
	if d.err != nil {
		return 0
	}
	if d.off >= len(d.s) {
		d.fail("cut short")
		return 0
	}
	c := d.s[d.off]
	d.off++
	return c
}

func (d *snapDecoder) bool() bool {
	switch d.byte() {
	case 0:
		return false
	case 1:
		return true
	}
	d.fail("bad flag")
	return false
}

func (d *snapDecoder) u64() uint64 {
	if d.err == nil && len(d.s)-d.off < 8 {
		d.fail("cut short")
	}
	if d.err != nil {
		return 0
	}
	v := uint64(0)
	for i := 7; i >= 0; i-- {
		v = v<<8 | uint64(d.s[d.off+i])
	}
	d.off += 8
	return v
}

// str is a length-prefixed text, a substring of s.
func (d *snapDecoder) str() string {
	n := d.count(1)
	if d.err != nil {
		return ""
	}
	v := d.s[d.off : d.off+n]
	d.off += n
	return v
}

// word is what snapEncoder.word wrote.
func (d *snapDecoder) word() string {
	k := d.uvarint()
	switch {
	case d.err != nil:
		return ""
	case k == 0:
		s := d.str()
		if d.err == nil {
			d.dict = append(d.dict, s)
		}
		return s
	case k > uint64(len(d.dict)):
		d.fail("a word before its first use")
		return ""
	}
	return d.dict[k-1]
}

func (d *snapDecoder) strs() []string {
	n, ok := d.list(1)
	if !ok {
		return nil
	}
	l := make([]string, n)
	for i := range l {
		l[i] = d.str()
	}
	return l
}

func (d *snapDecoder) time() time.Time {
	if !d.bool() {
		return time.Time{}
	}
	sec, nsec := d.varint(), d.uvarint()
	if nsec >= 1e9 || sec < minSnapSec || sec > maxSnapSec || sec == minSnapSec && nsec == 0 {
		d.fail("bad time") // the zero instant has an encoding of its own
		return time.Time{}
	}
	return time.Unix(sec, int64(nsec)).UTC()
}

// The instants a snapshot holds: years 1 to 9999, as RFC 3339 writes them.
const (
	minSnapSec = -62135596800
	maxSnapSec = 253402300799
)

func (d *snapDecoder) state() *State {
	s := NewState()
	s.Initialized = d.bool()
	s.InitLine = d.int()
	s.Project = d.str()
	s.ProtocolVersion = int(d.varint())
	s.BaseBranch = d.str()
	// A seat takes at least 3 bytes: two texts and a list.
	if n, ok := d.list(3); ok {
		s.Seats = make([]Seat, n)
		for i := range s.Seats {
			s.Seats[i] = Seat{ID: d.str(), Roles: d.strs(), Entry: d.str()}
		}
	}
	online := d.strs()
	for i, id := range online {
		if i > 0 && online[i-1] >= id {
			d.fail("seats online out of order")
		}
		s.Online[id] = true
	}
	s.Applied = d.int()
	hasList := d.bool()
	hasOrder := d.bool()
	// A task takes at least 11 bytes: flags, 7 texts or words and 3 numbers.
	n := d.count(11)
	if d.err != nil {
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
		flags := d.byte()
		if int(flags&3) >= len(statusCodes) || flags&^7 != 0 {
			d.fail("bad task flags")
		}
		t.Status = statusCodes[flags&3]
		t.ID, t.Feature, t.Owner, t.Reviewer, t.Branch, t.Spec = d.str(), d.word(), d.word(), d.word(), d.word(), d.str()
		t.Rounds = d.int()
		t.LastReason = d.word()
		t.AssignLine, t.AcceptLine = d.int(), d.int()
		if d.err != nil {
			return s
		}
		if s.Tasks[t.ID] != nil {
			d.fail("a task twice")
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
		d.fail("tasks without an order")
	}
	if hasList {
		s.taskList = list
	}
	hasFeatures := d.bool()
	n = d.count(5)
	if d.err != nil {
		return s
	}
	if hasFeatures {
		s.FeatureOrder = make([]string, 0, n)
	} else if n > 0 {
		d.fail("features without an order")
	}
	features := make([]Feature, n)
	for i := range features {
		f := &features[i]
		f.ID = d.word()
		if m, ok := d.list(1); ok {
			f.Tasks = make([]string, m)
			for j := range f.Tasks {
				k := d.uvarint()
				if k >= uint64(len(list)) {
					d.fail("a feature names no task")
					return s
				}
				f.Tasks[j] = list[k].ID
			}
		}
		f.Shipped = d.bool()
		f.MergeLine = d.int()
		f.firstOpen = d.int()
		if d.err != nil {
			return s
		}
		if s.Features[f.ID] != nil || f.firstOpen > len(f.Tasks) {
			d.fail("a bad feature")
			return s
		}
		s.Features[f.ID] = f
		s.FeatureOrder = append(s.FeatureOrder, f.ID)
	}
	for _, t := range list {
		if f := s.Features[t.Feature]; f == nil {
			// Judge looks a task's feature up without asking.
			d.fail("a task of no feature")
			return s
		}
	}
	if d.bool() {
		s.joinQueue = queue
	} else if len(queue) > 0 {
		d.fail("queued tasks without a queue")
	}
	s.queued = d.int()
	if s.queued > len(s.TaskOrder) {
		d.fail("queued past the tasks")
	}
	return s
}
