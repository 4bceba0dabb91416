package main

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/pact-action/pact-action/internal/testkit/loggen"
	"github.com/pact-action/pact-action/projection"
	"github.com/pact-action/pact-action/report"
)

// TestMalformedFloodIsBounded: a log with a million lines of `1` (2 MB)
// costs validate, its JSON and a writer a bounded memory and output
// (docs/semantics.md §7): the first 100 malformed lines listed, the others
// counted exactly. So does every other junk shape (loggen.Junk) at
// 1.5 MB. The sizes are chosen so that the code without the cap, without
// compact defective lines or without clipped values would exceed the
// bounds twice over (docs/performance.md, "Floods of malformed lines").
func TestMalformedFloodIsBounded(t *testing.T) {
	t.Parallel()
	const lines = 1_000_000
	rows := []struct{ name, junk string }{{"number", strings.Repeat("1\n", lines)}}
	for _, shape := range loggen.Junk {
		if shape.Name != "number" {
			rows = append(rows, struct{ name, junk string }{shape.Name, string(loggen.JunkLog(shape, 3<<19))})
		}
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			t.Parallel()
			floodIsBounded(t, row.junk, row.name == "number")
		})
	}
}

func floodIsBounded(t *testing.T, junk string, exact bool) {
	const lines = 1_000_000
	const maxRSSKiB, maxOutput = 256 << 10, 1 << 20
	p := newProject(t)
	p.ok("lead", "init", "--project", "flood", "--seat", "lead:orchestrator:AGENTS.md", "--seat", "dev:worker:AGENTS.md", "--seat", "rev:reviewer:AGENTS.md")
	f, err := os.OpenFile(p.path(".pact/log.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(junk); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		agent string
		args  []string
		code  int
	}{
		{unset, []string{"validate"}, 1},
		{unset, []string{"validate", "--format", "json"}, 1},
		{"dev", []string{"join", "dev", "--roles", "worker"}, 0},
	} {
		cmd := exec.Command(binPath, tc.args...)
		cmd.Dir, cmd.Env = p.dir, p.env(tc.agent)
		var out strings.Builder
		cmd.Stdout = &out
		err := cmd.Run()
		code := 0
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			code = exit.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		rss := peakRSSKiB(cmd.ProcessState)
		t.Logf("pactify %v on %d bytes of junk: exit %d, peak RSS %d KiB, %d bytes of output", tc.args, len(junk), code, rss, out.Len())
		if rss > maxRSSKiB {
			t.Errorf("pactify %v: peak RSS %d KiB, over %d KiB", tc.args, rss, maxRSSKiB)
		}
		if out.Len() > maxOutput {
			t.Errorf("pactify %v: %d bytes of output, over %d", tc.args, out.Len(), maxOutput)
		}
		if !exact {
			continue
		}
		if code != tc.code {
			t.Errorf("pactify %v: exit %d, want %d", tc.args, code, tc.code)
		}
		switch tc.args[len(tc.args)-1] {
		case "validate":
			if !strings.Contains(out.String(), "999900 more findings with this code not listed") || !strings.Contains(out.String(), "invalid: 1000000 errors") {
				t.Errorf("validate does not count what it leaves out:\n%s", tail(out.String(), 800))
			}
		case "json":
			var rep report.JSON
			if err := json.Unmarshal([]byte(out.String()), &rep); err != nil {
				t.Fatal(err)
			}
			want := []report.OmittedJSON{{Code: string(projection.CodeMalformedJSON), Severity: "error", Path: ".pact/log.jsonl", Count: lines - projection.MaxListed}}
			if rep.Errors != lines || len(rep.Findings) != projection.MaxListed || len(rep.Omitted) != 1 || rep.Omitted[0] != want[0] {
				t.Errorf("JSON: %d errors, %d findings listed, omitted %+v; want %d, %d, %+v", rep.Errors, len(rep.Findings), rep.Omitted, lines, projection.MaxListed, want)
			}
		}
	}
}

func tail(s string, n int) string { return s[max(0, len(s)-n):] }
