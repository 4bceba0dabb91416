package lean

import (
	"slices"

	"github.com/pact-action/pact-action/projection/internal/compact"
	"github.com/pact-action/pact-action/projection/internal/event"
)

// apply judges and applies r by apply, as the canonical replay's loop
// does.
func (lr *Reading) apply(apply func(*event.Event) *event.Rejection, r *rec) {
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

// Replay orders the kept events (stable by ts, ties by line) and judges
// and applies each by apply (projection's State.Apply), as the canonical
// replay does; it returns the rejections, those found on reading first.
// It runs once, on a log that does not fail closed, and lets the events go
// as it applies them.
//
// Kept events are in file order, and mostly in ts order too. Those that are
// not ≥ every earlier one are set aside (copied) and sorted; the rest is in
// order already, and merging the two gives the replay order. The blocks of
// recs are then read in order only, and each is let go once applied: the
// recs shrink while the state grows. So do the blocks of assigns, each let
// go once the last rec that reads it is applied, rather than held until
// the state is whole.
func (lr *Reading) Replay(apply func(*event.Event) *event.Rejection) *event.Listing {
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

// assignOfRec is the index in assigns of the payload of r, when it has
// one there (materialize reads it).
func assignOfRec(r *rec) (uint32, bool) {
	return r.aux, r.flags&(recFat|recProblem) == 0 && r.typ == typeAssign
}

// materialize rebuilds the Event a rec stands for, with every field Judge
// and Apply read: not the event_id, which a rejection gets afterwards, nor
// an accept's commit.
func (lr *Reading) materialize(r *rec, ev *event.Event) {
	*ev = event.Event{Line: int(r.line), AgentID: lr.name(r.agent), Role: roleNames[r.role],
		Type: typeNames[r.typ], TaskID: lr.name(r.task), Feature: lr.name(r.feature)}
	if r.flags&recProblem != 0 {
		ev.Problem = &lr.problems[r.aux]
		return
	}
	switch ev.Type {
	case event.TypeAssign:
		a := lr.assigns.At(r.aux)
		ev.Payload.Owner, ev.Payload.Reviewer, ev.Payload.Branch = lr.name(a.owner), lr.name(a.reviewer), lr.name(a.branch)
		switch {
		case r.flags&recSpecText == 0:
			ev.Payload.Spec = lr.name(a.spec) + ev.TaskID + ".md"
		case a.spec != noAux:
			ev.Payload.Spec = *lr.texts.At(a.spec)
		}
	case event.TypeChangesRequested:
		ev.Payload.Reason = *lr.texts.At(r.aux)
	}
}
