package compact

import (
	"fmt"
	"testing"
)

// TestInterner: a name is allocated once and keeps its symbol (Base plus
// its number), which numbers it in Names; an interner that keeps all
// holds every name past maxInterned, one that does not starts its table
// again there, whose symbols then number the new table's names.
func TestInterner(t *testing.T) {
	t.Parallel()
	for _, keepAll := range []bool{true, false} {
		in := Interner{Base: 3 << 27, KeepAll: keepAll}
		n := maxInterned + 10
		for i := range n {
			b := []byte(fmt.Sprintf("name-%d", i%(n-5)))
			s, sym := in.Intern(b)
			again, same := in.Intern(b)
			if s != string(b) || again != s || same != sym || sym>>27 != 3 {
				t.Fatalf("keepAll %v: %q interned as %q (symbol %#x), then %q (%#x)", keepAll, b, s, sym, again, same)
			}
			names := in.Names()
			if got := *names.At(sym &^ (3 << 27)); got != s {
				t.Fatalf("keepAll %v: symbol %#x names %q, want %q", keepAll, sym, got, s)
			}
		}
		want := n - 5 // distinct names
		if !keepAll {
			// Emptied at the name after maxInterned: that one and the
			// four after it, then the first five again.
			want = 10
		}
		if in.Len() != want {
			t.Errorf("keepAll %v: %d names, want %d", keepAll, in.Len(), want)
		}
	}
}
