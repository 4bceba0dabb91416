package projection

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/pact-action/pact-action/pactfile"
)

// fork is base grown by grow on a branch: the lines grow adds get event
// ids of their own (tag and the line number), so two branches that add a
// line at the same place add two events, not one id twice.
func fork(base *logb, tag string, grow func(*logb)) *logb {
	l := &logb{lines: slices.Clone(base.lines)}
	n := len(l.lines)
	grow(l)
	for i := n; i < len(l.lines); i++ {
		l.lines[i] = strings.Replace(l.lines[i], fmt.Sprintf(`"event_id":"e%d"`, i+1), fmt.Sprintf(`"event_id":"%s%d"`, tag, i+1), 1)
	}
	return l
}

// assertReplayOf holds a merge's Result to the replay of its log read
// whole: the same verdict, state and STATE.yml.
func assertReplayOf(t *testing.T, m *Merged) {
	t.Helper()
	_, want := ReadBytes(m.Bytes(), ReadOptions{})
	if (want.Unsupported == nil) != (m.Result.Unsupported == nil) {
		t.Fatalf("unsupported: merge %v, replay %v", m.Result.Unsupported, want.Unsupported)
	}
	if fmt.Sprint(m.Result.Rejections) != fmt.Sprint(want.Rejections) || fmt.Sprint(m.Result.Omitted) != fmt.Sprint(want.Omitted) {
		t.Errorf("the merge's verdict is not the replay's:\n merge  %v %v\n replay %v %v", m.Result.Rejections, m.Result.Omitted, want.Rejections, want.Omitted)
	}
	if got, want := RenderBytes(m.Result.State), RenderBytes(want.State); !bytes.Equal(got, want) {
		t.Errorf("STATE.yml of the merge:\n%s\nof the replay:\n%s", got, want)
	}
	if m.Result.State.Applied != want.State.Applied {
		t.Errorf("applied: merge %d, replay %d", m.Result.State.Applied, want.State.Applied)
	}
}

