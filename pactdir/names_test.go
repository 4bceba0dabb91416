package pactdir

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestEachNameListsTheDirectory: eachName gives every entry of a
// directory once, files and directories alike, never . or .., across
// more names than one read of the directory returns.
func TestEachNameListsTheDirectory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var want []string
	for i := range 3000 {
		name := fmt.Sprintf("T-%04d-a-name-long-enough-to-fill-buffers.md", i)
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		want = append(want, name)
	}
	if err := os.Mkdir(filepath.Join(dir, "sub.md"), 0o755); err != nil {
		t.Fatal(err)
	}
	want = append(want, "sub.md")
	f, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var got []string
	if err := eachName(f, func(name []byte) { got = append(got, string(name)) }); err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("eachName gave %d names, want %d (first: %q)", len(got), len(want), got[:min(3, len(got))])
	}
}
