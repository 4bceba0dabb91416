package projection

import (
	"bytes"
	"fmt"
	"math/rand"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"
)

// genLog makes a random, mostly valid log: one init, then tasks moving
// through the state machine, with some noise (wrong seats, wrong states,
// bad roles, missing event_ids, malformed and blank lines, unknown types).
// Events get strictly increasing instants; with sameTS, runs of events share
// one ts. The lines come back in ts order.
type genEvent struct {
	line string
	ts   time.Time // zero for lines that take no part in ordering
}

func genLog(r *rand.Rand, n int, sameTS bool) []genEvent {
	seats := []string{"lead", "opencode", "claude-opus", "gpt"}
	workers := []string{"opencode", "claude-opus"}
	reviewers := []string{"claude-opus", "gpt"}
	type mtask struct {
		id, feature, owner, reviewer, status string
	}
	var tasks []*mtask
	var features []string
	base := time.Date(2026, 6, 9, 10, 0, 0, 0, time.UTC)
	now := base
	var out []genEvent
	id := 0
	emit := func(agent, typ, task, feature, payload string) {
		id++
		if !sameTS || r.Intn(3) != 0 || len(out) == 0 {
			now = now.Add(time.Duration(1+r.Intn(5))*time.Second + time.Duration(r.Intn(1000))*time.Nanosecond)
		}
		eid := fmt.Sprintf("%016x%04d", r.Uint64(), id)
		role := ""
		switch r.Intn(40) {
		case 0:
			eid = "" // event_id.missing, still applied
		case 1:
			role = []string{RoleOrchestrator, RoleWorker, RoleReviewer}[r.Intn(3)] // maybe a mismatch
		}
		if r.Intn(25) == 0 {
			agent = seats[r.Intn(len(seats))] // maybe the wrong seat
		}
		out = append(out, genEvent{evLine(eid, formatTS(now), agent, role, typ, task, feature, payload), now})
	}
	pick := func(list []string) string { return list[r.Intn(len(list))] }
	emit("lead", TypeInit, "", "", initPayload(rosterJSON))
	for len(out) < n {
		switch k := r.Intn(100); {
		case k < 3:
			out = append(out, genEvent{line: "{not json"})
		case k < 5:
			out = append(out, genEvent{line: "  \t"})
		case k < 7:
			out = append(out, genEvent{line: fmt.Sprintf(`{"event_type":"future-%d","ts":"x"}`, k)})
		case k < 9:
			emit("lead", TypeInit, "", "", initPayload(rosterJSON)) // init.duplicate
		case k < 25 || len(tasks) == 0:
			f := fmt.Sprintf("F%d", r.Intn(4))
			if r.Intn(4) == 0 && len(features) > 0 {
				f = pick(features)
			}
			t := &mtask{id: fmt.Sprintf("T%d", len(tasks)+1), feature: f, owner: pick(workers), status: "assigned"}
			t.reviewer = pick(reviewers)
			if r.Intn(10) == 0 && len(tasks) > 0 {
				t.id = tasks[r.Intn(len(tasks))].id // duplicate id
			}
			emit("lead", TypeAssign, t.id, f, assignPayload(t.owner, t.reviewer))
			if t.owner != t.reviewer {
				tasks = append(tasks, t)
				features = append(features, f)
			}
		case k < 35:
			s := pick(workers)
			emit(s, TypeJoin, "", "", `{"roles":["worker"]}`)
			for _, t := range tasks {
				if t.owner == s && t.status == "assigned" {
					t.status = "in_progress"
				}
			}
		default:
			t := tasks[r.Intn(len(tasks))]
			switch {
			case t.status == "in_progress" || r.Intn(8) == 0:
				emit(t.owner, TypeCheckpoint, t.id, t.feature, `{"evidence":"ok"}`)
				t.status = "awaiting_review"
			case t.status == "awaiting_review" && r.Intn(3) == 0:
				emit(t.reviewer, TypeChangesRequested, t.id, t.feature, `{"reason":"again"}`)
				t.status = "in_progress"
			case t.status == "awaiting_review":
				emit(t.reviewer, TypeAccept, t.id, "", "")
				t.status = "accepted"
			default:
				emit("lead", TypeMerge, "", t.feature, "")
			}
		}
	}
	return out
}

func joinLines(evs []genEvent) []byte {
	var b bytes.Buffer
	for _, e := range evs {
		b.WriteString(e.line + "\n")
	}
	return b.Bytes()
}

