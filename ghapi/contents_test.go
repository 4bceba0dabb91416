package ghapi_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/pact-action/pact-action/ghapi"
	"github.com/pact-action/pact-action/internal/testkit/fakegithub"
)

func TestReadFile(t *testing.T) {
	t.Parallel()
	srv := fakegithub.New(t)
	main := seedRepo(t, srv)
	big := strings.Repeat("0123456789abcdef", 2<<20/16) // 2 MiB
	feature := srv.CommitFiles(owner, repo, "feature/log", map[string]string{
		".pact/log.jsonl":      "{\"event\":\"init\"}\n{\"event\":\"claim\"}\n",
		"big/data.bin":         big,
		"dir with space/ü.txt": "unicode\n",
	}, "bob")
	c, _ := newClient(t, srv)

	tests := []struct {
		name    string
		path    string
		ref     string
		want    string
		wantErr error
		anyErr  bool
	}{
		{name: "default branch", path: "README.md", want: "# widgets\n"},
		{name: "branch with slash", path: ".pact/log.jsonl", ref: "feature/log", want: "{\"event\":\"init\"}\n{\"event\":\"claim\"}\n"},
		{name: "commit sha", path: ".pact/log.jsonl", ref: main, want: "{\"event\":\"init\"}\n"},
		{name: "nested", path: "src/deep/dir.txt", ref: "main", want: "deep\n"},
		{name: "escaped path", path: "dir with space/ü.txt", ref: feature, want: "unicode\n"},
		{name: "2 MB file through raw media type", path: "big/data.bin", ref: "feature/log", want: big},
		{name: "missing file", path: "nope.txt", ref: "main", wantErr: ghapi.ErrNotFound},
		{name: "missing ref", path: "README.md", ref: "no-such-branch", wantErr: ghapi.ErrNotFound},
		{name: "directory", path: "src", ref: "main", anyErr: true},
		{name: "parent traversal", path: "../x", anyErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := c.ReadFile(context.Background(), tt.path, tt.ref)
			switch {
			case tt.wantErr != nil:
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("ReadFile(%q, %q) error = %v, want %v", tt.path, tt.ref, err, tt.wantErr)
				}
			case tt.anyErr:
				if err == nil {
					t.Fatalf("ReadFile(%q, %q) succeeded, want an error", tt.path, tt.ref)
				}
			case err != nil:
				t.Fatalf("ReadFile(%q, %q): %v", tt.path, tt.ref, err)
			case string(got) != tt.want:
				t.Fatalf("ReadFile(%q, %q) = %d bytes %.40q, want %d bytes %.40q", tt.path, tt.ref, len(got), got, len(tt.want), tt.want)
			}
		})
	}
}

func TestReadFileFallsBackToBlobs(t *testing.T) {
	t.Parallel()
	// The fake refuses files above 1 KiB even as raw, like GitHub above
	// 100 MB, so ReadFile has to walk the trees and read the blob.
	srv := fakegithub.New(t, fakegithub.WithRawContentLimit(1024))
	content := strings.Repeat("x", 4096)
	srv.CommitFiles(owner, repo, "main", map[string]string{"a/b/large.txt": content, "a/small.txt": "s"}, "alice")
	c, _ := newClient(t, srv)

	tests := []struct {
		name, path, ref, want string
		wantErr               error
	}{
		{name: "default branch", path: "a/b/large.txt", want: content},
		{name: "named branch", path: "a/b/large.txt", ref: "main", want: content},
		{name: "small file needs no fallback", path: "a/small.txt", ref: "main", want: "s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := c.ReadFile(context.Background(), tt.path, tt.ref)
			if err != nil {
				t.Fatalf("ReadFile: %v", err)
			}
			if string(got) != tt.want {
				t.Fatalf("ReadFile = %d bytes, want %d", len(got), len(tt.want))
			}
		})
	}
	// The second large read is the same blob, kept by its id.
	if n := srv.CountRequests("GET", "/repos/acme/widgets/git/blobs/*"); n != 1 {
		t.Errorf("blob requests = %d, want 1", n)
	}
}

