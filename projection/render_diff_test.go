package projection

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/pact-action/pact-action/internal/testkit/loggen"

	"github.com/pact-action/pact-action/projection/internal/ranges"
)

// renderTricky are values that take every path of YAML's scalar rules.
var renderTricky = []string{
	"", " ", "T1", "a b", "a: b", "- a", "#x", "a #b", "yes", "no", "on", "~", "null", "1", "-1", "1.5", ".5", "0x1F", "0o17",
	"0b101", "1_000", "1:20", "2024-01-02", "2024-01-02T10:00:00Z", ".inf", "<<", "---", "...", "[a]", "{a}", "a,b", "'", "\"", "\\",
	"a\nb", "a\n", "a\n\n", "\n", " a\nb", "a \nb", "a\tb", "é", "😀", "a\rb", "a\r\nb", "a\u2028b", "\u0085", "\ufeffabc", "\x00",
	"invalid \xff utf8", strings.Repeat("\xfe", 80), strings.Repeat("long reason ", 20),
}

// trickyState is a state whose every string is one of renderTricky, in
// every position STATE.yml has.
func trickyState(vals []string) *State {
	v := func(i int) string { return vals[i%len(vals)] }
	s := NewState()
	s.Project, s.ProtocolVersion, s.BaseBranch = v(0), 1, v(1)
	for i := range vals {
		id := v(i)
		if i%3 == 0 {
			s.Seats = append(s.Seats, Seat{ID: id, Roles: []string{v(i + 1), v(i + 2)}, Entry: v(i + 3)})
			s.Online[id] = i%2 == 0
		}
		if i%4 == 0 {
			s.Seats = append(s.Seats, Seat{ID: id + "x", Entry: v(i)})
		}
		taskID := "t" + id
		if _, dup := s.Tasks[taskID]; dup {
			continue
		}
		feature := v(i + 5)
		s.Tasks[taskID] = &Task{ID: taskID, Feature: feature, Owner: v(i + 1), Reviewer: v(i + 2), Branch: v(i + 3), Spec: v(i + 4),
			Status: []TaskStatus{StatusAssigned, StatusInProgress, StatusAwaitingReview, StatusAccepted}[i%4], Rounds: i % 3, LastReason: v(i + 6)}
		s.TaskOrder = append(s.TaskOrder, taskID)
		f := s.Features[feature]
		if f == nil {
			f = &Feature{ID: feature, Shipped: i%5 == 0}
			s.Features[feature] = f
			s.FeatureOrder = append(s.FeatureOrder, feature)
		}
		f.Tasks = append(f.Tasks, taskID)
	}
	return s
}

func assertRendersAsReference(t *testing.T, name string, s *State) {
	t.Helper()
	want := referenceRenderBytes(s)
	got := RenderBytes(s)
	if !bytes.Equal(got, want) {
		i := 0
		for i < len(got) && i < len(want) && got[i] == want[i] {
			i++
		}
		lo := max(0, i-200)
		t.Fatalf("%s: render differs from yaml.v3's at byte %d:\n got  %q\n want %q", name, i, got[lo:min(len(got), i+100)], want[lo:min(len(want), i+100)])
	}
	if !RenderMatches(s, want) {
		t.Fatalf("%s: RenderMatches is false on yaml.v3's render", name)
	}
	var buf bytes.Buffer
	if err := Render(&buf, s); err != nil || !bytes.Equal(buf.Bytes(), want) {
		t.Fatalf("%s: Render and RenderBytes differ (err %v)", name, err)
	}
	// The tasks in ranges of every few sizes, rendered in turn and by
	// several workers at once, join into the same bytes: a range may end
	// after any value (a literal block's last break among them).
	for _, plan := range []ranges.Plan{{PerRange: 1, Workers: 1}, {PerRange: 1, Workers: 3}, {PerRange: 2, Workers: 2}, {PerRange: 3, Workers: 4}, {PerRange: 5, Workers: 2}, {PerRange: 64, Workers: 2}} {
		var got []byte
		renderChunksWith(s, func(b []byte) bool { got = append(got, b...); return true }, plan)
		if !bytes.Equal(got, want) {
			t.Fatalf("%s: rendered in ranges of %d tasks by %d workers, the render differs from yaml.v3's", name, plan.PerRange, plan.Workers)
		}
	}
}

