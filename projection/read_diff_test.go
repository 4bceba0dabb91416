package projection

import (
	"bytes"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"
)

// The Unix seconds within which the lean reading holds a ts in
// nanoseconds in its compact event (internal/lean's minNanoSec and
// maxNanoSec): farLog sits on both sides of them.
const (
	minNanoSec = math.MinInt64/1_000_000_000 + 1
	maxNanoSec = math.MaxInt64/1_000_000_000 - 1
)

// farLog is a log whose events sit on both sides of the bounds of a
// compact event's ts (Unix nanoseconds, minNanoSec to maxNanoSec), out of
// file order, so the lean reading orders events held in nanoseconds with
// events kept whole for their ts; with duplicate event ids of both kinds.
func farLog() []byte {
	ts := func(sec int64, nsec int) string { return formatTS(time.Unix(sec, int64(nsec)).UTC()) }
	lo, hi := int64(minNanoSec), int64(maxNanoSec)
	id := func(n int) string { return fmt.Sprintf("%032x", n) }
	init := evLine(id(1), "1600-01-01T00:00:00Z", "lead", "", TypeInit, "", "", `{"project":"far","protocol_version":1,"seats":[{"id":"lead","roles":["orchestrator"],"entry":"AGENTS.md"},{"id":"a","roles":["worker"],"entry":"AGENTS.md"},{"id":"b","roles":["reviewer"],"entry":"AGENTS.md"}],"base_branch":"main"}`)
	assign := func(n int, when, task string) string {
		return evLine(id(n), when, "lead", "", TypeAssign, task, "F", fmt.Sprintf(`{"owner":"a","reviewer":"b","branch":"feat/f","spec":".pact/tasks/%s.md"}`, task))
	}
	lines := []string{
		assign(2, ts(lo, 0), "T2"),           // in nanoseconds, the earliest
		assign(3, ts(lo-1, 999999999), "T1"), // just before: whole
		init,
		evLine(id(4), ts(lo, 1), "a", "", TypeJoin, "", "", `{"roles":["worker"]}`),
		evLine(id(5), ts(hi, 999999999), "a", "", TypeCheckpoint, "T1", "F", `{"evidence":"x"}`),
		evLine(id(6), ts(hi+1, 0), "b", "", TypeAccept, "T1", "F", `{"commit":"0123456789abcdef0123456789abcdef01234567"}`),
		evLine(id(7), ts(hi, 500), "a", "", TypeCheckpoint, "T2", "F", `{"evidence":"y"}`),
		evLine(id(8), "9999-12-31T23:59:59.5Z", "b", "", TypeChangesRequested, "T2", "F", `{"reason":"again"}`),
		evLine(id(9), ts(0, 1), "b", "", TypeAccept, "T2", "F", `{"commit":"c"}`), // too early: rejected
		evLine(id(10), "9999-12-31T23:59:59.9Z", "a", "", TypeCheckpoint, "T2", "F", `{"evidence":7}`),
		evLine(id(11), "9999-12-31T23:59:59.99Z", "lead", "", TypeMerge, "", "F", ""),
		"",
	}
	// Duplicates: of a whole event (byte for byte, and not) and of one in
	// nanoseconds.
	lines = append(lines, lines[1], strings.Replace(lines[1], "T1", "T9", 1), lines[0], strings.Replace(lines[4], `"x"`, `"z"`, 1))
	return []byte(strings.Join(lines, "\n"))
}

func TestFarTimestampsReplayAsCanonical(t *testing.T) {
	t.Parallel()
	file := farLog()
	if msg := diffParseReplay(file, true); msg != "" {
		t.Fatal(msg)
	}
	// The log must reach what it is meant to test: events on both sides of
	// both bounds, applied in ts order across them.
	_, res := ReadBytes(file, ReadOptions{})
	if st := res.State; !st.Initialized || len(st.Tasks) != 2 || st.Tasks["T1"].Status != StatusAccepted || st.Tasks["T2"].Rounds != 1 {
		t.Fatalf("the far log does not replay as meant: %s\n%+v", RenderBytes(res.State), res.Rejections)
	}
}

