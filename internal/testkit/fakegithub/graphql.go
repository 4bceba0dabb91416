package fakegithub

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"
	"github.com/vektah/gqlparser/v2/validator"
)

// The GraphQL endpoint (POST /graphql, and /api/graphql as on GitHub
// Enterprise Server). Every query is validated against GitHub's public
// schema (testdata/github/graphql/schema.graphql, from
// @octokit/graphql-schema): a query that does not validate, variables that
// do not fit their declared types, or a field the fake does not resolve is
// a violation, reported like an OpenAPI one, and answered as GitHub answers
// an invalid query (200 with "errors"). The fake resolves what the product
// asks: repository(owner, name) with object(oid | expression),
// ref(qualifiedName), defaultBranchRef and pullRequests(states, first,
// after, baseRefName, headRefName); Commit (oid, tree, file(path),
// message, checkSuites), Tree (entries), TreeEntry (name, path, type, mode,
// oid, size, object), Blob (text, isTruncated, byteSize, isBinary), Ref
// (name, target), CheckSuite (app, databaseId, checkRuns), CheckRun (name,
// status, conclusion, externalId, title, summary, resourcePath, url,
// permalink, startedAt, completedAt), App (databaseId, slug, name), their
// connections' nodes and totalCount (checkruns.go), PullRequest (number,
// title, state, isDraft, mergeable, computed by the fake's own merge
// (merge.go), isCrossRepository, base and head ref names and oids,
// headRepository), PageInfo, and rateLimit.

// GraphQLOperation is the Operation of a GraphQL request in the request log.
const GraphQLOperation = "graphql"

// schemaRelPath is GitHub's GraphQL schema, relative to the module root.
const schemaRelPath = "testdata/github/graphql/schema.graphql"

// defaultGraphQLTextLimit is where GitHub cuts Blob.text (isTruncated turns
// true). GitHub does not document it; 512,000 bytes is what its API is
// observed to return (reported by clients that read files through
// GraphQL), so a client must check isTruncated and fall back to the blobs
// API, as it must for larger files anyway.
const defaultGraphQLTextLimit = 512_000

// WithGraphQLTextLimit lowers where Blob.text is cut (default
// defaultGraphQLTextLimit), so tests can exercise a client's fallback with
// small files.
func WithGraphQLTextLimit(n int) Option {
	return func(s *Server) { s.textLimit = n }
}

// WithoutGraphQL answers 404 at the GraphQL endpoint, like a server that
// has none, so tests can exercise a client's REST fallback.
func WithoutGraphQL() Option {
	return func(s *Server) { s.noGraphQL = true }
}

var (
	schemaOnce   sync.Once
	loadedSchema *ast.Schema
	schemaErr    error
)

// loadSchema parses and validates GitHub's schema once per process.
// GitHub's published schema declares two fields of EnterpriseOwnerInfo
// twice with the same type; identical duplicates are dropped, anything else
// is an error.
func loadSchema() (*ast.Schema, error) {
	schemaOnce.Do(func() {
		p, err := findModuleFile(schemaRelPath)
		if err != nil {
			schemaErr = err
			return
		}
		data, err := os.ReadFile(p)
		if err != nil {
			schemaErr = fmt.Errorf("read the graphql schema: %w", err)
			return
		}
		doc, err := parser.ParseSchemas(validator.Prelude, &ast.Source{Name: filepath.Base(p), Input: string(data)})
		if err != nil {
			schemaErr = fmt.Errorf("parse %s: %w", p, err)
			return
		}
		for _, def := range doc.Definitions {
			seen := map[string]*ast.FieldDefinition{}
			keep := def.Fields[:0]
			for _, f := range def.Fields {
				if prev := seen[f.Name]; prev != nil {
					if prev.Type.String() != f.Type.String() {
						schemaErr = fmt.Errorf("%s: %s.%s is declared twice with different types", p, def.Name, f.Name)
						return
					}
					continue
				}
				seen[f.Name] = f
				keep = append(keep, f)
			}
			def.Fields = keep
		}
		if loadedSchema, err = validator.ValidateSchemaDocument(doc); err != nil {
			schemaErr = fmt.Errorf("%s: %w", p, err)
		}
	})
	return loadedSchema, schemaErr
}

