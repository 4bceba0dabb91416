package pactfile

import "testing"

func TestLayout(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		dir                                       Layout
		wantDir, log, state, project, tasks, task string
	}{
		{"", ".pact", ".pact/log.jsonl", ".pact/STATE.yml", ".pact/PROJECT.md", ".pact/tasks", ".pact/tasks/T1.md"},
		{".pact", ".pact", ".pact/log.jsonl", ".pact/STATE.yml", ".pact/PROJECT.md", ".pact/tasks", ".pact/tasks/T1.md"},
		{"./sub/pact/", "sub/pact", "sub/pact/log.jsonl", "sub/pact/STATE.yml", "sub/pact/PROJECT.md", "sub/pact/tasks", "sub/pact/tasks/T1.md"},
		// As a Windows user types it, on every OS: paths out are "/" only.
		{`sub\pact`, "sub/pact", "sub/pact/log.jsonl", "sub/pact/STATE.yml", "sub/pact/PROJECT.md", "sub/pact/tasks", "sub/pact/tasks/T1.md"},
		{`.\a\b\`, "a/b", "a/b/log.jsonl", "a/b/STATE.yml", "a/b/PROJECT.md", "a/b/tasks", "a/b/tasks/T1.md"},
		{`a/b\..\c`, "a/c", "a/c/log.jsonl", "a/c/STATE.yml", "a/c/PROJECT.md", "a/c/tasks", "a/c/tasks/T1.md"},
	} {
		got := [...]string{c.dir.Dir(), c.dir.Log(), c.dir.State(), c.dir.Project(), c.dir.Tasks(), c.dir.Task("T1")}
		want := [...]string{c.wantDir, c.log, c.state, c.project, c.tasks, c.task}
		if got != want {
			t.Errorf("Layout(%q) = %q, want %q", c.dir, got, want)
		}
	}
}
