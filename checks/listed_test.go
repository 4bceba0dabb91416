package checks

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/pact-action/pact-action/projection"
)

// TestCap: a decision table for the listing cap (docs/semantics.md §7).
// The boundary is MaxListed itself, per code and severity; an entry that
// already stands for omitted findings folds into the one Cap writes; the
// count is exact.
func TestCap(t *testing.T) {
	t.Parallel()
	many := func(code projection.Code, sev Severity, n int) []Finding {
		out := make([]Finding, n)
		for i := range out {
			out[i] = Finding{Code: code, Severity: sev, Path: ".pact/log.jsonl", Line: i + 1, Message: fmt.Sprint(i)}
		}
		return out
	}
	dup := projection.CodeEventIDDuplicate
	for _, tc := range []struct {
		name   string
		in     []Finding
		listed int // entries without Omitted
		sums   []int
	}{
		{"one under", many(dup, SeverityError, MaxListed-1), MaxListed - 1, nil},
		{"at the cap", many(dup, SeverityError, MaxListed), MaxListed, nil},
		{"one over", many(dup, SeverityError, MaxListed+1), MaxListed, []int{1}},
		{"per severity", append(many(dup, SeverityError, MaxListed), many(dup, SeverityWarning, MaxListed)...), 2 * MaxListed, nil},
		{"per code", append(many(dup, SeverityError, MaxListed+5), many(projection.CodeMalformedJSON, SeverityError, MaxListed+7)...), 2 * MaxListed, []int{5, 7}},
		{"an entry already counting", append(many(dup, SeverityError, 3), Finding{Code: dup, Severity: SeverityError, Path: "p", Omitted: 1000}), 3, []int{1000}},
		{"entries fold", append(many(dup, SeverityError, MaxListed+2), Finding{Code: dup, Severity: SeverityError, Path: "p", Omitted: 1000}), MaxListed, []int{1002}},
	} {
		want := Count(tc.in)
		got := Cap(append([]Finding(nil), tc.in...))
		var listed int
		var sums []int
		for _, f := range got {
			if f.Omitted > 0 {
				sums = append(sums, f.Omitted)
				if f.Line != 0 {
					t.Errorf("%s: the omitted entry has line %d", tc.name, f.Line)
				}
			} else {
				listed++
			}
		}
		if listed != tc.listed || fmt.Sprint(sums) != fmt.Sprint(tc.sums) || Count(got) != want {
			t.Errorf("%s: %d listed, omitted %v, count %+v; want %d, %v, %+v", tc.name, listed, sums, Count(got), tc.listed, tc.sums, want)
		}
		for _, f := range got {
			if f.Omitted == 0 && f.Line > MaxListed {
				t.Errorf("%s: line %d listed, not one of the first %d", tc.name, f.Line, MaxListed)
			}
		}
	}
}

// TestCapClipsValues: a listed finding shows a value of MaxValueBytes (a
// message of MaxMessageBytes) whole, and one byte more cut to the bound
// with "…", on a character boundary.
func TestCapClipsValues(t *testing.T) {
	t.Parallel()
	x := func(n int) string { return strings.Repeat("x", n) }
	for _, tc := range []struct {
		name         string
		value, msg   string
		wantV, wantM string
	}{
		{"at the bounds", x(maxValueBytes), x(maxMessageBytes), x(maxValueBytes), x(maxMessageBytes)},
		{"one past", x(maxValueBytes + 1), x(maxMessageBytes + 1), x(maxValueBytes-len("…")) + "…", x(maxMessageBytes-len("…")) + "…"},
		{"a character across the bound", x(maxValueBytes-4) + "ééé", "", x(maxValueBytes-4) + "…", ""},
		{"a megabyte", x(1 << 20), x(1 << 20), x(maxValueBytes-len("…")) + "…", x(maxMessageBytes-len("…")) + "…"},
	} {
		got := Cap([]Finding{{Code: projection.CodeInitMissing, Severity: SeverityError, Path: ".pact/log.jsonl", Line: 1,
			EventID: tc.value, TaskID: tc.value, Feature: tc.value, Message: tc.msg}})
		f := got[0]
		if f.EventID != tc.wantV || f.TaskID != tc.wantV || f.Feature != tc.wantV || f.Message != tc.wantM {
			t.Errorf("%s: event_id %d bytes, task_id %d, feature %d, message %d; want %d and %d",
				tc.name, len(f.EventID), len(f.TaskID), len(f.Feature), len(f.Message), len(tc.wantV), len(tc.wantM))
		}
	}
}