// isGraphQLPath reports the paths GitHub serves GraphQL on: /graphql
// (github.com, api.HOST) and /api/graphql (GitHub Enterprise Server).
func isGraphQLPath(p string) bool { return p == "/graphql" || p == "/api/graphql" }

// gqlError is one entry of a GraphQL answer's "errors".
type gqlError struct {
	Type    string `json:"type,omitempty"`
	Path    []any  `json:"path,omitempty"`
	Message string `json:"message"`
}

// serveGraphQL answers one GraphQL request, and returns its variables.
func (s *Server) serveGraphQL(r *http.Request) (*reply, map[string]any) {
	var vars map[string]any
	rp := s.answerGraphQL(r, &vars)
	return rp, vars
}

func (s *Server) answerGraphQL(r *http.Request, rawVars *map[string]any) *reply {
	fail := func(msg string) *reply {
		return jsonReply(http.StatusOK, obj{"errors": []gqlError{{Message: msg}}})
	}
	if r.Method != http.MethodPost {
		s.violation("%s %s: GitHub's GraphQL endpoint takes POST", r.Method, r.URL.Path)
		return errorReply(http.StatusNotFound, "Not Found")
	}
	var in struct {
		Query         string         `json:"query"`
		Variables     map[string]any `json:"variables"`
		OperationName string         `json:"operationName"`
	}
	dec := json.NewDecoder(r.Body)
	dec.UseNumber()
	if err := dec.Decode(&in); err != nil || strings.TrimSpace(in.Query) == "" {
		s.violation("POST %s: the body is not a GraphQL request (JSON with a query): %v", r.URL.Path, err)
		return errorReply(http.StatusBadRequest, "Problems parsing JSON")
	}
	*rawVars = in.Variables
	schema, err := loadSchema()
	if err != nil {
		s.violation("graphql: %v", err)
		return errorReply(http.StatusInternalServerError, "Server Error")
	}
	doc, perr := parser.ParseQuery(&ast.Source{Input: in.Query})
	if perr != nil {
		s.violation("graphql: the query does not parse: %v\nquery: %s", perr, in.Query)
		return fail(perr.Error())
	}
	if errs := validator.ValidateWithRules(schema, doc, nil); len(errs) > 0 {
		s.violation("graphql: the query does not validate against GitHub's schema: %v\nquery: %s", errs, in.Query)
		return fail(errs.Error())
	}
	op := doc.Operations.ForName(in.OperationName)
	if op == nil {
		s.violation("graphql: no operation %q in the query", in.OperationName)
		return fail("no operation " + in.OperationName)
	}
	if op.Operation != ast.Query {
		s.violation("graphql: the fake answers queries only, not %s", op.Operation)
		return fail("the fake answers queries only")
	}
	vars, verr := validator.VariableValues(schema, op, in.Variables)
	if verr != nil {
		s.violation("graphql: the variables do not fit the query: %v", verr)
		return fail(verr.Error())
	}
	tok, _ := s.token(r)
	x := &gqlExec{s: s, schema: schema, doc: doc, vars: vars, tok: tok}
	s.mu.Lock()
	data := x.selection(op.SelectionSet, "Query", gqlRoot{}, nil)
	s.mu.Unlock()
	out := obj{"data": data}
	if len(x.errors) > 0 {
		out["errors"] = x.errors
	}
	return jsonReply(http.StatusOK, out)
}

// gqlExec resolves one operation over the fake's state (under s.mu).
type gqlExec struct {
	s      *Server
	schema *ast.Schema
	doc    *ast.QueryDocument
	vars   map[string]any
	errors []gqlError
	tok    Token // what the request's token may see
}

