package action

import "testing"

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