// TestRenderMatchesReference: the append-based renderer writes, byte for
// byte, what the yaml.v3 renderer wrote, on the test logs, on generated
// logs with defects and on states full of strings YAML must quote.
func TestRenderMatchesReference(t *testing.T) {
	t.Parallel()
	logs, _ := filepath.Glob(filepath.Join("testdata", "logs", "*.jsonl"))
	logs = append(logs, filepath.Join("..", "schemas", "testdata", "corpus.jsonl"))
	for _, p := range logs {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		assertRendersAsReference(t, p, replay(parseBytes(data)).State)
	}
	for _, cfg := range []loggen.Config{{Lines: 3000, Seed: 1}, {Lines: 3000, Seed: 2, Defects: 0.05, Swaps: 0.05}} {
		var buf bytes.Buffer
		if _, err := loggen.Write(&buf, cfg); err != nil {
			t.Fatal(err)
		}
		assertRendersAsReference(t, "loggen", replay(parseBytes(buf.Bytes())).State)
	}
	assertRendersAsReference(t, "empty state", NewState())
	assertRendersAsReference(t, "tricky strings", trickyState(renderTricky))
	// Large enough to be handed on in several chunks.
	var many []string
	for i := range 5000 {
		many = append(many, renderTricky[i%len(renderTricky)]+strings.Repeat("x", i%7))
	}
	assertRendersAsReference(t, "many chunks", trickyState(many))
	// Long texts, so that ranges end at their bytes (internal/ranges' bound) in every
	// plan, after values of every style: a literal block kept with its
	// last breaks, double-quoted, escaped whole after a byte order mark,
	// binary.
	grow := map[string]func(string) string{
		"a\n\n":             func(v string) string { return strings.Repeat("long\n", 12<<10) + v },
		"a \nb":             func(v string) string { return strings.Repeat("long \n", 10<<10) + v },
		"\ufeffabc":         func(v string) string { return v + strings.Repeat("long", 16<<10) },
		"invalid \xff utf8": func(v string) string { return v + strings.Repeat("long", 16<<10) },
	}
	var long []string
	for _, v := range renderTricky {
		if f := grow[v]; f != nil {
			v = f(v)
		}
		long = append(long, v)
	}
	assertRendersAsReference(t, "long texts", trickyState(long))
}

func TestRenderMatches(t *testing.T) {
	t.Parallel()
	s := trickyState(renderTricky)
	b := RenderBytes(s)
	if !RenderMatches(s, b) {
		t.Fatal("RenderMatches is false on the state's own render")
	}
	flip := append([]byte(nil), b...)
	flip[len(flip)/2] ^= 1
	for name, other := range map[string][]byte{
		"a byte changed": flip, "cut short": b[:len(b)-1], "a byte more": append(append([]byte(nil), b...), '\n'),
		"empty": {}, "nil": nil, "CRLF": bytes.ReplaceAll(b, []byte("\n"), []byte("\r\n")),
	} {
		if RenderMatches(s, other) {
			t.Errorf("%s: RenderMatches is true", name)
		}
	}
}

// TestRenderStopsItsWorkers: a render that emit stops early returns with
// none of its workers left running, however far ahead they were. Not
// parallel: it counts the test binary's goroutines.
func TestRenderStopsItsWorkers(t *testing.T) {
	s := trickyState(renderTricky)
	for _, plan := range []ranges.Plan{{PerRange: 1, Workers: 4}, {PerRange: 2, Workers: 2}} {
		for range 50 {
			chunks := 0
			if renderChunksWith(s, func([]byte) bool { chunks++; return false }, plan) || chunks != 1 {
				t.Fatalf("a render stopped at its first chunk went on (%d chunks)", chunks)
			}
			// No wait: stop returns once every worker's function has.
			if workers := renderWorkers(); workers != 0 {
				t.Fatalf("a render stopped early left %d range workers running", workers)
			}
		}
	}
}

// TestRenderStopsAtEveryChunk: whichever chunk emit stops at, the last
// among them, the render says it stopped (RenderMatches counts on it; a
// Render's error hides it, so TestRenderWriteFails does not see it), hands
// on nothing after it, and leaves no range worker running; one never
// stopped says it was not. Not parallel: it reads every goroutine's stack.
func TestRenderStopsAtEveryChunk(t *testing.T) {
	s := trickyState(renderTricky)
	for _, plan := range []ranges.Plan{{PerRange: 1, Workers: 1}, {PerRange: 1, Workers: 4}, {PerRange: 2, Workers: 2}, {PerRange: 3, Workers: 3}, {PerRange: 64, Workers: 2}} {
		all := 0
		if !renderChunksWith(s, func([]byte) bool { all++; return true }, plan) {
			t.Fatalf("plan %+v: a render never stopped says it stopped", plan)
		}
		for stop := range all {
			chunks := 0
			if renderChunksWith(s, func([]byte) bool { chunks++; return chunks <= stop }, plan) || chunks != stop+1 {
				t.Fatalf("plan %+v, stopped at chunk %d of %d: the render went on to %d chunks, or said it was not stopped", plan, stop, all, chunks)
			}
			if workers := renderWorkers(); workers != 0 {
				t.Fatalf("plan %+v, stopped at chunk %d of %d: %d range workers still run", plan, stop, all, workers)
			}
		}
	}
}