// TestCompactPayloadsReplayAsCanonical holds the payloads the parallel
// replay keeps in short forms (a spec as <dir>/<task_id>.md), those it
// keeps as text, and those it does not keep (an accept's commit, well
// formed or not) to the canonical replay, which keeps them all as text.
func TestCompactPayloadsReplayAsCanonical(t *testing.T) {
	t.Parallel()
	specs := map[string]string{
		"T1": ".pact/tasks/T1.md", "T2": "T2.md", "T3": "docs/T3.MD", "T4": "x/T4.md.md", "T5": "",
		"T6": ".pact/tasks/T6.md ", "T7": "tasks/T1.md", "T8": ".md", "T9": "a/T9.md",
	}
	commits := []string{"0123456789abcdef0123456789abcdef01234567", "0123456789ABCDEF0123456789ABCDEF01234567",
		"0123456789abcdef0123456789abcdef0123456g", "0123456789abcdef0123456789abcdef012345678", "", "x"}
	var b logb
	b.add(evLine("i", at(1), "lead", "", TypeInit, "", "", `{"project":"p","protocol_version":1,"seats":[{"id":"lead","roles":["orchestrator"],"entry":"AGENTS.md"},{"id":"a","roles":["worker"],"entry":"AGENTS.md"},{"id":"r","roles":["reviewer"],"entry":"AGENTS.md"}],"base_branch":"main"}`))
	for i := 1; i <= 9; i++ {
		task := fmt.Sprintf("T%d", i)
		b.ev("lead", TypeAssign, task, "F", fmt.Sprintf(`{"owner":"a","reviewer":"r","branch":"b","spec":%q}`, specs[task]))
	}
	b.ev("a", TypeJoin, "", "", `{"roles":["worker"]}`)
	for i, c := range commits {
		task := fmt.Sprintf("T%d", i+1)
		b.ev("a", TypeCheckpoint, task, "F", `{"evidence":"e"}`)
		payload := fmt.Sprintf(`{"commit":%q}`, c)
		if c == "x" {
			payload = `{"commit":7}`
		}
		b.ev("r", TypeAccept, task, "F", payload)
	}
	file := []byte(strings.Join(b.lines, "\n"))
	if msg := diffParseReplay(file, true); msg != "" {
		t.Fatal(msg)
	}
	_, res := ReadBytes(file, ReadOptions{})
	for task, spec := range specs {
		if got := res.State.Tasks[task]; got == nil || got.Spec != spec {
			t.Errorf("task %s: spec %+v, want %q", task, got, spec)
		}
	}
	for i, c := range commits {
		if got := res.State.Tasks[fmt.Sprintf("T%d", i+1)]; got.Status != StatusAccepted || got.AcceptLine == 0 {
			t.Errorf("task T%d: %s on line %d after an accept of commit %q", i+1, got.Status, got.AcceptLine, c)
		}
	}
}

// TestRejectedAcceptsKeepTheirEventID: the parallel replay no longer
// spells out an accept's event_id when it rebuilds the event, and gives a
// rejection its id afterwards. A rejected accept of every kind, with an
// event_id of every form (compact hex, upper-case hex, UUID, text, none,
// and an event kept whole for its far ts), is reported with the id its
// line holds, exactly as the canonical replay reports it.
func TestRejectedAcceptsKeepTheirEventID(t *testing.T) {
	t.Parallel()
	ids := map[string]string{
		"hex":   "0123456789abcdef0123456789abcdef",
		"HEX":   "0123456789ABCDEF0123456789ABCDEF",
		"uuid":  "123e4567-e89b-12d3-a456-426614174000",
		"text":  "accept-by-hand",
		"none":  "",
		"long":  "0123456789abcdef0123456789abcdef0123",
		"digit": "7",
	}
	const commit = `{"commit":"0123456789abcdef0123456789abcdef01234567"}`
	cases := []struct {
		name     string
		agent    string
		task     string
		feature  string
		role     string
		ts       string
		accepted bool // the first accept of T1, before the one judged
		shipped  bool
		want     Code
	}{
		{name: "unknown task", agent: "claude-opus", task: "T9", feature: "F", want: CodeTaskUnknown},
		{name: "by the owner (Rule 1)", agent: "claude-opus", task: "T2", feature: "F", want: CodeSelfAccept},
		{name: "by another reviewer", agent: "gpt", task: "T1", feature: "F", want: CodeNotReviewer},
		{name: "a second accept", agent: "claude-opus", task: "T1", feature: "F", accepted: true, want: CodeInvalidTransition},
		{name: "of a shipped feature", agent: "claude-opus", task: "T1", feature: "F", accepted: true, shipped: true, want: CodeInvalidTransition},
		{name: "feature not the task's", agent: "claude-opus", task: "T1", feature: "G", want: CodeSchemaEnvelope},
		{name: "role contradicts", agent: "claude-opus", task: "T1", feature: "F", role: "worker", want: CodeRoleMismatch},
		{name: "by a worker", agent: "opencode", task: "T1", feature: "F", want: CodeRoleNotHeld},
		{name: "unknown seat", agent: "nobody", task: "T1", feature: "F", want: CodeUnknownSeat},
		{name: "before init", agent: "claude-opus", task: "T1", feature: "F", ts: "2026-06-09T09:00:00Z", want: CodeInitMissing},
		{name: "far ts, kept whole", agent: "claude-opus", task: "T2", feature: "F", ts: "9999-12-31T23:59:59Z", want: CodeSelfAccept},
		{name: "far past, kept whole", agent: "claude-opus", task: "T9", feature: "F", ts: "1000-01-01T00:00:00Z", want: CodeInitMissing},
	}
	for _, c := range cases {
		for form, id := range ids {
			// T1: opencode's, reviewed by claude-opus; T2: claude-opus's,
			// reviewed by gpt. Both await review.
			b := new(logb).init().assign("T1", "F", "opencode", "claude-opus").assign("T2", "F", "claude-opus", "gpt").
				join("opencode").join("claude-opus").checkpoint("opencode", "T1", "F").checkpoint("claude-opus", "T2", "F")
			if c.accepted {
				b.accept("claude-opus", "T1", "F")
			}
			if c.shipped {
				b.merge("lead", "F")
			}
			ts := c.ts
			if ts == "" {
				ts = at(b.n())
			}
			line := b.n()
			b.add(evLine(id, ts, c.agent, c.role, TypeAccept, c.task, c.feature, commit))
			file := b.bytes()
			if msg := diffParseReplay(file, true); msg != "" {
				t.Fatalf("%s, %s id: %s", c.name, form, msg)
			}
			_, res, err := readParallel(bytes.NewReader(file), "", 2, 0) // 0: the default chunk
			if err != nil {
				t.Fatal(err)
			}
			var got []Rejection
			for _, r := range res.Rejections {
				if r.Line == line && r.Code != CodeEventIDMissing {
					got = append(got, r)
				}
			}
			if len(got) != 1 || got[0].Code != c.want || got[0].EventID != id {
				t.Errorf("%s, %s id %q: the accept on line %d is rejected %+v, want once with %s and its id", c.name, form, id, line, got, c.want)
			}
		}
	}
}

