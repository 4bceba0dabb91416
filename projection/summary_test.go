package projection

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func replayFile(t *testing.T, name string) *Result {
	t.Helper()
	return replay(parseBytes(readFile(t, filepath.Join("testdata", "logs", name+".jsonl"))))
}

// Renders of testdata/logs/full.jsonl in other implementations' shapes. Each
// must mean exactly what our own render means.
var equivalentFull = map[string]string{
	"maps keyed by id, agents section, tasks nested under features": `
# written by pact.sh
tasks_total: 4
agents:
  opencode: {roles: [worker], online: yes}
  lead:
    roles: [orchestrator]
  gpt: {roles: reviewer}
  claude-opus:
    entry: CLAUDE.md
    roles: "worker, reviewer"
project:
  name: "demo"
  protocol_version: 1
features:
  DOCS:
    tasks:
      T4: {reviewer: gpt, owner: claude-opus, status: assigned}
    status: planned
  VALIDATE:
    state: in_progress
    tasks:
      T3:
        state: in_progress
        owner: 'opencode'
        reviewer: "gpt"
  CLI-INIT:
    status: "shipped"
    tasks:
      T2: {owner: claude-opus, reviewer: gpt, status: accepted}
      T1: {owner: opencode, reviewer: claude-opus, status: accepted, rounds: 1}
`,
	"lists with name keys, features as id to status, top-level task map": `
project: 'demo'
seats:
  - name: lead
    roles: [orchestrator]
  - {name: opencode, roles: [worker]}
  - name: claude-opus
    roles:
      - reviewer
      - worker
  - name: gpt
    roles: [reviewer]
features:
  CLI-INIT: shipped
  VALIDATE: in_progress
  DOCS: planned
tasks:
  T4: {feature: DOCS, status: assigned, owner: claude-opus, reviewer: gpt}
  T3: {feature: VALIDATE, status: in_progress, owner: opencode, reviewer: gpt}
  T2: {feature: CLI-INIT, status: accepted, owner: claude-opus, reviewer: gpt}
  T1: {feature: CLI-INIT, status: accepted, owner: opencode, reviewer: claude-opus}
`,
	"seats without roles are compared on presence only": `
project: demo
seats: [lead, opencode, claude-opus, gpt]
features: [{id: CLI-INIT, status: shipped}, {id: VALIDATE, status: in_progress}, {id: DOCS, status: planned}]
tasks:
  - {id: T1, status: accepted, owner: opencode, reviewer: claude-opus}
  - {id: T2, status: accepted, owner: claude-opus, reviewer: gpt}
  - {id: T3, status: in_progress, owner: opencode, reviewer: gpt}
  - {id: T4, status: assigned, owner: claude-opus, reviewer: gpt}
`,
	"CRLF line endings and a BOM-free flow document": "{project: demo, seats: {lead: [orchestrator], opencode: [worker], claude-opus: [worker, reviewer], gpt: [reviewer]},\r\n" +
		" features: {CLI-INIT: {status: shipped}, VALIDATE: {status: in_progress}, DOCS: {status: planned}},\r\n" +
		" tasks: {T1: {status: accepted, owner: opencode, reviewer: claude-opus}, T2: {status: accepted, owner: claude-opus, reviewer: gpt},\r\n" +
		"  T3: {status: in_progress, owner: opencode, reviewer: gpt}, T4: {status: assigned, owner: claude-opus, reviewer: gpt}}}\r\n",
}

func TestDriftEquivalentShapes(t *testing.T) {
	t.Parallel()
	want := Summarize(replayFile(t, "full").State)
	for name, doc := range equivalentFull {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseStateSummary([]byte(doc))
			if err != nil {
				t.Fatal(err)
			}
			if d := Diff(want, got); len(d) != 0 {
				t.Errorf("an equivalent STATE.yml drifts:\n%s", strings.Join(d, "\n"))
			}
		})
	}
}

