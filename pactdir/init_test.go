package pactdir

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pact-action/pact-action/pactfile"
	"github.com/pact-action/pact-action/projection"
)

func TestWithin(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		dir, p string
		want   bool
	}{
		{"/r", "/r/a", true},
		{"/r", "/r/a/b", true},
		{"/r", "/r", false},
		{"/r", "/", false},
		{"/r", "/rx/a", false},
		{"/r", "/r/../x", false},
		{"/r", "/r/..x", true},
	} {
		if got := within(c.dir, c.p); got != c.want {
			t.Errorf("within(%q, %q) = %v, want %v", c.dir, c.p, got, c.want)
		}
	}
}

func TestRealPath(t *testing.T) {
	t.Parallel()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "real"), 0o755); err != nil {
		t.Fatal(err)
	}
	symlinkOrSkip(t, "real", filepath.Join(dir, "link"))
	symlinkOrSkip(t, "missing", filepath.Join(dir, "dangling"))
	for in, want := range map[string]string{
		"real":           "real",
		"link":           "real",
		"link/a/b.md":    "real/a/b.md",
		"new/deeper.md":  "new/deeper.md",
		"link/../x.md":   "x.md",
		"real/./file.md": "real/file.md",
	} {
		got, err := realPath(filepath.Join(dir, in))
		if err != nil || got != filepath.Join(dir, want) {
			t.Errorf("realPath(%s) = %q, %v; want %q", in, got, err, filepath.Join(dir, want))
		}
	}
	if _, err := realPath(filepath.Join(dir, "dangling")); err == nil {
		t.Error("a dangling symlink should be an error")
	}
}

