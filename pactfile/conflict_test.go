package pactfile

import (
	"bytes"
	"strings"
	"testing"
	"testing/iotest"
)

func TestIsConflictMarker(t *testing.T) {
	for _, c := range []struct {
		line string
		want bool
	}{
		{"<<<<<<< HEAD", true},
		{"<<<<<<<", true},
		{"=======", true},
		{"=======\r", true},
		{">>>>>>> main", true},
		{">>>>>>> 1a2b3c4 (feat: x)", true},
		{"||||||| base", true},
		{"<<<<<<<<< ours", true}, // conflict-marker-size 9
		{"<<<<<<", false},        // six: not git's
		{"<<<<<<<x", false},
		{"=======x", false},
		{" <<<<<<< HEAD", false}, // indented: a YAML value's text
		{`{"event_id":"<<<<<<< x"}`, false},
		{"<<<>>>>> x", false},
		{"", false},
	} {
		if got := IsConflictMarker([]byte(c.line)); got != c.want {
			t.Errorf("IsConflictMarker(%q) = %v, want %v", c.line, got, c.want)
		}
	}
}

func TestConflictMarkerLine(t *testing.T) {
	long := strings.Repeat("x", 200<<10)
	for _, c := range []struct {
		name, text string
		want       int
	}{
		{"none", "{}\n{}\n", 0},
		{"empty", "", 0},
		{"git's conflict", "{}\n<<<<<<< HEAD\n{\"a\":1}\n=======\n{\"b\":1}\n>>>>>>> main\n", 2},
		{"after a byte order mark", BOM + "<<<<<<< HEAD\n", 1},
		{"CRLF", "{}\r\n=======\r\n", 2},
		{"last line without a break", "{}\n>>>>>>> main", 2},
		{"a marker inside a long line is no marker", long + "<<<<<<< x\n{}\n", 0},
		{"after a long line", long + "\n<<<<<<< x\n", 2},
		{"a long marker line", "<<<<<<< " + long + "\n", 1},
	} {
		if got := ConflictMarkerLine([]byte(c.text)); got != c.want {
			t.Errorf("%s: ConflictMarkerLine = %d, want %d", c.name, got, c.want)
		}
		got, err := FindConflictMarker(iotest.HalfReader(bytes.NewReader([]byte(c.text))))
		if err != nil || got != c.want {
			t.Errorf("%s: FindConflictMarker = %d, %v, want %d", c.name, got, err, c.want)
		}
	}
}

// FuzzConflictMarkerLine holds the streaming search to the one on bytes.
func FuzzConflictMarkerLine(f *testing.F) {
	f.Add([]byte("{}\n<<<<<<< HEAD\n"))
	f.Add([]byte(BOM + "=======\r\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := FindConflictMarker(iotest.OneByteReader(bytes.NewReader(b)))
		if want := ConflictMarkerLine(b); err != nil || got != want {
			t.Fatalf("FindConflictMarker = %d, %v; ConflictMarkerLine = %d", got, err, want)
		}
	})
}
