package ghapi_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/pact-action/pact-action/ghapi"
	"github.com/pact-action/pact-action/internal/testkit/fakegithub"
)

func TestGraphQLURL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, apiURL, graphqlURL, want string
	}{
		{name: "github.com", want: "https://api.github.com/graphql"},
		{name: "github.com named", apiURL: "https://api.github.com", want: "https://api.github.com/graphql"},
		{name: "enterprise server", apiURL: "https://ghe.example.com/api/v3", want: "https://ghe.example.com/api/graphql"},
		{name: "enterprise server bare host", apiURL: "https://ghe.example.com", want: "https://ghe.example.com/api/graphql"},
		{name: "ghe.com data residency", apiURL: "https://api.octocorp.ghe.com", want: "https://api.octocorp.ghe.com/graphql"},
		{name: "the runner names it", apiURL: "https://ghe.example.com/api/v3", graphqlURL: "https://gql.example.com/x", want: "https://gql.example.com/x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := ghapi.New(context.Background(), ghapi.Options{APIURL: tt.apiURL, GraphQLURL: tt.graphqlURL, Owner: owner, Repo: repo})
			if err != nil {
				t.Fatal(err)
			}
			if got := c.GraphQLURL(); got != tt.want {
				t.Errorf("GraphQLURL() = %q, want %q", got, tt.want)
			}
		})
	}
	if _, err := ghapi.New(context.Background(), ghapi.Options{GraphQLURL: "graphql", Owner: owner, Repo: repo}); err == nil {
		t.Error("a relative GraphQL URL was accepted")
	}
}

// opCount counts the fake's requests answered by operation op.
func opCount(srv *fakegithub.Server, op string) int {
	n := 0
	for _, r := range srv.Requests() {
		if r.Operation == op {
			n++
		}
	}
	return n
}