func TestMergeLogs(t *testing.T) {
	base := started() // init, assign T1 (opencode/claude-opus), join: lines 1-3
	two := func(l *logb) { l.assign("T2", "G", "claude-opus", "gpt") }
	crlf := func(b []byte) []byte { return bytes.ReplaceAll(b, []byte("\n"), []byte("\r\n")) }
	up := fork(base, "u", func(l *logb) { l.checkpoint("opencode", "T1", "F") })
	other := fork(base, "x", two)
	backdated := fork(base, "x", func(l *logb) {
		l.add(evLine("x4", at(1), "lead", "", TypeAssign, "T2", "G", assignPayload("claude-opus", "gpt")))
	})
	for _, c := range []struct {
		name                 string
		base, upstream, othr []byte
		want                 []byte // the merged log, when it merges
		added, replays       int
		conflict             MergeConflictKind
		where                []MergeLine
		code                 Code
	}{
		{name: "both append: upstream's lines, then the other's",
			base: base.bytes(), upstream: up.bytes(), othr: other.bytes(),
			want: append(up.bytes(), other.lines[3]+"\n"...), added: 1, replays: 1},
		{name: "the other side adds nothing",
			base: base.bytes(), upstream: up.bytes(), othr: base.bytes(), want: up.bytes(), replays: 1},
		{name: "the upstream side adds nothing",
			base: base.bytes(), upstream: base.bytes(), othr: other.bytes(), want: other.bytes(), added: 1, replays: 1},
		{name: "a line both sides hold (a cherry-pick) is kept once",
			base: base.bytes(), upstream: fork(up, "c", two).bytes(), othr: fork(fork(base, "x", func(l *logb) { l.join("claude-opus") }), "c", two).bytes(),
			want: append(fork(up, "c", two).bytes(), fork(base, "x", func(l *logb) { l.join("claude-opus") }).lines[3]+"\n"...), added: 1, replays: 1},
		{name: "the same line twice on the other side is added once",
			base: base.bytes(), upstream: up.bytes(), othr: lines(append(slices.Clone(other.lines), other.lines[3])...),
			want: append(up.bytes(), other.lines[3]+"\n"...), added: 1, replays: 1},
		{name: "an error a side had stays, and is no conflict",
			base: base.bytes(), upstream: up.bytes(), othr: fork(base, "x", func(l *logb) { l.accept("opencode", "T1", "F") }).bytes(),
			want: append(up.bytes(), fork(base, "x", func(l *logb) { l.accept("opencode", "T1", "F") }).lines[3]+"\n"...), added: 1, replays: 1},
		{name: "ancestor's event_ids used again on the sides: the findings they had",
			base: base.bytes(), upstream: lines(append(slices.Clone(up.lines), base.lines[1])...),
			othr: lines(append(slices.Clone(base.lines), strings.Replace(other.lines[3], `"x4"`, `"e2"`, 1))...),
			want: lines(append(slices.Clone(up.lines), base.lines[1], strings.Replace(other.lines[3], `"x4"`, `"e2"`, 1))...), added: 1, replays: 1},
		{name: "a line that sorts before the ancestor's latest: every log replayed whole",
			base: base.bytes(), upstream: up.bytes(), othr: backdated.bytes(),
			want: append(up.bytes(), backdated.lines[3]+"\n"...), added: 1, replays: 3},
		{name: "a CRLF side: lines compared without terminators, the merge in LF",
			base: base.bytes(), upstream: crlf(up.bytes()), othr: other.bytes(),
			want: append(up.bytes(), other.lines[3]+"\n"...), added: 1, replays: 3},
		{name: "a CRLF upstream side over an LF ancestor it starts with is written in LF",
			base: nil, upstream: crlf(up.bytes()), othr: up.bytes(), want: up.bytes(), replays: 1},
		{name: "the ancestor's lines with a new one among them (not at the end) still merge",
			base: base.bytes(), upstream: lines(base.lines[0], up.lines[3], base.lines[1], base.lines[2]), othr: other.bytes(),
			want: lines(base.lines[0], up.lines[3], base.lines[1], base.lines[2], other.lines[3]), added: 1, replays: 3},
		{name: "a byte order mark stays where the upstream side has it",
			base: base.bytes(), upstream: append([]byte(pactfile.BOM), up.bytes()...), othr: other.bytes(),
			want: append(append([]byte(pactfile.BOM), up.bytes()...), other.lines[3]+"\n"...), added: 1, replays: 3},
		{name: "two sides that start the same pact from nothing",
			base: nil, upstream: base.bytes(), othr: base.bytes(), want: base.bytes(), replays: 1},

		{name: "the upstream side's last line has no line break",
			base: base.bytes(), upstream: bytes.TrimSuffix(up.bytes(), []byte("\n")), othr: other.bytes(),
			conflict: ConflictUnterminated, where: []MergeLine{{MergeUpstream, 4}}},
		{name: "the other side's last line has no line break",
			base: base.bytes(), upstream: up.bytes(), othr: bytes.TrimSuffix(other.bytes(), []byte("\n")),
			conflict: ConflictUnterminated, where: []MergeLine{{MergeOther, 4}}},
		{name: "the upstream side edits a line of the ancestor",
			base: base.bytes(), upstream: lines(base.lines[0], strings.Replace(base.lines[1], "T1", "T9", 1), base.lines[2], up.lines[3]), othr: other.bytes(),
			conflict: ConflictRewritten, where: []MergeLine{{MergeBase, 2}, {MergeUpstream, 4}}},
		{name: "the other side reorders the ancestor's lines",
			base: base.bytes(), upstream: up.bytes(), othr: lines(base.lines[0], base.lines[2], base.lines[1]),
			conflict: ConflictRewritten, where: []MergeLine{{MergeBase, 3}, {MergeOther, 3}}},
		{name: "the other side drops the ancestor's last line",
			base: base.bytes(), upstream: up.bytes(), othr: lines(base.lines[0], base.lines[1]),
			conflict: ConflictRewritten, where: []MergeLine{{MergeBase, 3}, {MergeOther, 2}}},
		{name: "two different lines under one event_id",
			base: base.bytes(), upstream: up.bytes(), othr: fork(base, "u", two).bytes(),
			conflict: ConflictEventID, where: []MergeLine{{MergeOther, 4}, {MergeUpstream, 4}}, code: CodeEventIDDuplicate},
		{name: "the same task id assigned on both sides",
			base: base.bytes(), upstream: fork(base, "u", two).bytes(), othr: fork(base, "x", func(l *logb) { l.assign("T2", "H", "opencode", "gpt") }).bytes(),
			conflict: ConflictFinding, where: []MergeLine{{MergeOther, 4}}, code: CodeTaskDuplicateID},
		{name: "the same task id assigned on both sides, one of them backdated",
			base: base.bytes(), upstream: fork(base, "u", two).bytes(), othr: backdated.bytes(),
			conflict: ConflictFinding, where: []MergeLine{{MergeUpstream, 4}}, code: CodeTaskDuplicateID},
		{name: "two pacts started apart",
			base: nil, upstream: base.bytes(), othr: fork(&logb{}, "x", func(l *logb) { l.init() }).bytes(),
			conflict: ConflictFinding, where: []MergeLine{{MergeOther, 1}}, code: CodeInitDuplicate},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, err := MergeLogs(c.base, c.upstream, c.othr)
			if c.conflict != 0 {
				var mc *MergeConflict
				if !errors.As(err, &mc) {
					t.Fatalf("merged (%v), want a conflict of kind %d", err, c.conflict)
				}
				if mc.Kind != c.conflict || fmt.Sprint(mc.Lines) != fmt.Sprint(c.where) || mc.Code != c.code {
					t.Errorf("conflict %d at %v (%s), want %d at %v (%s): %v", mc.Kind, mc.Lines, mc.Code, c.conflict, c.where, c.code, mc)
				}
				if strings.Contains(mc.Error(), "\n") || mc.Error() == "" {
					t.Errorf("a conflict is said in one sentence: %q", mc.Error())
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(m.Bytes(), c.want) {
				t.Errorf("merged log:\n%s\nwant:\n%s", m.Bytes(), c.want)
			}
			if m.Added != c.added || m.FullReplays != c.replays {
				t.Errorf("added %d lines in %d full replays, want %d in %d", m.Added, m.FullReplays, c.added, c.replays)
			}
			if up := len(pactfile.SplitLines(c.upstream)); m.Upstream != up {
				t.Errorf("upstream lines %d, want %d", m.Upstream, up)
			}
			assertReplayOf(t, m)
		})
	}
}

