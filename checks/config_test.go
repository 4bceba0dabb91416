package checks

import (
	"strings"
	"testing"

	"github.com/pact-action/pact-action/config"
	"github.com/pact-action/pact-action/projection"
)

const configLog = `{"event_id":"e1","ts":"2026-06-09T10:00:01Z","agent_id":"lead","role":"orchestrator","event_type":"init","task_id":"","feature":"","payload":{"project":"demo","protocol_version":1,"seats":[{"id":"lead","roles":["orchestrator"],"entry":"AGENTS.md"},{"id":"opencode","roles":["worker"],"entry":"AGENTS.md"},{"id":"claude-opus","roles":["reviewer"],"entry":"CLAUDE.md"}],"base_branch":"main"}}
`

func replayed(t *testing.T, log string) (*projection.EventLog, *projection.Result) {
	t.Helper()
	l, r := projection.ReadEvents([]byte(log))
	return l, r
}

func TestConfig(t *testing.T) {
	_, res := replayed(t, configLog)
	if !res.State.Initialized {
		t.Fatalf("test log did not initialize: %+v", res.Rejections)
	}
	_, empty := replayed(t, "")
	const path = ".github/pact.yml"
	type want struct {
		line int
		msg  string
	}
	for _, tc := range []struct {
		name  string
		raw   []byte
		state *projection.State
		want  []want
	}{
		{"no file", nil, res.State, nil},
		{"empty file", []byte{}, res.State, nil},
		{"only comments", []byte("# later\n"), res.State, nil},
		{"valid, seats in the roster", []byte("seats:\n  claude-opus: [octocat]\n  opencode: [hubot, \"opencode-agent[bot]\"]\nprovenance:\n  mode: warn\n  stale: tree\n"), res.State, nil},
		{"not YAML", []byte("seats:\n  lead: [a\n"), res.State, []want{{-1, "not usable YAML"}}},
		{"unknown top-level key", []byte("seats: {}\nreviewers: [octocat]\n"), res.State, []want{{2, `unknown key "reviewers"`}}},
		{"every problem is a finding", []byte("provenance:\n  mode: strict\n  extra: 1\n"), res.State, []want{{2, "provenance.mode"}, {3, `unknown key "extra"`}}},
		{"seats outside the roster", []byte("seats:\n  lead: [a]\n  gpt: [b]\n  claude: [c]\n"), res.State, []want{{0, `seat "claude"`}, {0, `seat "gpt"`}}},
		{"no init: the roster is not compared", []byte("seats: {gpt: [b]}\n"), empty.State, nil},
		{"no init: a broken file is still reported", []byte("seats: [gpt]\n"), empty.State, []want{{1, "seats is an array"}}},
		{"nil state", []byte("seats: {gpt: [b]}\n"), nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := configFindings(path, config.ParseFile(tc.raw, "", ""), tc.state)
			if len(got) != len(tc.want) {
				t.Fatalf("Config = %+v, want %d findings", got, len(tc.want))
			}
			for i, w := range tc.want {
				f := got[i]
				if f.Code != CodeConfigInvalid || f.Severity != SeverityError || f.Path != path {
					t.Errorf("finding %d = %s %s %s, want config.invalid error on %s", i, f.Code, f.Severity, f.Path, path)
				}
				if f.Line != w.line && (w.line >= 0 || f.Line <= 0) {
					t.Errorf("finding %d line = %d, want %d", i, f.Line, w.line)
				}
				if !strings.Contains(f.Message, w.msg) {
					t.Errorf("finding %d message %q lacks %q", i, f.Message, w.msg)
				}
				if f.Hint == "" {
					t.Errorf("finding %d has no hint", i)
				}
			}
		})
	}
}

func TestRunJudgesConfig(t *testing.T) {
	log, res := replayed(t, configLog)
	in := Input{Dir: ".pact", Scan: &log.Scan, Replay: res, Config: []byte("seats:\n  lead: [a]\n  ghost: [b]\nextra: 1\n")}
	var got []Finding
	for _, f := range Run(in) {
		if f.Code == CodeConfigInvalid {
			got = append(got, f)
		}
	}
	if len(got) != 1 || got[0].Line != 4 || got[0].Path != ".github/pact.yml" {
		t.Fatalf("Run config findings = %+v, want one on line 4 of .github/pact.yml", got)
	}
	in.Config = []byte("seats:\n  lead: [a]\n  ghost: [b]\n")
	got = got[:0]
	for _, f := range Run(in) {
		if f.Code == CodeConfigInvalid {
			got = append(got, f)
		}
	}
	if len(got) != 1 || !strings.Contains(got[0].Message, `seat "ghost"`) {
		t.Fatalf("Run config findings = %+v, want one about seat ghost", got)
	}
	in.Config = nil
	for _, f := range Run(in) {
		if f.Code == CodeConfigInvalid {
			t.Errorf("no config file, yet %+v", f)
		}
	}
}
