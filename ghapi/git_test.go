package ghapi_test

import (
	"bytes"
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/pact-action/pact-action/ghapi"
	"github.com/pact-action/pact-action/internal/testkit/fakegithub"
)

func TestCommitFiles(t *testing.T) {
	t.Parallel()
	srv := fakegithub.New(t)
	seedRepo(t, srv)
	parent := srv.CommitFiles(owner, repo, "topic", map[string]string{".pact/log.jsonl": "{\"event\":\"init\"}\n"}, "bob")
	c, _ := newClient(t, srv)
	ctx := context.Background()

	head := srv.BranchHead(owner, repo, "topic")
	if head != parent {
		t.Fatalf("the branch is at %s, want %s", head, parent)
	}
	files := map[string]ghapi.File{
		".pact/log.jsonl":    {[]byte("{\"event\":\"init\"}\n"), []byte("{\"event\":\"ack\"}\n")},
		".pact/bin/blob.dat": {{0, 1, 2, 0xff, 0xfe}},
		// A character split across parts: valid as a whole, sent as a blob.
		".pact/split.md": {[]byte("caf\xc3"), []byte("\xa9\n")},
	}
	sha, err := c.CommitFiles(ctx, "topic", parent, files, "pact: record ack")
	if err != nil {
		t.Fatal(err)
	}
	if got := srv.BranchHead(owner, repo, "topic"); got != sha {
		t.Fatalf("branch head = %s, want the new commit %s", got, sha)
	}
	info, _ := srv.Commit(sha)
	if !reflect.DeepEqual(info.Parents, []string{parent}) || info.Message != "pact: record ack" || !info.Verified || info.AuthorLogin != fakegithub.DefaultLogin {
		t.Errorf("commit = %+v", info)
	}
	for p, parts := range files {
		want := string(bytes.Join(parts, nil))
		if got, ok := srv.FileAt(sha, p); !ok || got != want {
			t.Errorf("FileAt(%s) = %q, %v; want %q", p, got, ok, want)
		}
	}
	for _, p := range []string{"README.md", "src/deep/dir.txt"} {
		if _, ok := srv.FileAt(sha, p); !ok {
			t.Errorf("%s lost: the tree was not based on the parent's", p)
		}
	}

}

func TestCommitFilesNotFastForward(t *testing.T) {
	t.Parallel()
	srv := fakegithub.New(t)
	seedRepo(t, srv)
	parent := srv.CommitFiles(owner, repo, "topic", map[string]string{"log": "1\n"}, "bob")
	var racer string
	srv.BeforeUpdateRef(func(o, r, ref string) {
		if ref == "heads/topic" && racer == "" {
			// Someone pushes to the branch between our commit and our
			// ref update.
			racer = srv.CommitFiles(o, r, "topic", map[string]string{"log": "1\n2\n"}, "bob")
		}
	})
	c, _ := newClient(t, srv)
	ctx := context.Background()

	_, err := c.CommitFiles(ctx, "topic", parent, map[string]ghapi.File{"log": {[]byte("1\nbot\n")}}, "pact: append")
	if !errors.Is(err, ghapi.ErrNotFastForward) {
		t.Fatalf("CommitFiles error = %v, want ErrNotFastForward", err)
	}
	if got := srv.BranchHead(owner, repo, "topic"); got != racer {
		t.Fatalf("branch head = %s, want the concurrent push %s", got, racer)
	}
	if n := srv.CountRequests("PATCH", "/repos/acme/widgets/git/refs/heads/topic"); n != 1 {
		t.Errorf("update-ref requests = %d: a 422 must not be retried", n)
	}

	// The caller re-reads the branch and tries again.
	head := srv.BranchHead(owner, repo, "topic")
	sha, err := c.CommitFiles(ctx, "topic", head, map[string]ghapi.File{"log": {[]byte("1\n2\nbot\n")}}, "pact: append")
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := srv.FileAt(sha, "log"); got != "1\n2\nbot\n" {
		t.Errorf("log = %q", got)
	}
	if _, err := c.CommitFiles(ctx, "missing", head, map[string]ghapi.File{"x": nil}, "m"); !errors.Is(err, ghapi.ErrNotFound) {
		t.Errorf("commit to a missing branch: %v, want ErrNotFound", err)
	}
}