// TestDriftUnquotedScalarIDs: another implementation that writes ids and the
// project name without quotes, as map keys or values, means the same strings
// (YAML would read 1 as a number, yes as a string, null as null, 1.0 as a
// float; the meaning of a STATE.yml is its text).
func TestDriftUnquotedScalarIDs(t *testing.T) {
	t.Parallel()
	res := new(logb).
		raw("lead", "", TypeInit, "", "", `{"project":"2026","protocol_version":1,"seats":[{"id":"lead","roles":["orchestrator"],"entry":"A"},`+
			`{"id":"7","roles":["worker","reviewer"],"entry":"A"},{"id":"true","roles":["reviewer"],"entry":"A"},{"id":"null","roles":["reviewer"],"entry":"A"}]`+
			`,"base_branch":"main"}`).
		assign("1", "1.0", "7", "true").assign("null", "~", "7", "null").assign("010", "1.0", "7", "true").
		replay()
	assertRejs(t, rejs(res), nil)
	want := Summarize(res.State)
	doc := `
project: 2026
seats:
  lead: [orchestrator]
  7: [worker, reviewer]
  true: [reviewer]
  null: [reviewer]
features:
  1.0:
    status: planned
    tasks:
      1: {owner: 7, reviewer: true, status: assigned}
      010: {owner: 7, reviewer: true, status: assigned}
  ~:
    status: planned
    tasks:
      null: {owner: 7, reviewer: null, status: assigned}
`
	got, err := ParseStateSummary([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if d := Diff(want, got); len(d) != 0 {
		t.Errorf("unquoted ids drift:\n%s", strings.Join(d, "\n"))
	}
}

func TestDriftEachKindOfDifference(t *testing.T) {
	t.Parallel()
	want := Summarize(replayFile(t, "full").State)
	base := string(RenderBytes(replayFile(t, "full").State))
	cases := []struct {
		name     string
		from, to string
		diff     []string
	}{
		{"project", "project: demo", "project: other",
			[]string{`project: STATE.yml says "other", the log says "demo"`}},
		{"seat missing", "  - id: gpt\n    roles: [reviewer]\n    entry: AGENTS.md\n    online: false\n", "",
			[]string{"seat gpt: missing from STATE.yml"}},
		{"seat extra", "seats:\n", "seats:\n  - id: ghost\n    roles: [worker]\n",
			[]string{"seat ghost: in STATE.yml but not declared in the log"}},
		{"seat roles", "roles: [reviewer, worker]", "roles: [reviewer]",
			[]string{"seat claude-opus roles: STATE.yml says [reviewer], the log says [reviewer, worker]"}},
		{"feature missing", "  - id: DOCS\n    status: planned\n    tasks: [T4]\n", "",
			[]string{"feature DOCS: missing from STATE.yml (the log says planned)"}},
		{"feature extra", "features:\n", "features:\n  - id: GHOST\n    status: planned\n",
			[]string{"feature GHOST: in STATE.yml but has no task in the log"}},
		{"feature status", "    status: shipped\n", "    status: accepted\n",
			[]string{"feature CLI-INIT status: STATE.yml says accepted, the log says shipped"}},
		{"feature status absent", "    status: shipped\n    tasks: [T1, T2]\n", "    tasks: [T1, T2]\n",
			[]string{"feature CLI-INIT status: STATE.yml says nothing, the log says shipped"}},
		{"task missing", "  - id: T4\n", "  - idx: T4\n",
			[]string{"task T4: missing from STATE.yml (the log says assigned)"}},
		{"task extra", "tasks:\n", "tasks:\n  - id: T9\n    status: assigned\n",
			[]string{"task T9: in STATE.yml but never assigned in the log"}},
		{"task status", "    status: assigned\n", "    status: in_progress\n",
			[]string{"task T4 status: STATE.yml says in_progress, the log says assigned"}},
		{"task owner", "    owner: claude-opus\n    reviewer: gpt\n    branch: docs\n", "    owner: gpt\n    reviewer: gpt\n    branch: docs\n",
			[]string{"task T4 owner: STATE.yml says gpt, the log says claude-opus"}},
		{"task reviewer", "    reviewer: gpt\n    branch: docs\n", "    reviewer: lead\n    branch: docs\n",
			[]string{"task T4 reviewer: STATE.yml says lead, the log says gpt"}},
		{"several at once, sorted", "project: demo", "project: x\nagents: {}",
			[]string{`project: STATE.yml says "x", the log says "demo"`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			doc := strings.Replace(base, tc.from, tc.to, 1)
			if doc == base {
				t.Fatalf("replacement of %q did not apply", tc.from)
			}
			got, err := ParseStateSummary([]byte(doc))
			if err != nil {
				t.Fatal(err)
			}
			d := Diff(want, got)
			if !reflect.DeepEqual(d, tc.diff) {
				t.Errorf("diff:\n got  %q\n want %q", d, tc.diff)
			}
		})
	}
	t.Run("everything differs: one line each, sorted", func(t *testing.T) {
		t.Parallel()
		got, err := ParseStateSummary([]byte("project: x\nseats: {ghost: [worker]}\nfeatures: {NEW: planned}\ntasks: {T9: {status: assigned}}\n"))
		if err != nil {
			t.Fatal(err)
		}
		d := Diff(want, got)
		if len(d) != 1+4+1+3+1+4+1 {
			t.Errorf("%d differences, want 15:\n%s", len(d), strings.Join(d, "\n"))
		}
		for i := 1; i < len(d); i++ {
			if d[i-1] > d[i] {
				t.Errorf("not sorted at %d: %q > %q", i, d[i-1], d[i])
			}
		}
	})
}

func TestParseStateSummaryRejects(t *testing.T) {
	t.Parallel()
	for name, doc := range map[string]string{
		"not YAML":     "project: [unclosed\n",
		"a list":       "- project: demo\n",
		"a scalar":     "demo\n",
		"empty":        "",
		"comment only": "# nothing\n",
		"tab indent":   "project: demo\n\tseats: []\n",
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if _, err := ParseStateSummary([]byte(doc)); err == nil {
				t.Errorf("%q parsed without error", doc)
			}
		})
	}
}

