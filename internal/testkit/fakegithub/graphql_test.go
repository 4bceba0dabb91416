package fakegithub

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// gql posts a GraphQL request and returns the HTTP status and the answer.
func gql(t *testing.T, s *Server, path, query string, vars map[string]any) (int, map[string]any) {
	t.Helper()
	status, body, _ := do(t, s, "POST", path, map[string]any{"query": query, "variables": vars})
	var out map[string]any
	if err := json.Unmarshal(body, &out); err != nil {
		t.Fatalf("answer is not JSON: %v\n%s", err, body)
	}
	return status, out
}

// dig follows keys (strings) and indexes (ints) into a decoded answer.
func dig(t *testing.T, v any, path ...any) any {
	t.Helper()
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				t.Fatalf("at %v: %v is not an object", p, v)
			}
			v = m[k]
		case int:
			l, ok := v.([]any)
			if !ok || k >= len(l) {
				t.Fatalf("at %v: %v is not a list that long", p, v)
			}
			v = l[k]
		}
	}
	return v
}

const gqlTreeQuery = `query($owner: String!, $name: String!, $commit: GitObjectID!, $dir: String!) {
  rateLimit { cost remaining }
  repository(owner: $owner, name: $name) {
    object(oid: $commit) {
      __typename
      ... on Commit {
        oid
        tree { oid }
        dir: file(path: $dir) {
          type mode
          object { ... on Tree { entries { name path type mode oid object { ... on Blob { text isTruncated byteSize isBinary } ... on Tree { oid } } } } }
        }
        missing: file(path: "nope") { oid }
      }
    }
    tip: ref(qualifiedName: "refs/heads/main") { name target { oid } }
    noRef: ref(qualifiedName: "refs/heads/nope") { name }
    log: object(expression: "main:.pact/log.jsonl") { ... on Blob { text } }
  }
}`

func TestGraphQLReadsATree(t *testing.T) {
	t.Parallel()
	s := New(t, WithGraphQLTextLimit(10))
	sub := s.CommitFiles("o", "r", "other", map[string]string{"x": "1"}, "alice")
	head := s.CommitFiles("o", "r", "main", map[string]string{
		".pact/log.jsonl": "short\n", ".pact/big.txt": "0123456789abcdef", ".pact/bin": "a\x00b", ".pact/tasks/T1.md": "t1",
	}, "alice", Symlink(".pact/link", "../etc/passwd"), Submodule(".pact/mod", sub))

	for _, path := range []string{"/graphql", "/api/graphql"} {
		status, out := gql(t, s, path, gqlTreeQuery, map[string]any{"owner": "o", "name": "r", "commit": head, "dir": ".pact"})
		if status != 200 || out["errors"] != nil {
			t.Fatalf("%s: status %d, answer %v", path, status, out)
		}
		obj := dig(t, out, "data", "repository", "object")
		if dig(t, obj, "__typename") != "Commit" || dig(t, obj, "oid") != head || dig(t, obj, "missing") != nil {
			t.Errorf("object = %v", obj)
		}
		if dig(t, obj, "dir", "type") != "tree" || dig(t, obj, "dir", "mode") != float64(0o40000) {
			t.Errorf("dir = %v %v", dig(t, obj, "dir", "type"), dig(t, obj, "dir", "mode"))
		}
		got := map[string]map[string]any{}
		for _, e := range dig(t, obj, "dir", "object", "entries").([]any) {
			got[e.(map[string]any)["name"].(string)] = e.(map[string]any)
		}
		wants := []struct {
			name, typ string
			mode      float64
			object    map[string]any
		}{
			{"log.jsonl", "blob", 0o100644, map[string]any{"text": "short\n", "isTruncated": false, "byteSize": float64(6), "isBinary": false}},
			{"big.txt", "blob", 0o100644, map[string]any{"text": "0123456789", "isTruncated": true, "byteSize": float64(16), "isBinary": false}},
			{"bin", "blob", 0o100644, map[string]any{"text": nil, "isTruncated": false, "byteSize": float64(3), "isBinary": true}},
			{"link", "blob", 0o120000, map[string]any{"text": "../etc/passwd", "isTruncated": true, "byteSize": float64(13), "isBinary": false}},
			{"mod", "commit", 0o160000, nil},
		}
		for _, w := range wants {
			e := got[w.name]
			if e == nil || e["type"] != w.typ || e["mode"] != w.mode || e["path"] != w.name {
				t.Errorf("entry %s = %v", w.name, e)
				continue
			}
			if w.object == nil {
				if e["object"] != nil {
					t.Errorf("entry %s: object %v, want null", w.name, e["object"])
				}
				continue
			}
			for k, v := range w.object {
				if k == "text" && w.name == "link" {
					v = "../etc/pa" + "s" // cut at the limit of 10 bytes
				}
				if e["object"].(map[string]any)[k] != v {
					t.Errorf("entry %s: %s = %v, want %v", w.name, k, e["object"].(map[string]any)[k], v)
				}
			}
		}
		if tasks := got["tasks"]; tasks == nil || tasks["type"] != "tree" || dig(t, tasks, "object", "oid") == nil {
			t.Errorf("tasks = %v", tasks)
		}
		repo := dig(t, out, "data", "repository")
		if dig(t, repo, "tip", "name") != "main" || dig(t, repo, "tip", "target", "oid") != head || dig(t, repo, "noRef") != nil {
			t.Errorf("refs = %v, %v", dig(t, repo, "tip"), dig(t, repo, "noRef"))
		}
		if dig(t, repo, "log", "text") != "short\n" {
			t.Errorf("log by expression = %v", dig(t, repo, "log"))
		}
	}
	if n := s.CountRequests("POST", "/graphql") + s.CountRequests("POST", "/api/graphql"); n != 2 {
		t.Errorf("logged %d graphql requests, want 2", n)
	}
	for _, r := range s.Requests() {
		if r.Operation != GraphQLOperation {
			t.Errorf("request %s %s logged as %q", r.Method, r.Path, r.Operation)
		}
	}
}

