//go:build windows

package pactdir

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestReplaceWhileAnotherProgramHasItOpen: Windows refuses to rename over
// a file that another program has open without FILE_SHARE_DELETE (as
// os.Open opens it); replace retries until it is closed, and when it never
// is, gives up leaving the old file whole. Elsewhere a rename replaces an
// open file, so there is nothing to test (TestRetry holds the policy on
// every platform).
func TestReplaceWhileAnotherProgramHasItOpen(t *testing.T) { // not parallel: it swaps replaceRetry
	dir := t.TempDir()
	root := openRoot(t, dir)
	path := filepath.Join(dir, "STATE.yml")
	if err := os.WriteFile(path, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	holder, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	// The refusal is real, and it is one replace retries.
	if err := os.WriteFile(filepath.Join(dir, "probe"), []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	err = root.Rename("probe", "STATE.yml")
	if err == nil {
		t.Skip("this file system lets a rename replace a file open without FILE_SHARE_DELETE")
	}
	if !renameRetryable(err) {
		t.Fatalf("Windows refused the rename with %v, which replace does not retry", err)
	}

	saved := replaceRetry
	t.Cleanup(func() { replaceRetry = saved })
	slept := 0
	replaceRetry.sleep = func(time.Duration) {
		if slept++; slept == 2 {
			if err := holder.Close(); err != nil { // the other program lets go while replace waits
				t.Error(err)
			}
		}
	}
	if err := replace(root, "STATE.yml", ".pact/STATE.yml", writeBytes("new\n")); err != nil {
		t.Fatalf("replace after the file was closed: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "new\n" || slept < 2 {
		t.Fatalf("STATE.yml = %q after %d waits", b, slept)
	}

	// Held for ever: every attempt is refused, the old file stays whole,
	// the error says what to do, no temporary file is left.
	holder, err = os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	replaceRetry.sleep = func(time.Duration) {}
	err = replace(root, "STATE.yml", ".pact/STATE.yml", writeBytes("newer\n"))
	if err == nil || !strings.Contains(err.Error(), "another program holds it open") {
		t.Fatalf("replace of a file held open for ever: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "new\n" {
		t.Fatalf("STATE.yml = %q after a failed replace", b)
	}
	for _, name := range listDir(t, dir) {
		if strings.Contains(name, ".tmp-") {
			t.Fatalf("temporary file left behind: %s", name)
		}
	}
}

// TestReplaceReadOnlyFile: Windows will not rename over a file with the
// read-only attribute (ERROR_ACCESS_DENIED, which replace would retry for
// seconds and blame on another program). replace clears the attribute of
// the file it replaces, at once, and the new file keeps the old one's
// permission bits, read-only included, as on every other system.
func TestReplaceReadOnlyFile(t *testing.T) { // not parallel: it swaps replaceRetry
	dir := t.TempDir()
	root := openRoot(t, dir)
	path := filepath.Join(dir, "STATE.yml")
	if err := os.WriteFile(path, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o444); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Chmod(path, 0o644) })
	saved := replaceRetry
	t.Cleanup(func() { replaceRetry = saved })
	replaceRetry.sleep = func(time.Duration) { t.Fatal("replace retried the rename of a read-only file") }
	if err := replace(root, "STATE.yml", ".pact/STATE.yml", writeBytes("new\n")); err != nil {
		t.Fatalf("replace of a read-only file: %v", err)
	}
	b, err := os.ReadFile(path)
	if err != nil || string(b) != "new\n" {
		t.Fatalf("STATE.yml = %q, %v", b, err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm()&0o200 != 0 {
		t.Fatalf("the new STATE.yml is not read-only as the old one was: %v, %v", fi.Mode(), err)
	}
	for _, name := range listDir(t, dir) {
		if strings.Contains(name, ".tmp-") {
			t.Fatalf("temporary file left behind: %s", name)
		}
	}
}
