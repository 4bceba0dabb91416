package projection

import (
	"bytes"
	"errors"
	"fmt"
	"testing"
	"time"
)

// TestAppend: the one routine every writer writes by stamps each draft,
// judges it against the state the lines before it leave, and appends only
// the accepted lines after the log's end, in its line ending; a log cut
// off in the middle of a line is refused whole, nothing judged.
func TestAppend(t *testing.T) {
	t.Parallel()
	late := time.Date(2026, 6, 9, 11, 0, 0, 0, time.UTC)
	accept := func(agent string) Draft { return NewAccept(agent, "T1", "F", AcceptPayload{}) }
	cases := []struct {
		name    string
		log     []byte
		end     func(log []byte) []byte // what the writer read of the log's end; nil: all of it
		drafts  []Draft
		refused []bool // per draft
		err     error
		status  string // T1 after the append
	}{
		{name: "one accepted", log: review().bytes(), drafts: []Draft{accept("claude-opus")}, refused: []bool{false}, status: "accepted"},
		{name: "the second stands on the first", log: review().bytes(), drafts: []Draft{accept("claude-opus"), NewMerge("lead", "F")}, refused: []bool{false, false}, status: "accepted"},
		{name: "refused in the middle", log: review().bytes(), drafts: []Draft{accept("opencode"), accept("claude-opus")}, refused: []bool{true, false}, status: "accepted"},
		{name: "all refused", log: started().bytes(), drafts: []Draft{accept("claude-opus")}, refused: []bool{true}, status: "in_progress"},
		{name: "CRLF", log: bytes.ReplaceAll(review().bytes(), []byte("\n"), []byte("\r\n")), drafts: []Draft{accept("claude-opus")}, refused: []bool{false}, status: "accepted"},
		{name: "the end only", log: review().bytes(), end: func(b []byte) []byte { return b[len(b)-2:] }, drafts: []Draft{accept("claude-opus")}, refused: []bool{false}, status: "accepted"},
		{name: "cut off", log: review().bytes()[:len(review().bytes())-5], drafts: []Draft{accept("claude-opus")}, err: ErrUnterminated},
		{name: "cut off after CR", log: bytes.TrimSuffix(bytes.ReplaceAll(review().bytes(), []byte("\n"), []byte("\r\n")), []byte("\n")), drafts: []Draft{accept("claude-opus")}, err: ErrUnterminated},
		{name: "cut off, nothing to write", log: []byte("{"), err: ErrUnterminated},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			log, res := ReadEvents(tc.log)
			latest := log.LatestTS()
			end := tc.log
			if tc.end != nil {
				end = tc.end(tc.log)
			}
			var stamped []time.Time
			stamp := func(d *Draft, l time.Time) {
				stamped = append(stamped, l)
				d.EventID, d.TS = fmt.Sprintf("new%d", len(stamped)), late
			}
			a, err := log.Append(res, end, stamp, tc.drafts...)
			if !errors.Is(err, tc.err) {
				t.Fatalf("err = %v, want %v", err, tc.err)
			}
			if err != nil {
				if len(stamped) != 0 || a != nil {
					t.Errorf("refused log: %d drafts stamped, %+v returned; want none", len(stamped), a)
				}
				return
			}
			if len(stamped) != len(tc.drafts) || (len(stamped) > 0 && !stamped[0].Equal(latest)) {
				t.Errorf("stamped with %v, want %d stamps, the first given the log's latest %v", stamped, len(tc.drafts), latest)
			}
			var want [][]byte
			for i, d := range a.Drafts {
				if d.EventID != fmt.Sprintf("new%d", i+1) || !d.TS.Equal(late) {
					t.Errorf("draft %d as returned: %s at %v, not as stamped", i, d.EventID, d.TS)
				}
				if refused := a.Refused[i] != nil; refused != tc.refused[i] {
					t.Errorf("draft %d refused: %v, want %v (%+v)", i, refused, tc.refused[i], a.Refused[i])
				}
				if a.Refused[i] == nil {
					line, err := Encode(d)
					if err != nil {
						t.Fatal(err)
					}
					want = append(want, line)
				}
			}
			if fmt.Sprint(a.Lines) != fmt.Sprint(want) {
				t.Errorf("lines %q, want %q", a.Lines, want)
			}
			eol := "\n"
			if bytes.HasSuffix(tc.log, []byte("\r\n")) {
				eol = "\r\n"
			}
			var tail []byte
			for _, l := range want {
				tail = append(append(tail, l...), eol...)
			}
			if !bytes.Equal(a.Tail, tail) {
				t.Errorf("tail %q, want %q", a.Tail, tail)
			}
			// The new log replays to the state Append left.
			_, again := ReadBytes(append(bytes.Clone(tc.log), a.Tail...), ReadOptions{})
			if got, want := RenderBytes(again.State), RenderBytes(a.State); !bytes.Equal(got, want) {
				t.Errorf("the appended log replays to\n%s\nnot the state Append left\n%s", got, want)
			}
			if got := string(a.State.Tasks["T1"].Status); got != tc.status {
				t.Errorf("T1 is %s, want %s", got, tc.status)
			}
		})
	}
}
