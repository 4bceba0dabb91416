package action

import "testing"

// TestAsPrefixOf: a merge base's log the head's log begins with is held
// once, as the head's first bytes, and appending to it cannot write into
// the head's; any other is kept as it is.
func TestAsPrefixOf(t *testing.T) {
	t.Parallel()
	head := []byte("a\nb\nc\n")
	for _, tc := range []struct {
		name   string
		base   []byte
		shared bool
	}{
		{"a prefix", []byte("a\nb\n"), true},
		{"the whole log", []byte("a\nb\nc\n"), true},
		{"empty", []byte{}, true},
		{"rewritten", []byte("a\nB\n"), false},
		{"longer", []byte("a\nb\nc\nd\n"), false},
		{"none", nil, false},
	} {
		got := asPrefixOf(head, tc.base)
		if string(got) != string(tc.base) || (got == nil) != (tc.base == nil) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.base)
		}
		if shared := len(got) > 0 && &got[0] == &head[0] || tc.shared && len(got) == 0 && cap(got) == 0; shared != tc.shared {
			t.Errorf("%s: shared %v, want %v", tc.name, shared, tc.shared)
		}
		if tc.shared {
			_ = append(got, 'x')
			if string(head) != "a\nb\nc\n" {
				t.Fatalf("%s: appending to the base wrote into the head: %q", tc.name, head)
			}
		}
	}
}