// TestMergeFailsClosed: a newer protocol major on a side makes the merged
// log's replay fail closed, as every reading of it does.
func TestMergeFailsClosed(t *testing.T) {
	base := started()
	newer := fork(base, "x", func(l *logb) {
		l.ev("lead", TypeInit, "", "", `{"project":"demo","protocol_version":2,"seats":`+rosterJSON+`}`)
	})
	for _, b := range [][]byte{base.bytes(), nil} {
		m, err := MergeLogs(b, fork(base, "u", func(l *logb) { l.join("claude-opus") }).bytes(), newer.bytes())
		if err != nil {
			t.Fatal(err)
		}
		if m.Result.Unsupported == nil {
			t.Errorf("the merged log does not fail closed: %v", m.Result.Rejections)
		}
	}
}

// TestMergeContinuesTheReplay holds the merge of logs that append to a
// common one, whatever they append (out of order too), to the replay of
// the merged log read whole, and to the rules: the upstream side's lines
// come first as they are, every line of both sides is in it once.
func TestMergeContinuesTheReplay(t *testing.T) {
	r := rand.New(rand.NewSource(33))
	replays := map[int]int{}
	defer func() {
		if replays[1] == 0 || replays[3] == 0 {
			t.Errorf("merges by full replays: %v; both the continued replay (1) and the whole one (3) must be tried", replays)
		}
	}()
	for i := 0; i < 60; i++ {
		evs := genLog(r, 20+r.Intn(40), i%3 == 0)
		all := pactfile.SplitLines(joinLines(evs))
		cut := 1 + r.Intn(len(all)-1)
		pick := func() [][]byte {
			var out [][]byte
			for _, l := range all[cut:] {
				if r.Intn(2) == 0 {
					out = append(out, l)
				}
			}
			return out
		}
		old, late := slices.Clone(all[:cut]), [][]byte(nil)
		if i%3 == 1 && cut > 2 {
			// A line of the ancestor's time that only the upstream side
			// has: it sorts before the ancestor's latest.
			j := 1 + r.Intn(cut-1)
			late = [][]byte{old[j]}
			old = slices.Delete(old, j, j+1)
		}
		base := lfLines(old)
		upstream := append(slices.Clone(base), lfLines(append(late, pick()...))...)
		other := slices.Clone(base)
		if late == nil {
			other = append(other, lfLines(pick())...)
		}
		m, err := MergeLogs(base, upstream, other)
		// The continued replay decides as the whole one would.
		whole, wholeErr := mergeWhole(base, upstream, other)
		if fmt.Sprint(err) != fmt.Sprint(wholeErr) {
			t.Fatalf("case %d: the merge says %v, the whole merge %v", i, err, wholeErr)
		}
		if err == nil && (!bytes.Equal(m.Bytes(), whole.Bytes()) || !bytes.Equal(RenderBytes(m.Result.State), RenderBytes(whole.Result.State)) ||
			fmt.Sprint(m.Result.Rejections, m.Result.Omitted) != fmt.Sprint(whole.Result.Rejections, whole.Result.Omitted)) {
			t.Fatalf("case %d: the merge and the whole merge differ", i)
		}
		var mc *MergeConflict
		if errors.As(err, &mc) {
			replays[-int(mc.Kind)]++
			continue // a line both sides could not hold together: said, not merged
		}
		if err != nil {
			t.Fatal(err)
		}
		replays[m.FullReplays]++
		if !bytes.HasPrefix(m.Bytes(), upstream) {
			t.Fatalf("case %d: the upstream side's log is not the merge's start", i)
		}
		kept := map[string]bool{}
		for n, l := range pactfile.SplitLines(m.Bytes()) {
			if n >= m.Upstream && kept[string(l)] {
				t.Fatalf("case %d: line %q added though it was kept", i, l)
			}
			kept[string(l)] = true
		}
		for _, l := range pactfile.SplitLines(other) {
			if !kept[string(l)] {
				t.Fatalf("case %d: the other side's line %q is lost", i, l)
			}
		}
		assertReplayOf(t, m)
	}
}