func TestParseStateSummaryAliasBomb(t *testing.T) {
	t.Parallel()
	// A hostile STATE.yml (pull requests carry their own) must not expand
	// aliases exponentially.
	var b strings.Builder
	b.WriteString("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i < 30; i++ {
		b.WriteString("a" + itoa(i) + ": &a" + itoa(i) + " [")
		for j := 0; j < 10; j++ {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString("*a" + itoa(i-1))
		}
		b.WriteString("]\n")
	}
	b.WriteString("tasks: *a29\nseats: *a29\nfeatures: *a29\n")
	_, err := ParseStateSummary([]byte(b.String()))
	if err == nil || !strings.Contains(err.Error(), "too large") {
		t.Errorf("an alias bomb must be refused as too large, got %v", err)
	}
	// The budget grows with the file: a STATE.yml of millions of tasks has
	// millions of nodes, aliases or not.
	for _, tc := range []struct{ size, want int }{{0, maxStateNodes}, {maxStateNodes, maxStateNodes}, {100 << 20, 100 << 20}} {
		if got := stateNodeBudget(tc.size); got != tc.want {
			t.Errorf("stateNodeBudget(%d) = %d, want %d", tc.size, got, tc.want)
		}
	}
}

func TestParseStateSummaryRecursiveAlias(t *testing.T) {
	t.Parallel()
	for _, doc := range []string{"a: &a [*a]\n", "a: &a {b: *a}\nseats: *a\n", "tasks: &t {T1: {x: *t}}\n"} {
		if _, err := ParseStateSummary([]byte(doc)); err == nil {
			t.Errorf("%q: a recursive alias must be an error", doc)
		}
	}
	// A plain (non-recursive) alias is followed.
	sum, err := ParseStateSummary([]byte("r: &r [worker]\nseats: {opencode: {roles: *r}, claude-opus: {roles: *r}}\n"))
	if err != nil || len(sum.Seats["claude-opus"]) != 1 || sum.Seats["claude-opus"][0] != "worker" {
		t.Errorf("alias not followed: %+v %v", sum.Seats, err)
	}
}

// TestYAMLStateBounded: a STATE.yml not in our own format is read as YAML
// up to maxYAMLStateBytes and refused past it (a YAML reading holds about a
// hundred bytes per byte); our own render of any size is not bounded.
func TestYAMLStateBounded(t *testing.T) {
	t.Parallel()
	foreign := func(size int) []byte {
		b := []byte("project: demo\nnotes: |\n")
		for len(b) < size-1 {
			b = append(b, "  x\n"...)
		}
		return append(b[:size-1], '\n')
	}
	if _, err := ParseStateSummary(foreign(maxYAMLStateBytes)); err != nil {
		t.Errorf("a foreign STATE.yml of exactly the bound: %v", err)
	}
	_, err := ParseStateSummary(foreign(maxYAMLStateBytes + 1))
	if err == nil || !strings.Contains(err.Error(), "larger than the 2 MiB read as YAML") {
		t.Errorf("a foreign STATE.yml one byte over the bound: %v", err)
	}
}
