package report

import (
	"os"
	"path/filepath"
	"testing"

	goldenfile "github.com/pact-action/pact-action/internal/testkit/golden"

	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/pactdir"
	"github.com/pact-action/pact-action/pactfile"
)

// update rewrites the golden files instead of comparing with them:
// go test ./report/ -run Golden -update

// pacts holds the pacts checks judges in its tests; rendering them here
// shows every kind of finding.
var pacts = filepath.Join("..", "checks", "testdata", "pacts")

// loadPact reads a pact of checks' testdata the way pactify validate
// --task-files does (every task file read), its files shown under .pact as
// in a repository.
func loadPact(t testing.TB, name string) checks.Input {
	t.Helper()
	in, err := pactdir.Dir{Root: pacts, Name: name}.LoadWatched(nil, pactdir.LoadOptions{TaskFiles: true, Prejudge: checks.FastPaths{}})
	if err != nil {
		t.Fatal(err)
	}
	in.Dir = pactfile.DefaultDir
	return checks.Input(in)
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

// golden compares got with the file, or rewrites it under -update.
func golden(t *testing.T, path string, got []byte) { t.Helper(); goldenfile.Check(t, path, got) }