// Fields asked twice under one key are merged, as GraphQL executes them.
func TestGraphQLMergesFields(t *testing.T) {
	t.Parallel()
	s := New(t)
	s.CommitFiles("o", "r", "main", map[string]string{"a": "text"}, "alice")
	_, out := gql(t, s, "/graphql", `query { repository(owner: "o", name: "r") { object(expression: "main:a") { ... on Blob { text } } ...F } }
fragment F on Repository { object(expression: "main:a") { ... on Blob { byteSize } } }`, nil)
	obj := dig(t, out, "data", "repository", "object")
	if dig(t, obj, "text") != "text" || dig(t, obj, "byteSize") != float64(4) {
		t.Errorf("object = %v, want text and byteSize", obj)
	}
}

func TestGraphQLUnknownRepository(t *testing.T) {
	t.Parallel()
	s := New(t)
	_, out := gql(t, s, "/graphql", `{ repository(owner: "o", name: "gone") { name } }`, nil)
	errs, _ := out["errors"].([]any)
	if len(errs) != 1 || dig(t, errs, 0, "type") != "NOT_FOUND" || dig(t, out, "data", "repository") != nil {
		t.Errorf("answer = %v, want a NOT_FOUND error", out)
	}
}

// A query GitHub's schema rejects (or the fake cannot answer) is a
// violation, answered the way GitHub answers an invalid query.
func TestGraphQLViolations(t *testing.T) {
	t.Parallel()
	var v violations
	s := New(t, withViolationHandler(v.add))
	head := s.CommitFiles("o", "r", "main", map[string]string{"a": "1"}, "alice")
	s.SeedCheckRun("o", "r", CheckRunSeed{Name: "pact", HeadSHA: head})
	tests := []struct {
		name  string
		query string
		vars  map[string]any
		want  string
	}{
		{name: "field GitHub's schema lacks", query: `{ repository(owner: "o", name: "r") { object(expression: "main:a") { ... on Blob { textx } } } }`,
			want: `Cannot query field "textx" on type "Blob"`},
		{name: "argument GitHub's schema lacks", query: `{ repository(owner: "o", name: "r", branch: "main") { name } }`,
			want: `Unknown argument "branch"`},
		{name: "missing required argument", query: `{ repository(owner: "o") { name } }`, want: `argument "name" of type "String!" is required`},
		{name: "syntax", query: `{ repository(owner: "o", name: "r") { name }`, want: "does not parse"},
		{name: "variable of the wrong type", query: `query($n: Int!) { repository(owner: "o", name: "r") { issue(number: $n) { id } } }`,
			vars: map[string]any{"n": "seven"}, want: "variables do not fit"},
		{name: "undeclared variable", query: `{ repository(owner: "o", name: $name) { name } }`, want: `Variable "$name" is not defined`},
		{name: "valid but not resolved by the fake", query: `query($c: GitObjectID!) { repository(owner: "o", name: "r") { object(oid: $c) { ... on Commit { author { name } } } } }`,
			vars: map[string]any{"c": head}, want: "does not resolve Commit.author"},
		{name: "mutation", query: `mutation { addStar(input: {starrableId: "x"}) { clientMutationId } }`, want: "queries only"},
		{name: "a filter the fake would ignore", query: `query($c: GitObjectID!) { repository(owner: "o", name: "r") { object(oid: $c) { ... on Commit { checkSuites(first: 5) { nodes { checkRuns(first: 5, filterBy: {statuses: [IN_PROGRESS]}) { nodes { name } } } } } } } }`,
			vars: map[string]any{"c": head}, want: "does not resolve filterBy.statuses"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, out := gql(t, s, "/graphql", tt.query, tt.vars)
			if status != 200 || out["errors"] == nil {
				t.Errorf("status %d, answer %v; want 200 with errors", status, out)
			}
			got := v.take()
			if len(got) == 0 || !strings.Contains(strings.Join(got, "\n"), tt.want) {
				t.Errorf("violations = %q, want one containing %q", got, tt.want)
			}
		})
	}
	status, _, _ := do(t, s, "POST", "/graphql", "{not json")
	if got := v.take(); status != 400 || len(got) != 1 {
		t.Errorf("a body that is not JSON: status %d, violations %q", status, got)
	}
}