// FuzzRenderDifferential: for any log, the state renders as yaml.v3
// rendered it.
//
//	go test ./projection/ -run '^$' -fuzz FuzzRenderDifferential -fuzztime 60s
func FuzzRenderDifferential(f *testing.F) {
	logs, _ := filepath.Glob(filepath.Join("testdata", "logs", "*.jsonl"))
	for _, p := range logs {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add(shipped().bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		assertRendersAsReference(t, "fuzzed log", replay(parseBytes(data)).State)
	})
}

// FuzzRenderStrings: a state holding any strings, valid UTF-8 or not,
// renders as yaml.v3 rendered it.
//
//	go test ./projection/ -run '^$' -fuzz FuzzRenderStrings -fuzztime 60s
func FuzzRenderStrings(f *testing.F) {
	for i, s := range renderTricky {
		f.Add(s, renderTricky[(i+3)%len(renderTricky)], renderTricky[(i+11)%len(renderTricky)])
	}
	f.Fuzz(func(t *testing.T, a, b, c string) {
		assertRendersAsReference(t, "fuzzed strings", trickyState([]string{a, b, c, a + b, c + "\n" + a}))
	})
}

// BenchmarkRender compares the append-based renderer with the yaml.v3 one
// it replaced, on the state of a generated 100k-event log:
//
//	go test ./projection/ -run '^$' -bench Render -count 6 | benchstat -col /impl -
func BenchmarkRender(b *testing.B) {
	var buf bytes.Buffer
	if _, err := loggen.Write(&buf, loggen.Config{Lines: 100_000, Seed: 1, Swaps: 0.01}); err != nil {
		b.Fatal(err)
	}
	st := replay(parseBytes(buf.Bytes())).State
	for _, impl := range []struct {
		name   string
		render func(*State) []byte
	}{{"append", RenderBytes}, {"yaml.v3", referenceRenderBytes}} {
		b.Run("impl="+impl.name, func(b *testing.B) {
			b.SetBytes(int64(len(RenderBytes(st))))
			for b.Loop() {
				impl.render(st)
			}
		})
	}
}

// TestRenderHoldsAFewRanges: a render holds a few ranges of tasks at a
// time, and a range is bounded in bytes as well as in tasks, so what a
// render allocates does not grow with the tasks' texts. The attack story:
// a log of long change requests made a range of 1024 tasks as large as
// their reasons, and four times as large when each reason starts with a
// byte order mark (every character is then escaped), several ranges held
// at once by validate's drift check and by every writer: 1.4 GB allocated
// to render 256 tasks of 256 KB reasons, 5 GB for 1024 of them, where the
// render streamed before. Not parallel: it counts the test binary's
// allocations.
func TestRenderHoldsAFewRanges(t *testing.T) {
	const tasks, reasonBytes = 256, 256 << 10
	reason := strings.Repeat("a", reasonBytes)
	s := NewState()
	s.Project, s.ProtocolVersion, s.BaseBranch = "p", 1, "main"
	s.Features["F"] = &Feature{ID: "F"}
	s.FeatureOrder = []string{"F"}
	for i := range tasks {
		id := fmt.Sprintf("T%d", i)
		s.Tasks[id] = &Task{ID: id, Feature: "F", Owner: "o", Reviewer: "r", Branch: "b", Spec: "s", Status: StatusInProgress, Rounds: 1, LastReason: reason}
		s.TaskOrder = append(s.TaskOrder, id)
		s.Features["F"].Tasks = append(s.Features["F"].Tasks, id)
	}
	for _, plan := range []ranges.Plan{{PerRange: 1024, Workers: 1}, {PerRange: 1024, Workers: 4}, {PerRange: 64, Workers: 2}} {
		rendered := 0
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		renderChunksWith(s, func(b []byte) bool { rendered += len(b); return true }, plan)
		runtime.ReadMemStats(&after)
		// 64 MB rendered; a few ranges of a few tasks are a few MB.
		if grew := after.TotalAlloc - before.TotalAlloc; grew > uint64(rendered/8) {
			t.Errorf("ranges of %d tasks by %d workers: rendering %d MB allocated %d MB", plan.PerRange, plan.Workers, rendered>>20, grew>>20)
		}
	}
}
