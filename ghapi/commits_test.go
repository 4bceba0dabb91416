package ghapi_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"testing"

	"github.com/pact-action/pact-action/ghapi"
	"github.com/pact-action/pact-action/ghfacts"
	"github.com/pact-action/pact-action/internal/testkit/fakegithub"
)

func TestMergeBase(t *testing.T) {
	t.Parallel()
	srv := fakegithub.New(t)
	a := srv.CommitFiles(owner, repo, "main", map[string]string{"f": "a"}, "alice")
	b := srv.CommitFiles(owner, repo, "main", map[string]string{"f": "b"}, "alice")
	srv.CommitFiles(owner, repo, "feature", map[string]string{"g": "1"}, "bob") // from b
	e := srv.CommitFiles(owner, repo, "feature", map[string]string{"g": "2"}, "bob")
	c1 := srv.CommitFiles(owner, repo, "main", map[string]string{"f": "c"}, "alice")
	// "merged" merges main (c1) into a copy of feature.
	srv.CommitFiles(owner, repo, "merged", map[string]string{"f": "c"}, "bob", fakegithub.WithParents(e, c1))
	srv.CommitFiles(owner, repo, "old", map[string]string{"h": "1"}, "bob", fakegithub.From(a))
	orphan := srv.CommitFiles(owner, repo, "orphan", map[string]string{"o": "1"}, "bob", fakegithub.WithParents())
	c, _ := newClient(t, srv)

	tests := []struct {
		name, base, head, want string
		wantErr                error
	}{
		{name: "diverged branches", base: "main", head: "feature", want: b},
		{name: "by sha", base: c1, head: e, want: b},
		{name: "after merging base into head", base: "main", head: "merged", want: c1},
		{name: "head behind base", base: "main", head: "old", want: a},
		{name: "identical", base: "main", head: c1, want: c1},
		{name: "unrelated histories", base: "main", head: orphan, wantErr: ghapi.ErrNotFound},
		{name: "unknown ref", base: "main", head: "nope", wantErr: ghapi.ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := c.MergeBase(context.Background(), tt.base, tt.head)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("MergeBase error = %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("MergeBase: %v", err)
			}
			if got != tt.want {
				t.Errorf("MergeBase(%s, %s) = %s, want %s", tt.base, tt.head, got, tt.want)
			}
			if fake := srv.MergeBase(resolve(srv, tt.base), resolve(srv, tt.head)); fake != got {
				t.Errorf("fake merge base %s differs from the API's %s", fake, got)
			}
		})
	}
}

func resolve(srv *fakegithub.Server, ref string) string {
	if sha := srv.BranchHead(owner, repo, ref); sha != "" {
		return sha
	}
	return ref
}

func TestCompareFiles(t *testing.T) {
	t.Parallel()
	srv := fakegithub.New(t)
	srv.CommitFiles(owner, repo, "main", map[string]string{"keep": "k", "edit": "1", "gone": "g", "move-me": "same"}, "alice")
	srv.CommitFiles(owner, repo, "feature", map[string]string{"edit": "2", "new/file": "n", "moved": "same"}, "bob",
		fakegithub.Deleting("gone", "move-me"))
	// A change on main after the fork point must not show up.
	srv.CommitFiles(owner, repo, "main", map[string]string{"main-only": "m"}, "alice")
	// Many files, more than one page of commits.
	many := map[string]string{}
	for i := range 150 {
		many[fmt.Sprintf("many/%03d", i)] = "x"
	}
	srv.CommitFiles(owner, repo, "many", many, "bob", fakegithub.From("main"))
	for i := range 120 {
		srv.CommitFiles(owner, repo, "many", map[string]string{"counter": fmt.Sprint(i)}, "bob")
	}
	c, _ := newClient(t, srv)

	tests := []struct {
		name, base, head string
		want             []string
		wantLen          int
	}{
		{name: "added modified removed renamed", base: "main", head: "feature", want: []string{"edit", "gone", "move-me", "moved", "new/file"}},
		{name: "no changes", base: "main", head: "main", want: nil},
		{name: "151 files over 121 commits", base: "main", head: "many", wantLen: 151},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := c.CompareFiles(context.Background(), tt.base, tt.head)
			if err != nil {
				t.Fatalf("CompareFiles: %v", err)
			}
			if tt.want != nil || tt.wantLen == 0 {
				if !reflect.DeepEqual(got, tt.want) {
					t.Errorf("CompareFiles = %q, want %q", got, tt.want)
				}
				return
			}
			if len(got) != tt.wantLen {
				t.Errorf("CompareFiles returned %d files, want %d", len(got), tt.wantLen)
			}
		})
	}
}

// CompareCommits says what each side has that the other lacks.
func TestCompareCommits(t *testing.T) {
	t.Parallel()
	srv := fakegithub.New(t)
	a := srv.CommitFiles(owner, repo, "main", map[string]string{"x": "1"}, "alice")
	b := srv.CommitFiles(owner, repo, "main", map[string]string{"x": "2"}, "alice")
	c2 := srv.CommitFiles(owner, repo, "side", map[string]string{"y": "1"}, "alice", fakegithub.From(a))
	c, _ := newClient(t, srv)
	ctx := context.Background()
	d, err := c.CompareCommits(ctx, a, b)
	if err != nil || d.AheadBy != 1 || d.BehindBy != 0 || len(d.Commits) != 1 || d.Commits[0] != b {
		t.Errorf("a...b = %+v, %v", d, err)
	}
	if d, err = c.CompareCommits(ctx, b, c2); err != nil || d.AheadBy != 1 || d.BehindBy != 1 || d.Commits[0] != c2 ||
		len(d.Parents[c2]) != 1 || d.Parents[c2][0] != a {
		t.Errorf("b...side = %+v, %v", d, err)
	}
	if _, err = c.CompareCommits(ctx, a, "0123456789012345678901234567890123456789"); !errors.Is(err, ghapi.ErrNotFound) {
		t.Errorf("an unknown commit: %v, want not found", err)
	}
	if v := srv.Violations(); len(v) != 0 {
		t.Errorf("OpenAPI violations: %q", v)
	}
}

func TestCommitLookup(t *testing.T) {
	t.Parallel()
	srv := fakegithub.New(t)
	base := seedRepo(t, srv)
	c1 := srv.CommitFiles(owner, repo, "topic", map[string]string{"a": "1"}, "bob", fakegithub.Verified(), fakegithub.WithCommitter("web-flow"), fakegithub.WithMessage("first"))
	c, _ := newClient(t, srv)

	got, err := c.Commit(context.Background(), c1)
	if err != nil {
		t.Fatal(err)
	}
	info, _ := srv.Commit(c1)
	want := &ghfacts.Commit{SHA: c1, Parents: []string{base}, AuthorLogin: "bob", CommitterLogin: "web-flow", Verified: true, Message: "first", CommitterDate: info.Date}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Commit =\n%+v\nwant\n%+v", got, want)
	}
	_, err = c.Commit(context.Background(), "0000000000000000000000000000000000000000")
	var ae *ghapi.APIError
	if !errors.As(err, &ae) || ae.StatusCode != http.StatusUnprocessableEntity || !errors.Is(err, ghapi.ErrNotFound) {
		t.Errorf("Commit(unknown) error = %v, want a 422 APIError that is ErrNotFound", err)
	}
}
