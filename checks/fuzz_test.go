package checks

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/pact-action/pact-action/pactfile"
	"github.com/pact-action/pact-action/projection"
)

func seedFiles(f *testing.F, patterns ...string) [][]byte {
	var out [][]byte
	for _, p := range patterns {
		matches, _ := filepath.Glob(p)
		for _, m := range matches {
			if b, err := os.ReadFile(m); err == nil {
				out = append(out, b)
			}
		}
	}
	if len(out) == 0 {
		f.Fatalf("no seeds for %v", patterns)
	}
	return out
}

// FuzzParse: any log, STATE.yml, PROJECT.md and task file go through Parse,
// Replay and Run without panicking, and the findings keep their contract
// (report's FuzzRender renders them).
//
//	go test ./checks/ -run '^$' -fuzz '^FuzzParse$' -fuzztime 20s
func FuzzParse(f *testing.F) {
	logs := seedFiles(f, "testdata/pacts/*/log.jsonl", "../projection/testdata/logs/*.jsonl", "../schemas/testdata/corpus.jsonl")
	states := seedFiles(f, "testdata/pacts/*/STATE.yml", "../projection/testdata/golden/*.yml")
	projects := seedFiles(f, "testdata/pacts/*/PROJECT.md")
	tasks := seedFiles(f, "testdata/pacts/*/tasks/*.md")
	for i, l := range logs {
		f.Add(l, states[i%len(states)], projects[i%len(projects)], tasks[i%len(tasks)])
	}
	f.Add([]byte{}, []byte{}, []byte{}, []byte{})
	f.Fuzz(func(t *testing.T, logData, state, project, taskfile []byte) {
		log, res := projection.ReadEvents(logData)
		in := Input{Dir: ".pact", Scan: &log.Scan, Replay: res, State: state, Project: project, TaskFiles: map[string][]byte{}}
		for _, id := range res.State.TaskOrder {
			in.TaskFiles[id] = taskfile
		}
		findings := Run(in)
		if res.Unsupported != nil && (len(findings) != 1 || findings[0].Code != projection.CodeVersionUnsupported) {
			t.Fatalf("fail-closed must be the only finding: %v", shorts(findings))
		}
		for _, fd := range findings {
			info, known := byCode[fd.Code]
			if !known {
				t.Fatalf("finding with a code outside the table: %+v", fd)
			}
			if fd.Severity != info.Severity && (fd.Code != projection.CodeEventIDDuplicate || fd.Severity != SeverityWarning) {
				t.Fatalf("%s with severity %s", fd.Code, fd.Severity)
			}
			if fd.Path == "" || fd.Line < 0 || (fd.Path == in.LogPath() && fd.Line > log.Lines) || fd.Message == "" || fd.Hint == "" {
				t.Fatalf("finding out of shape: %+v (log has %d lines)", fd, log.Lines)
			}
		}
		sorted := append([]Finding(nil), findings...)
		Sort(sorted)
		for i := range sorted {
			if sorted[i] != findings[i] {
				t.Fatal("Run's findings are not sorted")
			}
		}
		// A Windows checkout (every file CRLF) is judged exactly the same.
		if got := Run(crlfInput(in, logData)); !reflect.DeepEqual(got, findings) {
			t.Fatalf("CRLF checkout:\n got %v\nwant %v", shorts(got), shorts(findings))
		}
		// Our own render never drifts.
		if res.Unsupported == nil {
			if d := drift("STATE.yml", projection.RenderBytes(res.State), res.State); len(d) != 0 {
				t.Fatalf("own render drifts: %s", d[0].Message)
			}
		}
		// A PR that only appends keeps history; waiting is never an error.
		if h := History("log", logData, append(append([]byte(nil), logData...), "\n{}\n"...)); len(h) != 0 {
			t.Fatalf("appending rewrote history: %s", h[0].Message)
		}
		if len(res.State.TaskOrder) > 0 {
			id := res.State.TaskOrder[0]
			for _, w := range Waiting("log", res.State, res.State.Tasks[id].Branch, nil, nil, nil) {
				if w.Severity != SeverityPending || w.Code != CodePRUnaccepted {
					t.Fatalf("waiting finding %+v", w)
				}
			}
		}
	})
}

// FuzzHistory: append-only is judged without panicking, a log never rewrites
// itself, and History finds nothing exactly when the merge base's lines are a
// prefix of the head's.
//
//	go test ./checks/ -run '^$' -fuzz FuzzHistory -fuzztime 20s
func FuzzHistory(f *testing.F) {
	for _, b := range seedFiles(f, "testdata/pacts/*/log.jsonl") {
		f.Add(b, append(append([]byte(nil), b...), "{\"x\":1}\n"...))
		f.Add(b, bytes.ReplaceAll(b, []byte("\n"), []byte("\r\n")))
		if n := bytes.IndexByte(b, '\n'); n >= 0 {
			f.Add(b, b[n+1:])
		}
	}
	f.Add([]byte("a\nb\n"), []byte("b\na\n"))
	f.Add([]byte(""), []byte("a"))
	f.Fuzz(func(t *testing.T, base, head []byte) {
		if h := History("log", head, head); len(h) != 0 {
			t.Fatalf("a log rewrites itself: %s", h[0].Message)
		}
		got := History("log", base, head)
		bl, hl := pactfile.SplitLines(base), pactfile.SplitLines(head)
		prefix := len(bl) <= len(hl)
		for i := 0; prefix && i < len(bl); i++ {
			prefix = bytes.Equal(bl[i], hl[i])
		}
		if prefix != (len(got) == 0) {
			t.Fatalf("prefix %v but findings %v", prefix, shorts(got))
		}
		if len(got) > 1 || (len(got) == 1 && (got[0].Line < 0 || got[0].Line > len(hl) || got[0].Code != CodeLogRewritten)) {
			t.Fatalf("findings %+v", got)
		}
	})
}
