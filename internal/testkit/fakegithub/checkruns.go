package fakegithub

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/vektah/gqlparser/v2/ast"
)

// Check runs belong to the GitHub App whose token created them: only that
// app may update one (GitHub answers any other 403 "Invalid app_id …"),
// and GitHub keeps them in check suites, one per app and commit here (a
// GitHub Actions workflow run has a suite of its own on GitHub; the runs a
// workflow's token creates land in one of the app's suites on the commit).

// App is a GitHub App a token acts for.
type App struct {
	ID         int64
	Slug, Name string
	Owner      string // the account that owns it
}

// GitHubActions is the app of a workflow's GITHUB_TOKEN, every token's
// unless Token.App names another.
var GitHubActions = App{ID: 15368, Slug: "github-actions", Name: "GitHub Actions", Owner: "github"}

// app is the app the request's token acts for.
func (c *call) app() App {
	if c.tok.App.ID != 0 {
		return c.tok.App
	}
	return GitHubActions
}

// suiteKey names a check suite: an app's on one commit of a repository.
type suiteKey struct {
	repo *repoState
	app  int64
	head string
}

// suiteID is the id of app's check suite on head in repo, made on its
// first run (under s.mu).
func (s *Server) suiteID(repo *repoState, app App, head string) int64 {
	k := suiteKey{repo, app.ID, head}
	id, ok := s.suites[k]
	if !ok {
		id = s.newID()
		s.suites[k] = id
	}
	return id
}

// CheckRunSeed is a check run made as its app would make it, for a test
// to find on GitHub: one a job killed outright left in progress, or one
// someone else's workflow posted.
type CheckRunSeed struct {
	Name, HeadSHA string
	// App created it (zero: GitHubActions).
	App App
	// Status is queued, in_progress (the default) or completed, with
	// Conclusion.
	Status, Conclusion string
	ExternalID         string
	Title, Summary     string
}

// SeedCheckRun makes a check run of owner/repo and returns its id.
func (s *Server) SeedCheckRun(owner, repo string, seed CheckRunSeed) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.repoLocked(owner, repo)
	if s.store.commits[seed.HeadSHA] == nil {
		s.t.Fatalf("fakegithub: SeedCheckRun: no commit %s", seed.HeadSHA)
	}
	app := seed.App
	if app.ID == 0 {
		app = GitHubActions
	}
	status := seed.Status
	if status == "" {
		status = "in_progress"
	}
	cr := &checkRunState{id: s.newID(), repo: r, app: app, suite: s.suiteID(r, app, seed.HeadSHA), name: seed.Name,
		headSHA: seed.HeadSHA, status: status, conclusion: seed.Conclusion, started: s.tick(), requests: 1}
	if status == "completed" {
		cr.completed = s.clock
	}
	for _, f := range []struct {
		dst **string
		v   string
	}{{&cr.externalID, seed.ExternalID}, {&cr.title, seed.Title}, {&cr.summary, seed.Summary}} {
		if f.v != "" {
			v := f.v
			*f.dst = &v
		}
	}
	s.checkRuns[cr.id] = cr
	return cr.id
}

// ---- GraphQL: Commit.checkSuites, CheckSuite, CheckRun, App ----

// Runtime values of the checks types the GraphQL endpoint resolves.
type (
	gqlSuite struct {
		id   int64
		repo *repoState
		app  App
		head string
	}
	gqlCheckRun struct{ cr *checkRunState }
	gqlApp      struct{ app App }
	// gqlConn is a connection (CheckSuiteConnection, CheckRunConnection):
	// its nodes, all of them when first is not given, or the first ones.
	gqlConn struct {
		typ   string
		nodes []any
	}
)

// commitSuites is Commit.checkSuites: the suites on sha of the commit's
// repository, oldest first, filtered by filterBy's appId and checkName (a
// suite holding a run of that name), and FORBIDDEN to a token without the
// checks permission.
func (x *gqlExec) commitSuites(repo *repoState, sha string, filter map[string]any, first int, path []any) (any, bool) {
	if !x.filterKnown(filter, path, "appId", "checkName") {
		return nil, true
	}
	if x.tok.NoChecks {
		x.errors = append(x.errors, gqlError{Type: "FORBIDDEN", Path: path, Message: "Resource not accessible by integration"})
		return nil, true
	}
	var suites []gqlSuite
	for k, id := range x.s.suites {
		if k.repo == repo && k.head == sha {
			suites = append(suites, gqlSuite{id: id, repo: repo, app: x.s.appOf(k.app), head: sha})
		}
	}
	slices.SortFunc(suites, func(a, b gqlSuite) int { return cmp.Compare(a.id, b.id) })
	var nodes []any
	for _, su := range suites {
		if a, ok := filter["appId"]; ok && a != nil && fmt.Sprint(a) != fmt.Sprint(su.app.ID) {
			continue
		}
		if n, ok := filter["checkName"].(string); ok && len(x.suiteRuns(su, map[string]any{"checkName": n}, path)) == 0 {
			continue
		}
		nodes = append(nodes, su)
	}
	return gqlConn{typ: "CheckSuiteConnection", nodes: firstOf(nodes, first)}, true
}