func TestGraphQLFaults(t *testing.T) {
	t.Parallel()
	s := New(t)
	s.Inject(Fault{Method: "POST", Path: "/graphql", Status: 502})
	status, _, _ := do(t, s, "POST", "/graphql", map[string]any{"query": "{ rateLimit { cost } }"})
	if status != 502 {
		t.Errorf("status %d, want the injected 502", status)
	}
	if status, out := gql(t, s, "/graphql", "{ rateLimit { cost } }", nil); status != 200 || dig(t, out, "data", "rateLimit", "cost") != float64(1) {
		t.Errorf("after the fault: %d %v", status, out)
	}
}

// Repository.defaultBranchRef names the default branch GitHub holds now:
// the first branch created, then whatever SetDefaultBranch made it, the
// same one REST's default_branch names; none in an empty repository.
func TestGraphQLDefaultBranchRef(t *testing.T) {
	t.Parallel()
	s := New(t)
	const q = `{ repository(owner: "o", name: "r") { defaultBranchRef { name prefix target { oid } } } }`
	s.CreateRepo("o", "r", "trunk")
	if _, out := gql(t, s, "/graphql", q, nil); out["errors"] != nil || dig(t, out, "data", "repository", "defaultBranchRef") != nil {
		t.Errorf("empty repository: %v, want no default branch ref", out)
	}
	trunk := s.CommitFiles("o", "r", "trunk", map[string]string{"a": "1"}, "alice")
	other := s.CommitFiles("o", "r", "other", map[string]string{"a": "2"}, "alice")
	for _, tc := range []struct{ branch, sha string }{{"trunk", trunk}, {"other", other}} {
		s.SetDefaultBranch("o", "r", tc.branch)
		_, out := gql(t, s, "/graphql", q, nil)
		ref := dig(t, out, "data", "repository", "defaultBranchRef")
		if out["errors"] != nil || dig(t, ref, "name") != tc.branch || dig(t, ref, "prefix") != "refs/heads/" || dig(t, ref, "target", "oid") != tc.sha {
			t.Errorf("default %s: %v", tc.branch, out)
		}
		_, body, _ := do(t, s, "GET", "/repos/o/r", nil)
		var repo struct {
			DefaultBranch string `json:"default_branch"`
		}
		if err := json.Unmarshal(body, &repo); err != nil || repo.DefaultBranch != tc.branch {
			t.Errorf("REST default_branch = %q, %v; want %s", repo.DefaultBranch, err, tc.branch)
		}
	}
	if v := s.Violations(); len(v) != 0 {
		t.Errorf("violations: %v", v)
	}
}