// Runtime values of the object types the fake resolves.
type (
	gqlRoot   struct{}
	gqlRepo   struct{ r *repoState }
	gqlObject struct {
		repo *repoState
		kind string // Commit, Tree or Blob
		sha  string
	}
	gqlEntry struct {
		repo *repoState
		e    treeEntry
		path string
	}
	gqlRef struct {
		repo *repoState
		name string // fully qualified: refs/heads/main
		sha  string
	}
	gqlRateLimit struct{}
	// gqlPRConn is a page of a repository's pull requests: list[lo:hi].
	gqlPRConn struct {
		repo   *repoState
		list   []*pullState
		lo, hi int
	}
	gqlPR       struct{ p *pullState }
	gqlPageInfo struct {
		hasNext, hasPrev bool
		start, end       string
	}
)

func typeOf(v any) string {
	switch v := v.(type) {
	case gqlRoot:
		return "Query"
	case gqlRepo:
		return "Repository"
	case gqlObject:
		return v.kind
	case gqlEntry:
		return "TreeEntry"
	case gqlRef:
		return "Ref"
	case gqlRateLimit:
		return "RateLimit"
	case gqlConn:
		return v.typ
	case gqlSuite:
		return "CheckSuite"
	case gqlCheckRun:
		return "CheckRun"
	case gqlApp:
		return "App"
	case gqlPRConn:
		return "PullRequestConnection"
	case gqlPR:
		return "PullRequest"
	case gqlPageInfo:
		return "PageInfo"
	}
	return ""
}

// applies reports whether a fragment on typeCond applies to runtime type
// typ (the type itself, or an interface or union it belongs to).
func (x *gqlExec) applies(typeCond, typ string) bool {
	if typeCond == "" || typeCond == typ {
		return true
	}
	for _, d := range x.schema.PossibleTypes[typeCond] {
		if d.Name == typ {
			return true
		}
	}
	return false
}

// selection resolves a selection set on v (of runtime type typ). Fields
// asked more than once under one response key (through fragments, say)
// are merged, as GraphQL executes them: one field, the union of their
// sub-selections (validation has checked they agree).
func (x *gqlExec) selection(set ast.SelectionSet, typ string, v any, path []any) obj {
	var keys []string
	fields := map[string]*ast.Field{}
	var walk func(set ast.SelectionSet)
	walk = func(set ast.SelectionSet) {
		for _, sel := range set {
			switch sel := sel.(type) {
			case *ast.Field:
				if len(sel.Directives) > 0 {
					x.unsupported(path, "directives on fields")
				}
				key := sel.Alias
				if key == "" {
					key = sel.Name
				}
				if prev := fields[key]; prev != nil {
					merged := *prev
					merged.SelectionSet = append(append(ast.SelectionSet(nil), prev.SelectionSet...), sel.SelectionSet...)
					fields[key] = &merged
					continue
				}
				keys = append(keys, key)
				fields[key] = sel
			case *ast.InlineFragment:
				if x.applies(sel.TypeCondition, typ) {
					walk(sel.SelectionSet)
				}
			case *ast.FragmentSpread:
				if sel.Definition != nil && x.applies(sel.Definition.TypeCondition, typ) {
					walk(sel.Definition.SelectionSet)
				}
			}
		}
	}
	walk(set)
	out := obj{}
	for _, key := range keys {
		out[key] = x.field(fields[key], typ, v, append(append([]any(nil), path...), key))
	}
	return out
}

func (x *gqlExec) unsupported(path []any, what string) {
	msg := fmt.Sprintf("the fake GitHub does not resolve %s", what)
	x.s.violationLocked("graphql: %s (at %v)", msg, path)
	x.errors = append(x.errors, gqlError{Path: path, Message: msg})
}

// field resolves one field and its sub-selection.
func (x *gqlExec) field(f *ast.Field, typ string, v any, path []any) any {
	if f.Name == "__typename" {
		return typ
	}
	val, ok := x.resolve(f, typ, v, path)
	if !ok {
		x.unsupported(path, typ+"."+f.Name)
		return nil
	}
	if val == nil {
		if f.Definition != nil && f.Definition.Type.NonNull {
			x.s.violationLocked("graphql: the fake resolved null for the non-null field %s.%s", typ, f.Name)
		}
		return nil
	}
	if len(f.SelectionSet) == 0 {
		return val
	}
	if list, ok := val.([]any); ok {
		out := make([]any, len(list))
		for i, item := range list {
			out[i] = x.selection(f.SelectionSet, typeOf(item), item, append(append([]any(nil), path...), i))
		}
		return out
	}
	return x.selection(f.SelectionSet, typeOf(val), val, path)
}