// TestWithoutEventsIsRead: what ReadBytes keeps of a log it reads with its
// events (a log of more names than the lean reading holds) is what Read
// keeps: the Scan, the latest ts, the first line of each reserved
// event_id, and the verdict of a line appended with it; no snapshot.
func TestWithoutEventsIsRead(t *testing.T) {
	t.Parallel()
	files := map[string][]byte{
		"generated": generatedLog(t, 3000, 4, 0.03),
		"flood":     floodLog(200),
		"tricky":    []byte(strings.Join(trickyLines(), "\n")),
		"empty":     nil,
	}
	for name, file := range files {
		events, _ := ReadEvents(file)
		ids := []string{"fedcba9876543210fedcba9876543210", "not-in-the-log"}
		if len(events.Events) > 0 {
			ids = append(ids, events.Events[len(events.Events)/2].EventID)
		}
		for _, id := range ids {
			want, wantRes := ReadBytes(file, ReadOptions{Reserve: []string{id}})
			events, gotRes := ReadEvents(file)
			got := events.withoutEvents([]string{id})
			if msg := sameReplay(&got.Scan, gotRes, &want.Scan, wantRes); msg != "" {
				t.Fatalf("%s, %q: %s", name, id, msg)
			}
			if got.LineOf(id) != want.LineOf(id) || !got.LatestTS().Equal(want.LatestTS()) || got.Snapshotable(gotRes) {
				t.Fatalf("%s, %q: line %d, latest %v, for a snapshot %v; Read says line %d, latest %v",
					name, id, got.LineOf(id), got.LatestTS(), got.Snapshotable(gotRes), want.LineOf(id), want.LatestTS())
			}
			d := Draft{EventID: id, TS: want.LatestTS().Add(time.Second), AgentID: "opencode", Type: TypeJoin, Payload: map[string]any{"roles": []string{"worker"}}}
			if want.LatestTS().IsZero() {
				d.TS = time.Date(2026, 6, 9, 10, 0, 0, 0, time.UTC)
			}
			ga, gerr := got.Append(gotRes, nil, nil, d)
			wa, werr := want.Append(wantRes, nil, nil, d)
			if (gerr != nil) != (werr != nil) || gerr == nil && (!reflect.DeepEqual(ga.Refused, wa.Refused) || !bytes.Equal(ga.Tail, wa.Tail)) {
				t.Fatalf("%s, %q: Append gives %+v, %v; Read's log %+v, %v", name, id, ga, gerr, wa, werr)
			}
		}
	}
}
