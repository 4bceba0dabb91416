package pactdir

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
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

// TestEachNameAgreesWithReaddirnames: names a worker can give files under
// tasks/ (a newline, bytes that are not UTF-8, the longest name a file
// system takes, a directory or a dangling symlink named like a task file)
// come out of eachName as os.File.Readdirnames gives them.
func TestEachNameAgreesWithReaddirnames(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, name := range []string{"T1\n.md", "T\xff\xfe.md", strings.Repeat("L", 252) + ".md", " .md", "-.md", ".md", "..md"} {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Skipf("the file system refuses %q: %v", name, err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "T2.md"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("missing", filepath.Join(dir, "T3.md")); err != nil {
		t.Skipf("no symlinks here: %v", err)
	}
	list := func(read func(f *os.File) []string) []string {
		f, err := os.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		names := read(f)
		slices.Sort(names)
		return names
	}
	got := list(func(f *os.File) []string {
		var names []string
		if err := eachName(f, func(name []byte) { names = append(names, string(name)) }); err != nil {
			t.Fatal(err)
		}
		return names
	})
	want := list(func(f *os.File) []string {
		names, err := f.Readdirnames(-1)
		if err != nil {
			t.Fatal(err)
		}
		return names
	})
	if !slices.Equal(got, want) || len(want) != 9 {
		t.Errorf("eachName gave %q,\nReaddirnames %q", got, want)
	}
}