// verdicts is what a replay judged, without line numbers: code, event and
// task/feature of each rejection, sorted.
func verdicts(res *Result) []string {
	var out []string
	for _, r := range res.Rejections {
		msg := r.Message
		if strings.Contains(msg, "line ") {
			msg = "" // names line numbers, which a shuffle moves
		}
		out = append(out, fmt.Sprintf("%s|%s|%s|%s|%s", r.Code, r.EventID, r.TaskID, r.Feature, msg))
	}
	sort.Strings(out)
	return out
}

func TestReplayIsDeterministic(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 200; i++ {
		data := joinLines(genLog(r, 10+r.Intn(80), i%2 == 0))
		a, b := replay(parseBytes(data)), replay(parseBytes(data))
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("log %d: two replays of the same bytes differ\n%s", i, data)
		}
		ra, rb := RenderBytes(a.State), RenderBytes(b.State)
		if !bytes.Equal(ra, rb) {
			t.Fatalf("log %d: two renders differ", i)
		}
		if !bytes.Equal(ra, RenderBytes(a.State)) {
			t.Fatalf("log %d: rendering twice differs", i)
		}
	}
}

func TestReplayIsOrderStable(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewSource(2))
	var applied, rejected int
	for i := 0; i < 200; i++ {
		evs := genLog(r, 10+r.Intn(80), false)
		orig := replay(parseBytes(joinLines(evs)))
		applied += orig.State.Applied
		rejected += len(orig.Rejections)
		for k := 0; k < 3; k++ {
			shuffled := append([]genEvent(nil), evs...)
			r.Shuffle(len(shuffled), func(a, b int) { shuffled[a], shuffled[b] = shuffled[b], shuffled[a] })
			got := replay(parseBytes(joinLines(shuffled)))
			if a, b := RenderBytes(orig.State), RenderBytes(got.State); !bytes.Equal(a, b) {
				t.Fatalf("log %d: shuffling lines with distinct ts changed STATE.yml:\n--- in ts order\n%s\n--- shuffled\n%s\n--- log\n%s", i, a, b, joinLines(evs))
			}
			if a, b := verdicts(orig), verdicts(got); !reflect.DeepEqual(a, b) {
				t.Fatalf("log %d: shuffling changed the verdicts:\n%q\n%q", i, a, b)
			}
		}
	}
	// The generator must exercise both sides, or this test proves nothing.
	if applied < 2000 || rejected < 500 {
		t.Errorf("generator too tame: %d events applied, %d rejected", applied, rejected)
	}
}

func TestEqualTSKeepFileOrder(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewSource(3))
	ties := 0
	for i := 0; i < 200; i++ {
		evs := genLog(r, 10+r.Intn(80), true)
		// Group lines by instant (lines without one join the group they
		// are in), then shuffle the groups, keeping each group's file order.
		var groups [][]genEvent
		var last time.Time
		for _, e := range evs {
			if n := len(groups); n > 0 && (e.ts.IsZero() || last.Equal(e.ts)) {
				groups[n-1] = append(groups[n-1], e)
				if !e.ts.IsZero() {
					ties++
				}
				continue
			}
			groups = append(groups, []genEvent{e})
			last = e.ts
		}
		orig := replay(parseBytes(joinLines(evs)))
		r.Shuffle(len(groups), func(a, b int) { groups[a], groups[b] = groups[b], groups[a] })
		var shuffled []genEvent
		for _, g := range groups {
			shuffled = append(shuffled, g...)
		}
		got := replay(parseBytes(joinLines(shuffled)))
		if a, b := RenderBytes(orig.State), RenderBytes(got.State); !bytes.Equal(a, b) {
			t.Fatalf("log %d: moving runs of equal ts changed STATE.yml:\n%s\n%s", i, a, b)
		}
		if a, b := verdicts(orig), verdicts(got); !reflect.DeepEqual(a, b) {
			t.Fatalf("log %d: moving runs of equal ts changed the verdicts", i)
		}
	}
	if ties < 1000 {
		t.Errorf("only %d equal-ts events generated", ties)
	}
}

