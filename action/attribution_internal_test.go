package action

import (
	"slices"
	"strings"
	"testing"

	"github.com/pact-action/pact-action/pactfile"
	"github.com/pact-action/pact-action/projection"
)

// TestHasCountsByKey: a decision table for has, which attribution asks of
// every commit it looks at: whether the log there holds a line at least
// occ times, told from the keys of the lines it counted (lineKey), never
// their text. Lines are counted only when some added line has their bytes;
// a line that differs by a byte is another line.
func TestHasCountsByKey(t *testing.T) {
	t.Parallel()
	a, b, other := []byte(`{"event_id":"a"}`), []byte(`{"event_id":"b"}`), []byte(`{"event_id":"a"} `)
	g := &gatherer{counts: map[string][]uint64{}}
	g.interesting = []uint64{lineKey(a), lineKey(b)}
	if g.interesting[0] > g.interesting[1] {
		g.interesting[0], g.interesting[1] = g.interesting[1], g.interesting[0]
	}
	logs := map[string]string{
		"c1": "{\"event_id\":\"a\"}\n{\"event_id\":\"b\"}\n",
		"c2": "{\"event_id\":\"a\"}\r\n{\"event_id\":\"b\"}\r\n{\"event_id\":\"a\"}\r\n",
		"c3": "\xEF\xBB\xBF{\"event_id\":\"a\"}\n{\"event_id\":\"a\"} \n{\"event_id\":\"a\"}\n{\"event_id\":\"a\"}",
	}
	for sha, log := range logs {
		g.counts[sha] = g.count([]byte(log))
	}
	for _, tc := range []struct {
		sha  string
		line []byte
		occ  int
		want bool
	}{
		{"c1", a, 1, true},
		{"c1", a, 2, false},
		{"c1", b, 1, true},
		{"c2", a, 2, true}, // CRLF ends a line as LF does
		{"c2", a, 3, false},
		{"c2", b, 2, false},
		{"c3", a, 3, true}, // after a BOM, and a last line without LF
		{"c3", a, 4, false},
		{"c3", b, 1, false},
		{"c3", other, 1, false}, // one byte more: not counted
		{"c1", other, 0, true},  // every log holds a line no times
	} {
		got, err := g.has(tc.sha, lineKey(tc.line), tc.occ)
		if err != nil || got != tc.want {
			t.Errorf("has(%s, %s, %d) = %v, %v; want %v", tc.sha, tc.line, tc.occ, got, err, tc.want)
		}
	}
}

// linesAgree fails unless lineKeys, fed log in pieces of the given sizes
// (cycled), takes the keys of exactly the lines pactfile.Lines gives, the
// interesting ones: here, every line of at most projection.MaxLineBytes.
func linesAgree(t *testing.T, log []byte, pieces []int) {
	t.Helper()
	var want []uint64
	for _, l := range pactfile.Lines(log) {
		if len(l) <= projection.MaxLineBytes {
			want = append(want, lineKey(l))
		}
	}
	slices.Sort(want)
	l := &lineKeys{interesting: func(uint64) bool { return true }}
	for i, rest := 0, log; len(rest) > 0; i++ {
		n := len(rest)
		if len(pieces) > 0 {
			n = min(n, max(1, pieces[i%len(pieces)]))
		}
		if w, err := l.Write(rest[:n]); w != n || err != nil {
			t.Fatalf("Write = %d, %v", w, err)
		}
		rest = rest[n:]
	}
	if got := l.done(); !slices.Equal(got, want) {
		t.Errorf("%.60q in pieces of %v: %d keys, want %d", log, pieces, len(got), len(want))
	}
}

// TestLineKeys: the keys taken of a log as it streams past are those of
// its lines, however it is cut into reads: CRLF, a BOM, a last line with
// or without its line break, a lone CR, empty lines, a line over the bound
// (skipped: no event is that long) and the lines around it.
func TestLineKeys(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", projection.MaxLineBytes+1)
	for _, log := range []string{
		"", "\n", "a", "a\n", "a\r\n", "\r", "a\n\r", "a\r\r\nb",
		pactfile.BOM, pactfile.BOM + "a\nb", "a\n" + pactfile.BOM + "b\n",
		"{\"event_id\":\"a\"}\n\n{\"event_id\":\"b\"}\r\n{\"event_id\":\"c\"}",
		"a\n" + long + "\nb\n", long + "\r\n" + strings.Repeat("y", projection.MaxLineBytes) + "\r\n", "a\n" + long,
	} {
		for _, pieces := range [][]int{nil, {1}, {2, 3}, {7}, {4096}, {projection.MaxLineBytes}} {
			linesAgree(t, []byte(log), pieces)
		}
	}
}

// FuzzLineKeys: lineKeys agrees with pactfile.Lines on any log cut into
// any reads.
//
//	go test ./action -run '^$' -fuzz '^FuzzLineKeys$' -fuzztime 1m
func FuzzLineKeys(f *testing.F) {
	for _, s := range []string{"a\r\nb", pactfile.BOM + "x\n", "\r", "a\n\r\n\n"} {
		f.Add([]byte(s), uint8(1), uint8(3))
	}
	f.Fuzz(func(t *testing.T, log []byte, a, b uint8) {
		linesAgree(t, log, []int{int(a), int(b)})
	})
}
