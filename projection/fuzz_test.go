package projection

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// FuzzParseStateSummary: any STATE.yml (a pull request brings its own) is
// read without panicking, and what it means compares equal to itself.
//
//	go test ./projection/ -run '^$' -fuzz FuzzParseStateSummary -fuzztime 20s
func FuzzParseStateSummary(f *testing.F) {
	goldens, _ := filepath.Glob(filepath.Join("testdata", "golden", "*.yml"))
	for _, p := range goldens {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	for _, doc := range equivalentFull {
		f.Add([]byte(doc))
	}
	f.Add([]byte("a: &a [*a]\n"))
	f.Add([]byte("seats: {? [a]: b, 1: [x]}\nfeatures: [{id: ~}, x, 1]\ntasks: {T1: [], T2: ~}\nproject: {name: [1]}\n"))
	f.Add([]byte("<<: {project: x}\n"))
	f.Fuzz(func(t *testing.T, doc []byte) {
		sum, err := ParseStateSummary(doc)
		if err != nil {
			return
		}
		if d := Diff(sum, sum); len(d) != 0 {
			t.Fatalf("a summary differs from itself: %v", d)
		}
		again, err := ParseStateSummary(doc)
		if err != nil || !reflect.DeepEqual(sum, again) {
			t.Fatalf("parsing twice differs: %v", err)
		}
		_ = Diff(Summarize(NewState()), sum)
		_ = Diff(sum, Summarize(NewState()))
	})
}

// FuzzReplayRender: any log replays without panicking, deterministically,
// and the STATE.yml rendered from it reads back with no drift.
//
//	go test ./projection/ -run '^$' -fuzz FuzzReplayRender -fuzztime 20s
func FuzzReplayRender(f *testing.F) {
	logs, _ := filepath.Glob(filepath.Join("testdata", "logs", "*.jsonl"))
	logs = append(logs, filepath.Join("..", "schemas", "testdata", "corpus.jsonl"))
	for _, p := range logs {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add(shipped().bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		log := parseBytes(data)
		res := replay(log)
		out := RenderBytes(res.State)
		sum, err := ParseStateSummary(out)
		if err != nil {
			t.Fatalf("own render does not parse: %v\n%s", err, out)
		}
		if d := Diff(Summarize(res.State), sum); len(d) != 0 {
			t.Fatalf("own render drifts: %v\n%s", d, out)
		}
		again := replay(parseBytes(data))
		if !reflect.DeepEqual(res, again) {
			t.Fatal("replay is not deterministic")
		}
	})
}