func TestReadTrees(t *testing.T) {
	t.Parallel()
	srv := fakegithub.New(t, fakegithub.WithGraphQLTextLimit(64))
	seedRepo(t, srv)
	big := strings.Repeat("x", 100) + "\n"
	files := map[string]string{
		".pact/log.jsonl":    big,
		".pact/STATE.yml":    "state\n",
		".pact/bin.dat":      "a\x00b",
		".pact/latin1.txt":   "caf\xe9\n",
		".pact/tasks/T1.md":  "t1\n",
		".pact/tasks/T2.md":  "t2\n",
		"src/outside_pact.g": "package x\n",
	}
	srv.CommitFiles(owner, repo, "main", map[string]string{".github/pact.yml": "seats: {}\n"}, "alice")
	sub := srv.CommitFiles(owner, repo, "other", map[string]string{"x": "1"}, "bob")
	head := srv.CommitFiles(owner, repo, "topic", files, "bob", fakegithub.Symlink(".pact/tasks/T3.md", "/etc/passwd"),
		fakegithub.Submodule(".pact/tasks/T4.md", sub), fakegithub.Symlink(".pact/PROJECT.md", "../README.md"))
	c, _ := newClient(t, srv)
	ctx := context.Background()

	trees, err := c.ReadTrees(ctx,
		ghapi.TreeRead{Commit: head, Files: []string{".pact/log.jsonl", ".pact/STATE.yml", ".pact/PROJECT.md", ".pact/missing", ".pact/bin.dat", ".pact/latin1.txt"}, Dirs: []string{".pact/tasks"}},
		ghapi.TreeRead{Branch: "main", Files: []string{".github/pact.yml", "README.md"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(trees) != 2 || trees[0].Commit != head || trees[1].Commit != srv.BranchHead(owner, repo, "main") || trees[0].RootTree == "" {
		t.Fatalf("trees = %+v", trees)
	}
	want := map[string]ghapi.Entry{
		".pact/log.jsonl":   {Kind: ghapi.KindFile, Data: []byte(big)},
		".pact/STATE.yml":   {Kind: ghapi.KindFile, Data: []byte("state\n")},
		".pact/PROJECT.md":  {Kind: ghapi.KindSymlink},
		".pact/bin.dat":     {Kind: ghapi.KindFile, Data: []byte("a\x00b")},
		".pact/latin1.txt":  {Kind: ghapi.KindFile, Data: []byte("caf\xe9\n")},
		".pact/tasks":       {Kind: ghapi.KindDir},
		".pact/tasks/T1.md": {Kind: ghapi.KindFile, Size: 3}, // listed, not read
		".pact/tasks/T2.md": {Kind: ghapi.KindFile, Size: 3},
		".pact/tasks/T3.md": {Kind: ghapi.KindSymlink},
		".pact/tasks/T4.md": {Kind: ghapi.KindSubmodule},
	}
	got := trees[0].Entries
	if len(got) != len(want) {
		t.Errorf("entries = %d, want %d: %v", len(got), len(want), got)
	}
	for p, w := range want {
		g, ok := got[p]
		if !ok || g.Kind != w.Kind || string(g.Data) != string(w.Data) || (g.Data == nil) != (w.Data == nil) || g.Size != max(w.Size, int64(len(w.Data))) || g.OID == "" {
			t.Errorf("%s = %q %q (size %d, id %q), want %q %q", p, g.Kind, g.Data, g.Size, g.OID, w.Kind, w.Data)
		}
	}
	if _, ok := got[".pact/missing"]; ok {
		t.Error("a missing file is present")
	}
	if e := trees[1].Entries[".github/pact.yml"]; string(e.Data) != "seats: {}\n" {
		t.Errorf("config at the branch tip = %q", e.Data)
	}
	// One query; the blobs API only for the log (over the cut), the binary
	// file and the file that is not UTF-8.
	if n := opCount(srv, fakegithub.GraphQLOperation); n != 1 {
		t.Errorf("graphql requests = %d, want 1", n)
	}
	if n := opCount(srv, "git/get-blob"); n != 3 {
		t.Errorf("blob reads = %d, want 3", n)
	}

	// Everything read at a commit id is kept: nothing is read again.
	before := len(srv.Requests())
	if b, err := c.ReadFile(ctx, ".pact/log.jsonl", head); err != nil || string(b) != big {
		t.Errorf("ReadFile at the commit = %q, %v", b, err)
	}
	if _, err := c.ReadFile(ctx, ".pact/missing", head); !errors.Is(err, ghapi.ErrNotFound) {
		t.Errorf("ReadFile of the missing file = %v, want ErrNotFound", err)
	}
	again, err := c.ReadTrees(ctx, ghapi.TreeRead{Commit: head, Files: []string{".pact/log.jsonl"}})
	if err != nil || string(again[0].Entries[".pact/log.jsonl"].Data) != big {
		t.Fatalf("second read: %v", err)
	}
	if n := len(srv.Requests()) - before; n != 1 {
		t.Errorf("%d requests after the first read, want 1 (the query; the log's blob is known)", n)
	}
}

func TestReadTreesNotFound(t *testing.T) {
	t.Parallel()
	srv := fakegithub.New(t)
	seedRepo(t, srv)
	c, _ := newClient(t, srv)
	ctx := context.Background()
	for name, r := range map[string]ghapi.TreeRead{
		"branch": {Branch: "nope", Files: []string{"README.md"}},
		"commit": {Commit: strings.Repeat("a", 40), Files: []string{"README.md"}},
	} {
		if _, err := c.ReadTrees(ctx, r); !errors.Is(err, ghapi.ErrNotFound) {
			t.Errorf("%s: error = %v, want ErrNotFound", name, err)
		}
	}
	if _, err := c.ReadTrees(ctx, ghapi.TreeRead{Branch: "main", Files: []string{"../x"}}); err == nil {
		t.Error("a path with .. was read")
	}
	if _, err := c.ReadTrees(ctx, ghapi.TreeRead{Branch: "main", Commit: "abc"}); err == nil {
		t.Error("a read naming a branch and a commit was sent")
	}
	other, _ := newClient(t, srv, func(o *ghapi.Options) { o.Repo = "gone" })
	if _, err := other.ReadTrees(ctx, ghapi.TreeRead{Branch: "main"}); !errors.Is(err, ghapi.ErrNotFound) {
		t.Errorf("unknown repository: %v, want ErrNotFound", err)
	}
}

// GitHub answers a GraphQL rate limit with 200 and an error; it is waited
// out like a REST one.
func TestReadTreesRetriesRateLimits(t *testing.T) {
	t.Parallel()
	srv := fakegithub.New(t)
	seedRepo(t, srv)
	c, sl := newClient(t, srv)
	srv.Inject(fakegithub.Fault{Method: "POST", Path: "/api/graphql", Status: http.StatusOK, Header: http.Header{"Retry-After": {"5"}},
		Body: []byte(`{"errors":[{"type":"RATE_LIMITED","message":"API rate limit exceeded for installation ID 1."}]}`)})
	srv.Inject(fakegithub.Fault{Method: "POST", Path: "/api/graphql", Status: http.StatusBadGateway})
	trees, err := c.ReadTrees(context.Background(), ghapi.TreeRead{Branch: "main", Files: []string{"README.md"}})
	if err != nil {
		t.Fatal(err)
	}
	if string(trees[0].Entries["README.md"].Data) != "# widgets\n" {
		t.Errorf("README = %q", trees[0].Entries["README.md"].Data)
	}
	if d := sl.all(); len(d) != 2 || d[0] != 5e9 {
		t.Errorf("waits = %v, want 5s (Retry-After) then a backoff", d)
	}

	// Any other error in the answer is an error.
	srv.Inject(fakegithub.Fault{Method: "POST", Path: "/api/graphql", Status: http.StatusOK,
		Body: []byte(`{"data":null,"errors":[{"type":"SERVICE_UNAVAILABLE","message":"Something went wrong"}]}`)})
	if _, err := c.ReadTrees(context.Background(), ghapi.TreeRead{Branch: "main", Files: []string{"README.md"}}); err == nil || !strings.Contains(err.Error(), "Something went wrong") {
		t.Errorf("error = %v, want GitHub's message", err)
	}
}

// The bot's commit costs three calls when the parent was read through
// ReadTrees and the files are text.
func TestCommitFilesAfterReadTrees(t *testing.T) {
	t.Parallel()
	srv := fakegithub.New(t)
	seedRepo(t, srv)
	c, _ := newClient(t, srv)
	ctx := context.Background()
	trees, err := c.ReadTrees(ctx, ghapi.TreeRead{Branch: "main", Files: []string{".pact/log.jsonl"}})
	if err != nil {
		t.Fatal(err)
	}
	before := len(srv.Requests())
	sha, err := c.CommitFiles(ctx, "main", trees[0].Commit, map[string]ghapi.File{".pact/log.jsonl": {[]byte("{\"event\":\"init\"}\n"), []byte("{\"é\":\"<&>\"}\n")}}, "pact: append")
	if err != nil {
		t.Fatal(err)
	}
	if n := len(srv.Requests()) - before; n != 3 {
		t.Errorf("%d requests for the commit, want 3 (tree, commit, ref): %+v", n, srv.Requests()[before:])
	}
	if got, _ := srv.FileAt(sha, ".pact/log.jsonl"); got != "{\"event\":\"init\"}\n{\"é\":\"<&>\"}\n" {
		t.Errorf("log = %q", got)
	}
	if _, ok := srv.FileAt(sha, "src/deep/dir.txt"); !ok {
		t.Error("the tree was not based on the parent's")
	}
}

// A server whose GraphQL endpoint does not answer is read through the REST
// API, entry for entry the same.
func TestReadTreesWithoutGraphQL(t *testing.T) {
	t.Parallel()
	read := func(opts ...fakegithub.Option) ([]ghapi.Tree, *fakegithub.Server) {
		srv := fakegithub.New(t, opts...)
		seedRepo(t, srv)
		sub := srv.CommitFiles(owner, repo, "other", map[string]string{"x": "1"}, "bob")
		head := srv.CommitFiles(owner, repo, "topic", map[string]string{".pact/log.jsonl": "l\n", ".pact/bin.dat": "a\x00b", ".pact/tasks/T1.md": "t1\n"}, "bob",
			fakegithub.Symlink(".pact/tasks/T3.md", "/etc/passwd"), fakegithub.Submodule(".pact/tasks/T4.md", sub))
		c, _ := newClient(t, srv)
		trees, err := c.ReadTrees(context.Background(),
			ghapi.TreeRead{Commit: head, Files: []string{".pact/log.jsonl", ".pact/bin.dat", ".pact/missing", "nope/deeper"}, Dirs: []string{".pact/tasks", ".pact/none"}},
			ghapi.TreeRead{Branch: "main", Files: []string{"README.md"}})
		if err != nil {
			t.Fatal(err)
		}
		return trees, srv
	}
	want, _ := read()
	got, srv := read(fakegithub.WithoutGraphQL())
	if !reflect.DeepEqual(got, want) {
		t.Errorf("through REST:\n%+v\nthrough GraphQL:\n%+v", got, want)
	}
	if n := opCount(srv, "git/get-blob"); n != 3 {
		t.Errorf("blob reads = %d, want 3 (one per file read; a directory is listed)", n)
	}
	if v := srv.Violations(); len(v) != 0 {
		t.Errorf("violations: %v", v)
	}
}

// TestReadTreesTake: a file's size is offered to Take before its bytes are
// kept or fetched; a refusal stops the read without fetching it.
func TestReadTreesTake(t *testing.T) {
	t.Parallel()
	for _, opts := range [][]fakegithub.Option{nil, {fakegithub.WithoutGraphQL()}} {
		srv := fakegithub.New(t, append([]fakegithub.Option{fakegithub.WithGraphQLTextLimit(64)}, opts...)...)
		seedRepo(t, srv)
		head := srv.CommitFiles(owner, repo, "topic", map[string]string{"a.txt": "a\n", "big.txt": strings.Repeat("b", 1000)}, "bob")
		c, _ := newClient(t, srv)
		refused := errors.New("too big for me")
		var offered []string
		_, err := c.ReadTrees(context.Background(), ghapi.TreeRead{Commit: head, Files: []string{"a.txt", "big.txt"},
			Take: func(p string, n int64) error {
				offered = append(offered, fmt.Sprintf("%s:%d", p, n))
				if n > 100 {
					return refused
				}
				return nil
			}})
		if !errors.Is(err, refused) {
			t.Errorf("ReadTrees = %v, want the refusal", err)
		}
		if want := []string{"a.txt:2", "big.txt:1000"}; !reflect.DeepEqual(offered, want) {
			t.Errorf("offered %v, want %v", offered, want)
		}
		if n := opCount(srv, "git/get-blob"); n > 1 {
			t.Errorf("blob reads = %d: the refused file was fetched", n)
		}
	}
}

// TestReadTreesDefaultBranch: the default branch is whichever GitHub names
// at the time of the read, in the same request as the other reads (GraphQL)
// or with one more call (REST); the tree says which branch it was.
func TestReadTreesDefaultBranch(t *testing.T) {
	t.Parallel()
	for _, rest := range []bool{false, true} {
		var opts []fakegithub.Option
		if rest {
			opts = append(opts, fakegithub.WithoutGraphQL())
		}
		srv := fakegithub.New(t, opts...)
		seedRepo(t, srv)
		trunk := srv.CommitFiles(owner, repo, "trunk", map[string]string{".github/pact.yml": "seats: {lead: [alice]}\n"}, "alice")
		srv.CommitFiles(owner, repo, "main", map[string]string{".github/pact.yml": "provenance: {mode: off}\n"}, "mallory")
		srv.SetDefaultBranch(owner, repo, "trunk")
		c, _ := newClient(t, srv)
		trees, err := c.ReadTrees(context.Background(),
			ghapi.TreeRead{Branch: "main"},
			ghapi.TreeRead{DefaultBranch: true, Files: []string{".github/pact.yml"}},
			ghapi.TreeRead{DefaultBranch: true})
		if err != nil {
			t.Fatalf("rest %v: %v", rest, err)
		}
		if trees[0].Branch != "main" || trees[1].Branch != "trunk" || trees[1].Commit != trunk || trees[2].Commit != trunk {
			t.Errorf("rest %v: trees = %+v", rest, trees)
		}
		if got := string(trees[1].Entries[".github/pact.yml"].Data); got != "seats: {lead: [alice]}\n" {
			t.Errorf("rest %v: the default branch's configuration = %q", rest, got)
		}
		calls := map[bool]map[string]int{false: {fakegithub.GraphQLOperation: 1, "repos/get": 0}, true: {"repos/get": 1}}[rest]
		for op, want := range calls {
			if n := opCount(srv, op); n != want {
				t.Errorf("rest %v: %s ×%d, want %d", rest, op, n, want)
			}
		}
		if v := srv.Violations(); len(v) != 0 {
			t.Errorf("violations: %v", v)
		}
	}
	// A repository with no branch has no default branch to read.
	for _, rest := range []bool{false, true} {
		var opts []fakegithub.Option
		if rest {
			opts = append(opts, fakegithub.WithoutGraphQL())
		}
		srv := fakegithub.New(t, opts...)
		srv.CreateRepo(owner, repo, "main")
		c, _ := newClient(t, srv)
		if _, err := c.ReadTrees(context.Background(), ghapi.TreeRead{DefaultBranch: true}); !errors.Is(err, ghapi.ErrNotFound) {
			t.Errorf("rest %v, empty repository: %v, want ErrNotFound", rest, err)
		}
	}
	c, _ := newClient(t, fakegithub.New(t))
	if _, err := c.ReadTrees(context.Background(), ghapi.TreeRead{DefaultBranch: true, Branch: "main"}); err == nil {
		t.Error("a read naming a branch and the default branch was sent")
	}
}
