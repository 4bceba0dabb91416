package ghapi_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/pact-action/pact-action/ghapi"
	"github.com/pact-action/pact-action/internal/testkit/fakegithub"
)

// listed lists dir at commit and returns its entries as blob references.
func listed(t *testing.T, c *ghapi.Client, commit, dir string) (ghapi.Tree, []ghapi.BlobRef) {
	t.Helper()
	trees, err := c.ReadTrees(context.Background(), ghapi.TreeRead{Commit: commit, Dirs: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	var refs []ghapi.BlobRef
	for p, e := range trees[0].Entries {
		if e.Kind == ghapi.KindFile {
			if e.Data != nil {
				t.Errorf("%s was read while listing its directory", p)
			}
			refs = append(refs, ghapi.BlobRef{Path: p, OID: e.OID, Size: e.Size})
		}
	}
	return trees[0], refs
}

// TestReadBlobs: the files of a listed directory are read by id in one
// GraphQL request; those GraphQL does not give whole (over its cut of
// Blob.text, binary, not UTF-8, or larger than GitHub's cut so not asked)
// through the blobs API; a blob read once is never read again; a server
// without GraphQL gives the same bytes through REST.
func TestReadBlobs(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"d/small.md":  "small\n",
		"d/same.md":   "small\n", // the same blob: read once
		"d/cut.md":    strings.Repeat("c", 100),
		"d/bin.dat":   "a\x00b",
		"d/latin1.md": "caf\xe9\n",
		"d/large.md":  strings.Repeat("l", 600_000), // over GitHub's cut: never asked of GraphQL
		"d/empty.md":  "",
	}
	read := func(opts ...fakegithub.Option) (map[string][]byte, *fakegithub.Server, *ghapi.Client, []ghapi.BlobRef) {
		srv := fakegithub.New(t, append([]fakegithub.Option{fakegithub.WithGraphQLTextLimit(64)}, opts...)...)
		seedRepo(t, srv)
		head := srv.CommitFiles(owner, repo, "topic", files, "bob")
		c, _ := newClient(t, srv)
		_, refs := listed(t, c, head, "d")
		if len(refs) != len(files) {
			t.Fatalf("listed %d files, want %d", len(refs), len(files))
		}
		got, err := c.ReadBlobs(context.Background(), refs)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range refs {
			if string(got[r.OID]) != files[r.Path] || got[r.OID] == nil {
				t.Errorf("%s = %.20q, want %.20q", r.Path, got[r.OID], files[r.Path])
			}
		}
		return got, srv, c, refs
	}
	want, srv, c, refs := read()
	// The listing, one GraphQL read of the blobs, and the blobs API for
	// the cut, binary, re-encoded and large ones.
	if n := opCount(srv, fakegithub.GraphQLOperation); n != 2 {
		t.Errorf("graphql requests = %d, want 2 (the listing, the blobs)", n)
	}
	if n := opCount(srv, "git/get-blob"); n != 4 {
		t.Errorf("blob reads = %d, want 4", n)
	}
	before := len(srv.Requests())
	if again, err := c.ReadBlobs(context.Background(), refs); err != nil || !reflect.DeepEqual(again, want) {
		t.Errorf("second read = %v", err)
	}
	if n := len(srv.Requests()) - before; n != 0 {
		t.Errorf("a second read of the same blobs made %d requests, want 0", n)
	}
	got, rest, _, _ := read(fakegithub.WithoutGraphQL())
	if !reflect.DeepEqual(got, want) {
		t.Error("the REST read differs from the GraphQL read")
	}
	if n := opCount(rest, "git/get-blob"); n != 6 {
		t.Errorf("blob reads without GraphQL = %d, want 6 (one per distinct blob)", n)
	}
	for _, s := range []*fakegithub.Server{srv, rest} {
		if v := s.Violations(); len(v) != 0 {
			t.Errorf("violations: %v", v)
		}
	}
}

// TestReadBlobsBatchesBySize: the GraphQL requests of a read are bounded
// by its bytes, not by the number of blobs.
func TestReadBlobsBatchesBySize(t *testing.T) {
	t.Parallel()
	srv := fakegithub.New(t)
	seedRepo(t, srv)
	files := map[string]string{}
	for i := range 12 {
		files[fmt.Sprintf("d/f%02d", i)] = fmt.Sprintf("%02d", i) + strings.Repeat("x", 500_000-2)
	}
	for i := range 500 {
		files[fmt.Sprintf("d/s%03d", i)] = fmt.Sprintf("small %d\n", i)
	}
	head := srv.CommitFiles(owner, repo, "topic", files, "bob")
	c, _ := newClient(t, srv)
	_, refs := listed(t, c, head, "d")
	before := opCount(srv, fakegithub.GraphQLOperation)
	got, err := c.ReadBlobs(context.Background(), refs)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range refs {
		if string(got[r.OID]) != files[r.Path] {
			t.Errorf("%s differs", r.Path)
		}
	}
	// 6 MB of text: two requests of at most 4 MiB.
	if n := opCount(srv, fakegithub.GraphQLOperation) - before; n != 2 {
		t.Errorf("graphql requests = %d, want 2", n)
	}
	if n := opCount(srv, "git/get-blob"); n != 0 {
		t.Errorf("blob reads = %d, want 0", n)
	}
}

// TestReadBlobRaw: a blob read through the blobs API comes as its bytes
// (the raw media type), not as base64 in JSON, which the client held three
// or four times over: what GitHub sends is the blob's size, with GraphQL
// or without.
func TestReadBlobRaw(t *testing.T) {
	t.Parallel()
	const size = 600_000 // over GitHub's cut of Blob.text
	text := strings.Repeat("raw\n", size/4)
	for _, tc := range []struct {
		name string
		opts []fakegithub.Option
	}{{"with GraphQL", nil}, {"without GraphQL", []fakegithub.Option{fakegithub.WithoutGraphQL()}}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := fakegithub.New(t, tc.opts...)
			seedRepo(t, srv)
			head := srv.CommitFiles(owner, repo, "topic", map[string]string{"d/big.md": text}, "bob")
			c, _ := newClient(t, srv)
			_, refs := listed(t, c, head, "d")
			before := srv.BytesServed()
			got, err := c.ReadBlobs(context.Background(), refs)
			if err != nil {
				t.Fatal(err)
			}
			if string(got[refs[0].OID]) != text {
				t.Fatal("the blob read differs")
			}
			if served := srv.BytesServed() - before; served > size+size/100 {
				t.Errorf("%d bytes served for a blob of %d: not read raw", served, size)
			}
			if n := opCount(srv, "git/get-blob"); n != 1 {
				t.Errorf("blob reads = %d, want 1", n)
			}
		})
	}
}

func TestReadBlobsRefuses(t *testing.T) {
	t.Parallel()
	srv := fakegithub.New(t)
	seedRepo(t, srv)
	c, _ := newClient(t, srv)
	ctx := context.Background()
	if _, err := c.ReadBlobs(ctx, []ghapi.BlobRef{{Path: "x", OID: strings.Repeat("0", 40), Size: 3}}); !errors.Is(err, ghapi.ErrNotFound) {
		t.Errorf("an unknown blob: %v, want ErrNotFound", err)
	}
	if _, err := c.ReadBlobs(ctx, []ghapi.BlobRef{{Path: "x", OID: "HEAD", Size: 3}}); err == nil {
		t.Error("a blob named by something else than an object id was read")
	}
}