// suiteRuns are the runs of su, oldest first, filtered by filterBy's
// checkName and status (upper case, as GraphQL's enum).
func (x *gqlExec) suiteRuns(su gqlSuite, filter map[string]any, path []any) []any {
	if !x.filterKnown(filter, path, "checkName", "status") {
		return nil
	}
	var out []any
	for _, id := range sortedIDs(x.s.checkRuns) {
		cr := x.s.checkRuns[id]
		if cr.suite != su.id {
			continue
		}
		if n, ok := filter["checkName"].(string); ok && cr.name != n {
			continue
		}
		if st, ok := filter["status"].(string); ok && upper(cr.status) != st {
			continue
		}
		out = append(out, gqlCheckRun{cr})
	}
	return out
}

// filterKnown reports whether the fake applies every field filterBy sets;
// one it would ignore is a violation, not a wrong answer.
func (x *gqlExec) filterKnown(filter map[string]any, path []any, known ...string) bool {
	for k, v := range filter {
		if v != nil && !slices.Contains(known, k) {
			x.unsupported(path, "filterBy."+k)
			return false
		}
	}
	return true
}

// appOf is the app of id among the runs the fake holds.
func (s *Server) appOf(id int64) App {
	for _, cr := range s.checkRuns {
		if cr.app.ID == id {
			return cr.app
		}
	}
	return App{ID: id}
}

func firstOf(nodes []any, first int) []any {
	if first >= 0 && first < len(nodes) {
		return nodes[:first]
	}
	return nodes
}

// resolveChecks resolves the fields of the checks types; ok is false for
// one the fake does not resolve.
func (x *gqlExec) resolveChecks(f *ast.Field, v any, path []any) (any, bool) {
	switch v := v.(type) {
	case gqlConn:
		switch f.Name {
		case "nodes":
			return v.nodes, true
		case "totalCount":
			return len(v.nodes), true
		}
	case gqlSuite:
		switch f.Name {
		case "app":
			return gqlApp{v.app}, true
		case "databaseId":
			return v.id, true
		case "checkRuns":
			return gqlConn{typ: "CheckRunConnection", nodes: firstOf(x.suiteRuns(v, x.objectArg(f, "filterBy"), path), x.intArg(f, "first"))}, true
		}
	case gqlApp:
		switch f.Name {
		case "databaseId":
			return v.app.ID, true
		case "slug":
			return v.app.Slug, true
		case "name":
			return v.app.Name, true
		}
	case gqlCheckRun:
		cr := v.cr
		switch f.Name {
		case "name":
			return cr.name, true
		case "status":
			return upper(cr.status), true
		case "conclusion":
			if cr.conclusion == "" {
				return nil, true
			}
			return upper(cr.conclusion), true
		case "externalId":
			return nullable(cr.externalID), true
		case "title":
			return nullable(cr.title), true
		case "summary":
			return nullable(cr.summary), true
		case "resourcePath":
			return fmt.Sprintf("/%s/runs/%d", cr.repo.fullName(), cr.id), true
		case "url", "permalink":
			return fmt.Sprintf("%s/runs/%d", x.s.htmlRepo(cr.repo), cr.id), true
		case "startedAt":
			return cr.started.UTC().Format(time.RFC3339), true
		case "completedAt":
			if cr.completed.IsZero() {
				return nil, true
			}
			return cr.completed.UTC().Format(time.RFC3339), true
		}
	}
	return nil, false
}

// objectArg is an input object argument of f (nil: none).
func (x *gqlExec) objectArg(f *ast.Field, name string) map[string]any {
	a := f.Arguments.ForName(name)
	if a == nil {
		return nil
	}
	v, err := a.Value.Value(x.vars)
	if err != nil {
		return nil
	}
	m, _ := v.(map[string]any)
	return m
}

// intArg is an Int argument of f, -1 when absent.
func (x *gqlExec) intArg(f *ast.Field, name string) int {
	v, ok := x.arg(f, name)
	if !ok {
		return -1
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return -1
	}
	return n
}

func upper(s string) string { return strings.ToUpper(s) }

func nullable(p *string) any {
	if p == nil {
		return nil
	}
	return *p
}