// TestReadFileLimit: a file over the limit is refused with ErrTooLarge,
// through the contents API, its blobs fallback and the cache alike.
func TestReadFileLimit(t *testing.T) {
	t.Parallel()
	content := strings.Repeat("z", 70_000)
	for name, opts := range map[string][]fakegithub.Option{"contents": nil, "blobs fallback": {fakegithub.WithRawContentLimit(1000)}} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := fakegithub.New(t, opts...)
			seedRepo(t, srv)
			head := srv.CommitFiles(owner, repo, "topic", map[string]string{"f.txt": content}, "bob")
			c, _ := newClient(t, srv)
			ctx := context.Background()
			if _, err := c.ReadFileLimit(ctx, "f.txt", head, int64(len(content))-1); !errors.Is(err, ghapi.ErrTooLarge) {
				t.Errorf("one byte over: %v, want ErrTooLarge", err)
			}
			if n := opCount(srv, "git/get-blob"); n != 0 {
				t.Errorf("the refused file's blob was read (%d)", n)
			}
			if b, err := c.ReadFileLimit(ctx, "f.txt", head, int64(len(content))); err != nil || string(b) != content {
				t.Errorf("at the limit: %d bytes, %v", len(b), err)
			}
			before := len(srv.Requests())
			if _, err := c.ReadFileLimit(ctx, "f.txt", head, 10); !errors.Is(err, ghapi.ErrTooLarge) {
				t.Errorf("cached, over the limit: %v, want ErrTooLarge", err)
			}
			if b, err := c.ReadFile(ctx, "f.txt", head); err != nil || string(b) != content || len(srv.Requests()) != before {
				t.Errorf("cached read: %d bytes, %v, %d requests", len(b), err, len(srv.Requests())-before)
			}
		})
	}
}

// TestReadFileStream: a file read as a stream is the file, within its
// limit (past it, an error wrapping ErrTooLarge from the reader, whatever
// the reader makes of it), from the cache once read, and fn's own error
// comes back as it is.
func TestReadFileStream(t *testing.T) {
	t.Parallel()
	srv := fakegithub.New(t)
	seedRepo(t, srv)
	content := strings.Repeat("line\n", 20_000)
	head := srv.CommitFiles(owner, repo, "topic", map[string]string{"f.txt": content}, "bob")
	c, _ := newClient(t, srv)
	ctx := context.Background()
	read := func(limit int64) (string, error) {
		var got []byte
		err := c.ReadFileStream(ctx, "f.txt", head, limit, func(r io.Reader) error {
			var err error
			if got, err = io.ReadAll(r); err != nil {
				return fmt.Errorf("the reader: %w", err)
			}
			return nil
		})
		return string(got), err
	}
	if _, err := read(int64(len(content)) - 1); !errors.Is(err, ghapi.ErrTooLarge) {
		t.Errorf("one byte over the limit: %v, want ErrTooLarge", err)
	}
	if got, err := read(int64(len(content))); got != content || err != nil {
		t.Errorf("at the limit: %d bytes, %v; want the file", len(got), err)
	}
	before := len(srv.Requests())
	if got, err := read(-1); got != content || len(srv.Requests()) != before {
		t.Errorf("read again: %d bytes, %v, %d requests; want the file from the cache", len(got), err, len(srv.Requests())-before)
	}
	if err := c.ReadFileStream(ctx, "nope.txt", head, -1, func(io.Reader) error { return nil }); !errors.Is(err, ghapi.ErrNotFound) {
		t.Errorf("a missing file: %v", err)
	}
	mine := errors.New("mine")
	if err := c.ReadFileStream(ctx, "f.txt", "topic", -1, func(io.Reader) error { return mine }); !errors.Is(err, mine) {
		t.Errorf("fn's error came back as %v", err)
	}
}