// TestStateClone: applying events to a clone leaves the state it was
// cloned from as it was.
func TestStateClone(t *testing.T) {
	res := started().assign("T2", "F", "opencode", "gpt").replay()
	before := RenderBytes(res.State)
	c := res.State.clone()
	for _, ev := range []Event{
		{Type: TypeAssign, TaskID: "T3", Feature: "F", AgentID: "lead", Role: RoleOrchestrator, Payload: Payload{Owner: "opencode", Reviewer: "gpt"}},
		{Type: TypeJoin, AgentID: "opencode", Role: RoleWorker},
		{Type: TypeCheckpoint, TaskID: "T2", AgentID: "opencode", Role: RoleWorker},
	} {
		if r := c.Apply(&ev); r != nil {
			t.Fatal(r)
		}
	}
	if got := RenderBytes(res.State); !bytes.Equal(got, before) {
		t.Errorf("the clone's events changed the original:\n%s\nwas:\n%s", got, before)
	}
	if got := statuses(c); got != "T1=in_progress T2=awaiting_review T3=in_progress F=in_progress" {
		t.Errorf("the clone: %s", got)
	}
}

// FuzzMergeLogs: any three logs merge or conflict, never panic; a merge
// starts with the upstream side's lines, holds every line of the other
// side, ends every line in LF, and its Result is the replay of its log.
func FuzzMergeLogs(f *testing.F) {
	base := started()
	f.Add(base.bytes(), fork(base, "u", func(l *logb) { l.join("claude-opus") }).bytes(), fork(base, "x", func(l *logb) { l.checkpoint("opencode", "T1", "F") }).bytes())
	f.Add([]byte(nil), base.bytes(), []byte("{}\n\n"))
	f.Add(base.bytes(), []byte("x\r\n"), []byte("<<<<<<< ours\n"))
	f.Fuzz(func(t *testing.T, base, upstream, other []byte) {
		m, err := MergeLogs(base, upstream, other)
		var mc *MergeConflict
		switch {
		case errors.As(err, &mc):
			if mc.Kind < ConflictUnterminated || mc.Kind > ConflictFinding || len(mc.Lines) == 0 || mc.Error() == "" {
				t.Fatalf("conflict %+v", mc)
			}
			return
		case err != nil:
			return // a log the replay cannot hold
		}
		if len(m.Bytes()) > 0 && m.Bytes()[len(m.Bytes())-1] != '\n' || bytes.Contains(m.Bytes(), []byte("\r\n")) {
			t.Fatalf("merged log not in LF lines: %q", m.Bytes())
		}
		got := pactfile.SplitLines(m.Bytes())
		ups := pactfile.SplitLines(upstream)
		if len(got) < len(ups) || m.Upstream != len(ups) {
			t.Fatalf("merged %d lines, upstream %d (%d)", len(got), len(ups), m.Upstream)
		}
		for i, l := range ups {
			if !bytes.Equal(got[i], l) {
				t.Fatalf("line %d is not the upstream side's", i+1)
			}
		}
		kept := map[string]bool{}
		for _, l := range got {
			kept[string(l)] = true
		}
		for _, l := range pactfile.SplitLines(other) {
			if !kept[string(l)] {
				t.Fatalf("the other side's line %q is lost", l)
			}
		}
		assertReplayOf(t, m)
	})
}

