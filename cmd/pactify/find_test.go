package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPactFromSubdirectory runs pactify in a subdirectory of a repository
// whose pact is at its root, as git is run anywhere in a work tree: the
// verbs find the pact above, paths stay relative to the repository's root,
// init refuses to start a second pact inside it, and --pact-dir still
// names a directory relative to where pactify runs.
func TestPactFromSubdirectory(t *testing.T) {
	t.Parallel()
	p := newProject(t)
	copyTree(t, template(t, "pact"), p.dir)
	if err := os.Mkdir(filepath.Join(p.dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(p.dir, "src", "pkg")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	in := func(agent string, args ...string) result { return runIn(t, sub, p.env(agent), args...) }

	if r := in(unset, "status"); r.code != 0 || !strings.Contains(r.stdout, "project: demo") {
		t.Errorf("status from src/pkg should print the root's STATE.yml (was: no pact, run pactify init)\n%s", r)
	}
	if r := in(unset, "validate", "--format", "json"); r.code != 0 || !strings.Contains(r.stdout, `"valid": true`) {
		t.Errorf("validate from src/pkg\n%s", r)
	}
	r := in("orch", "init", "--project", "demo", "--seat", "orch:orchestrator,reviewer:AGENTS.md")
	if r.code != 1 || !strings.Contains(r.stderr, "already belongs to the pact at ../../.pact") || !strings.Contains(r.stderr, p.dir) {
		t.Errorf("init inside the pact should refuse, naming it\n%s", r)
	}
	for _, name := range []string{".pact", "AGENTS.md", ".gitattributes"} {
		if _, err := os.Lstat(filepath.Join(sub, name)); err == nil {
			t.Errorf("the refused init wrote src/pkg/%s", name)
		}
	}
	if r := in(unset, "--pact-dir", ".pact", "status"); r.code != 2 || !strings.Contains(r.stderr, "run `pactify init` first") {
		t.Errorf("--pact-dir is relative to the working directory and wins over the walk up\n%s", r)
	}
	// A writing verb appends to the root's log, and what it prints names
	// the log from the repository's root.
	if r := in("alice", "checkpoint", "T3", "--evidence", "from a subdirectory"); r.code != 0 || !strings.Contains(r.stdout, ".pact/log.jsonl") {
		t.Errorf("checkpoint from src/pkg\n%s", r)
	}
	if log, err := os.ReadFile(filepath.Join(p.dir, ".pact", "log.jsonl")); err != nil || !strings.Contains(string(log), "from a subdirectory") {
		t.Errorf("the checkpoint is not in the root's log (%v)", err)
	}

	// Outside a git repository only the working directory counts (the
	// .git directory holds the writers' snapshot now).
	if err := os.RemoveAll(filepath.Join(p.dir, ".git")); err != nil {
		t.Fatal(err)
	}
	if r := in(unset, "status"); r.code != 2 || !strings.Contains(r.stderr, "run `pactify init` first") {
		t.Errorf("outside a repository status must not look above the working directory\n%s", r)
	}
}
