package pactdir

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPrepareWritesOnce: whatever the old file holds (the same, a
// prefix, more, a difference early or late, past a buffer's size, or
// nothing), the new content is written by one run of write, and the file
// holds it after the commit; a file that already holds it is not
// replaced.
func TestPrepareWritesOnce(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("0123456789abcdef", 40<<10) // 640 KiB: several buffers
	cases := []struct {
		name, old, new string
		absent         bool
	}{
		{"absent", "", "new\n", true},
		{"the same", "same\n", "same\n", false},
		{"the same, long", long, long, false},
		{"empty before", "", "new\n", false},
		{"a prefix of it", "abc", "abcdef", false},
		{"longer", "abcdef", "abc", false},
		{"differs first", "xbc", "abc", false},
		{"differs late in a long file", long[:len(long)-1] + "x", long, false},
		{"differs early in a long file", "x" + long[1:], long, false},
		{"a long prefix", long[:300<<10], long, false},
		{"longer than a long one", long + "more", long, false},
	}
	for _, c := range cases {
		dir := t.TempDir()
		if !c.absent {
			if err := os.WriteFile(filepath.Join(dir, "f"), []byte(c.old), 0o640); err != nil {
				t.Fatal(err)
			}
		}
		root := openRoot(t, dir)
		runs := 0
		p, err := prepare(root, "f", "f", func(w io.Writer) error {
			runs++
			// In pieces, as a renderer writes.
			for s := c.new; len(s) > 0; s = s[min(len(s), 1000):] {
				if _, err := io.WriteString(w, s[:min(len(s), 1000)]); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if runs != 1 {
			t.Errorf("%s: write ran %d times", c.name, runs)
		}
		if same := p.tmp == ""; same != (!c.absent && c.old == c.new) {
			t.Errorf("%s: replaced %v", c.name, !same)
		}
		if err := p.commit(); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(filepath.Join(dir, "f")); string(b) != c.new {
			t.Errorf("%s: the file holds %d bytes, want %d", c.name, len(b), len(c.new))
		}
		if !c.absent {
			if m := mode(t, filepath.Join(dir, "f")); m.Perm() != 0o640 {
				t.Errorf("%s: mode %v, want the old file's", c.name, m)
			}
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 1 {
			t.Errorf("%s: %d files left, want 1", c.name, len(entries))
		}
		root.Close()
	}
}

// TestPrepareRefusesAFileCutShortWhileCompared: when the old file loses
// the part already compared before it is copied into the new one (another
// program truncated it), prepare fails instead of writing a new file
// missing that part, and leaves nothing behind.
func TestPrepareRefusesAFileCutShortWhileCompared(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	long := strings.Repeat("0123456789abcdef", 40<<10)
	if err := os.WriteFile(path, []byte(long), 0o644); err != nil {
		t.Fatal(err)
	}
	root := openRoot(t, dir)
	defer root.Close()
	var truncated error
	_, err := prepare(root, "f", "f", func(w io.Writer) error {
		if _, err := io.WriteString(w, long[:300<<10]); err != nil {
			return err
		}
		truncated = os.Truncate(path, 100<<10)
		if truncated != nil {
			return truncated
		}
		_, err := io.WriteString(w, "different")
		return err
	})
	if truncated != nil {
		t.Skipf("this system does not truncate a file open for reading: %v", truncated)
	}
	if err == nil || !strings.Contains(err.Error(), "read f") {
		t.Fatalf("prepare: %v, want a failure to read f", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%d files left, want 1", len(entries))
	}
}
