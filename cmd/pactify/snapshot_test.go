package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The writers' snapshot through the binary (docs/pactify.md, "The
// writers' snapshot"): used when the log is as it left it, never after a
// checkout rewrote the log or after a writer that could not keep it.

// gitProject is a pact in a git repository, its init committed on main.
func gitProject(t *testing.T) (*project, func(args ...string) string) {
	t.Helper()
	p := newProject(t)
	git := gitIn(t, p)
	git("init", "-q", "-b", "main")
	p.ok("orch", "init", "--project", "g", "--seat", "orch:orchestrator:AGENTS.md", "--seat", "ana:worker:AGENTS.md", "--seat", "rex:reviewer:AGENTS.md")
	git("add", "-A")
	git("commit", "-qm", "init")
	return p, git
}

// snapshotFile is the one snapshot of the project's pact, "" when there
// is none.
func snapshotFile(t *testing.T, p *project) string {
	t.Helper()
	found, _ := filepath.Glob(filepath.Join(p.dir, ".git", "pactify", "*.snap"))
	if len(found) > 1 {
		t.Fatalf("%d snapshots for one pact", len(found))
	}
	if len(found) == 0 {
		return ""
	}
	return found[0]
}

// aged dates the snapshot a second after the log, as the next writer
// finds it once the file system's clock has moved on (never racily clean).
func aged(t *testing.T, p *project) {
	t.Helper()
	snap := snapshotFile(t, p)
	if snap == "" {
		t.Fatal("no snapshot was written")
	}
	fi, err := os.Stat(p.path(".pact/log.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(snap, time.Time{}, fi.ModTime().Add(time.Second)); err != nil {
		t.Fatal(err)
	}
}

// debugRun runs a writer with PACT_DEBUG and says whether it used the
// snapshot.
func debugRun(t *testing.T, p *project, agent string, args ...string) (result, bool) {
	t.Helper()
	r := runIn(t, p.dir, append(p.env(agent), "PACT_DEBUG=1"), args...)
	return r, !strings.Contains(r.stderr, "no snapshot used")
}

// TestSnapshotAfterCheckout: a writer uses the snapshot the last one left,
// and a git checkout that puts another log of the same size in place (the
// other branch's, one line each) is not trusted: the writer judges the
// log that is there.
func TestSnapshotAfterCheckout(t *testing.T) {
	t.Parallel()
	p, git := gitProject(t)
	// main: TA assigned. other (from init): TB assigned. The two logs have
	// the same size (same times, ids of the same length), other bytes.
	p.ok("orch", "assign", "TA", "--feature", "F", "--branch", "b", "--owner", "ana", "--reviewer", "rex")
	git("add", "-A")
	git("commit", "-qm", "TA")
	git("checkout", "-q", "-b", "other", "HEAD~1")
	if r, used := debugRun(t, p, "orch", "assign", "TB", "--feature", "F", "--branch", "b", "--owner", "ana", "--reviewer", "rex"); r.code != 0 || used {
		t.Fatalf("assign TB after a checkout of a shorter log used the snapshot: %v\n%s", used, r)
	}
	git("add", "-A")
	git("commit", "-qm", "TB")
	aged(t, p)
	other := p.read(".pact/log.jsonl")
	git("checkout", "-q", "main")
	if main := p.read(".pact/log.jsonl"); len(main) != len(other) || main == other {
		t.Fatalf("the two branches' logs are %d and %d bytes, equal %v: the test needs the same size and other bytes", len(main), len(other), main == other)
	}
	// From the snapshot (other's log) TB would be a duplicate; on main's
	// log it is new.
	r, used := debugRun(t, p, "orch", "assign", "TB", "--feature", "F", "--branch", "b", "--owner", "ana", "--reviewer", "rex")
	if r.code != 0 || used {
		t.Fatalf("assign TB on main after the checkout (snapshot used: %v):\n%s", used, r)
	}
	if !strings.Contains(r.stderr, "describes another log") {
		t.Errorf("the debug line does not say why the snapshot was dropped:\n%s", r.stderr)
	}
	p.mustValidate()
	// The writer after it, with nothing changed, uses the snapshot.
	aged(t, p)
	if r, used := debugRun(t, p, "ana", "join", "ana", "--roles", "worker"); r.code != 0 || !used {
		t.Fatalf("join with the log as the last writer left it did not use the snapshot:\n%s", r)
	}
	aged(t, p)
	if r, used := debugRun(t, p, "orch", "assign", "TA", "--feature", "F", "--branch", "b", "--owner", "ana", "--reviewer", "rex"); r.code != 1 || !used ||
		!strings.Contains(r.stderr, "task.duplicate_id") {
		t.Fatalf("assign TA again, from the snapshot (used: %v), is not refused:\n%s", used, r)
	}
	p.mustValidate()
}

// TestSnapshotFaults: what a writer that could not keep its snapshot
// leaves makes the next writer replay, and judge right: killed between its
// append and its snapshot (the old snapshot stays, a shorter log's), and
// unable to write the snapshot at all.
func TestSnapshotFaults(t *testing.T) {
	t.Parallel()
	t.Run("killed between the append and the snapshot", func(t *testing.T) {
		t.Parallel()
		p, _ := gitProject(t)
		p.ok("orch", "assign", "T1", "--feature", "F", "--branch", "b", "--owner", "ana", "--reviewer", "rex")
		old, err := os.ReadFile(snapshotFile(t, p))
		if err != nil {
			t.Fatal(err)
		}
		p.ok("orch", "assign", "T2", "--feature", "F", "--branch", "b", "--owner", "ana", "--reviewer", "rex")
		// As if that writer was killed after its append: the snapshot is
		// the one before it, dated after the log.
		if err := os.WriteFile(snapshotFile(t, p), old, 0o644); err != nil {
			t.Fatal(err)
		}
		aged(t, p)
		r, used := debugRun(t, p, "orch", "assign", "T2", "--feature", "F", "--branch", "b", "--owner", "ana", "--reviewer", "rex")
		if r.code != 1 || used || !strings.Contains(r.stderr, "task.duplicate_id") {
			t.Fatalf("assign T2 again after a writer killed before its snapshot (snapshot used: %v):\n%s", used, r)
		}
		p.mustValidate()
	})
	t.Run("the snapshot cannot be written", func(t *testing.T) {
		t.Parallel()
		p, _ := gitProject(t)
		p.ok("orch", "assign", "T1", "--feature", "F", "--branch", "b", "--owner", "ana", "--reviewer", "rex")
		// Its directory replaced by a file: every write of a snapshot fails.
		dir := filepath.Dir(snapshotFile(t, p))
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dir, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		r, _ := debugRun(t, p, "orch", "assign", "T2", "--feature", "F", "--branch", "b", "--owner", "ana", "--reviewer", "rex")
		if r.code != 0 || !strings.Contains(r.stderr, "no snapshot written") {
			t.Fatalf("a writer that cannot write its snapshot must succeed, saying why in a debug line:\n%s", r)
		}
		r, used := debugRun(t, p, "orch", "assign", "T2", "--feature", "F", "--branch", "b", "--owner", "ana", "--reviewer", "rex")
		if r.code != 1 || used || !strings.Contains(r.stderr, "task.duplicate_id") {
			t.Fatalf("assign T2 again (snapshot used: %v):\n%s", used, r)
		}
		p.mustValidate()
	})
}

// gitIn runs git in p's directory with an author and committer set,
// failing the test when it fails; it returns git's trimmed output.
func gitIn(t *testing.T, p *project) func(args ...string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	return func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = p.dir
		cmd.Env = append(p.env(unset), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %q: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
}
