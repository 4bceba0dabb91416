package checks

import (
	"bytes"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/pact-action/pact-action/projection"
)

// crlf is data as a Windows checkout with core.autocrlf=true writes it:
// every LF not already after a CR becomes CRLF.
func crlf(b []byte) []byte {
	if b == nil {
		return nil
	}
	out := make([]byte, 0, len(b)+bytes.Count(b, []byte("\n")))
	for i, c := range b {
		if c == '\n' && (i == 0 || b[i-1] != '\r') {
			out = append(out, '\r')
		}
		out = append(out, c)
	}
	return out
}

// crlfInput is in with every file converted by crlf, read afresh.
func crlfInput(in Input, logData []byte) Input {
	log, res := projection.ReadEvents(crlf(logData))
	out := Input{Dir: in.Dir, Scan: &log.Scan, Replay: res, State: crlf(in.State), Project: crlf(in.Project), Config: crlf(in.Config),
		TaskFiles: map[string][]byte{}}
	for id, b := range in.TaskFiles {
		out.TaskFiles[id] = crlf(b)
	}
	return out
}

// TestCRLFCheckoutJudgedAsLF: a pact whose every file a Windows checkout
// turned to CRLF (log, STATE.yml, PROJECT.md, task files) gets exactly the
// findings of the LF one: same codes, lines, messages (docs/semantics.md §7: a CR
// before the LF is no part of a line; STATE.yml, PROJECT.md and task files
// are read by meaning).
func TestCRLFCheckoutJudgedAsLF(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"clean", "many", "unsupported"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join("testdata", "pacts", name)
			in := loadPact(t, dir)
			logData := optional(t, filepath.Join(dir, "log.jsonl"))
			want, got := Run(in), Run(crlfInput(in, logData))
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("CRLF checkout:\n got %v\nwant %v", got, want)
			}
			// The merge base LF and the head CRLF (or the other way): the
			// same lines, nothing rewritten.
			if h := History("log", logData, crlf(append(append([]byte(nil), logData...), "{}\n"...))); len(h) != 0 {
				t.Errorf("LF base, CRLF head: %v", h[0].Message)
			}
			if h := History("log", crlf(logData), logData); len(h) != 0 {
				t.Errorf("CRLF base, LF head: %v", h[0].Message)
			}
		})
	}
	// A line that differs only in its terminator repeats an event_id
	// byte-identically: a warning, as two LF copies would be.
	l := new(logb).init().assign("T1", "F", "opencode", "claude-opus", "b")
	dup := append(l.bytes(), []byte(l.lines[1]+"\r\n")...)
	got := Run(input(dup))
	want := Run(input(append(l.bytes(), []byte(l.lines[1]+"\n")...)))
	if !reflect.DeepEqual(got, want) || len(got) != 1 || got[0].Severity != SeverityWarning {
		t.Fatalf("a CRLF copy of an LF line:\n got %v\nwant one warning as %v", shorts(got), shorts(want))
	}
}
