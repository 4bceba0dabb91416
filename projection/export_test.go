package projection

import "io"

// ParseReference is the encoding/json parser this package used before the
// scanner of decode.go (decode_reference_test.go), for the benchmarks of the
// external test package.
func ParseReference(r io.Reader) (*Log, error) { return parseReference(r) }
