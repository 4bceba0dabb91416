package repogen_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/internal/testkit/loggen"
	"github.com/pact-action/pact-action/internal/testkit/loggen/repogen"
	"github.com/pact-action/pact-action/pactdir"
	"github.com/pact-action/pact-action/pactfile"
	"github.com/pact-action/pact-action/projection"
)

// TestWrite: a generated repository validates clean, holds STATE.yml as
// `pactify log --replay` writes it and a task file per task as assign
// writes it, and is the same on every run.
func TestWrite(t *testing.T) {
	t.Parallel()
	cfg := loggen.Config{Lines: 3000, Seed: 7, Swaps: 0.02}
	a, b := t.TempDir(), t.TempDir()
	st, err := repogen.Write(a, cfg, repogen.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := repogen.Write(b, cfg, repogen.Options{}); err != nil {
		t.Fatal(err)
	}
	d := pactdir.Dir{Root: a, Name: ".pact"}
	in, err := d.LoadWatched(nil, pactdir.LoadOptions{TaskFiles: true, Prejudge: checks.FastPaths{}})
	if err != nil {
		t.Fatal(err)
	}
	if f := checks.Run(checks.Input(in)); len(f) != 0 {
		t.Fatalf("a generated repository without defects has findings: %v", f)
	}
	if !in.StateMatched || len(in.TaskFilesMatched) != st.TaskFiles || st.TaskFiles != st.Tasks || st.Tasks == 0 {
		t.Fatalf("STATE.yml matched %v, %d of %d task files matched (%+v)", in.StateMatched, len(in.TaskFilesMatched), st.TaskFiles, st)
	}
	log, res, err := d.LoadReplay(nil)
	if err != nil || log.Lines != cfg.Lines {
		t.Fatal(err)
	}
	if got := read(t, a, "STATE.yml"); !bytes.Equal(got, projection.RenderBytes(res.State)) {
		t.Error("STATE.yml is not what log --replay writes")
	}
	task := res.State.Tasks[res.State.TaskOrder[0]]
	want := pactfile.TaskFile(pactfile.Task{ID: task.ID, Feature: task.Feature, Owner: task.Owner, Reviewer: task.Reviewer}, nil)
	if got := read(t, a, "tasks", task.ID+".md"); !bytes.Equal(got, want) {
		t.Errorf("task file %q, want %q", got, want)
	}
	for _, name := range []string{"log.jsonl", "STATE.yml", "PROJECT.md", filepath.Join("tasks", task.ID+".md")} {
		if !bytes.Equal(read(t, a, name), read(t, b, name)) {
			t.Errorf("%s differs between two runs", name)
		}
	}
}

func TestCached(t *testing.T) {
	t.Parallel()
	cache := t.TempDir()
	cfg := loggen.Config{Lines: 200, Seed: 1}
	root, err := repogen.Cached(cache, cfg, repogen.Options{LogOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, ".pact", "STATE.yml")); err == nil {
		t.Error("LogOnly wrote STATE.yml")
	}
	if err := os.WriteFile(filepath.Join(root, ".pact", "log.jsonl"), []byte("reused"), 0o644); err != nil {
		t.Fatal(err)
	}
	again, err := repogen.Cached(cache, cfg, repogen.Options{LogOnly: true})
	if err != nil || again != root || string(read(t, root, "log.jsonl")) != "reused" {
		t.Errorf("the cached repository was not reused: %s, %v", again, err)
	}
}

func read(t *testing.T, root string, elem ...string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(append([]string{root, ".pact"}, elem...)...))
	if err != nil {
		t.Fatal(err)
	}
	return b
}
