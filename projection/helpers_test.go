package projection

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	goldenfile "github.com/pact-action/pact-action/internal/testkit/golden"
	"github.com/pact-action/pact-action/projection/internal/lean"
)

// update rewrites the golden files instead of comparing with them:
// go test ./projection/ -run Golden -update

// The roster every table test starts from. Roles are chosen so each roster
// rule can be hit on its own: opencode only works, gpt only reviews,
// claude-opus does both.
const rosterJSON = `[{"id":"lead","roles":["orchestrator"],"entry":"AGENTS.md"},` +
	`{"id":"opencode","roles":["worker"],"entry":"AGENTS.md"},` +
	`{"id":"claude-opus","roles":["reviewer","worker"],"entry":"CLAUDE.md"},` +
	`{"id":"gpt","roles":["reviewer"],"entry":"AGENTS.md"}]`

// at returns the n-th second of the test day.
func at(n int) string {
	return fmt.Sprintf("2026-06-09T10:%02d:%02dZ", n/60, n%60)
}

// evLine renders one event line in the spec's field order. role "" means the
// role the event type implies; payload "" means {}.
func evLine(id, when, agent, role, typ, task, feature, payload string) string {
	if role == "" {
		role = RoleFor(typ)
	}
	if payload == "" {
		payload = "{}"
	}
	q := func(s string) string {
		b, err := json.Marshal(s)
		if err != nil {
			panic(err)
		}
		return string(b)
	}
	return fmt.Sprintf(`{"event_id":%s,"ts":%s,"agent_id":%s,"role":%s,"event_type":%s,"task_id":%s,"feature":%s,"payload":%s}`,
		q(id), q(when), q(agent), q(role), q(typ), q(task), q(feature), payload)
}

// logb builds a log one line at a time. Every builder event gets the next
// second as its ts and e<line> as its event_id, so line n has at(n).
type logb struct{ lines []string }

func (l *logb) n() int { return len(l.lines) + 1 }

func (l *logb) add(s string) *logb { l.lines = append(l.lines, s); return l }

func (l *logb) ev(agent, typ, task, feature, payload string) *logb {
	n := l.n()
	return l.add(evLine(fmt.Sprintf("e%d", n), at(n), agent, "", typ, task, feature, payload))
}

func (l *logb) init() *logb {
	return l.ev("lead", TypeInit, "", "", initPayload(rosterJSON))
}

func initPayload(seats string) string {
	return `{"project":"demo","protocol_version":1,"seats":` + seats + `,"base_branch":"main"}`
}

func assignPayload(owner, reviewer string) string {
	return fmt.Sprintf(`{"owner":%q,"reviewer":%q,"branch":"feat/x","spec":".pact/tasks/x.md"}`, owner, reviewer)
}

func (l *logb) assign(task, feature, owner, reviewer string) *logb {
	return l.ev("lead", TypeAssign, task, feature, assignPayload(owner, reviewer))
}

func (l *logb) join(seat string) *logb {
	return l.ev(seat, TypeJoin, "", "", `{"roles":["worker"]}`)
}

func (l *logb) checkpoint(agent, task, feature string) *logb {
	return l.ev(agent, TypeCheckpoint, task, feature, `{"evidence":"tests pass"}`)
}

func (l *logb) accept(agent, task, feature string) *logb {
	return l.ev(agent, TypeAccept, task, feature, "")
}

func (l *logb) changes(agent, task, feature string) *logb {
	return l.ev(agent, TypeChangesRequested, task, feature, `{"reason":"needs tests"}`)
}

func (l *logb) merge(agent, feature string) *logb {
	return l.ev(agent, TypeMerge, "", feature, "")
}

// started is init, T1 of F (opencode/claude-opus) assigned and joined: T1 is
// in_progress on line 3.
func started() *logb {
	return new(logb).init().assign("T1", "F", "opencode", "claude-opus").join("opencode")
}

// review is started plus the checkpoint: T1 awaits review (line 4).
func review() *logb { return started().checkpoint("opencode", "T1", "F") }

// shipped is review plus accept and merge: F shipped on line 6.
func shipped() *logb { return review().accept("claude-opus", "T1", "F").merge("lead", "F") }

func (l *logb) bytes() []byte {
	if len(l.lines) == 0 {
		return nil
	}
	return []byte(strings.Join(l.lines, "\n") + "\n")
}

func (l *logb) replay() *Result { return replay(parseBytes(l.bytes())) }

// rej is the part of a rejection table tests pin down.
type rej struct {
	Line    int
	Code    Code
	Task    string
	Feature string
}

func (r rej) String() string {
	return fmt.Sprintf("line %d %s task=%q feature=%q", r.Line, r.Code, r.Task, r.Feature)
}

// noInit is the lineless init.missing a replay adds when no init was applied.
var noInit = rej{Code: CodeInitMissing}

func rejs(res *Result) []rej {
	out := []rej{}
	for _, r := range res.Rejections {
		out = append(out, rej{r.Line, r.Code, r.TaskID, r.Feature})
	}
	return out
}

// malformedRejs folds the parse-time findings in: they are rejections to the
// reader of a log too.
func allFindings(log *Scan, res *Result) []rej {
	out := []rej{}
	for _, m := range log.Malformed {
		out = append(out, rej{Line: m.Line, Code: CodeMalformedJSON})
	}
	return append(out, rejs(res)...)
}

func assertRejs(t *testing.T, got []rej, want []rej) {
	t.Helper()
	if want == nil {
		want = []rej{}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("rejections:\n got  %v\n want %v", got, want)
	}
}

// statuses lists task and feature statuses as "T1=accepted F=shipped", tasks
// in assign order then features in first-assign order.
func statuses(s *State) string {
	var parts []string
	for _, id := range s.TaskOrder {
		parts = append(parts, fmt.Sprintf("%s=%s", id, s.Tasks[id].Status))
	}
	for _, id := range s.FeatureOrder {
		parts = append(parts, fmt.Sprintf("%s=%s", id, s.FeatureStatus(id)))
	}
	return strings.Join(parts, " ")
}

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// golden compares got with the file, or rewrites it under -update.
func golden(t *testing.T, path string, got []byte) { t.Helper(); goldenfile.Check(t, path, got) }

// readParallel is Read, with its sizes given (tests make them small).
func readParallel(r io.Reader, reserve string, workers, chunk int) (*Log, *Result, error) {
	reserved := reservation(reserve)
	var lookup []string
	if reserve != "" {
		lookup = []string{reserve}
	}
	lr, err := lean.Read(r, leanDecoder, lean.Options{Workers: workers, Chunk: chunk, Lookup: lookup})
	for id := range reserved {
		reserved[id] = lr.FirstLines[id]
	}
	log := &Log{Scan: lr.Scan, latest: lr.Latest, reserved: reserved}
	if err != nil {
		return log, nil, err
	}
	return log, replayLean(lr), nil
}