// TestConflictMarkerFound: a reading of the log names the first line of
// git's conflict markers, on every path (the parallel one in chunks that
// cut the conflict anywhere), and only a line that is not an event.
func TestConflictMarkerFound(t *testing.T) {
	base := started()
	conflicted := lines(base.lines[0], base.lines[1], "<<<<<<< HEAD", base.lines[2], "=======", `{"x":"`+strings.Repeat("=", 8)+`"}`, ">>>>>>> main")
	for _, c := range []struct {
		name string
		log  []byte
		want int
	}{
		{"git's conflict", conflicted, 3},
		{"none", base.bytes(), 0},
		{"a marker's text inside an event", lines(base.lines[0], `{"event_id":"<<<<<<< x"}`), 0},
	} {
		if diff := diffParseReplay(c.log, true); diff != "" {
			t.Errorf("%s: %s", c.name, diff)
		}
		log, _ := ReadBytes(c.log, ReadOptions{})
		full, _ := ReadEvents(c.log)
		if log.ConflictMarker != c.want || full.ConflictMarker != c.want {
			t.Errorf("%s: conflict marker on line %d (reading events: %d), want %d", c.name, log.ConflictMarker, full.ConflictMarker, c.want)
		}
	}
}

func lines(ls ...string) []byte { return []byte(strings.Join(ls, "\n") + "\n") }

func TestBaseBranch(t *testing.T) {
	init := new(logb).init().lines[0]
	for _, c := range []struct {
		log  []byte
		want string
	}{
		{started().bytes(), "main"},
		{lines("{}", strings.Replace(init, `"main"`, `"trunk"`, 1)), "trunk"},
		{lines(strings.Replace(init, `"role":"orchestrator"`, `"role":7`, 1), strings.Replace(init, `"main"`, `"dev"`, 1)), "dev"},
		{append([]byte(pactfile.BOM), lines(init)...), "main"},
		{nil, ""},
	} {
		if got := BaseBranch(c.log); got != c.want {
			t.Errorf("BaseBranch(%.60q) = %q, want %q", c.log, got, c.want)
		}
	}
}
