package event

import (
	"cmp"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

// byLine is rs in order of line, then code and kind.
func byLine(rs []Rejection) []Rejection {
	return slices.SortedFunc(slices.Values(rs), func(a, b Rejection) int {
		if c := cmp.Compare(a.Line, b.Line); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Code, b.Code); c != 0 {
			return c
		}
		return cmp.Compare(a.Message+fmtBool(a.Identical), b.Message+fmtBool(b.Identical))
	})
}

func fmtBool(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// TestListingKeepsTheLowestLines: whatever order rejections come in, a
// listing keeps of each code (and kind of duplicate) the limit with the
// lowest lines, the lineless one first, counts the others, and a listing
// merged into another counts what it left out. (Rejections of one line
// come in the order they were judged, which the shuffles change: they are
// compared as sets of a line.)
func TestListingKeepsTheLowestLines(t *testing.T) {
	t.Parallel()
	var all []Rejection
	all = append(all, Rejection{Code: CodeInitMissing})
	for line := 1; line <= 50; line++ {
		all = append(all, Rejection{Line: line, Code: CodeInitMissing},
			Rejection{Line: line, Code: CodeEventIDDuplicate, Identical: line%2 == 0},
			Rejection{Line: line, Code: CodeTaskUnknown})
	}
	ordered := NewListing(5)
	ordered.AddAll(all)
	want, wantOmitted := ordered.Result()
	if len(want) != 5*4 {
		t.Fatalf("%d listed, want 5 of each of four keys", len(want))
	}
	if want[len(want)-1].Line != 0 || want[0].Line != 1 {
		t.Errorf("listed from line %d to %d, want 1 first and the lineless one last", want[0].Line, want[len(want)-1].Line)
	}
	for _, om := range wantOmitted {
		if om.Count != map[Code]int{CodeInitMissing: 46, CodeEventIDDuplicate: 20, CodeTaskUnknown: 45}[om.Code] {
			t.Errorf("omitted %+v", om)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20 {
		shuffled := append([]Rejection(nil), all...)
		rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		half := NewListing(5)
		half.AddAll(shuffled[:len(shuffled)/2])
		merged := NewListing(5)
		merged.AddAll(shuffled[len(shuffled)/2:])
		merged.Merge(half)
		for _, l := range []*Listing{merged} {
			got, omitted := l.Result()
			if !reflect.DeepEqual(byLine(got), byLine(want)) || !reflect.DeepEqual(omitted, wantOmitted) {
				t.Fatalf("in another order: %+v (%+v)\nwant %+v (%+v)", got, omitted, want, wantOmitted)
			}
		}
	}
	every := NewListing(0)
	every.AddAll(all)
	if got, omitted := every.Result(); len(got) != len(all) || len(omitted) != 0 {
		t.Errorf("a listing of no limit keeps %d of %d, omits %+v", len(got), len(all), omitted)
	}
}