// Commit.checkSuites lists the check suites on a commit, one per app here,
// with their app and runs, filtered by app, name and status as GitHub
// filters them; a token that may not read checks gets FORBIDDEN there and
// null, the rest of the answer standing.
func TestGraphQLCheckSuites(t *testing.T) {
	t.Parallel()
	s := New(t)
	head := s.CommitFiles("o", "r", "main", map[string]string{"a": "1"}, "alice")
	other := App{ID: 99, Slug: "ci", Name: "CI", Owner: "o"}
	mine := s.SeedCheckRun("o", "r", CheckRunSeed{Name: "pact", HeadSHA: head, ExternalID: "x-1"})
	s.SeedCheckRun("o", "r", CheckRunSeed{Name: "pact", HeadSHA: head, Status: "completed", Conclusion: "success"})
	s.SeedCheckRun("o", "r", CheckRunSeed{Name: "lint", HeadSHA: head})
	s.SeedCheckRun("o", "r", CheckRunSeed{Name: "pact", HeadSHA: head, App: other})
	const q = `query($c: GitObjectID!, $app: Int!, $n: String!) { repository(owner: "o", name: "r") { object(oid: $c) { ... on Commit { oid
	  runs: checkSuites(first: 5, filterBy: {appId: $app}) { totalCount nodes { app { databaseId slug name } checkRuns(first: 5, filterBy: {checkName: $n, status: IN_PROGRESS}) { nodes { name status conclusion externalId resourcePath } } } } } } } }`
	_, out := gql(t, s, "/graphql", q, map[string]any{"c": head, "app": GitHubActions.ID, "n": "pact"})
	suites := dig(t, out, "data", "repository", "object", "runs")
	run := dig(t, suites, "nodes", 0, "checkRuns", "nodes", 0)
	if out["errors"] != nil || dig(t, suites, "totalCount") != float64(1) || dig(t, suites, "nodes", 0, "app", "databaseId") != float64(GitHubActions.ID) ||
		len(dig(t, suites, "nodes", 0, "checkRuns", "nodes").([]any)) != 1 || dig(t, run, "name") != "pact" || dig(t, run, "status") != "IN_PROGRESS" ||
		dig(t, run, "conclusion") != nil || dig(t, run, "externalId") != "x-1" || dig(t, run, "resourcePath") != fmt.Sprintf("/o/r/runs/%d", mine) {
		t.Errorf("answer = %v", out)
	}
	s.SetToken("t", Token{NoChecks: true})
	_, body, _ := do(t, s, "POST", "/graphql", map[string]any{"query": q, "variables": map[string]any{"c": head, "app": GitHubActions.ID, "n": "pact"}},
		"Authorization", "Bearer t")
	out = nil
	if err := json.Unmarshal(body, &out); err != nil {
		t.Fatal(err)
	}
	errs, _ := out["errors"].([]any)
	if len(errs) != 1 || dig(t, errs, 0, "type") != "FORBIDDEN" || fmt.Sprint(dig(t, errs, 0, "path")) != "[repository object runs]" ||
		dig(t, out, "data", "repository", "object", "runs") != nil || dig(t, out, "data", "repository", "object", "oid") != head {
		t.Errorf("a token that may not read checks: %v", out)
	}
	if v := s.Violations(); len(v) != 0 {
		t.Errorf("violations: %v", v)
	}
}