func (x *gqlExec) arg(f *ast.Field, name string) (string, bool) {
	a := f.Arguments.ForName(name)
	if a == nil {
		return "", false
	}
	val, err := a.Value.Value(x.vars)
	if err != nil || val == nil {
		return "", false
	}
	return fmt.Sprint(val), true
}

// resolve returns a field's value: a scalar, a runtime object, a list of
// them, or nil; ok is false for a field the fake does not resolve.
func (x *gqlExec) resolve(f *ast.Field, typ string, v any, path []any) (any, bool) {
	s := x.s
	switch v := v.(type) {
	case gqlRoot:
		switch f.Name {
		case "repository":
			owner, _ := x.arg(f, "owner")
			name, _ := x.arg(f, "name")
			r := s.repos[strings.ToLower(owner+"/"+name)]
			if r == nil {
				x.errors = append(x.errors, gqlError{Type: "NOT_FOUND", Path: path,
					Message: fmt.Sprintf("Could not resolve to a Repository with the name '%s/%s'.", owner, name)})
				return nil, true
			}
			return gqlRepo{r}, true
		case "rateLimit":
			return gqlRateLimit{}, true
		}
	case gqlRateLimit:
		switch f.Name {
		case "cost", "nodeCount", "used":
			return 1, true
		case "limit":
			return 5000, true
		case "remaining":
			return 4999, true
		case "resetAt":
			return s.clock.Add(time.Hour).UTC().Format(time.RFC3339), true
		}
	case gqlRepo:
		switch f.Name {
		case "name":
			return v.r.name, true
		case "nameWithOwner":
			return v.r.fullName(), true
		case "object":
			if oid, ok := x.arg(f, "oid"); ok {
				return x.object(v.r, oid), true
			}
			expr, _ := x.arg(f, "expression")
			return x.expression(v.r, expr), true
		case "ref":
			qn, _ := x.arg(f, "qualifiedName")
			for _, full := range []string{qn, "refs/heads/" + qn, "refs/tags/" + qn} {
				if sha, ok := v.r.refs[full]; ok && strings.HasPrefix(full, "refs/") {
					return gqlRef{repo: v.r, name: full, sha: sha}, true
				}
			}
			return nil, true
		case "defaultBranchRef":
			full := "refs/heads/" + v.r.defaultBranch
			if sha, ok := v.r.refs[full]; ok && v.r.defaultBranch != "" {
				return gqlRef{repo: v.r, name: full, sha: sha}, true
			}
			return nil, true // an empty repository has no default branch yet
		case "pullRequests":
			return x.pullRequests(f, v.r, path)
		}
	case gqlPRConn:
		switch f.Name {
		case "totalCount":
			return len(v.list), true
		case "nodes":
			out := make([]any, 0, v.hi-v.lo)
			for _, p := range v.list[v.lo:v.hi] {
				out = append(out, gqlPR{p})
			}
			return out, true
		case "pageInfo":
			pi := gqlPageInfo{hasNext: v.hi < len(v.list), hasPrev: v.lo > 0}
			if v.hi > v.lo {
				pi.start, pi.end = prCursor(v.lo), prCursor(v.hi-1)
			}
			return pi, true
		}
	case gqlPageInfo:
		switch f.Name {
		case "hasNextPage":
			return v.hasNext, true
		case "hasPreviousPage":
			return v.hasPrev, true
		case "startCursor":
			return nilIfEmpty(v.start), true
		case "endCursor":
			return nilIfEmpty(v.end), true
		}
	case gqlPR:
		p := v.p
		switch f.Name {
		case "number":
			return p.number, true
		case "title":
			return p.title, true
		case "isDraft":
			return p.draft, true
		case "state":
			switch {
			case p.merged:
				return "MERGED", true
			case p.state == "open":
				return "OPEN", true
			}
			return "CLOSED", true
		case "mergeable":
			return s.mergeableState(p), true
		case "isCrossRepository":
			return p.headRepo != p.repo, true
		case "baseRefName":
			return p.baseRef, true
		case "baseRefOid":
			return s.baseSHA(p), true
		case "headRefName":
			return p.headRef, true
		case "headRefOid":
			return s.headSHA(p), true
		case "headRepository":
			if p.headRepo == nil {
				return nil, true
			}
			return gqlRepo{p.headRepo}, true
		}
	case gqlRef:
		switch f.Name {
		case "name":
			return strings.TrimPrefix(strings.TrimPrefix(v.name, "refs/heads/"), "refs/tags/"), true
		case "prefix":
			return v.name[:len(v.name)-len(strings.TrimPrefix(strings.TrimPrefix(v.name, "refs/heads/"), "refs/tags/"))], true
		case "target":
			return x.object(v.repo, v.sha), true
		}
	case gqlObject:
		switch f.Name {
		case "oid":
			return v.sha, true
		case "abbreviatedOid":
			return v.sha[:7], true
		}
		switch v.kind {
		case "Commit":
			c := s.store.commits[v.sha]
			switch f.Name {
			case "message":
				return c.message, true
			case "tree":
				return gqlObject{repo: v.repo, kind: "Tree", sha: c.tree}, true
			case "checkSuites":
				return x.commitSuites(v.repo, v.sha, x.objectArg(f, "filterBy"), x.intArg(f, "first"), path)
			case "file":
				p, _ := x.arg(f, "path")
				p = strings.Trim(p, "/")
				if p == "" {
					return nil, true
				}
				e, ok := s.store.lookupPath(c.tree, p)
				if !ok {
					return nil, true
				}
				return gqlEntry{repo: v.repo, e: e, path: p}, true
			}
		case "Tree":
			if f.Name == "entries" {
				t := s.store.trees[v.sha]
				list := make([]any, 0, len(t.entries))
				for _, e := range t.entries {
					list = append(list, gqlEntry{repo: v.repo, e: e, path: e.name})
				}
				return list, true
			}
		case "Blob":
			data := s.store.blobs[v.sha].data
			switch f.Name {
			case "byteSize":
				return len(data), true
			case "isBinary":
				return isBinary(data), true
			case "isTruncated":
				return !isBinary(data) && len(data) > s.textLimit, true
			case "text":
				if isBinary(data) {
					return nil, true
				}
				return blobText(data, s.textLimit), true
			}
		}
	case gqlEntry:
		switch f.Name {
		case "name":
			return v.e.name, true
		case "path":
			return v.path, true
		case "type":
			return v.e.typ, true
		case "mode":
			m, _ := strconv.ParseInt(v.e.mode, 8, 64)
			return m, true
		case "oid":
			return v.e.sha, true
		case "size":
			if b := s.store.blobs[v.e.sha]; b != nil && v.e.typ == "blob" {
				return len(b.data), true
			}
			return 0, true
		case "object":
			switch v.e.typ {
			case "blob":
				return gqlObject{repo: v.repo, kind: "Blob", sha: v.e.sha}, true
			case "tree":
				return gqlObject{repo: v.repo, kind: "Tree", sha: v.e.sha}, true
			}
			return nil, true // a submodule's commit is not in this repository
		}
	case gqlConn, gqlSuite, gqlApp, gqlCheckRun:
		return x.resolveChecks(f, v, path)
	}
	return nil, false
}

