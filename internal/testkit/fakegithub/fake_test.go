package fakegithub

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// do sends a request to the fake and returns status, body and headers.
func do(t *testing.T, s *Server, method, path string, body any, header ...string) (int, []byte, http.Header) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		if raw, ok := body.(string); ok {
			rd = strings.NewReader(raw)
		} else {
			data, err := json.Marshal(body)
			if err != nil {
				t.Fatal(err)
			}
			rd = bytes.NewReader(data)
		}
	}
	req, err := http.NewRequestWithContext(t.Context(), method, s.URL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := s.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, data, resp.Header
}

func decodeJSON(t *testing.T, data []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("decode %s: %v", data, err)
	}
	return m
}

func TestGitObjectIDsAreGitCompatible(t *testing.T) {
	t.Parallel()
	st := newObjectStore()
	tests := []struct {
		name string
		got  string
		want string
	}{
		// Values from `git hash-object` and `git mktree </dev/null`.
		{name: "blob", got: st.putBlob([]byte("hello\n")), want: "ce013625030ba8dba906f756967f9e9ca394464a"},
		{name: "empty blob", got: st.putBlob(nil), want: "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"},
		{name: "empty tree", got: st.putTree(nil), want: "4b825dc642cb6eb9a060e54bf8d69288fbee4904"},
		// printf 'hello\n' > hello.txt; git add; git write-tree
		{name: "tree", got: st.buildTree(map[string]fileEntry{"hello.txt": {mode: "100644", typ: "blob", sha: "ce013625030ba8dba906f756967f9e9ca394464a"}}),
			want: "aaa96ced2d9a1c8e72c56b253a0e2fe78393feb7"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if tt.got != tt.want {
				t.Errorf("sha = %s, want %s", tt.got, tt.want)
			}
		})
	}
}

func TestMergeBaseOverTheCommitGraph(t *testing.T) {
	t.Parallel()
	st := newObjectStore()
	tree := st.putTree(nil)
	n := 0
	commit := func(parents ...string) string {
		n++
		return st.putCommit(&commitObject{tree: tree, parents: parents, message: fmt.Sprint(n), authorName: "a", authorEmail: "a@x", committerName: "a", committerEmail: "a@x", date: testClock(n)})
	}
	root := commit()
	a1 := commit(root)
	b1 := commit(root)
	// Criss-cross: a2 merges b1 into a1, b2 merges a1 into b1.
	a2 := commit(a1, b1)
	b2 := commit(b1, a1)
	a3 := commit(a2)
	unrelated := commit()
	tests := []struct {
		name, a, b string
		want       []string // any of
	}{
		{name: "same commit", a: a1, b: a1, want: []string{a1}},
		{name: "ancestor", a: root, b: a3, want: []string{root}},
		{name: "descendant", a: a3, b: a1, want: []string{a1}},
		{name: "fork point", a: a1, b: b1, want: []string{root}},
		{name: "criss-cross has two best bases", a: a3, b: b2, want: []string{a1, b1}},
		{name: "unrelated", a: a3, b: unrelated, want: []string{""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := st.mergeBase(tt.a, tt.b)
			for _, w := range tt.want {
				if got == w {
					return
				}
			}
			t.Errorf("mergeBase = %q, want one of %q", got, tt.want)
		})
	}
}

