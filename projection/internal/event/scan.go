package event

import (
	"fmt"

	"github.com/pact-action/pact-action/pactfile"
)

// Scan is what every reading of log.jsonl keeps besides its events: the
// lines that could not be read, any init line that asks for a newer major,
// and the number of lines.
type Scan struct {
	// Malformed lists the first MaxListed malformed lines of each code in
	// file order; MalformedOmitted counts the others by code
	// (docs/semantics.md §7).
	Malformed        []Malformed
	MalformedOmitted map[Code]int
	malformedKept    map[Code]int
	Claims           []VersionClaim
	// Lines is the number of lines in the file, blank ones included.
	Lines int
	// ConflictMarker is the first line that is one of git's conflict
	// markers (pactfile.IsConflictMarker), 0 when none is: the log is in
	// the middle of a merge (docs/semantics.md §8).
	ConflictMarker int
}

// The readings add to a Scan through functions, not methods: its readers
// see only its fields.

// AddUnreadable records line n of s, which could not be read as an event
// (m): a malformed line, and maybe a conflict marker.
func AddUnreadable(s *Scan, n int, line []byte, m Malformed) {
	if s.ConflictMarker == 0 && pactfile.IsConflictMarker(line) {
		s.ConflictMarker = n
	}
	AddMalformed(s, m)
}

// AddMalformed keeps a malformed line while fewer than MaxListed of its
// code are kept, and counts it otherwise. Lines come in file order, so the
// first ones of each code are listed.
func AddMalformed(s *Scan, m Malformed) {
	if s.malformedKept[m.Code] < MaxListed {
		if s.malformedKept == nil {
			s.malformedKept = map[Code]int{}
		}
		s.malformedKept[m.Code]++
		s.Malformed = append(s.Malformed, m)
		return
	}
	OmitMalformed(s, m.Code, 1)
}

// OmitMalformed counts n malformed lines of code that are not listed.
func OmitMalformed(s *Scan, code Code, n int) {
	if s.MalformedOmitted == nil {
		s.MalformedOmitted = map[Code]int{}
	}
	s.MalformedOmitted[code] += n
}

// TooLongMessage is the malformed message of a line over MaxLineBytes.
var TooLongMessage = fmt.Sprintf("line is longer than the %d-byte bound", MaxLineBytes)