// TestProposeAgreesWithReplay: a writer's verdict on a new line (Propose) is
// the verdict a replay of the longer log gives that line, and what Propose
// accepts replays without a finding into the same state.
func TestProposeAgreesWithReplay(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewSource(4))
	for i := 0; i < 60; i++ {
		var accepted []string
		log := parseBytes(nil)
		res := replay(log)
		for _, e := range genLog(r, 10+r.Intn(50), i%2 == 0) {
			ev, _, skip, bad := decodeLine([]byte(e.line))
			if bad != "" || skip || ev.EventID == "" {
				continue // a writer never proposes these
			}
			got, err := log.propose(res, []byte(e.line))
			if err != nil {
				t.Fatalf("Propose: %v", err)
			}
			longer := replay(parseBytes([]byte(strings.Join(append(append([]string{}, accepted...), e.line), "\n") + "\n")))
			var want *Rejection
			for k := range longer.Rejections {
				if rj := longer.Rejections[k]; rj.Line == len(accepted)+1 && rj.Code != CodeEventIDMissing {
					want = &rj
				}
			}
			switch {
			case got == nil && want != nil:
				t.Fatalf("Propose accepted %s; replay says %s: %s", e.line, want.Code, want.Message)
			case got != nil && want == nil:
				t.Fatalf("Propose refused %s with %s; replay accepts it", e.line, got.Code)
			case got != nil && got.Code != want.Code:
				t.Fatalf("Propose says %s, replay says %s for %s", got.Code, want.Code, e.line)
			case got == nil:
				accepted = append(accepted, e.line)
			}
		}
		full := replay(parseBytes([]byte(strings.Join(accepted, "\n") + "\n")))
		for _, rj := range full.Rejections {
			if rj.Code != CodeInitMissing || rj.Line != 0 {
				t.Fatalf("accepted lines replay with %s on line %d", rj.Code, rj.Line)
			}
		}
		if a, b := RenderBytes(res.State), RenderBytes(full.State); !bytes.Equal(a, b) {
			t.Fatalf("Propose built a different state:\n%s\n%s", a, b)
		}
	}
}

