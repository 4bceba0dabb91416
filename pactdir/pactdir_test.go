package pactdir

import (
	"io"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/pact-action/pact-action/pactfile"
)

func newDir(t *testing.T) Dir {
	t.Helper()
	d := Dir{Root: t.TempDir(), Name: ".pact"}
	if err := os.MkdirAll(d.Path(pactfile.TasksDir), 0o755); err != nil {
		t.Fatal(err)
	}
	return d
}

// listDir names every entry under dir, recursively.
func listDir(t *testing.T, dir string) []string {
	t.Helper()
	var names []string
	err := filepath.Walk(dir, func(path string, _ os.FileInfo, err error) error {
		rel, _ := filepath.Rel(dir, path)
		names = append(names, rel)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(names)
	return names
}

func TestPaths(t *testing.T) {
	t.Parallel()
	d := Dir{Root: "/repo", Name: ".pact"}
	if got := d.Path(pactfile.TasksDir, "T1.md"); got != filepath.Join("/repo", ".pact", "tasks", "T1.md") {
		t.Errorf("Path = %q", got)
	}
	if got := d.Display(pactfile.LogFile); got != ".pact/log.jsonl" {
		t.Errorf("Display = %q", got)
	}
	if got := d.Display(); got != ".pact" {
		t.Errorf("Display() = %q", got)
	}
}

// writeBytes is a write func of replace.
func writeBytes(b string) func(io.Writer) error {
	return func(w io.Writer) error {
		_, err := io.WriteString(w, b)
		return err
	}
}

func openRoot(t *testing.T, dir string) *os.Root {
	t.Helper()
	r, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func mode(t *testing.T, path string) os.FileMode {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

func stat(t *testing.T, path string) os.FileInfo {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi
}