func TestConvertSchema(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want string
	}{
		{name: "nullable type", in: `{"type":"string","nullable":true}`, want: `{"type":["string","null"]}`},
		{name: "nullable enum", in: `{"type":"string","enum":["a"],"nullable":true}`, want: `{"enum":["a",null],"type":["string","null"]}`},
		{name: "nullable ref", in: `{"nullable":true,"allOf":[{"$ref":"#/components/schemas/x"}]}`,
			want: `{"anyOf":[{"type":"null"},{"allOf":[{"$ref":"https://fakegithub.invalid/openapi/components.json#/$defs/x"}]}]}`},
		{name: "oneOf relaxed to anyOf", in: `{"oneOf":[{"type":"string"},{"type":"integer","nullable":true}]}`,
			want: `{"anyOf":[{"type":"string"},{"type":["integer","null"]}]}`},
		{name: "openapi keywords dropped, property names kept", in: `{"type":"object","example":{},"discriminator":{},"properties":{"example":{"type":"integer"}}}`,
			want: `{"properties":{"example":{"type":"integer"}},"type":"object"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var in any
			if err := json.Unmarshal([]byte(tt.in), &in); err != nil {
				t.Fatal(err)
			}
			got, _ := json.Marshal(convertSchema(in))
			if string(got) != tt.want {
				t.Errorf("convertSchema(%s) = %s, want %s", tt.in, got, tt.want)
			}
		})
	}
}

// violations collects the violations of a server that must not fail the
// test.
type violations struct {
	mu   sync.Mutex
	msgs []string
}

func (v *violations) add(m string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.msgs = append(v.msgs, m)
}

func (v *violations) take() []string {
	v.mu.Lock()
	defer v.mu.Unlock()
	out := v.msgs
	v.msgs = nil
	return out
}

func TestRequestViolationsAreReported(t *testing.T) {
	t.Parallel()
	var v violations
	s := New(t, withViolationHandler(v.add))
	head := s.CommitFiles("o", "r", "main", map[string]string{"a": "1"}, "alice")
	manyAnnotations := make([]any, 51)
	for i := range manyAnnotations {
		manyAnnotations[i] = map[string]any{"path": "a", "start_line": 1, "end_line": 1, "annotation_level": "notice", "message": "m"}
	}
	tests := []struct {
		name       string
		method     string
		path       string
		body       any
		wantStatus int
		want       string
	}{
		{name: "missing required property", method: "POST", path: "/repos/o/r/check-runs", body: map[string]any{"name": "x"},
			wantStatus: 422, want: "missing property 'head_sha'"},
		{name: "51 annotations", method: "POST", path: "/repos/o/r/check-runs",
			body:       map[string]any{"name": "x", "head_sha": head, "output": map[string]any{"title": "t", "summary": "s", "annotations": manyAnnotations}},
			wantStatus: 422, want: "maxItems"},
		{name: "completed without conclusion", method: "PATCH", path: "/repos/o/r/check-runs/1", body: map[string]any{"status": "completed"},
			wantStatus: 422, want: "request body does not match"},
		{name: "wrong enum", method: "POST", path: "/repos/o/r/issues/comments/1/reactions", body: map[string]any{"content": "tada"},
			wantStatus: 422, want: "reactions/create-for-issue-comment"},
		{name: "wrong type", method: "PATCH", path: "/repos/o/r/git/refs/heads/main", body: map[string]any{"sha": head, "force": "yes"},
			wantStatus: 422, want: "got string, want boolean"},
		{name: "not json", method: "POST", path: "/repos/o/r/git/blobs", body: "{", wantStatus: 422, want: "invalid json"},
		{name: "missing body", method: "POST", path: "/repos/o/r/git/trees", body: "", wantStatus: 400, want: "missing required request body"},
		{name: "path parameter type", method: "GET", path: "/repos/o/r/pulls/abc", wantStatus: 404, want: `"pull_number": "abc" is not an integer`},
		{name: "undeclared query parameter", method: "GET", path: "/repos/o/r/commits/main?recursive=1", wantStatus: 200, want: `query parameter "recursive" is not defined`},
		{name: "query enum", method: "GET", path: "/repos/o/r/commits/main/check-runs?status=done", wantStatus: 200, want: `"status": "done" is not one of`},
		{name: "unknown operation", method: "GET", path: "/repos/o/r/branches", wantStatus: 404, want: "matches no operation"},
		{name: "wrong method", method: "DELETE", path: "/repos/o/r/contents/a", wantStatus: 404, want: "matches no operation"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body, _ := do(t, s, tt.method, tt.path, tt.body)
			if status != tt.wantStatus {
				t.Errorf("status = %d, want %d (%s)", status, tt.wantStatus, body)
			}
			got := v.take()
			if len(got) == 0 || !strings.Contains(strings.Join(got, "\n"), tt.want) {
				t.Errorf("violations = %q, want one containing %q", got, tt.want)
			}
		})
	}
}

func TestResponseSchemasRejectWrongAnswers(t *testing.T) {
	t.Parallel()
	s := New(t)
	s.CommitFiles("o", "r", "main", map[string]string{"a": "1"}, "alice")
	s.CommitFiles("o", "r", "topic", map[string]string{"a": "2"}, "bob")
	n := s.OpenPR("o", "r", PRSeed{Head: "topic", Base: "main"})
	op := func(id string) *operation {
		for _, o := range s.spec.ops {
			if o.id == id {
				return o
			}
		}
		t.Fatalf("no operation %s", id)
		return nil
	}
	s.mu.Lock()
	pr := s.pullJSON(s.pulls[n])
	s.mu.Unlock()
	tests := []struct {
		name    string
		op      string
		status  int
		mutate  func(m obj)
		wantErr string
	}{
		{name: "valid pull request", op: "pulls/get", status: 200, mutate: func(obj) {}},
		{name: "missing head", op: "pulls/get", status: 200, mutate: func(m obj) { delete(m, "head") }, wantErr: "missing property 'head'"},
		{name: "bad state", op: "pulls/get", status: 200, mutate: func(m obj) { m["state"] = "merged" }, wantErr: "state"},
		{name: "null body is allowed", op: "pulls/get", status: 200, mutate: func(m obj) { m["body"] = nil }},
		{name: "null title is not", op: "pulls/get", status: 200, mutate: func(m obj) { m["title"] = nil }, wantErr: "title"},
		{name: "bad date-time", op: "pulls/get", status: 200, mutate: func(m obj) { m["created_at"] = "yesterday" }, wantErr: "date-time"},
		{name: "relative uri", op: "pulls/get", status: 200, mutate: func(m obj) { m["url"] = "/repos/o/r/pulls/1" }, wantErr: "url"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var m obj
			data, _ := json.Marshal(pr)
			_ = json.Unmarshal(data, &m)
			tt.mutate(m)
			data, _ = json.Marshal(m)
			err := validateJSON(op(tt.op).responses[tt.status], data)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("valid answer rejected: %v", err)
			case tt.wantErr != "" && err == nil:
				t.Errorf("invalid answer accepted")
			case tt.wantErr != "" && !strings.Contains(err.Error(), tt.wantErr):
				t.Errorf("error %v does not mention %q", err, tt.wantErr)
			}
		})
	}
}

// TestEveryOperationAnswersValidly drives every operation of the subset
// (and the extra ones) through the validating server: any request or
// answer that does not match the OpenAPI description fails the test.
func TestEveryOperationAnswersValidly(t *testing.T) {
	t.Parallel()
	s := New(t)
	b64 := base64.StdEncoding.EncodeToString
	base := s.CommitFiles("o", "r", "main", map[string]string{"README.md": "hi\n", "dir/a.txt": "a\n", "big.bin": strings.Repeat("x", jsonContentLimit+1)}, "alice", Verified())
	head := s.CommitFiles("o", "r", "topic", map[string]string{"dir/a.txt": "A\n", "new.txt": "n\n"}, "bob")
	s.ForkRepo("o", "r", "forker")
	forkHead := s.CommitFiles("forker", "r", "fix", map[string]string{"fix.txt": "f\n"}, "forker")
	n := s.OpenPR("o", "r", PRSeed{Head: "topic", Base: "main", Body: "please"})
	nFork := s.OpenPR("o", "r", PRSeed{Head: "fix", Base: "main", HeadOwner: "forker"})
	_ = s.AddReview(n, ReviewSeed{Login: "carol"})
	s.AddReview(n, ReviewSeed{Login: "dave", State: "PENDING"})
	rc := s.AddReviewComment(n, "carol", "nit")
	s.SetPermission("carol", Maintain)
	s.SetToken("bot-token", Token{Login: "pact-bot[bot]"})
	s.AddTeam("reviewers", "erin")
	s.RequestReviews(n, "team:reviewers")
	rulesetID := seedSettings(s)

	type step struct {
		name       string
		method     string
		path       string
		body       any
		header     []string
		wantStatus int
		check      func(t *testing.T, body []byte, h http.Header)
	}
	var checkRunID float64
	var commentID float64
	var blobSHA, treeSHA, commitSHA string
	steps := []step{
		{name: "create check run", method: "POST", path: "/repos/o/r/check-runs", wantStatus: 201,
			body: map[string]any{"name": "pact", "head_sha": head, "status": "in_progress", "external_id": "x",
				"output": map[string]any{"title": "t", "summary": "s", "annotations": []any{map[string]any{"path": "a", "start_line": 1, "end_line": 1, "annotation_level": "warning", "message": "m"}}}},
			check: func(t *testing.T, body []byte, _ http.Header) {
				m := decodeJSON(t, body)
				checkRunID = m["id"].(float64)
				if prs := m["pull_requests"].([]any); len(prs) != 1 {
					t.Errorf("pull_requests = %v, want the open pull request", prs)
				}
			}},
		{name: "update check run", method: "PATCH", path: "/repos/o/r/check-runs/{check}", wantStatus: 200,
			body: map[string]any{"status": "completed", "conclusion": "success", "output": map[string]any{"summary": "done"}},
			check: func(t *testing.T, body []byte, _ http.Header) {
				m := decodeJSON(t, body)
				if m["conclusion"] != "success" || m["output"].(map[string]any)["annotations_count"].(float64) != 1 {
					t.Errorf("check run = %s", body)
				}
			}},
		{name: "get check run", method: "GET", path: "/repos/o/r/check-runs/{check}", wantStatus: 200,
			check: func(t *testing.T, body []byte, _ http.Header) {
				if m := decodeJSON(t, body); m["status"] != "completed" || m["conclusion"] != "success" {
					t.Errorf("check run = %s", body)
				}
			}},
		{name: "get check run of another repository", method: "GET", path: "/repos/forker/r/check-runs/{check}", wantStatus: 404},
		{name: "list check runs for ref", method: "GET", path: "/repos/o/r/commits/topic/check-runs?filter=latest&per_page=10", wantStatus: 200,
			check: func(t *testing.T, body []byte, _ http.Header) {
				if decodeJSON(t, body)["total_count"].(float64) != 1 {
					t.Errorf("list = %s", body)
				}
			}},
		{name: "check run of another repository", method: "PATCH", path: "/repos/forker/r/check-runs/{check}", body: map[string]any{"name": "x"}, wantStatus: 404},
		{name: "permission", method: "GET", path: "/repos/o/r/collaborators/carol/permission", wantStatus: 200,
			check: func(t *testing.T, body []byte, _ http.Header) {
				m := decodeJSON(t, body)
				if m["permission"] != "write" || m["role_name"] != "maintain" {
					t.Errorf("permission = %s", body)
				}
			}},
		{name: "permission of unknown user", method: "GET", path: "/repos/o/r/collaborators/nobody/permission", wantStatus: 404},
		{name: "compare", method: "GET", path: "/repos/o/r/compare/main...topic", wantStatus: 200,
			check: func(t *testing.T, body []byte, _ http.Header) {
				m := decodeJSON(t, body)
				if m["status"] != "ahead" || m["merge_base_commit"].(map[string]any)["sha"] != base || len(m["files"].([]any)) != 2 {
					t.Errorf("compare: status %v merge base %v files %v", m["status"], m["merge_base_commit"].(map[string]any)["sha"], m["files"])
				}
			}},
		{name: "compare across the fork network", method: "GET", path: "/repos/o/r/compare/o:main...forker:fix?per_page=1&page=1", wantStatus: 200},
		{name: "compare unknown", method: "GET", path: "/repos/o/r/compare/main...nope", wantStatus: 404},
		{name: "matching refs", method: "GET", path: "/repos/o/r/git/matching-refs/heads/to", wantStatus: 200,
			check: func(t *testing.T, body []byte, _ http.Header) {
				var refs []map[string]any
				if err := json.Unmarshal(body, &refs); err != nil || len(refs) != 1 || refs[0]["ref"] != "refs/heads/topic" {
					t.Errorf("matching refs = %s", body)
				}
			}},
		{name: "matching no ref", method: "GET", path: "/repos/o/r/git/matching-refs/heads/gh-readonly-queue/main/", wantStatus: 200,
			check: func(t *testing.T, body []byte, _ http.Header) {
				if strings.TrimSpace(string(body)) != "[]" {
					t.Errorf("matching refs = %s, want []", body)
				}
			}},
		{name: "content file", method: "GET", path: "/repos/o/r/contents/dir/a.txt?ref=topic", wantStatus: 200,
			check: func(t *testing.T, body []byte, _ http.Header) {
				c, _ := base64.StdEncoding.DecodeString(strings.ReplaceAll(decodeJSON(t, body)["content"].(string), "\n", ""))
				if string(c) != "A\n" {
					t.Errorf("content = %q", c)
				}
			}},
		{name: "content raw", method: "GET", path: "/repos/o/r/contents/dir/a.txt", header: []string{"Accept", "application/vnd.github.raw+json"}, wantStatus: 200,
			check: func(t *testing.T, body []byte, h http.Header) {
				if string(body) != "a\n" || !strings.HasPrefix(h.Get("Content-Type"), "application/vnd.github.raw") {
					t.Errorf("raw = %q (%s)", body, h.Get("Content-Type"))
				}
			}},
		{name: "content directory", method: "GET", path: "/repos/o/r/contents/dir", wantStatus: 200},
		{name: "content too large for json", method: "GET", path: "/repos/o/r/contents/big.bin", wantStatus: 403,
			check: func(t *testing.T, body []byte, _ http.Header) {
				if !strings.Contains(string(body), "too_large") {
					t.Errorf("body = %s", body)
				}
			}},
		{name: "content too large is fine raw", method: "GET", path: "/repos/o/r/contents/big.bin", header: []string{"Accept", "application/vnd.github.v3.raw"}, wantStatus: 200},
		{name: "content missing", method: "GET", path: "/repos/o/r/contents/nope", wantStatus: 404},
		{name: "create blob", method: "POST", path: "/repos/o/r/git/blobs", wantStatus: 201, header: []string{"Authorization", "Bearer bot-token"},
			body:  map[string]any{"content": b64([]byte("blob\n")), "encoding": "base64"},
			check: func(t *testing.T, body []byte, _ http.Header) { blobSHA = decodeJSON(t, body)["sha"].(string) }},
		{name: "get blob", method: "GET", path: "/repos/o/r/git/blobs/{blob}", wantStatus: 200},
		{name: "get missing blob", method: "GET", path: "/repos/o/r/git/blobs/0000000000000000000000000000000000000000", wantStatus: 404},
		{name: "create tree", method: "POST", path: "/repos/o/r/git/trees", wantStatus: 201,
			body: map[string]any{"base_tree": "{topic-tree}", "tree": []any{
				map[string]any{"path": "x/blob.txt", "mode": "100644", "type": "blob", "sha": "{blob}"},
				map[string]any{"path": "inline.txt", "mode": "100644", "type": "blob", "content": "inline\n"},
				map[string]any{"path": "new.txt", "mode": "100644", "type": "blob", "sha": nil},
			}},
			check: func(t *testing.T, body []byte, _ http.Header) { treeSHA = decodeJSON(t, body)["sha"].(string) }},
		{name: "get tree recursive", method: "GET", path: "/repos/o/r/git/trees/{tree}?recursive=1", wantStatus: 200,
			check: func(t *testing.T, body []byte, _ http.Header) {
				var paths []string
				for _, e := range decodeJSON(t, body)["tree"].([]any) {
					paths = append(paths, e.(map[string]any)["path"].(string))
				}
				sort.Strings(paths)
				want := []string{"README.md", "big.bin", "dir", "dir/a.txt", "inline.txt", "x", "x/blob.txt"}
				if !reflect.DeepEqual(paths, want) {
					t.Errorf("paths = %q, want %q", paths, want)
				}
			}},
		{name: "get tree by branch", method: "GET", path: "/repos/o/r/git/trees/main", wantStatus: 200},
		{name: "create commit", method: "POST", path: "/repos/o/r/git/commits", wantStatus: 201, header: []string{"Authorization", "Bearer bot-token"},
			body: map[string]any{"message": "bot commit", "tree": "{tree}", "parents": []any{"{topic-head}"}},
			check: func(t *testing.T, body []byte, _ http.Header) {
				m := decodeJSON(t, body)
				commitSHA = m["sha"].(string)
				if m["verification"].(map[string]any)["verified"] != true {
					t.Errorf("API commit without author is not verified: %s", body)
				}
			}},
		{name: "create commit with unknown parent", method: "POST", path: "/repos/o/r/git/commits", wantStatus: 422,
			body: map[string]any{"message": "m", "tree": "{tree}", "parents": []any{"0000000000000000000000000000000000000000"}}},
		{name: "get commit", method: "GET", path: "/repos/o/r/git/commits/{commit}", wantStatus: 200},
		{name: "update ref", method: "PATCH", path: "/repos/o/r/git/refs/heads/topic", body: map[string]any{"sha": "{commit}", "force": false}, wantStatus: 200},
		{name: "update ref backwards", method: "PATCH", path: "/repos/o/r/git/refs/heads/topic", body: map[string]any{"sha": base}, wantStatus: 422,
			check: func(t *testing.T, body []byte, _ http.Header) {
				if !strings.Contains(string(body), "Update is not a fast forward") {
					t.Errorf("body = %s", body)
				}
			}},
		{name: "get ref", method: "GET", path: "/repos/o/r/git/ref/heads/topic", wantStatus: 200,
			check: func(t *testing.T, body []byte, _ http.Header) {
				m := decodeJSON(t, body)
				if m["ref"] != "refs/heads/topic" || m["object"].(map[string]any)["sha"] != commitSHA {
					t.Errorf("ref = %s, want refs/heads/topic at the commit just written", body)
				}
			}},
		{name: "get missing ref", method: "GET", path: "/repos/o/r/git/ref/heads/nope", wantStatus: 404},
		{name: "force update ref", method: "PATCH", path: "/repos/forker/r/git/refs/heads/fix", body: map[string]any{"sha": base, "force": true}, wantStatus: 200},
		{name: "update missing ref", method: "PATCH", path: "/repos/o/r/git/refs/heads/nope", body: map[string]any{"sha": base}, wantStatus: 422},
		{name: "create comment", method: "POST", path: fmt.Sprintf("/repos/o/r/issues/%d/comments", n), body: map[string]any{"body": "hello"}, wantStatus: 201,
			header: []string{"Authorization", "token bot-token"},
			check: func(t *testing.T, body []byte, _ http.Header) {
				m := decodeJSON(t, body)
				commentID = m["id"].(float64)
				if m["user"].(map[string]any)["login"] != "pact-bot[bot]" {
					t.Errorf("comment author = %v", m["user"])
				}
			}},
		{name: "list comments", method: "GET", path: fmt.Sprintf("/repos/o/r/issues/%d/comments?per_page=100", n), wantStatus: 200,
			check: func(t *testing.T, body []byte, _ http.Header) {
				var list []map[string]any
				_ = json.Unmarshal(body, &list)
				if len(list) != 1 || list[0]["body"] != "hello" {
					t.Errorf("comments = %s, want the one just posted", body)
				}
			}},
		{name: "list comments of a missing issue", method: "GET", path: "/repos/o/r/issues/999/comments", wantStatus: 404},
		{name: "react", method: "POST", path: "/repos/o/r/issues/comments/{comment}/reactions", body: map[string]any{"content": "heart"}, wantStatus: 201},
		{name: "react again", method: "POST", path: "/repos/o/r/issues/comments/{comment}/reactions", body: map[string]any{"content": "heart"}, wantStatus: 200},
		{name: "comment on missing issue", method: "POST", path: "/repos/o/r/issues/999/comments", body: map[string]any{"body": "x"}, wantStatus: 404},
		{name: "get pull", method: "GET", path: fmt.Sprintf("/repos/o/r/pulls/%d", n), wantStatus: 200},
		{name: "get fork pull", method: "GET", path: fmt.Sprintf("/repos/o/r/pulls/%d", nFork), wantStatus: 200},
		{name: "list pull files", method: "GET", path: fmt.Sprintf("/repos/o/r/pulls/%d/files?per_page=2&page=1", n), wantStatus: 200,
			check: func(t *testing.T, _ []byte, h http.Header) {
				if !strings.Contains(h.Get("Link"), `rel="next"`) {
					t.Errorf("Link = %q, want a next page", h.Get("Link"))
				}
			}},
		{name: "list reviews", method: "GET", path: fmt.Sprintf("/repos/o/r/pulls/%d/reviews", n), wantStatus: 200},
		{name: "request reviewers", method: "POST", path: fmt.Sprintf("/repos/o/r/pulls/%d/requested_reviewers", n), body: map[string]any{"reviewers": []string{"carol"}}, wantStatus: 201,
			check: func(t *testing.T, body []byte, _ http.Header) {
				m := decodeJSON(t, body)
				if users := m["requested_reviewers"].([]any); len(users) != 1 || users[0].(map[string]any)["login"] != "carol" {
					t.Errorf("requested_reviewers = %v", users)
				}
				if teams := m["requested_teams"].([]any); len(teams) != 1 || teams[0].(map[string]any)["slug"] != "reviewers" {
					t.Errorf("requested_teams = %v", teams)
				}
			}},
		{name: "list requested reviewers", method: "GET", path: fmt.Sprintf("/repos/o/r/pulls/%d/requested_reviewers", n), wantStatus: 200},
		{name: "get pull with requested reviewers", method: "GET", path: fmt.Sprintf("/repos/o/r/pulls/%d", n), wantStatus: 200},
		{name: "list pulls", method: "GET", path: "/repos/o/r/pulls?state=all&per_page=1", wantStatus: 200},
		{name: "pull commits", method: "GET", path: fmt.Sprintf("/repos/o/r/pulls/%d/commits", n), wantStatus: 200},
		{name: "review comment reaction", method: "POST", path: fmt.Sprintf("/repos/o/r/pulls/comments/%d/reactions", rc), body: map[string]any{"content": "eyes"}, wantStatus: 201},
		{name: "get issue comment", method: "GET", path: "/repos/o/r/issues/comments/{comment}", wantStatus: 200,
			check: func(t *testing.T, body []byte, _ http.Header) {
				var m map[string]any
				_ = json.Unmarshal(body, &m)
				if m["body"] != "hello" || !strings.HasSuffix(m["issue_url"].(string), fmt.Sprintf("/issues/%d", n)) {
					t.Errorf("comment = %s", body)
				}
			}},
		{name: "get review comment", method: "GET", path: fmt.Sprintf("/repos/o/r/pulls/comments/%d", rc), wantStatus: 200,
			check: func(t *testing.T, body []byte, _ http.Header) {
				var m map[string]any
				_ = json.Unmarshal(body, &m)
				if m["body"] != "nit" || m["user"].(map[string]any)["login"] != "carol" || !strings.HasSuffix(m["pull_request_url"].(string), fmt.Sprintf("/pulls/%d", n)) {
					t.Errorf("review comment = %s", body)
				}
			}},
		{name: "review comment id is not an issue comment id", method: "GET", path: fmt.Sprintf("/repos/o/r/issues/comments/%d", rc), wantStatus: 404},
		{name: "get commit", method: "GET", path: "/repos/o/r/commits/" + head + "?per_page=1", wantStatus: 200,
			check: func(t *testing.T, body []byte, _ http.Header) {
				var m map[string]any
				_ = json.Unmarshal(body, &m)
				if m["sha"] != head || m["author"].(map[string]any)["login"] != "bob" {
					t.Errorf("commit = %s", body)
				}
			}},
		{name: "get unknown commit", method: "GET", path: "/repos/o/r/commits/0000000000000000000000000000000000000000", wantStatus: 422},
		{name: "branch activity, newest first, paged", method: "GET", path: "/repos/o/r/activity?ref=topic&direction=desc&per_page=1", wantStatus: 200,
			check: func(t *testing.T, body []byte, h http.Header) {
				var list []map[string]any
				_ = json.Unmarshal(body, &list)
				if len(list) != 1 || list[0]["ref"] != "refs/heads/topic" || list[0]["after"] != s.BranchHead("o", "r", "topic") {
					t.Errorf("activity = %s", body)
				}
				if !strings.Contains(h.Get("Link"), `after=1`) || !strings.Contains(h.Get("Link"), `rel="next"`) {
					t.Errorf("Link = %q, want a cursor to the next page", h.Get("Link"))
				}
			}},
		{name: "activity with a bad cursor", method: "GET", path: "/repos/o/r/activity?after=x", wantStatus: 422},
		{name: "repository", method: "GET", path: "/repos/o/settings", wantStatus: 200},
		{name: "branch protection", method: "GET", path: "/repos/o/settings/branches/main/protection", wantStatus: 200,
			check: func(t *testing.T, body []byte, _ http.Header) {
				m := decodeJSON(t, body)
				checks := m["required_status_checks"].(map[string]any)["checks"].([]any)
				if len(checks) != 2 || checks[0].(map[string]any)["app_id"] != float64(GitHubActionsAppID) || checks[1].(map[string]any)["app_id"] != nil {
					t.Errorf("required checks = %v", checks)
				}
			}},
		{name: "branch without protection", method: "GET", path: "/repos/o/settings/branches/topic/protection", wantStatus: 404,
			check: func(t *testing.T, body []byte, _ http.Header) {
				if decodeJSON(t, body)["message"] != "Branch not protected" {
					t.Errorf("body = %s", body)
				}
			}},
		{name: "branch protection without Administration", method: "GET", path: "/repos/o/settings/branches/main/protection", header: []string{"Authorization", "Bearer no-admin"}, wantStatus: 403},
		{name: "status check protection", method: "GET", path: "/repos/o/settings/branches/main/protection/required_status_checks", wantStatus: 200},
		{name: "branch rules", method: "GET", path: "/repos/o/settings/rules/branches/main?per_page=2", wantStatus: 200,
			check: func(t *testing.T, body []byte, h http.Header) {
				var rules []map[string]any
				_ = json.Unmarshal(body, &rules)
				if len(rules) != 2 || rules[0]["type"] != "required_status_checks" || rules[0]["ruleset_id"] != float64(rulesetID) || !strings.Contains(h.Get("Link"), `rel="next"`) {
					t.Errorf("rules = %s (Link %q)", body, h.Get("Link"))
				}
			}},
		{name: "rulesets", method: "GET", path: "/repos/o/settings/rulesets?includes_parents=true", wantStatus: 200},
		{name: "ruleset", method: "GET", path: fmt.Sprintf("/repos/o/settings/rulesets/%d", rulesetID), wantStatus: 200},
		{name: "missing ruleset", method: "GET", path: "/repos/o/settings/rulesets/1", wantStatus: 404},
		{name: "workflows", method: "GET", path: "/repos/o/settings/actions/workflows", wantStatus: 200,
			check: func(t *testing.T, body []byte, _ http.Header) {
				w := decodeJSON(t, body)["workflows"].([]any)
				if len(w) != 1 || w[0].(map[string]any)["path"] != ".github/workflows/pact.yml" || w[0].(map[string]any)["name"] != "pact" {
					t.Errorf("workflows = %s", body)
				}
			}},
		{name: "default workflow permissions", method: "GET", path: "/repos/o/settings/actions/permissions/workflow", wantStatus: 200,
			check: func(t *testing.T, body []byte, _ http.Header) {
				if decodeJSON(t, body)["default_workflow_permissions"] != "write" {
					t.Errorf("body = %s", body)
				}
			}},
		{name: "user", method: "GET", path: "/users/carol", wantStatus: 200},
		{name: "unknown user", method: "GET", path: "/users/nobody", wantStatus: 404},
		{name: "enterprise prefix", method: "GET", path: "/api/v3/repos/o/r/commits/main", wantStatus: 200},
		{name: "unknown repository", method: "GET", path: "/repos/o/nope/commits/main", wantStatus: 404},
	}
	topicTree := func() string {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.treeOf(s.repos["o/r"].refs["refs/heads/topic"])
	}
	for _, st := range steps {
		// Steps depend on each other: run them in order, not in parallel.
		ok := t.Run(st.name, func(t *testing.T) {
			r := strings.NewReplacer(
				"{check}", fmt.Sprint(int64(checkRunID)), "{comment}", fmt.Sprint(int64(commentID)),
				"{blob}", blobSHA, "{tree}", treeSHA, "{commit}", commitSHA,
				"{topic-tree}", topicTree(), "{topic-head}", s.BranchHead("o", "r", "topic"),
			)
			var body any
			if st.body != nil {
				data, _ := json.Marshal(st.body)
				body = r.Replace(string(data))
			}
			status, data, h := do(t, s, st.method, r.Replace(st.path), body, st.header...)
			if status != st.wantStatus {
				t.Fatalf("status = %d, want %d: %s", status, st.wantStatus, data)
			}
			if st.check != nil {
				st.check(t, data, h)
			}
		})
		if !ok {
			break
		}
	}
	_ = forkHead

	seen := map[string]bool{}
	for _, r := range s.Requests() {
		seen[r.Operation] = true
	}
	for _, rt := range s.routes {
		if !seen[rt.op.id] {
			t.Errorf("operation %s was not exercised", rt.op.id)
		}
	}
	if got, _ := s.FileAt("o/r:topic", "x/blob.txt"); got != "blob\n" {
		t.Errorf("FileAt(topic, x/blob.txt) = %q", got)
	}
}

// TestReviewRequests holds the fake to GitHub's review requests: who may
// be asked, that asking again changes nothing, that a review answers its
// author's request (and a team's, for a member), and that a request
// fails whole.
func TestReviewRequests(t *testing.T) {
	t.Parallel()
	s := New(t)
	s.CommitFiles("o", "r", "main", map[string]string{"a": "1"}, "alice")
	s.CommitFiles("o", "r", "topic", map[string]string{"a": "2"}, "bob")
	n := s.OpenPR("o", "r", PRSeed{Head: "topic", Base: "main", Author: "bob"})
	for _, login := range []string{"bob", "carol", "dave"} {
		s.SetPermission(login, Write)
	}
	s.SetPermission("mallory", NoAccess)
	s.AddTeam("reviewers", "erin", "carol")
	s.SetToken("app", Token{Login: "pact-app[bot]", ReadsTeams: true})
	s.SetToken("ro", Token{ReadOnly: true})
	path := fmt.Sprintf("/repos/o/r/pulls/%d/requested_reviewers", n)
	ask := func(token string, users, teams []string) (int, string) {
		t.Helper()
		body := map[string]any{}
		if users != nil {
			body["reviewers"] = users
		}
		if teams != nil {
			body["team_reviewers"] = teams
		}
		var header []string
		if token != "" {
			header = []string{"Authorization", "Bearer " + token}
		}
		status, data, _ := do(t, s, "POST", path, body, header...)
		return status, string(data)
	}
	pending := func() string {
		users, teams := s.RequestedReviewers(n)
		return fmt.Sprint(users, teams)
	}
	steps := []struct {
		name     string
		token    string
		users    []string
		teams    []string
		review   string // a review by this account first
		status   int
		message  string
		requests string // pending after the step
	}{
		{name: "the author", users: []string{"carol", "Bob"}, status: 422, message: "Review cannot be requested from pull request author.", requests: "[] []"},
		{name: "no access", users: []string{"mallory"}, status: 422, message: "Reviews may only be requested from collaborators", requests: "[] []"},
		{name: "unknown to the repository", users: []string{"zed"}, status: 422, message: "not a collaborator of the o/r repository", requests: "[] []"},
		{name: "an app", users: []string{"renovate[bot]"}, status: 422, message: "Reviews may only be requested from collaborators", requests: "[] []"},
		{name: "collaborators", users: []string{"carol", "dave"}, status: 201, requests: "[carol dave] []"},
		{name: "asking again changes nothing", users: []string{"CAROL"}, status: 201, requests: "[carol dave] []"},
		{name: "a review answers its author's request", review: "carol", status: 201, users: []string{}, requests: "[dave] []"},
		{name: "asking again after a review: the re-request", users: []string{"carol"}, status: 201, requests: "[dave carol] []"},
		{name: "a team, with the workflow token", teams: []string{"reviewers"}, status: 422, message: "Could not resolve to a node", requests: "[dave carol] []"},
		{name: "a team, with a token that reads teams", token: "app", teams: []string{"reviewers"}, status: 201, requests: "[dave carol] [reviewers]"},
		{name: "an unknown team", token: "app", teams: []string{"nobody"}, status: 422, message: "not a collaborator", requests: "[dave carol] [reviewers]"},
		{name: "a member's review answers the team's request", review: "erin", token: "app", users: []string{}, status: 201, requests: "[dave carol] []"},
		{name: "a read-only token", token: "ro", users: []string{"erin"}, status: 403, message: "Resource not accessible by integration", requests: "[dave carol] []"},
	}
	for _, st := range steps {
		if st.review != "" {
			s.AddReview(n, ReviewSeed{Login: st.review, State: "COMMENTED"})
		}
		status, body := ask(st.token, st.users, st.teams)
		if status != st.status || !strings.Contains(body, st.message) {
			t.Errorf("%s: %d %s, want %d %q", st.name, status, body, st.status, st.message)
		}
		if got := pending(); got != st.requests {
			t.Errorf("%s: pending %s, want %s", st.name, got, st.requests)
		}
	}
	// At most 15 accounts and teams stand requested; a request past that
	// fails whole.
	var many []string
	for i := range 14 {
		login := fmt.Sprintf("u%02d", i)
		s.SetPermission(login, Read)
		many = append(many, login)
	}
	if status, body := ask("", many, nil); status != 422 || !strings.Contains(body, "at most 15") {
		t.Errorf("16 reviewers: %d %s", status, body)
	}
	if status, _ := ask("", many[:13], nil); status != 201 || pending() != fmt.Sprint(append([]string{"dave", "carol"}, many[:13]...), []string{}) {
		t.Errorf("15 reviewers: %d, pending %s", status, pending())
	}
	// A pending review is no answer.
	s.AddReview(n, ReviewSeed{Login: "dave", State: "PENDING"})
	if users, _ := s.RequestedReviewers(n); users[0] != "dave" {
		t.Errorf("a pending review removed dave's request: %v", users)
	}
}

func TestFaults(t *testing.T) {
	t.Parallel()
	s := New(t)
	s.CommitFiles("o", "r", "main", map[string]string{"a": "1"}, "alice")
	s.FailNext("GET", "/repos/o/r/commits/*", 503, http.Header{"Retry-After": {"2"}}, 2)
	s.Inject(Fault{Path: "/repos/o/r/git/blobs", Status: 418, Body: []byte(`teapot`)})
	tests := []struct {
		name       string
		method     string
		path       string
		body       any
		wantStatus int
		wantBody   string
		wantHeader string
	}{
		{name: "first fault", method: "GET", path: "/repos/o/r/commits/main", wantStatus: 503, wantBody: "Server Error", wantHeader: "2"},
		{name: "fault under the enterprise prefix", method: "GET", path: "/api/v3/repos/o/r/commits/main", wantStatus: 503, wantHeader: "2"},
		{name: "faults used up", method: "GET", path: "/repos/o/r/commits/main", wantStatus: 200},
		{name: "custom body, any method", method: "POST", path: "/repos/o/r/git/blobs", body: map[string]any{"content": "x"}, wantStatus: 418, wantBody: "teapot"},
		{name: "custom fault used up", method: "POST", path: "/repos/o/r/git/blobs", body: map[string]any{"content": "x"}, wantStatus: 201},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body, h := do(t, s, tt.method, tt.path, tt.body)
			if status != tt.wantStatus || !strings.Contains(string(body), tt.wantBody) || h.Get("Retry-After") != tt.wantHeader {
				t.Errorf("got %d %q Retry-After %q, want %d %q %q", status, body, h.Get("Retry-After"), tt.wantStatus, tt.wantBody, tt.wantHeader)
			}
		})
	}
	var faults int
	for _, r := range s.Requests() {
		if r.Fault {
			faults++
		}
	}
	if faults != 3 {
		t.Errorf("logged faults = %d, want 3", faults)
	}
}

func TestReadOnlyToken(t *testing.T) {
	t.Parallel()
	s := New(t)
	head := s.CommitFiles("o", "r", "main", map[string]string{"a": "1"}, "alice")
	s.SetToken("ro", Token{ReadOnly: true})
	tests := []struct {
		name       string
		method     string
		path       string
		body       any
		wantStatus int
	}{
		{name: "check run", method: "POST", path: "/repos/o/r/check-runs", body: map[string]any{"name": "x", "head_sha": head}, wantStatus: 403},
		{name: "blob", method: "POST", path: "/repos/o/r/git/blobs", body: map[string]any{"content": "x"}, wantStatus: 403},
		{name: "update ref", method: "PATCH", path: "/repos/o/r/git/refs/heads/main", body: map[string]any{"sha": head}, wantStatus: 403},
		{name: "read", method: "GET", path: "/repos/o/r/commits/main", wantStatus: 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			status, body, _ := do(t, s, tt.method, tt.path, tt.body, "Authorization", "Bearer ro")
			if status != tt.wantStatus {
				t.Fatalf("status = %d, want %d: %s", status, tt.wantStatus, body)
			}
			if status == 403 && !strings.Contains(string(body), "Resource not accessible by integration") {
				t.Errorf("body = %s", body)
			}
		})
	}
	if runs := s.CheckRuns(head); len(runs) != 0 {
		t.Errorf("a read-only token created check runs: %+v", runs)
	}
}

func TestBeforeUpdateRefRacesAPush(t *testing.T) {
	t.Parallel()
	s := New(t)
	parent := s.CommitFiles("o", "r", "main", map[string]string{"a": "1"}, "alice")
	next := s.CommitFiles("o", "r", "side", map[string]string{"a": "2"}, "bob")
	s.SetBranch("o", "r", "main", parent)
	var calls int
	s.BeforeUpdateRef(func(owner, repo, ref string) {
		calls++
		if owner != "o" || repo != "r" || ref != "heads/main" {
			t.Errorf("hook got %s/%s %s", owner, repo, ref)
		}
		s.CommitFiles(owner, repo, "main", map[string]string{"a": "race"}, "mallory")
	})
	status, body, _ := do(t, s, "PATCH", "/repos/o/r/git/refs/heads/main", map[string]any{"sha": next})
	if status != 422 || !strings.Contains(string(body), "Update is not a fast forward") {
		t.Fatalf("update-ref = %d %s, want 422 not a fast forward", status, body)
	}
	if calls != 1 {
		t.Errorf("hook calls = %d", calls)
	}
	if got, _ := s.FileAt("main", "a"); got != "race" {
		t.Errorf("main has %q, want the racing commit", got)
	}
}

func testClock(n int) time.Time {
	return time.Date(2024, 1, 1, 0, 0, n, 0, time.UTC)
}
