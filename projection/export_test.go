package projection

import (
	"bytes"
	"io"
)

// For the benchmarks of the external test package: ParseReference is the
// encoding/json parser this package used before the scanner
// (decode_reference_test.go); ParseBytes is the scanner's parse alone, and
// ReplayEvents the canonical replay alone, of what ReadEvents does.
func ParseReference(r io.Reader) (*EventLog, error) { return parseReference(r) }

// parseBytes is the canonical parse (ReadEvents without the replay) of a
// log held in memory, for the differential tests.
func parseBytes(b []byte) *EventLog {
	log, _ := parse(bytes.NewReader(b), false) // a bytes.Reader never fails
	return log
}

// ParseBytes is parseBytes, for BenchmarkParse.
func ParseBytes(b []byte) *EventLog { return parseBytes(b) }

// ReplayEvents is replay, for the reference pipeline of the benchmarks.
func ReplayEvents(log *EventLog) *Result { return replay(log) }

// FormatTS and IsKnownType are formatTS and isKnownType, for the tests of
// the external test package (the constructors' round trip, the schemas'
// agreement).
var (
	FormatTS    = formatTS
	IsKnownType = isKnownType
)
