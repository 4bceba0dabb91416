package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/projection"
)

// FuzzRender: the findings of any log, STATE.yml and PROJECT.md render in
// every format without panicking: the JSON and SARIF are JSON, the text has
// two lines a finding and no stray ones, neither text carries a control
// character to the terminal, the summary stays under GitHub's limit and
// every annotation is on a line.
//
//	go test ./report/ -run '^$' -fuzz '^FuzzRender$' -fuzztime 20s
func FuzzRender(f *testing.F) {
	for _, name := range []string{"many", "clean", "unsupported"} {
		read := func(file string) []byte { b, _ := os.ReadFile(filepath.Join(pacts, name, file)); return b }
		f.Add(read("log.jsonl"), read("STATE.yml"), read("PROJECT.md"))
	}
	f.Add([]byte{}, []byte{}, []byte{})
	f.Fuzz(func(t *testing.T, logData, state, project []byte) {
		log, res := projection.ReadEvents(logData)
		in := checks.Input{Dir: ".pact", Scan: &log.Scan, Replay: res, State: state, Project: project, TaskFiles: map[string][]byte{}}
		findings := checks.Run(in)
		var text, js, sf bytes.Buffer
		if WriteText(&text, findings) != nil || WriteJSON(&js, findings) != nil || WriteSARIF(&sf, testTool, findings) != nil {
			t.Fatal("a format failed")
		}
		if !json.Valid(js.Bytes()) || !json.Valid(sf.Bytes()) {
			t.Fatal("JSON or SARIF output is not JSON")
		}
		if bytes.Count(text.Bytes(), []byte("\n")) != 2*len(findings)+1+countGroups(findings) {
			t.Fatalf("text output has stray lines:\n%s", text.Bytes())
		}
		var check bytes.Buffer
		if WriteCheckText(&check, Verdict{CheckName: "pact", HeadBranch: "feat/x", Findings: findings, State: res.State}) != nil {
			t.Fatal("the terminal text failed")
		}
		for _, out := range [][]byte{text.Bytes(), check.Bytes()} {
			if bytes.ContainsAny(out, "\x1b\x07\u009b\u202e") || !utf8.Valid(out) {
				t.Fatalf("text for a terminal carries a control character:\n%q", out)
			}
		}
		summary := Summary(Verdict{CheckName: "pact", HeadBranch: "feat/x", HeadSHA: strings.Repeat("a", 40), Findings: findings, State: res.State})
		if len(summary) > maxText {
			t.Fatalf("summary of %d bytes", len(summary))
		}
		for _, a := range annotations(findings) {
			if a.Line < 1 || strings.Contains(a.Title, "\n") {
				t.Fatalf("annotation %+v", a)
			}
		}
	})
}

// countGroups is the number of blank separator lines WriteText puts between
// paths and before the verdict.
func countGroups(fs []checks.Finding) int {
	if len(fs) == 0 {
		return 0
	}
	n := 1
	for i := 1; i < len(fs); i++ {
		if fs[i].Path != fs[i-1].Path {
			n++
		}
	}
	return n
}
