package report

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/pactfile"
	"github.com/pact-action/pact-action/projection"
)

func TestPlain(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"":                                        "",
		"waiting for T3 (feature SIGNUP)":         "waiting for T3 (feature SIGNUP)",
		"`pactify accept` | *x* _y_ <sub>":        "`pactify accept` | *x* _y_ <sub>", // Markdown is not special here
		"tab\tstays":                              "tab\tstays",
		"é ✅ 漢字":                                  "é ✅ 漢字",
		"multi\nline\r\nmessage\rend":             "multi line message end",
		"\x1b[2J\x1b]0;title\x07":                 `\x1b[2J\x1b]0;title\x07`,
		"del\x7f nul\x00":                         `del\x7f nul\x00`,
		"del\x7f alone":                           `del\x7f alone`, // no control below the space to send it through the escape
		"c1 \u0085 \u009b31m":                     `c1 \u0085 \u009b31m`,
		"bidi \u202eevil\u202c \u2066x\u2069":     `bidi \u202eevil\u202c \u2066x\u2069`,
		"marks \u200e\u200f\u061c":                `marks \u200e\u200f\u061c`,
		"zero\u200bwidth\u200c\u200d\u2060\ufeff": `zero\u200bwidth\u200c\u200d\u2060\ufeff`,
		"separators \u2028\u2029":                 `separators \u2028\u2029`,
		"bad \xff utf8":                           "bad \uFFFD utf8",
	} {
		if got := Plain(in); got != want {
			t.Errorf("Plain(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzPlain: whatever the input, Plain's output is valid UTF-8 on one line
// with no control character but tab and no bidirectional override, and
// text that needs nothing is returned as it is.
//
//	go test ./report/ -run '^$' -fuzz '^FuzzPlain$' -fuzztime 20s
func FuzzPlain(f *testing.F) {
	for _, s := range []string{"", "plain", "\x1b[31mred", "a\r\nb", "\u202e", "\xff\xfe", "\u0085"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Plain(s)
		if !utf8.ValidString(out) {
			t.Fatalf("Plain(%q) = %q is not UTF-8", s, out)
		}
		for _, r := range out {
			if r != '\t' && hidden(r) {
				t.Fatalf("Plain(%q) = %q keeps %U", s, out, r)
			}
		}
		if !hasHidden(s) && !strings.Contains(s, "\n") && out != s {
			t.Fatalf("Plain changed %q, which needs nothing, to %q", s, out)
		}
	})
}

// TestCheckText: the local preview's text for a PR on feat/cli of the many
// pact, against testdata/golden/check.txt (go test ./report/ -run
// CheckText -update), and none of the Markdown the check run's summary is.
func TestCheckText(t *testing.T) {
	t.Parallel()
	in := loadPact(t, "many")
	findings := append(checks.Run(in), checks.Waiting(in.LogPath(), in.Replay.State, "feat/cli", nil, nil, nil)...)
	checks.Sort(findings)
	for _, c := range []struct {
		name   string
		branch string
	}{{"check", "feat/cli"}, {"check-all", ""}, {"check-nobranch", "feat/none"}} {
		var buf bytes.Buffer
		v := Verdict{CheckName: "pact", HeadBranch: c.branch, Findings: findings, State: in.Replay.State, Note: "Local preview: this is what the check run would show."}
		if err := WriteCheckText(&buf, v); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		golden(t, filepath.Join("testdata", "golden", c.name+".txt"), buf.Bytes())
		for _, md := range []string{`\(`, `\_`, "\\`", "| ", "<sub>", "**", "##", "&lt;", "&amp;", "\u200b"} {
			if strings.Contains(out, md) {
				t.Errorf("%s: the terminal text holds Markdown %q:\n%s", c.name, md, out)
			}
		}
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if n := len(lines); n < 3 || lines[n-3] != "pact: "+Title(findings)+" [failure]" || lines[n-1] != v.Note {
			t.Errorf("%s: the verdict is not last:\n%s", c.name, out)
		}
	}
}

// TestCheckTextIsInert: text from the log reaches a terminal only through
// Plain, wherever it shows.
func TestCheckTextIsInert(t *testing.T) {
	t.Parallel()
	evil := "T\x1b]52;c;ZXZpbA==\x07\u202e"
	log := []byte(`{"event_id":"e1","ts":"2026-06-09T10:00:00Z","agent_id":"o","role":"orchestrator","event_type":"init","task_id":"","feature":"","payload":{"project":"p","protocol_version":1,"seats":[{"id":"o","roles":["orchestrator","reviewer"],"entry":"A.md"},{"id":"w","roles":["worker"],"entry":"A.md"}],"base_branch":"main"}}
{"event_id":"e2","ts":"2026-06-09T10:01:00Z","agent_id":"o","role":"orchestrator","event_type":"assign","task_id":"` + jsonString(evil) + `","feature":"` + jsonString(evil) + `","payload":{"owner":"w","reviewer":"o","branch":"` + jsonString(evil) + `","spec":"x.md"}}
`)
	in := checks.Input{Dir: pactfile.DefaultDir, TaskFiles: map[string][]byte{}}
	in = withLog(in, log)
	findings := append(checks.Run(in), checks.Waiting(in.LogPath(), in.Replay.State, evil, nil, nil, nil)...)
	for _, branch := range []string{evil, ""} {
		var buf bytes.Buffer
		if err := WriteCheckText(&buf, Verdict{CheckName: "pact", HeadBranch: branch, HeadSHA: evil, Findings: findings, State: in.Replay.State}); err != nil {
			t.Fatal(err)
		}
		var text bytes.Buffer
		if err := WriteText(&text, findings); err != nil {
			t.Fatal(err)
		}
		for _, out := range []string{buf.String(), text.String()} {
			if strings.ContainsAny(out, "\x1b\x07\u202e") {
				t.Errorf("a control character reached the terminal:\n%q", out)
			}
			if !strings.Contains(out, `T\x1b]52;c;ZXZpbA==\x07\u202e`) {
				t.Errorf("the task id is not shown escaped:\n%q", out)
			}
		}
	}
}

// withLog is in with the log data replayed, as pactdir loads it.
func withLog(in checks.Input, data []byte) checks.Input {
	log, res := projection.ReadEvents(data)
	in.Scan, in.Replay = &log.Scan, res
	return in
}

// jsonString is s as the inside of a JSON string.
func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}
