package compact

import "testing"

// TestIDForms: the two common forms of an event_id are kept in 16 bytes
// and rebuilt byte for byte; anything that would not rebuild exactly
// (upper-case digits, another length, a dash out of place) stays a string.
func TestIDForms(t *testing.T) {
	t.Parallel()
	for id, want := range map[string]uint8{
		"0123456789abcdef0123456789abcdef":     IDHex,
		"ffffffffffffffffffffffffffffffff":     IDHex,
		"123e4567-e89b-12d3-a456-426614174000": IDUUID,
		"0123456789ABCDEF0123456789ABCDEF":     IDOther,
		"0123456789abcdef0123456789abcdeg":     IDOther,
		"0123456789abcdef0123456789abcde":      IDOther,
		"0123456789abcdef0123456789abcdef0":    IDOther,
		"123e4567-e89b-12d3-a456-42661417400":  IDOther,
		"123e4567-e89b-12d3-a456_426614174000": IDOther,
		"123e4567e-89b-12d3-a456-426614174000": IDOther,
		"123E4567-e89b-12d3-a456-426614174000": IDOther,
		"":                                     IDOther,
		"e1":                                   IDOther,
	} {
		var b [16]byte
		got := ParseID(&b, []byte(id))
		if got != want {
			t.Errorf("ParseID(%q) = form %d, want %d", id, got, want)
			continue
		}
		if got != IDOther {
			if back := FormatID(got, &b); back != id {
				t.Errorf("FormatID of ParseID(%q) = %q", id, back)
			}
		}
	}
}
