//go:build unix

package main

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

func init() {
	limitedRun = func(t *testing.T, p *project, agent string, blocks int64, args ...string) result {
		t.Helper()
		quoted := make([]string, len(args))
		for i, a := range args {
			quoted[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		script := fmt.Sprintf("ulimit -f %d && exec '%s' %s", blocks, binPath, strings.Join(quoted, " "))
		r, err := runShell(p.dir, p.env(agent), script)
		if err != nil {
			t.Fatal(err)
		}
		r.args = args
		return r
	}
}

// TestFaultPermissionDenied: a pact directory the user may not write is
// said to be so, with what to do, and nothing changes (not "not a regular
// file").
func TestFaultPermissionDenied(t *testing.T) {
	t.Parallel()
	if os.Geteuid() == 0 {
		t.Skip("root writes through any permission bits")
	}
	p := faultProject(t)
	if err := os.Chmod(p.path(".pact"), 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Chmod(p.path(".pact"), 0o755) })
	before := snapshot(t, p.dir)
	r := p.run("orch", "assign", "T1", "--feature", "F", "--branch", "b", "--owner", "w", "--reviewer", "rev")
	if r.code != 2 || !strings.Contains(r.stderr, "permission denied") || !strings.Contains(r.stderr, "hint: make the pact directory") ||
		strings.Contains(r.stderr, "regular file") {
		t.Errorf("assign in a read-only pact directory:\n%s", r)
	}
	sameTree(t, before, snapshot(t, p.dir))
}

// runShell runs script with sh -c in dir, as runProc runs pactify.
func runShell(dir string, env []string, script string) (result, error) {
	res, err := runCmd(exec.Command("sh", "-c", script), dir, env)
	if err != nil {
		return res, fmt.Errorf("run %q: %w", script, err)
	}
	return res, nil
}