// TestWriteTaskFileKeepsBody: rewriting a task file replaces only its
// frontmatter.
func TestWriteTaskFileKeepsBody(t *testing.T) {
	t.Parallel()
	d := Dir{Root: t.TempDir(), Name: ".pact"}
	path := d.Path("tasks", "T1.md")
	task := &projection.Task{ID: "T1", Feature: "yes", Owner: "a", Reviewer: "b"}
	if err := d.WriteTaskFile(task); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// A feature named like a YAML boolean stays a string.
	if want := "---\nid: T1\nfeature: \"yes\"\nowner: a\nreviewer: b\n---\n## Spec\n\n## Acceptance\n- [ ] \n\n## Handoff log\n"; string(b) != want {
		t.Fatalf("new task file:\n%s\nwant:\n%s", b, want)
	}
	if err := os.WriteFile(path, []byte("---\r\nid: old\r\n---\r\nMy notes.\r\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	task.Feature = "F"
	if err := d.WriteTaskFile(task); err != nil {
		t.Fatal(err)
	}
	b, _ = os.ReadFile(path)
	if want := "---\nid: T1\nfeature: F\nowner: a\nreviewer: b\n---\nMy notes.\n"; string(b) != want {
		t.Fatalf("rewritten task file:\n%q\nwant:\n%q", b, want)
	}
	if err := os.WriteFile(path, []byte("No frontmatter at all.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := d.WriteTaskFile(task); err != nil {
		t.Fatal(err)
	}
	b, _ = os.ReadFile(path)
	if want := "---\nid: T1\nfeature: F\nowner: a\nreviewer: b\n---\nNo frontmatter at all.\n"; string(b) != want {
		t.Fatalf("task file without frontmatter:\n%q\nwant:\n%q", b, want)
	}
}

// TestEntryTargets: an entry outside the repository, inside the pact or
// not a regular file is an *EntryError (the command line's to correct);
// a symlinked entry is written through.
func TestEntryTargets(t *testing.T) {
	t.Parallel()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	d := Dir{Root: root, Name: ".pact"}
	for _, dir := range []string{d.Path(), filepath.Join(root, "docs")} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "AGENTS.md"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	symlinkOrSkip(t, "AGENTS.md", filepath.Join(root, "CLAUDE.md"))
	symlinkOrSkip(t, "missing.md", filepath.Join(root, "gone.md"))
	symlinkOrSkip(t, "..", filepath.Join(root, "up"))
	for entry, want := range map[string]string{
		"AGENTS.md":     filepath.Join(root, "AGENTS.md"),
		"CLAUDE.md":     filepath.Join(root, "AGENTS.md"),
		"new/SEAT.md":   filepath.Join(root, "new", "SEAT.md"),
		"docs":          "is not a regular file",
		".pact/x.md":    "holds the pact's own files",
		".pact":         "holds the pact's own files",
		"up/outside.md": "outside the repository",
		"gone.md":       "cannot be used",
	} {
		targets, err := d.EntryTargets([]projection.Seat{{ID: "s", Roles: []string{"worker"}, Entry: entry}})
		var entryErr *EntryError
		switch {
		case filepath.IsAbs(want):
			if err != nil || targets[entry] != want {
				t.Errorf("%s: %q, %v; want %q", entry, targets[entry], err, want)
			}
		case !errors.As(err, &entryErr) || !strings.Contains(entryErr.Msg, want):
			t.Errorf("%s: %v; want an EntryError saying %q", entry, err, want)
		}
	}
}

// TestCreate: the first init creates the pact; a second finds ErrExists
// and leaves the log as the first wrote it.
func TestCreate(t *testing.T) {
	t.Parallel()
	d := Dir{Root: t.TempDir(), Name: ".pact"}
	st := projection.NewState()
	c := Charter{Project: "p", BaseBranch: "main"}
	if d.Started() {
		t.Fatal("Started without a log")
	}
	// An empty log (an init that stopped before its first line) is no
	// pact yet: Create starts over on it.
	if err := os.MkdirAll(d.Path(), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(d.Path(pactfile.LogFile), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if d.Started() {
		t.Fatal("Started with an empty log")
	}
	// Nor is part of a killed init's line (torn.go): readers read the log
	// as empty, and Create cuts it back.
	killedWriter(t, d, "", `{"first":1}`, 5)
	if d.Started() {
		t.Fatal("Started with part of a killed init's line")
	}
	if err := d.Create([]byte(`{"first":1}`), st, c); err != nil {
		t.Fatal(err)
	}
	if !d.Started() {
		t.Fatal("not Started after Create")
	}
	if err := d.Create([]byte(`{"second":2}`), st, c); !errors.Is(err, ErrExists) {
		t.Fatalf("second Create: %v, want ErrExists", err)
	}
	for name, want := range map[string]string{pactfile.LogFile: "{\"first\":1}\n", pactfile.StateFile: string(projection.RenderBytes(st))} {
		if b, err := os.ReadFile(d.Path(name)); err != nil || string(b) != want {
			t.Errorf("%s: %q, %v; want %q", name, b, err, want)
		}
	}
	project, err := os.ReadFile(d.Path(pactfile.ProjectFile))
	if h, ok := pactfile.ParseProject(project); err != nil || !ok || h.ProtocolVersion != "1" || !strings.HasSuffix(string(project), pactfile.NewProjectTail) {
		t.Errorf("PROJECT.md: %+v %v %v\n%s", h, ok, err, project)
	}
}

// symlinkOrSkip makes a symbolic link, or skips the test where this user
// may not make one (Windows without Developer Mode or admin rights).
func symlinkOrSkip(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("cannot make a symbolic link here: %v", err)
	}
}

// TestSeatBlock: a seat's block gives the verbs of its roles and no
// others (cmd/pactify's TestEntryFileCommandsRun runs them), names the
// seats an orchestrator may assign to, and says where a pact elsewhere
// lives.
func TestSeatBlock(t *testing.T) {
	t.Parallel()
	lead := projection.Seat{ID: "lead", Roles: []string{"orchestrator"}, Entry: "AGENTS.md"}
	dev := projection.Seat{ID: "dev", Roles: []string{"worker"}, Entry: "AGENTS.md"}
	rev := projection.Seat{ID: "rev", Roles: []string{"reviewer"}, Entry: "CLAUDE.md"}
	for _, tc := range []struct {
		name        string
		dir         Dir
		seats, all  []projection.Seat
		want, never []string
	}{
		{name: "an orchestrator", dir: Dir{Name: ".pact"}, seats: []projection.Seat{lead}, all: []projection.Seat{lead, dev, rev},
			want:  []string{"export PACT_AGENT_ID=lead\npactify status\n", "a worker seat (dev) with a reviewer seat other than its owner (rev)", "pactify assign <task_id>", "pactify merge <feature_id>\n"},
			never: []string{"pactify join", "pactify checkpoint", "pactify accept", "pactify changes", "PACT_DIR"}},
		{name: "a worker", dir: Dir{Name: ".pact"}, seats: []projection.Seat{dev}, all: []projection.Seat{lead, dev, rev},
			want:  []string{"pactify join dev --roles worker\n", "pactify checkpoint <task_id> --evidence \"<evidence>\"\n"},
			never: []string{"pactify assign", "pactify accept", "pactify merge"}},
		{name: "a reviewer", dir: Dir{Name: ".pact"}, seats: []projection.Seat{rev}, all: []projection.Seat{lead, dev, rev},
			want:  []string{"pactify accept <task_id>\n", "pactify changes <task_id> --reason \"<reason>\"\n"},
			never: []string{"pactify join", "pactify assign", "pactify checkpoint"}},
		{name: "a roster with no worker", dir: Dir{Name: ".pact"}, seats: []projection.Seat{lead}, all: []projection.Seat{lead, rev},
			want: []string{"a worker seat (none in this roster)"}},
		{name: "a pact elsewhere", dir: Dir{Name: "docs/.pact"}, seats: []projection.Seat{dev}, all: []projection.Seat{lead, dev},
			want: []string{"export PACT_AGENT_ID=dev\nexport PACT_DIR=docs/.pact\npactify status\n", "`docs/.pact/log.jsonl`"}},
	} {
		got := tc.dir.seatBlock(tc.seats, tc.all)
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: the block lacks %q:\n%s", tc.name, w, got)
			}
		}
		for _, n := range tc.never {
			if strings.Contains(got, n) {
				t.Errorf("%s: the block says %q:\n%s", tc.name, n, got)
			}
		}
	}
}
