package projection

import (
	"fmt"
	"strings"
	"testing"
)

// TestRule2NamesFewOpenTasks: a merge line names at most maxNamedOpen of
// its feature's open tasks, looked for within maxOpenScan tasks after the
// accepted ones at the front: a million merge lines of a feature with a
// hundred thousand tasks once took time and bytes in their product (4,000
// tasks and 4,000 merges, a 2 MB log: 18 s, 166 MiB, 14 MB of output).
func TestRule2NamesFewOpenTasks(t *testing.T) {
	t.Parallel()
	accepted := func(l *logb, id string) {
		l.assign(id, "F", "opencode", "claude-opus").join("opencode").checkpoint("opencode", id, "F").accept("claude-opus", id, "F")
	}
	for _, tc := range []struct {
		name string
		log  func(l *logb)
		want string
	}{
		{"three open", func(l *logb) {
			for i := range maxNamedOpen {
				l.assign(fmt.Sprint("T", i), "F", "opencode", "claude-opus")
			}
		}, "T0 is assigned, T1 is assigned, T2 is assigned"},
		{"one more", func(l *logb) {
			for i := range maxNamedOpen + 1 {
				l.assign(fmt.Sprint("T", i), "F", "opencode", "claude-opus")
			}
		}, "T0 is assigned, T1 is assigned, T2 is assigned, and more not accepted"},
		{"accepted ones first are skipped", func(l *logb) {
			for i := range 2 * maxOpenScan {
				accepted(l, fmt.Sprint("A", i))
			}
			l.assign("T0", "F", "opencode", "claude-opus")
		}, "T0 is assigned"},
		{"an open one past the scan", func(l *logb) {
			l.assign("T0", "F", "opencode", "claude-opus")
			for i := range maxOpenScan {
				accepted(l, fmt.Sprint("A", i))
			}
			l.assign("T1", "F", "opencode", "claude-opus")
		}, "T0 is in_progress, and possibly more not accepted"},
		{"the last one within the scan", func(l *logb) {
			l.assign("T0", "F", "opencode", "claude-opus")
			for i := range maxOpenScan - 2 {
				accepted(l, fmt.Sprint("A", i))
			}
			l.assign("T1", "F", "opencode", "claude-opus")
		}, "T0 is in_progress, T1 is assigned"},
	} {
		l := new(logb).init().join("opencode")
		tc.log(l)
		l.merge("lead", "F").merge("lead", "F")
		res := l.replay()
		var got []string
		for _, r := range res.Rejections {
			if r.Code == CodeRule2Unaccepted {
				got = append(got, r.Message)
			}
		}
		want := "merge of feature F while " + tc.want
		if len(got) != 2 || got[0] != want || got[1] != want {
			t.Errorf("%s: rule 2 says %q, want twice %q", tc.name, got, want)
		}
	}
}

// TestQuotedValuesBounded: a message quoting a value from another line
// (the feature of the task's assign, a protocol_version) cuts it, so short
// lines cannot each repeat a long value: a 1 MiB feature and 5,000
// duplicate assigns (2 MB) once made validate print 104 MB.
func TestQuotedValuesBounded(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("F", 1<<20-1000)
	l := new(logb).init().assign("T1", long, "opencode", "claude-opus")
	for range 3 {
		l.assign("T1", "x", "opencode", "claude-opus")
	}
	l.ev("lead", TypeInit, "", "", `{"project":"demo","protocol_version":1`+strings.Repeat("0", 1<<19)+`,"seats":`+rosterJSON+`,"base_branch":"main"}`)
	res := l.replay()
	if res.Unsupported == nil || len(res.Unsupported.Message) > 2*maxQuotedBytes+200 {
		t.Errorf("the unsupported version is quoted whole or not at all: %.300v", res.Unsupported)
	}
	res = new(logb).init().assign("T1", long, "opencode", "claude-opus").assign("T1", "x", "opencode", "claude-opus").
		assign("T1", "x", "opencode", "claude-opus").replay()
	n := 0
	for _, r := range res.Rejections {
		if r.Code == CodeTaskDuplicateID {
			n++
			if len(r.Message) > maxQuotedBytes+200 || !strings.Contains(r.Message, "FFF…") {
				t.Errorf("line %d quotes %d bytes: %.300s", r.Line, len(r.Message), r.Message)
			}
		}
	}
	if n != 2 {
		t.Errorf("%d duplicate ids, want 2", n)
	}
}

// TestDiffQuotesBounded: STATE.yml is anyone's text; its difference from
// the log quotes each value cut, however long (a STATE.yml of one 255 MiB
// line once made validate print 267 MB).
func TestDiffQuotesBounded(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 1<<20)
	want := Summary{Project: "g", Seats: map[string][]string{"a": {"worker"}}, Features: map[string]string{"F": "open"},
		Tasks: map[string]TaskSummary{"T1": {Feature: "F", Status: "assigned", Owner: "a", Reviewer: "b"}}}
	got := Summary{Project: long, Seats: map[string][]string{"a": {long}, long: nil}, Features: map[string]string{"F": long, long: "open"},
		Tasks: map[string]TaskSummary{"T1": {Feature: long, Status: long, Owner: long, Reviewer: long}, long: {}}}
	d := Diff(want, got)
	if len(d) != 10 {
		t.Errorf("%d differences, want 10: %.500q", len(d), d)
	}
	for _, s := range d {
		if len(s) > 3*maxQuotedBytes+100 {
			t.Errorf("a difference of %d bytes: %.300s", len(s), s)
		}
	}
}

// TestOwnStateHugeValue: a STATE.yml in pactify's layout whose project is
// one line of more than maxOwnValueBytes is read in place: the value that
// stands for it is its start (no copy as large as the file), it differs
// from the log's, and still in pactify's layout.
func TestOwnStateHugeValue(t *testing.T) {
	t.Parallel()
	st := started().replay().State
	b := RenderBytes(st)
	const maxOwnValueBytes = 16 * MaxLineBytes // ownstate.Parse's bound for a log's lines
	huge := strings.Repeat("x", maxOwnValueBytes+1)
	for _, tc := range []struct {
		value   string
		wantLen int
	}{{huge, MaxLineBytes + 1}, {huge[:maxOwnValueBytes-len("demo")], maxOwnValueBytes}} {
		doc := strings.Replace(string(b), "project: demo\n", "project: demo"+tc.value+"\n", 1)
		sum, ok := parseOwnSummary([]byte(doc))
		if !ok || len(sum.Project) != tc.wantLen {
			t.Errorf("a %d-byte project: read in layout %v, as %d bytes, want %d", len(tc.value)+4, ok, len(sum.Project), tc.wantLen)
		}
		if d := Diff(Summarize(st), sum); len(d) != 1 || len(d[0]) > 3*maxQuotedBytes {
			t.Errorf("differences: %.300q", d)
		}
	}
}
