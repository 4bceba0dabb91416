package event

import (
	"cmp"
	"slices"
)

// MaxListed is how many lines of one finding code a reading of the log
// lists in full; beyond it they are only counted (docs/semantics.md §7,
// bounded output and memory). A line of the log can be two bytes and a
// finding a few hundred, so a reading that kept one per line would hold a
// hundred times the log: the cap is taken as lines are read, not when
// findings are shown.
const MaxListed = 100

// Omitted is how many rejections of one code (and, for event_id.duplicate,
// of one kind: Identical) a Result counts but does not list, past
// MaxListed.
type Omitted struct {
	Code      Code
	Identical bool
	Count     int
}

// rejectionKey is what a rejection is capped by.
type rejectionKey struct {
	code      Code
	identical bool
}

// Listing collects a replay's rejections, keeping of each key the
// MaxListed with the lowest line numbers (the lineless one of a log
// without init first, since it is the one that explains the others) and
// counting the rest. Which are kept does not depend on the order they come
// in, so the canonical and the parallel replay list the same ones. A limit
// of 0 keeps them all (a writer compares whole verdicts).
type Listing struct {
	limit int
	byKey map[rejectionKey][]seqRejection
	order []rejectionKey
	more  map[rejectionKey]int
	seq   int
}

// seqRejection is a rejection with the order it was judged in, which
// breaks ties of line as the replay judged them.
type seqRejection struct {
	Rejection
	seq int
}

// NewListing is a Listing that keeps limit rejections of each key (0:
// every one).
func NewListing(limit int) *Listing {
	return &Listing{limit: limit, byKey: map[rejectionKey][]seqRejection{}, more: map[rejectionKey]int{}}
}

// keepFirst orders rejections of one key by line, the lineless one first.
func keepFirst(a, b seqRejection) int {
	switch {
	case a.Line == b.Line:
		return cmp.Compare(a.seq, b.seq)
	case a.Line == 0:
		return -1
	case b.Line == 0:
		return 1
	}
	return cmp.Compare(a.Line, b.Line)
}

// Add lists r.
func (s *Listing) Add(r Rejection) {
	k := rejectionKey{r.Code, r.Identical}
	list, seen := s.byKey[k]
	if !seen {
		s.order = append(s.order, k)
	}
	list = append(list, seqRejection{r, s.seq})
	s.seq++
	if s.limit > 0 && len(list) >= 2*s.limit {
		slices.SortStableFunc(list, keepFirst)
		s.more[k] += len(list) - s.limit
		clear(list[s.limit:])
		list = list[:s.limit]
	}
	s.byKey[k] = list
}

// Merge adds what another listing kept and counts what it left out.
func (s *Listing) Merge(o *Listing) {
	kept, omitted := o.Result()
	s.AddAll(kept)
	s.AddOmitted(omitted)
}

// AddOmitted counts rejections another listing left out.
func (s *Listing) AddOmitted(omitted []Omitted) {
	for _, om := range omitted {
		k := rejectionKey{om.Code, om.Identical}
		if _, seen := s.byKey[k]; !seen {
			s.order = append(s.order, k)
			s.byKey[k] = nil
		}
		s.more[k] += om.Count
	}
}

// AddAll lists rs.
func (s *Listing) AddAll(rs []Rejection) {
	for _, r := range rs {
		s.Add(r)
	}
}

// Result is the kept rejections sorted by line (by line, lineless last, ties in the order judged) and what
// was left out, by code.
func (s *Listing) Result() ([]Rejection, []Omitted) {
	var kept []seqRejection
	var omitted []Omitted
	for _, k := range s.order {
		list := s.byKey[k]
		if s.limit > 0 && len(list) > s.limit {
			// Kept cut, so that asking again counts nothing twice.
			slices.SortStableFunc(list, keepFirst)
			s.more[k] += len(list) - s.limit
			clear(list[s.limit:])
			list = list[:s.limit]
			s.byKey[k] = list
		}
		kept = append(kept, list...)
		if n := s.more[k]; n > 0 {
			omitted = append(omitted, Omitted{Code: k.code, Identical: k.identical, Count: n})
		}
	}
	slices.SortFunc(kept, func(a, b seqRejection) int {
		switch {
		case a.Line == b.Line:
			return cmp.Compare(a.seq, b.seq)
		case a.Line == 0:
			return 1
		case b.Line == 0:
			return -1
		}
		return cmp.Compare(a.Line, b.Line)
	})
	var out []Rejection
	if len(kept) > 0 {
		out = make([]Rejection, len(kept))
		for i := range kept {
			out[i] = kept[i].Rejection
		}
	}
	slices.SortFunc(omitted, func(a, b Omitted) int {
		if c := cmp.Compare(a.Code, b.Code); c != 0 {
			return c
		}
		if a.Identical == b.Identical {
			return 0
		}
		if a.Identical {
			return 1
		}
		return -1
	})
	return out, omitted
}
