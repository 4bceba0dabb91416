package pactdir

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// readCase is a path of the test tree and what reading it gives.
type readCase struct {
	name string
	want string
	err  error
	// linkless is the error of pactify's own reads, which follow no link
	// (nil: the same as err).
	linkless error
}

// plantTree makes the tree every reader is tried on: a regular file, links
// in and out of it, a directory, a file over the limit, and what only some
// systems can make (plantSpecial). outside is a directory beside it.
func plantTree(t *testing.T) (root string, cases []readCase) {
	t.Helper()
	root, outside := t.TempDir(), t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(root, ".pact", "sub"), 0o755))
	must(os.WriteFile(filepath.Join(root, ".pact", "log.jsonl"), []byte("line\n"), 0o644))
	must(os.WriteFile(filepath.Join(outside, "secret"), []byte("token=hunter2\n"), 0o644))
	must(os.WriteFile(filepath.Join(root, ".pact", "big"), make([]byte, 2048), 0o644))
	cases = []readCase{
		{name: ".pact/log.jsonl", want: "line\n"},
		{name: ".pact/missing"},
		{name: ".pact/sub", err: ErrNotRegular},
		{name: ".pact/big", err: ErrTooLarge},
		{name: "../" + filepath.Base(outside) + "/secret", err: ErrNotRegular},
	}
	if os.Symlink(filepath.Join(outside, "secret"), filepath.Join(root, ".pact", "escape")) == nil {
		must(os.Symlink("../../etc/passwd", filepath.Join(root, ".pact", "relative-escape")))
		must(os.Symlink("log.jsonl", filepath.Join(root, ".pact", "inside")))
		cases = append(cases,
			readCase{name: ".pact/escape", err: ErrNotRegular},
			readCase{name: ".pact/relative-escape", err: ErrNotRegular},
			// The action's reader lets a link point within the repository;
			// pactify's follows none.
			readCase{name: ".pact/inside", want: "line\n", linkless: ErrNotRegular},
		)
	}
	return root, append(cases, plantSpecial(t, root)...)
}

// TestReadRegular: the action's reader, and pactify's (readFile without
// following links, one path element at a time under openDir), on the same
// tree: only regular files inside the root, within the limit, and never a
// read that blocks.
func TestReadRegular(t *testing.T) {
	t.Parallel()
	root, cases := plantTree(t)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			check := func(t *testing.T, read func() ([]byte, error), wantErr error) {
				t.Helper()
				done := make(chan struct{})
				var got []byte
				var err error
				go func() {
					defer close(done)
					got, err = read()
				}()
				select {
				case <-done:
				case <-time.After(5 * time.Second):
					t.Fatal("the read blocked")
				}
				if wantErr != nil {
					if !errors.Is(err, wantErr) {
						t.Fatalf("err = %v, want %v", err, wantErr)
					}
					if got != nil {
						t.Errorf("returned %d bytes with the error", len(got))
					}
					return
				}
				if err != nil || string(got) != tc.want {
					t.Fatalf("= %q, %v; want %q", got, err, tc.want)
				}
			}
			t.Run("ReadRegular", func(t *testing.T) {
				check(t, func() ([]byte, error) { return ReadRegular(context.Background(), root, tc.name, 1024) }, tc.err)
			})
			t.Run("linkless", func(t *testing.T) {
				want := tc.linkless
				if want == nil {
					want = tc.err
				}
				check(t, func() ([]byte, error) {
					r, err := os.OpenRoot(root)
					if err != nil {
						return nil, err
					}
					defer r.Close()
					dir, name := filepath.Split(tc.name)
					d, err := openDir(r, filepath.ToSlash(filepath.Clean(dir)), "", false)
					if err != nil {
						return nil, err
					}
					defer d.Close()
					return readFile(context.Background(), d, name, tc.name, false, 1024)
				}, want)
			})
			// The task files' reader, with the same checks in fewer calls
			// where the system has them (load_unix.go).
			t.Run("openTasks", func(t *testing.T) {
				dir, name := filepath.Split(tc.name)
				if filepath.Clean(dir) != ".pact" {
					t.Skip("task files are read from one directory")
				}
				want := tc.linkless
				if want == nil {
					want = tc.err
				}
				check(t, func() ([]byte, error) {
					r, err := os.OpenRoot(filepath.Join(root, ".pact"))
					if err != nil {
						return nil, err
					}
					defer r.Close()
					open, done, err := openTasks(r)
					if err != nil {
						return nil, err
					}
					defer done()
					f, size, err := open(name, ".pact")
					if errors.Is(err, fs.ErrNotExist) {
						return nil, nil
					}
					if err != nil {
						return nil, err
					}
					defer f.Close()
					if size > 1024 {
						return nil, tooLarge("read", tc.name, size, 1024)
					}
					return io.ReadAll(f)
				}, want)
			})
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ReadRegular(ctx, root, ".pact/log.jsonl", 1024); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled read: err = %v", err)
	}
}

