package projection

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/pact-action/pact-action/internal/testkit/loggen"
)

// ownSummaryDocs are STATE.yml files in Render's layout, fresh and drifted.
func ownSummaryDocs(t testing.TB) [][]byte {
	var docs [][]byte
	logs, _ := filepath.Glob(filepath.Join("testdata", "logs", "*.jsonl"))
	for _, p := range logs {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, RenderBytes(replay(parseBytes(data)).State))
	}
	var buf bytes.Buffer
	if _, err := loggen.Write(&buf, loggen.Config{Lines: 2000, Seed: 3, Defects: 0.02}); err != nil {
		t.Fatal(err)
	}
	gen := RenderBytes(replay(parseBytes(buf.Bytes())).State)
	docs = append(docs, gen,
		bytes.Replace(gen, []byte("status: accepted"), []byte("status: in_progress"), 3),
		bytes.ReplaceAll(gen, []byte("owner: codex"), []byte("owner: nobody")),
		bytes.Replace(gen, []byte("  - id: T1\n"), []byte("  - id: T1x\n"), 1),
		append(append([]byte(nil), gen...), gen[bytes.Index(gen, []byte("\ntasks:\n"))+8:]...), // tasks twice: the last wins
		RenderBytes(trickyState(renderTricky)),
		RenderBytes(NewState()),
		[]byte("project: p\nprotocol_version: 1\nbase_branch: main\nseats: []\nfeatures: []\ntasks: []\n"),
		[]byte("project: p\nprotocol_version: 1\nbase_branch: main\nseats:\nfeatures: []\ntasks: []\n"),
		[]byte("project: p\nprotocol_version: 1\nbase_branch: main\nseats: []\nfeatures: []\ntasks:\n  - id: T\n    feature: F\n    owner: o\n    reviewer: r\n    branch: b\n    spec: s\n    status: s\n    rounds: 2\n    last_reason: why\n  - id: T\n    feature: G\n    owner: o\n    reviewer: r\n    branch: b\n    spec: s\n    status: t\n"),
	)
	return docs
}

// TestOwnSummaryMatchesYAML: wherever the reader of Render's layout takes a
// file, it means what the YAML reading says; it takes fresh and drifted
// renders of usual states, and leaves the rest to YAML.
func TestOwnSummaryMatchesYAML(t *testing.T) {
	t.Parallel()
	took := 0
	for i, doc := range ownSummaryDocs(t) {
		got, ok := parseOwnSummary(doc)
		want, err := parseYAMLSummary(doc)
		if !ok {
			continue
		}
		took++
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("doc %d: own reading %+v\nYAML reading %+v, %v\n%s", i, got, want, err, doc)
		}
	}
	if took < 8 {
		t.Errorf("the reader took only %d of the renders", took)
	}
	for _, doc := range []string{
		"project: p\r\nprotocol_version: 1\r\n", "project: 'p'\nprotocol_version: 1\nbase_branch: main\nseats: []\nfeatures: []\ntasks: []\n",
		"project: p\nprotocol_version: 1\nbase_branch: main\nseats: []\nfeatures: []\ntasks: []", "\xEF\xBB\xBFproject: p\n",
		"project: p\nprotocol_version: 1\nbase_branch: main\nseats: []\nfeatures: []\ntasks: []\nextra: 1\n",
	} {
		if _, ok := parseOwnSummary([]byte(doc)); ok {
			t.Errorf("the reader took %q, which is not in Render's layout", doc)
		}
	}
	if _, ok := parseOwnSummary(RenderBytes(trickyState(renderTricky))); ok {
		t.Error("the reader took values YAML must quote")
	}
}

// FuzzOwnSummary: whatever the reader of Render's layout takes, YAML reads
// the same way.
//
//	go test ./projection/ -run '^$' -fuzz FuzzOwnSummary -fuzztime 60s
func FuzzOwnSummary(f *testing.F) {
	for _, doc := range ownSummaryDocs(f) {
		if len(doc) < 64<<10 {
			f.Add(doc)
		}
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		got, ok := parseOwnSummary(doc)
		if !ok {
			return
		}
		want, err := parseYAMLSummary(doc)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("own reading %+v\nYAML reading %+v, %v\n%q", got, want, err, doc)
		}
	})
}

func BenchmarkParseStateSummary(b *testing.B) {
	var buf bytes.Buffer
	if _, err := loggen.Write(&buf, loggen.Config{Lines: 100_000, Seed: 1, Swaps: 0.01}); err != nil {
		b.Fatal(err)
	}
	doc := RenderBytes(replay(parseBytes(buf.Bytes())).State)
	doc = bytes.Replace(doc, []byte("status: accepted"), []byte("status: in_progress"), 1)
	for _, impl := range []struct {
		name  string
		parse func([]byte) (Summary, error)
	}{{"own", func(b []byte) (Summary, error) {
		s, ok := parseOwnSummary(b)
		if !ok {
			return s, os.ErrInvalid
		}
		return s, nil
	}}, {"yaml", parseYAMLSummary}} {
		b.Run("impl="+impl.name, func(b *testing.B) {
			b.SetBytes(int64(len(doc)))
			for b.Loop() {
				if _, err := impl.parse(doc); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
