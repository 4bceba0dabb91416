package lean

import (
	"hash/maphash"
	"math"

	"github.com/pact-action/pact-action/projection/internal/compact"
	"github.com/pact-action/pact-action/projection/internal/event"
	"github.com/pact-action/pact-action/projection/internal/snapshot"
)

// idSeed hashes event_ids of no compact form.
var idSeed = maphash.MakeSeed()

// take merges one chunk's results, in file order: its recs are kept, their
// event ids checked against the earlier ones, envelope problems reported,
// and the other events handed on to the replay.
func (lr *Reading) take(out *chunkOut) {
	log := &lr.Scan
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
	if out.latest.After(lr.Latest) {
		lr.Latest = out.latest
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
func (lr *Reading) firstUse(r *rec, hash uint64, idx uint32) (uint32, bool) {
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
func (lr *Reading) compactHash(i uint32) uint64 { return compactIDHash(lr.recs.At(i)) }

// stringHash is the hash of rec i's event_id in strIDs.
func (lr *Reading) stringHash(i uint32) uint64 {
	return maphash.String(idSeed, lr.stringID(lr.recs.At(i)))
}

// firstLineOf is the line of the first event that used the event_id id, or
// 0; it asks the tables firstUse filled, so it must run before they go.
func (lr *Reading) firstLineOf(id string) int {
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

func (lr *Reading) eventID(r *rec) string {
	if r.form != compact.IDOther {
		return compact.FormatID(r.form, &r.id)
	}
	return lr.stringID(r)
}

// stringID is the event_id of a rec whose id has no compact form ("" when
// it has none).
func (lr *Reading) stringID(r *rec) string {
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
func (lr *Reading) taskFeature(r *rec) (string, string) {
	if r.flags&recFat != 0 {
		ev := &lr.fat[r.aux]
		return ev.TaskID, ev.Feature
	}
	return lr.name(r.task), lr.name(r.feature)
}

// idDigests lists the digest of every event_id the tables of firstUse
// hold (first uses only; a duplicate digests the same), for a snapshot.
func (lr *Reading) idDigests() []uint64 {
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
