package report

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/internal/pactdir"
	"github.com/pact-action/pact-action/pactfile"
)

// update rewrites the golden files instead of comparing with them:
// go test ./report/ -run Golden -update
var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// pacts holds the pacts checks judges in its tests; rendering them here
// shows every kind of finding.
var pacts = filepath.Join("..", "checks", "testdata", "pacts")

// loadPact reads a pact of checks' testdata the way pactify validate does,
// its files shown under .pact as in a repository.
func loadPact(t testing.TB, name string) checks.Input {
	t.Helper()
	in, err := pactdir.Dir{Root: pacts, Name: name}.Load()
	if err != nil {
		t.Fatal(err)
	}
	in.Dir = pactfile.DefaultDir
	return in
}

// readLog reads the log of a pact of checks' testdata.
func readLog(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(pacts, name, pactfile.LogFile))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if string(got) != string(want) {
		t.Errorf("%s differs from the golden file (run with -update after checking):\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}