// TestOpenDir: pactify enters the pact directory only through directories,
// never through a link, even one that stays inside the repository.
func TestOpenDir(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(root, "docs", "pact"), 0o755))
	must(os.WriteFile(filepath.Join(root, "file"), nil, 0o644))
	r := openRoot(t, root)
	for _, c := range []struct {
		rel string
		err error
	}{
		{".", nil},
		{"docs/pact", nil},
		{"docs/missing", fs.ErrNotExist},
		{"file", ErrNotRegular},
		{"file/x", ErrNotRegular},
		{"..", ErrNotRegular},
	} {
		d, err := openDir(r, c.rel, "", false)
		if err == nil {
			d.Close()
		}
		if (c.err == nil) != (err == nil) || (c.err != nil && !errors.Is(err, c.err)) {
			t.Errorf("openDir(%q) = %v, want %v", c.rel, err, c.err)
		}
	}
	if os.Symlink("docs", filepath.Join(root, "link")) == nil {
		if _, err := openDir(r, "link/pact", "", false); !errors.Is(err, ErrNotRegular) {
			t.Errorf("through a link inside the repository: %v, want ErrNotRegular", err)
		}
		if _, err := openDir(r, "link/new", "", true); !errors.Is(err, ErrNotRegular) {
			t.Errorf("creating through a link: %v, want ErrNotRegular", err)
		}
		if _, err := os.Stat(filepath.Join(root, "docs", "new")); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("a directory was made through the link: %v", err)
		}
	}
	d, err := openDir(r, "made/deeper", "", true)
	if err != nil {
		t.Fatal(err)
	}
	d.Close()
	if fi, err := os.Stat(filepath.Join(root, "made", "deeper")); err != nil || !fi.IsDir() {
		t.Fatalf("create: %v", err)
	}
}

// TestOpenNoLink: a write opens only a regular file or creates one, never
// through a link.
func TestOpenNoLink(t *testing.T) {
	t.Parallel()
	root, outside := t.TempDir(), t.TempDir()
	r := openRoot(t, root)
	if err := os.WriteFile(filepath.Join(root, "log"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := openNoLink(r, "log", "log", os.O_RDWR|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	f, err = openNoLink(r, "new", "new", os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := openNoLink(r, "absent", "absent", os.O_RDWR, 0); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("without O_CREATE: %v, want fs.ErrNotExist", err)
	}
	if err := os.Mkdir(filepath.Join(root, "dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := openNoLink(r, "dir", "dir", os.O_RDWR|os.O_CREATE, 0o644); !errors.Is(err, ErrNotRegular) {
		t.Errorf("a directory: %v, want ErrNotRegular", err)
	}
	target := filepath.Join(outside, "target")
	if err := os.WriteFile(target, []byte("outside\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if os.Symlink(target, filepath.Join(root, "out")) == nil {
		for _, name := range []string{"out", "inside"} {
			if name == "inside" {
				if err := os.Symlink("log", filepath.Join(root, "inside")); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := openNoLink(r, name, name, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o644); !errors.Is(err, ErrNotRegular) {
				t.Errorf("a link %s: %v, want ErrNotRegular", name, err)
			}
		}
		if b, _ := os.ReadFile(target); string(b) != "outside\n" {
			t.Errorf("the file outside changed: %q", b)
		}
	}
}