// TestCapKeepsTheErrorBehindWarnings: a hundred and fifty warnings of a
// code, all before the one error of that code, do not push the error out
// of the listing: the cap is per code and severity, so the error is
// listed (and the conclusion fails) however many warnings come first.
func TestCapKeepsTheErrorBehindWarnings(t *testing.T) {
	t.Parallel()
	code := projection.CodeMalformedJSON
	var in []Finding
	for i := range MaxListed + 50 {
		in = append(in, Finding{Code: code, Severity: SeverityWarning, Path: ".pact/log.jsonl", Line: i + 1})
	}
	in = append(in, Finding{Code: code, Severity: SeverityError, Path: ".pact/log.jsonl", Line: 10_000, Message: "the real one"})
	got := Cap(in)
	found := false
	for _, f := range got {
		found = found || f.Severity == SeverityError && f.Message == "the real one"
	}
	if c := Count(got); !found || c.Errors != 1 || c.Warnings != MaxListed+50 {
		t.Errorf("error listed %v, count %+v", found, c)
	}
}

// TestListingIsCap: findings gathered through a listing, one at a time or
// a few at once, in file order or not, come out as Cap of them all,
// however many there were, and the listing never holds more than a few
// times what Cap lists (docs/semantics.md §7).
func TestListingIsCap(t *testing.T) {
	t.Parallel()
	dup, bad := projection.CodeEventIDDuplicate, projection.CodeMalformedJSON
	finding := func(code projection.Code, sev Severity, line int) Finding {
		return Finding{Code: code, Severity: sev, Path: ".pact/log.jsonl", Line: line, Message: fmt.Sprint(line)}
	}
	inOrder := func(n int, codes ...projection.Code) []Finding {
		var out []Finding
		for i := range n {
			for _, c := range codes {
				out = append(out, finding(c, SeverityError, i+1))
			}
		}
		return out
	}
	reversed := func(fs []Finding) []Finding {
		out := append([]Finding(nil), fs...)
		for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
			out[i], out[j] = out[j], out[i]
		}
		return out
	}
	for _, tc := range []struct {
		name  string
		in    []Finding
		batch int
	}{
		{"none", nil, 1},
		{"under the cap", inOrder(MaxListed-1, dup), 1},
		{"one over", inOrder(MaxListed+1, dup), 1},
		{"many, two codes", inOrder(10_000, dup, bad), 1},
		{"many, in batches", inOrder(10_000, dup, bad), 7},
		{"many, last line first", reversed(inOrder(10_000, dup, bad)), 1},
		{"severities apart", append(inOrder(3*MaxListed, dup), finding(dup, SeverityWarning, 1)), 1},
		{"an entry already counting", append(inOrder(5*MaxListed, dup), Finding{Code: dup, Severity: SeverityError, Path: ".pact/log.jsonl", Omitted: 1000}), 3},
		{"lineless", append(inOrder(5*MaxListed, bad), finding(bad, SeverityError, 0)), 1},
	} {
		var l listing
		most := 0
		for i := 0; i < len(tc.in); i += tc.batch {
			l.add(tc.in[i:min(i+tc.batch, len(tc.in))]...)
			most = max(most, len(l.fs))
		}
		want := Cap(append([]Finding(nil), tc.in...))
		if got := Cap(append([]Finding(nil), l.fs...)); !slices.EqualFunc(got, want, func(a, b Finding) bool { return reflect.DeepEqual(a, b) }) {
			t.Errorf("%s: Cap of the listing lists %d entries counting %+v, Cap of all %d counting %+v", tc.name, len(got), Count(got), len(want), Count(want))
		}
		if bound := 4*MaxListed + 2*(len(want)+tc.batch); most > bound {
			t.Errorf("%s: the listing held %d findings, over %d", tc.name, most, bound)
		}
	}
}
