package ghapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/pact-action/pact-action/ghapi"
	"github.com/pact-action/pact-action/internal/testkit/fakegithub"
)

// Answers GitHub gives whole but for a part: a tree whose entries are
// null or missing. "Same code?" and "same change?" are built on trees'
// entries, and a tree read as empty where GitHub did not list it would
// make two different commits hold the same code (both "empty"), and two
// different changes the same (both "everything deleted"), so an accept
// would cover what nobody reviewed. Such an answer must fail the
// question, never answer it.

// rewriting is a GitHub whose answers to the requests whose path holds
// which pass through edit on their way from srv to the client.
func rewriting(t *testing.T, srv *fakegithub.Server, which string, edit func(any) any) *httptest.Server {
	t.Helper()
	p := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.Contains(r.URL.Path, which) {
			srv.ServeHTTP(w, r)
			return
		}
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, r)
		var answer any
		body := rec.Body.Bytes()
		if rec.Code == http.StatusOK && json.Unmarshal(body, &answer) == nil {
			var buf bytes.Buffer
			_ = json.NewEncoder(&buf).Encode(edit(answer))
			body = buf.Bytes()
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(rec.Code)
		_, _ = w.Write(body)
	}))
	t.Cleanup(p.Close)
	return p
}

// without edits every object holding key: null, or the key gone.
func without(key string, missing bool) func(any) any {
	var walk func(any) any
	walk = func(v any) any {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if k == key {
					if missing {
						delete(x, k)
					} else {
						x[k] = nil
					}
					continue
				}
				x[k] = walk(e)
			}
		case []any:
			for i, e := range x {
				x[i] = walk(e)
			}
		}
		return v
	}
	return walk
}

func TestTreeWithoutItsEntriesFailsTheQuestion(t *testing.T) {
	t.Parallel()
	for _, api := range []struct {
		name, which, key string
		opts             []fakegithub.Option
	}{
		{name: "graphql", which: "/graphql", key: "entries"},
		// GET .../git/trees/{sha} lists a tree's entries under "tree".
		{name: "rest", which: "/git/trees/", key: "tree", opts: []fakegithub.Option{fakegithub.WithoutGraphQL()}},
	} {
		for _, dir := range []string{".pact", "meta/pact"} {
			for name, missing := range map[string]bool{"null": false, "missing": true} {
				t.Run(api.name+"/"+dir+"/"+api.key+" "+name, func(t *testing.T) {
					t.Parallel()
					testTreeWithoutItsEntries(t, api.opts, dir, rewritingWith(api.which, without(api.key, missing)))
				})
			}
		}
	}
}

func rewritingWith(which string, edit func(any) any) func(*testing.T, *fakegithub.Server) *httptest.Server {
	return func(t *testing.T, srv *fakegithub.Server) *httptest.Server { return rewriting(t, srv, which, edit) }
}

func testTreeWithoutItsEntries(t *testing.T, opts []fakegithub.Option, dir string, proxy func(*testing.T, *fakegithub.Server) *httptest.Server) {
	srv := fakegithub.New(t, opts...)
	base := srv.CommitFiles(owner, repo, "main", map[string]string{"src/a.go": "package a\n", dir + "/log.jsonl": "1\n", "meta/x.txt": "x\n"}, "alice")
	a := srv.CommitFiles(owner, repo, "main", map[string]string{"src/a.go": "package a // reviewed\n"}, "alice")
	b := srv.CommitFiles(owner, repo, "main", map[string]string{"src/a.go": "package a // not reviewed\n", "meta/y.txt": "y\n"}, "alice")
	p := proxy(t, srv)
	c, err := ghapi.New(context.Background(), ghapi.Options{Token: "test-token", APIURL: p.URL, GraphQLURL: p.URL + "/graphql",
		Owner: owner, Repo: repo, HTTPClient: p.Client(), Retry: ghapi.RetryPolicy{MaxAttempts: 1}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	ids, err := c.CodeIDs(ctx, dir, a, b)
	if err == nil && ids[a] == ids[b] {
		t.Errorf("CodeIDs: %s and %s hold the same code (%q)", a[:7], b[:7], ids[a])
	}
	if err == nil {
		t.Errorf("CodeIDs answered %v, want an error", ids)
	} else if !strings.Contains(err.Error(), "entries") {
		t.Errorf("CodeIDs: %v, want it to say the entries are missing", err)
	}

	pa, pb := ghapi.DiffPair{From: base, To: a}, ghapi.DiffPair{From: base, To: b}
	diffs, err := c.Diff(ctx, dir, pa, pb)
	if err == nil && len(diffs[pa]) == len(diffs[pb]) {
		t.Errorf("Diff: %v and %v, want two different changes", diffs[pa], diffs[pb])
	}
	if err == nil {
		t.Errorf("Diff answered %v, want an error", diffs)
	} else if !strings.Contains(err.Error(), "entries") {
		t.Errorf("Diff: %v, want it to say the entries are missing", err)
	}
}