// maxConnectionPage is the most nodes GitHub returns for one page of a
// connection (first: 1..100).
const maxConnectionPage = 100

// pullRequests resolves Repository.pullRequests: filtered by states,
// baseRefName and headRefName, in number order (orderBy is accepted and
// read as creation order, which numbers follow), one page of first after
// the cursor after.
func (x *gqlExec) pullRequests(f *ast.Field, r *repoState, path []any) (any, bool) {
	states := map[string]bool{}
	if v, ok := x.argValue(f, "states"); ok {
		list, _ := v.([]any)
		for _, st := range list {
			states[fmt.Sprint(st)] = true
		}
	}
	first := maxConnectionPage
	if v, ok := x.argValue(f, "first"); ok {
		n, err := strconv.Atoi(fmt.Sprint(v))
		if err != nil || n < 1 || n > maxConnectionPage {
			x.errors = append(x.errors, gqlError{Type: "ARGUMENT_LIMIT", Path: path,
				Message: fmt.Sprintf("Requesting %v records on the `pullRequests` connection exceeds the `first` limit of 100 records.", v)})
			return nil, true
		}
		first = n
	} else {
		x.s.violationLocked("graphql: pullRequests without first (GitHub requires first or last on a connection)")
	}
	base, _ := x.arg(f, "baseRefName")
	head, _ := x.arg(f, "headRefName")
	var list []*pullState
	for _, n := range sortedIntKeys(x.s.pulls) {
		p := x.s.pulls[n]
		state := "CLOSED"
		switch {
		case p.merged:
			state = "MERGED"
		case p.state == "open":
			state = "OPEN"
		}
		if p.repo != r || (len(states) > 0 && !states[state]) || (base != "" && p.baseRef != base) || (head != "" && p.headRef != head) {
			continue
		}
		list = append(list, p)
	}
	lo := 0
	if after, ok := x.arg(f, "after"); ok {
		n, err := strconv.Atoi(strings.TrimPrefix(after, "cursor:"))
		if err != nil || !strings.HasPrefix(after, "cursor:") {
			x.errors = append(x.errors, gqlError{Path: path, Message: fmt.Sprintf("`%s` does not appear to be a valid cursor.", after)})
			return nil, true
		}
		lo = min(n+1, len(list))
	}
	return gqlPRConn{repo: r, list: list, lo: lo, hi: min(lo+first, len(list))}, true
}