func TestEncodeRoundTrip(t *testing.T) {
	t.Parallel()
	when := time.Date(2026, 6, 9, 10, 0, 0, 1500, time.FixedZone("CEST", 2*3600))
	line, err := Encode(Draft{EventID: "abc", TS: when, AgentID: "opencode", Type: TypeCheckpoint, TaskID: "T1", Feature: "F",
		Payload: map[string]string{"evidence": "<b>&\n"}})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"event_id":"abc","ts":"2026-06-09T08:00:00.0000015Z","agent_id":"opencode","role":"worker","event_type":"checkpoint","task_id":"T1","feature":"F","payload":{"evidence":"<b>&\n"}}`
	if string(line) != want {
		t.Errorf("Encode:\n got  %s\n want %s", line, want)
	}
	log := parseBytes(line)
	if len(log.Events) != 1 || log.Events[0].Problem != nil || log.Events[0].Payload.Evidence != "<b>&\n" {
		t.Errorf("encoded line does not decode cleanly: %+v", log.Events)
	}
	empty, err := Encode(Draft{EventID: "m", TS: when, AgentID: "lead", Type: TypeMerge, Feature: "F"})
	if err != nil || !strings.HasSuffix(string(empty), `"payload":{}}`) {
		t.Errorf("nil payload must encode as {}: %s %v", empty, err)
	}
	if got := parseBytes([]byte(string(line) + "\n" + string(empty) + "\n")).LatestTS(); !got.Equal(when) {
		t.Errorf("LatestTS = %v", got)
	}
}

// TestProposeOnAppendLog: a log read without its events for a reserved
// event_id judges the line it was read for as a log that keeps its events
// would, and refuses (as an internal error) what it cannot judge without
// them.
func TestProposeOnAppendLog(t *testing.T) {
	t.Parallel()
	read := func(id string) (*Log, *Result) {
		log, res, err := Read(bytes.NewReader(review().bytes()), ReadOptions{Reserve: []string{id}})
		if err != nil {
			t.Fatal(err)
		}
		return log, res
	}
	if log, res := read(""); true {
		if _, err := log.propose(res, []byte(evLine("e4", at(9), "claude-opus", "", TypeAccept, "T1", "F", ""))); err == nil {
			t.Error("a log read without its events and without a reserved event_id must refuse to judge a line")
		}
	}
	log, res := read("e4")
	rj, err := log.propose(res, []byte(evLine("e4", at(9), "claude-opus", "", TypeAccept, "T1", "F", "")))
	if err != nil || rj == nil || rj.Code != CodeEventIDDuplicate || !strings.Contains(rj.Message, "on line 4") {
		t.Errorf("reused event_id: %+v %v", rj, err)
	}
	log, res = read("new")
	if _, err := log.propose(res, []byte(evLine("other", at(9), "claude-opus", "", TypeAccept, "T1", "F", ""))); err == nil {
		t.Error("a line with another event_id than the reserved one must be an error")
	}
	if _, err := log.propose(res, []byte(evLine("new", at(1), "claude-opus", "", TypeAccept, "T1", "F", ""))); err == nil {
		t.Error("a line that sorts before the log's latest must be an error")
	}
	if !log.LatestTS().Equal(parseBytes(review().bytes()).LatestTS()) {
		t.Errorf("LatestTS = %v", log.LatestTS())
	}
	rj, err = log.propose(res, []byte(evLine("new", at(9), "claude-opus", "", TypeAccept, "T1", "F", "")))
	if err != nil || rj != nil || res.State.Tasks["T1"].Status != StatusAccepted || log.Lines != 5 {
		t.Errorf("a valid accept: %+v %v, lines %d", rj, err, log.Lines)
	}
	// Several lines at once (a comment's commands): LineOf knows each
	// reserved id the log holds, each line is judged after the ones
	// before it, and a reserved id once appended is the log's.
	log, res, err = Read(bytes.NewReader(review().bytes()), ReadOptions{Reserve: []string{"e4", "n1", "n2"}})
	if err != nil {
		t.Fatal(err)
	}
	if log.LineOf("e4") != 4 || log.LineOf("n1") != 0 || log.LineOf("e3") != 0 {
		t.Errorf("LineOf: e4 %d, n1 %d, e3 (not reserved) %d; want 4, 0, 0", log.LineOf("e4"), log.LineOf("n1"), log.LineOf("e3"))
	}
	if rj, err := log.propose(res, []byte(evLine("n1", at(9), "claude-opus", "", TypeChangesRequested, "T1", "F", `{"reason":"r"}`))); err != nil || rj != nil {
		t.Errorf("the first reserved line: %+v %v", rj, err)
	}
	if rj, err := log.propose(res, []byte(evLine("n2", at(10), "claude-opus", "", TypeAccept, "T1", "F", ""))); err != nil || rj == nil || rj.Code != CodeInvalidTransition {
		t.Errorf("an accept after changes were requested: %+v %v, want %s", rj, err, CodeInvalidTransition)
	}
	if rj, err := log.propose(res, []byte(evLine("n1", at(11), "claude-opus", "", TypeAccept, "T1", "F", ""))); err != nil || rj == nil || rj.Code != CodeEventIDDuplicate || log.LineOf("n1") != 5 {
		t.Errorf("a reserved id appended already: %+v %v, LineOf %d", rj, err, log.LineOf("n1"))
	}
}

func TestProposeRefusals(t *testing.T) {
	t.Parallel()
	l := review()
	log := parseBytes(l.bytes())
	res := replay(log)
	if _, err := log.propose(res, []byte(evLine("", at(9), "claude-opus", "", TypeAccept, "T1", "F", ""))); err == nil {
		t.Error("a line without event_id must be refused")
	}
	if _, err := log.propose(res, []byte("nope")); err == nil {
		t.Error("a malformed line must be refused")
	}
	rj, err := log.propose(res, []byte(evLine("e4", at(9), "claude-opus", "", TypeAccept, "T1", "F", "")))
	if err != nil || rj == nil || rj.Code != CodeEventIDDuplicate {
		t.Errorf("reused event_id: %+v %v", rj, err)
	}
	rj, err = log.propose(res, []byte(evLine("new", at(9), "opencode", "", TypeAccept, "T1", "F", "")))
	if err != nil || rj == nil || rj.Code != CodeRoleNotHeld || res.State.Tasks["T1"].Status != StatusAwaitingReview {
		t.Errorf("a refused accept: %+v %v, T1 %s", rj, err, res.State.Tasks["T1"].Status)
	}
	rj, err = log.propose(res, []byte(evLine("new", at(9), "claude-opus", "", TypeAccept, "T1", "F", "")))
	if err != nil || rj != nil || res.State.Tasks["T1"].Status != StatusAccepted || log.Lines != 5 {
		t.Errorf("a valid accept: %+v %v, lines %d", rj, err, log.Lines)
	}
	// Lines whose ts sorts before existing events are judged where they
	// replay, and refused when they would change an existing verdict.
	t.Run("an earlier line is judged where it replays", func(t *testing.T) {
		t.Parallel()
		log := parseBytes(review().bytes())
		res := replay(log)
		rj, err := log.propose(res, []byte(evLine("x", "2026-06-09T10:00:03.5Z", "claude-opus", "", TypeAccept, "T1", "F", "")))
		if err != nil || rj == nil || rj.Code != CodeInvalidTransition || rj.Line != 5 || log.Lines != 4 {
			t.Errorf("accept before the checkpoint: %+v %v, lines %d", rj, err, log.Lines)
		}
	})
	t.Run("an earlier line that breaks a later one is refused", func(t *testing.T) {
		t.Parallel()
		log := parseBytes(review().accept("claude-opus", "T1", "F").bytes())
		res := replay(log)
		rj, err := log.propose(res, []byte(evLine("x", "2026-06-09T10:00:04.5Z", "claude-opus", "", TypeChangesRequested, "T1", "F", `{"reason":"r"}`)))
		if err != nil || rj == nil || rj.Code != CodeInvalidTransition || rj.Line != 6 || !strings.Contains(rj.Message, "break line 5") {
			t.Errorf("changes before an accept: %+v %v", rj, err)
		}
		if res.State.Tasks["T1"].Status != StatusAccepted || log.Lines != 5 {
			t.Errorf("a refusal changed the state: %s, %d lines", res.State.Tasks["T1"].Status, log.Lines)
		}
	})
	t.Run("an earlier line that breaks nothing is accepted", func(t *testing.T) {
		t.Parallel()
		log := parseBytes(review().assign("T2", "G", "opencode", "gpt").bytes())
		res := replay(log)
		rj, err := log.propose(res, []byte(evLine("x", "2026-06-09T10:00:04.5Z", "claude-opus", "", TypeAccept, "T1", "F", "")))
		if err != nil || rj != nil || res.State.Tasks["T1"].Status != StatusAccepted || log.Lines != 6 {
			t.Errorf("accept between checkpoint and a later assign: %+v %v, %s, %d lines", rj, err, res.State.Tasks["T1"].Status, log.Lines)
		}
	})
	v2 := new(logb).add(strings.Replace(initLine("i", at(1)), `"protocol_version":1`, `"protocol_version":2`, 1))
	log2 := parseBytes(v2.bytes())
	res2 := replay(log2)
	rj, err = log2.propose(res2, []byte(evLine("n", at(2), "lead", "", TypeAssign, "T1", "F", assignPayload("opencode", "gpt"))))
	if err != nil || rj == nil || rj.Code != CodeVersionUnsupported {
		t.Errorf("a log that fails closed refuses every write: %+v %v", rj, err)
	}
}

// TestProposeOutOfOrder: lines proposed in random time order are accepted
// only when the replay of the longer log accepts them and changes no verdict
// on an existing line; what is accepted replays into the same state.
func TestProposeOutOfOrder(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewSource(5))
	var accepts, refusals int
	for i := 0; i < 40; i++ {
		evs := genLog(r, 10+r.Intn(40), false)
		var candidates []string
		for _, e := range evs[1:] {
			ev, _, skip, bad := decodeLine([]byte(e.line))
			if bad == "" && !skip && ev.EventID != "" {
				candidates = append(candidates, e.line)
			}
		}
		r.Shuffle(len(candidates), func(a, b int) { candidates[a], candidates[b] = candidates[b], candidates[a] })
		accepted := []string{evs[0].line}
		file := func(lines []string) []byte { return []byte(strings.Join(lines, "\n") + "\n") }
		log := parseBytes(file(accepted))
		res := replay(log)
		for _, line := range candidates {
			got, err := log.propose(res, []byte(line))
			if err != nil {
				t.Fatalf("Propose: %v", err)
			}
			longer := append(append([]string{}, accepted...), line)
			next := replay(parseBytes(file(longer)))
			if got == nil {
				accepts++
				accepted = longer
				for _, rj := range next.Rejections {
					if rj.Line == len(accepted) {
						t.Fatalf("accepted %s, but replay rejects it: %s", line, rj.Code)
					}
				}
				if a, b := RenderBytes(res.State), RenderBytes(next.State); !bytes.Equal(a, b) {
					t.Fatalf("accepted state differs from the replay:\n%s\n%s", a, b)
				}
				continue
			}
			refusals++
			if got.Line != len(longer) {
				t.Fatalf("refusal on line %d, want the new line %d", got.Line, len(longer))
			}
			before := map[string]bool{}
			for _, rj := range replay(parseBytes(file(accepted))).Rejections {
				before[fmt.Sprint(rj.Code, rj.Line)] = true
			}
			explained := false
			for _, rj := range next.Rejections {
				if (rj.Line == got.Line && rj.Code == got.Code) || (rj.Line != got.Line && !before[fmt.Sprint(rj.Code, rj.Line)]) {
					explained = true
				}
			}
			if !explained {
				t.Fatalf("Propose refused %s with %s, but the replay of the longer log accepts it and changes nothing", line, got.Code)
			}
		}
	}
	if accepts < 200 || refusals < 200 {
		t.Errorf("too few cases: %d accepted, %d refused", accepts, refusals)
	}
}