// prCursor is the opaque cursor of the i-th pull request of a listing.
func prCursor(i int) string { return fmt.Sprintf("cursor:%d", i) }

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// argValue is an argument's value as the variables give it (a list stays
// a list), or false when it is absent or null.
func (x *gqlExec) argValue(f *ast.Field, name string) (any, bool) {
	a := f.Arguments.ForName(name)
	if a == nil {
		return nil, false
	}
	val, err := a.Value.Value(x.vars)
	if err != nil || val == nil {
		return nil, false
	}
	return val, true
}

// object is the git object oid names, or nil.
func (x *gqlExec) object(r *repoState, oid string) any {
	st := x.s.store
	switch {
	case st.commits[oid] != nil:
		return gqlObject{repo: r, kind: "Commit", sha: oid}
	case st.trees[oid] != nil:
		return gqlObject{repo: r, kind: "Tree", sha: oid}
	case st.blobs[oid] != nil:
		return gqlObject{repo: r, kind: "Blob", sha: oid}
	}
	return nil
}

// expression resolves a git revision expression: REV or REV:PATH.
func (x *gqlExec) expression(r *repoState, expr string) any {
	rev, p, hasPath := strings.Cut(expr, ":")
	sha := x.s.resolveRef(r, rev)
	if sha == "" {
		return nil
	}
	if !hasPath {
		return x.object(r, sha)
	}
	e, ok := x.s.store.lookupPath(x.s.treeOf(sha), strings.Trim(p, "/"))
	if !ok {
		return nil
	}
	return x.object(r, e.sha)
}

// isBinary is git's heuristic: a NUL byte in the first 8,000 bytes.
func isBinary(data []byte) bool {
	return bytes.IndexByte(data[:min(len(data), 8000)], 0) >= 0
}

// blobText is Blob.text: UTF-8 (invalid bytes replaced, as a JSON string
// must be), cut at limit bytes on a character boundary.
func blobText(data []byte, limit int) string {
	if len(data) > limit {
		cut := limit
		for cut > 0 && !utf8.RuneStart(data[cut]) {
			cut--
		}
		data = data[:cut]
	}
	return strings.ToValidUTF8(string(data), "\uFFFD")
}
