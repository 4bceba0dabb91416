// Package fakegithub is a stateful, in-memory fake of the GitHub REST API
// for tests, served by net/http/httptest.
//
// It keeps repositories with a real Git object store (blobs, trees and
// commits with GitHub-computed SHAs, refs), pull requests, reviews and
// review requests, teams, issue and review comments with reactions,
// collaborator permissions, check runs
// (with every annotation appended across updates), a push history per branch, and a GraphQL endpoint.
// Tests seed it with helpers (CommitFiles, OpenPR, AddReview, ...), point a
// client at URL, then inspect state (CheckRuns, Comments, FileAt, ...).
//
// Every request to an operation of GitHub's OpenAPI description subset
// (testdata/github/openapi/rest-subset.json) is checked against it: the
// path must match the operation path, path and query parameters must match
// their declarations, the JSON request body must match the requestBody
// schema, and the JSON response the fake sends must match the schema of its
// status code (error statuses the subset does not list, or lists without a
// body, are checked against basic-error). A mismatch is a violation, reported with t.Errorf (see
// withViolationHandler) and kept in Violations. Operations outside the
// subset (listed in extraOperations) are served but cannot be validated.
//
// GraphQL (POST /graphql, /api/graphql) is checked the same way against
// GitHub's GraphQL schema (testdata/github/graphql/schema.graphql): see
// graphql.go for what the fake resolves.
//
// Faults can be injected (FailNext), tokens can be made read-only
// (SetToken), and a hook can race a concurrent push before an update-ref
// (BeforeUpdateRef).
//
// The Server is safe for concurrent use.
package fakegithub

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// DefaultLogin is the acting user of requests whose token is unknown (or
// absent): the identity of a workflow's GITHUB_TOKEN.
const DefaultLogin = "github-actions[bot]"

// Size limits of the contents API, as documented by GitHub.
const (
	// jsonContentLimit is the largest file the contents API returns as
	// JSON (base64); larger files need the raw media type.
	jsonContentLimit = 1 << 20
	// defaultRawContentLimit is the largest file the contents API returns
	// with the raw media type; larger files need the blobs API.
	defaultRawContentLimit = 100 << 20
)

// Server is the fake GitHub REST API.
type Server struct {
	// URL is the base URL of the API (like https://api.github.com). It
	// also answers under URL+"/api/v3" (like GitHub Enterprise Server).
	URL string

	t           testing.TB
	srv         *httptest.Server
	spec        *apiSpec
	routes      []*route
	onViolation func(string)

	mu              sync.Mutex
	store           *objectStore
	repos           map[string]*repoState // by lower-case "owner/name"
	repoOrder       []*repoState
	users           map[string]int64
	nextID          int64
	nextNumber      int
	clock           time.Time
	next            time.Time // when set, the next tick's time
	pulls           map[int]*pullState
	comments        map[int64]*commentState
	reviewComments  map[int64]*commentState
	checkRuns       map[int64]*checkRunState
	suites          map[suiteKey]int64 // check suite ids
	perms           map[string]string
	tokens          map[string]Token
	faults          []*Fault
	beforeUpdateRef func(owner, repo, ref string)
	rawLimit        int
	noGraphQL       bool
	absent          map[string]bool // operations answered 404, as by a server without them
	textLimit       int
	requests        []Request
	served          int64 // bytes of the bodies answered
	violations      []string
	settings        *settingsState        // see settings.go
	teams           map[string]*teamState // by lower-case slug; see reviewrequests.go
	mergeLag        int                   // see SetMergeabilityLag
}

// Option configures New.
type Option func(*Server)

// withViolationHandler replaces t.Errorf as the receiver of OpenAPI
// violations (they are still kept in Violations). Tests of the fake itself
// use it to provoke violations on purpose.
func withViolationHandler(fn func(msg string)) Option {
	return func(s *Server) { s.onViolation = fn }
}

// WithoutOperations answers 404 to the operations named by operationId,
// like an older GitHub Enterprise Server without them.
func WithoutOperations(ids ...string) Option {
	return func(s *Server) {
		if s.absent == nil {
			s.absent = map[string]bool{}
		}
		for _, id := range ids {
			s.absent[id] = true
		}
	}
}

// WithClock starts the fake's clock at t (default 2024-01-02T03:04:05Z);
// every recorded thing (commit, review, comment, push) advances it by a
// second.
func WithClock(t time.Time) Option {
	return func(s *Server) { s.clock = t.UTC() }
}

// WithRawContentLimit lowers the size above which the contents API refuses
// files even with the raw media type (default 100 MB), so tests can
// exercise a client's blobs fallback with small files.
func WithRawContentLimit(n int) Option {
	return func(s *Server) { s.rawLimit = n }
}

// Token describes what a token may do.
type Token struct {
	// Login is the acting user (DefaultLogin if empty).
	Login string
	// ReadOnly makes every write (POST, PATCH, PUT, DELETE) fail with 403
	// "Resource not accessible by integration", like a workflow token
	// with read-only permissions (e.g. on pull_request from a fork).
	ReadOnly bool
	// ReadsTeams lets the token see the organization's teams, so it can
	// request a team's review (a GitHub App with Members: read); a
	// workflow's GITHUB_TOKEN cannot.
	ReadsTeams bool
	// App is the GitHub App the token acts for (zero: GitHubActions, a
	// workflow's GITHUB_TOKEN): the check runs it creates are that app's,
	// and only that app may update them.
	App App
	// NoChecks is a token without the checks permission: the Checks API
	// answers it 403, and GraphQL's Commit.checkSuites FORBIDDEN.
	NoChecks bool
	// Workflows lets the token move a branch to a commit that changes a
	// file under .github/workflows/ (a GitHub App with Workflows: write).
	// Without it GitHub refuses the update, as it refuses every
	// workflow's GITHUB_TOKEN, which cannot be given that permission.
	Workflows bool
}

// Fault is a canned answer replacing the next matching requests.
type Fault struct {
	// Method matches the request method; empty matches any.
	Method string
	// Path is a path.Match pattern over the request path without the
	// optional /api/v3 prefix, e.g. "/repos/o/r/check-runs/*".
	Path   string
	Status int
	Header http.Header
	// Body is sent as is; nil means a GitHub-like JSON error for Status.
	Body []byte
	// Times is how many requests the fault answers.
	Times int
	// Skip lets the first Skip matching requests through before the fault
	// answers (the second GraphQL request of a run, say).
	Skip int
	// AfterApply runs the request first and then answers with the fault,
	// like a GitHub that applied a write and failed before answering.
	AfterApply bool
	// Stall never answers: the request hangs until the client gives up
	// (a hung connection, to test timeouts and cancellation). With
	// AfterApply, the request is applied first.
	Stall bool
	// Drop closes the connection without an answer (with AfterApply:
	// after applying the request, like an answer lost on the way).
	Drop bool
	// Cut applies the request and answers it, but closes the connection
	// halfway through the body (Status, Header and Body are not used).
	Cut bool
	// Serve answers the request as the fake would, with Header added to
	// the answer (Status and Body are not used): the last request a rate
	// limit allows, say, which succeeds saying x-ratelimit-remaining 0.
	Serve bool
}

// Request is an entry of the request log.
type Request struct {
	Method string
	// Path is the escaped path without the optional /api/v3 prefix.
	Path   string
	Query  string
	Status int
	// Operation is the operationId answering it ("" if none).
	Operation string
	// Fault reports an injected answer.
	Fault bool
	// Variables are a GraphQL request's variables (Operation
	// GraphQLOperation).
	Variables map[string]any
}

// New starts a fake server, closed when the test ends.
func New(t testing.TB, opts ...Option) *Server {
	t.Helper()
	spec, err := loadSpec()
	if err != nil {
		t.Fatalf("fakegithub: %v", err)
	}
	s := &Server{
		t:              t,
		spec:           spec,
		store:          newObjectStore(),
		repos:          map[string]*repoState{},
		users:          map[string]int64{},
		nextID:         1000,
		clock:          time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC),
		pulls:          map[int]*pullState{},
		comments:       map[int64]*commentState{},
		reviewComments: map[int64]*commentState{},
		checkRuns:      map[int64]*checkRunState{},
		suites:         map[suiteKey]int64{},
		perms:          map[string]string{},
		tokens:         map[string]Token{},
		rawLimit:       defaultRawContentLimit,
		textLimit:      defaultGraphQLTextLimit,
	}
	s.onViolation = func(msg string) { t.Errorf("fakegithub: %s", msg) }
	for _, o := range opts {
		o(s)
	}
	if err := s.buildRoutes(); err != nil {
		t.Fatalf("fakegithub: %v", err)
	}
	s.srv = httptest.NewServer(s)
	s.URL = s.srv.URL
	t.Cleanup(s.srv.Close)
	return s
}

// Close stops the server early (it is also closed when the test ends).
func (s *Server) Close() { s.srv.Close() }

// Client returns an *http.Client for the server.
func (s *Server) Client() *http.Client { return s.srv.Client() }

// route serves one operation.
type route struct {
	op        *operation
	validated bool // the operation is in the OpenAPI subset
	handle    func(*call) *reply
}

// call is one request being served.
type call struct {
	s      *Server
	r      *http.Request
	op     *operation
	params map[string]string
	query  url.Values
	body   []byte
	repo   *repoState
	login  string
	tok    Token
}

// reply is what a handler answers.
type reply struct {
	status      int
	body        any    // marshalled as JSON
	raw         []byte // sent as is when body is nil
	contentType string
	header      http.Header
}

func (s *Server) violation(format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.violationLocked(format, args...)
}

// violationLocked is violation for callers that hold s.mu.
func (s *Server) violationLocked(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	s.violations = append(s.violations, msg)
	s.onViolation(msg)
}

// Violations returns the OpenAPI violations seen so far.
func (s *Server) Violations() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.violations...)
}

// Requests returns the request log.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// CountRequests counts logged requests whose method (empty: any) and path
// (a path.Match pattern) match.
func (s *Server) CountRequests(method, pattern string) int {
	n := 0
	for _, r := range s.Requests() {
		if method != "" && r.Method != method {
			continue
		}
		if ok, _ := path.Match(pattern, r.Path); ok {
			n++
		}
	}
	return n
}

// FailNext answers the next n requests matching method (empty: any) and
// pathPattern (path.Match over the path without /api/v3, e.g.
// "/repos/o/r/check-runs/*") with status and headers, and a GitHub-like
// JSON error body: a secondary rate limit message for 403 and 429, a
// primary rate limit message when headers set x-ratelimit-remaining to 0.
// Injected answers are not validated against the OpenAPI description.
func (s *Server) FailNext(method, pathPattern string, status int, headers http.Header, n int) {
	s.Inject(Fault{Method: method, Path: pathPattern, Status: status, Header: headers, Times: n})
}

// Inject adds a fault.
func (s *Server) Inject(f Fault) {
	if _, err := path.Match(f.Path, "/"); err != nil {
		s.t.Fatalf("fakegithub: bad fault path pattern %q: %v", f.Path, err)
	}
	if f.Times <= 0 {
		f.Times = 1
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, &f)
}

// ClearFaults removes every injected fault not yet spent: the outage is
// over, and the next run meets a GitHub that answers.
func (s *Server) ClearFaults() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = nil
}

// SetToken declares what token may do.
func (s *Server) SetToken(token string, tok Token) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tokens[token] = tok
}

// BeforeUpdateRef installs fn, called before every update-ref request is
// applied (outside the server lock: fn may seed, e.g. CommitFiles on the
// same branch to make the update a non-fast-forward). ref is as in the
// path, e.g. "heads/main". nil removes the hook.
func (s *Server) BeforeUpdateRef(fn func(owner, repo, ref string)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.beforeUpdateRef = fn
}

func faultBody(f *Fault) []byte {
	if f.Body != nil {
		return f.Body
	}
	body := map[string]any{"status": fmt.Sprint(f.Status)}
	switch {
	case (f.Status == 403 || f.Status == 429) && f.Header.Get("X-Ratelimit-Remaining") == "0" && f.Header.Get("Retry-After") == "":
		body["message"] = "API rate limit exceeded for installation ID 1."
		body["documentation_url"] = "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-the-primary-rate-limit"
	case f.Status == 403 || f.Status == 429:
		body["message"] = "You have exceeded a secondary rate limit. Please wait a few minutes before you try again."
		body["documentation_url"] = "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"
	case f.Status >= 500:
		body["message"] = "Server Error"
	default:
		body["message"] = http.StatusText(f.Status)
	}
	data, _ := json.Marshal(body)
	return data
}

func (s *Server) takeFault(method, p string) *Fault {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, f := range s.faults {
		if f.Method != "" && !strings.EqualFold(f.Method, method) {
			continue
		}
		if ok, _ := path.Match(f.Path, p); !ok {
			continue
		}
		if f.Skip > 0 {
			f.Skip--
			continue
		}
		f.Times--
		if f.Times <= 0 {
			s.faults = append(s.faults[:i], s.faults[i+1:]...)
		}
		return f
	}
	return nil
}

func (s *Server) logRequest(r Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, r)
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	escaped := r.URL.EscapedPath()
	if rest, ok := strings.CutPrefix(escaped, "/api/v3"); ok && (rest == "" || rest[0] == '/') {
		escaped = rest
	}
	entry := Request{Method: r.Method, Path: escaped, Query: r.URL.RawQuery}

	if f := s.takeFault(r.Method, escaped); f != nil {
		if s.serveFault(w, r, f, escaped, entry) {
			return
		}
		if f.AfterApply {
			_, _ = s.serve(r, escaped)
		}
		for k, vs := range f.Header {
			w.Header()[http.CanonicalHeaderKey(k)] = vs
		}
		s.dateHeader(w.Header())
		if w.Header().Get("Content-Type") == "" {
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
		}
		w.WriteHeader(f.Status)
		_, _ = w.Write(faultBody(f))
		entry.Status, entry.Fault = f.Status, true
		s.logRequest(entry)
		return
	}

	if isGraphQLPath(escaped) && s.noGraphQL {
		rp := errorReply(http.StatusNotFound, "Not Found")
		entry.Status = rp.status
		s.logRequest(entry)
		s.write(w, r, rp, nil)
		return
	}
	if isGraphQLPath(escaped) {
		rp, vars := s.serveGraphQL(r)
		entry.Status, entry.Operation, entry.Variables = rp.status, GraphQLOperation, vars
		s.logRequest(entry)
		s.write(w, r, rp, nil)
		return
	}
	rp, c := s.serve(r, escaped)
	if c != nil && c.op != nil {
		entry.Operation = c.op.id
	}
	entry.Status = rp.status
	s.logRequest(entry)
	s.write(w, r, rp, c)
}

// serve routes, validates the request and runs the handler.
func (s *Server) serve(r *http.Request, escaped string) (*reply, *call) {
	segs := strings.Split(strings.Trim(escaped, "/"), "/")
	var rt *route
	var params map[string]string
	// The most specific template wins, as on GitHub: .../commits/{ref}
	// (whose ref may span segments) must not swallow
	// .../commits/{ref}/check-runs.
	for _, cand := range s.routes {
		if p, ok := cand.op.match(r.Method, segs); ok && (rt == nil || cand.op.literals() > rt.op.literals()) {
			rt, params = cand, p
		}
	}
	if rt == nil {
		s.violation("%s %s matches no operation of the fake", r.Method, escaped)
		return errorReply(http.StatusNotFound, "Not Found"), nil
	}
	if s.absent[rt.op.id] {
		return errorReply(http.StatusNotFound, "Not Found"), &call{s: s, r: r, op: rt.op}
	}
	c := &call{s: s, r: r, op: rt.op, params: params, query: r.URL.Query()}

	for _, p := range rt.op.checkParams(params, c.query) {
		s.violation("%s %s (%s): %s", r.Method, escaped, rt.op.id, p)
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return errorReply(http.StatusBadRequest, "Problems reading the body"), c
	}
	c.body = body
	if rt.validated {
		if rp := s.checkRequestBody(c, escaped); rp != nil {
			return rp, c
		}
	}

	tok, hasTok := s.token(r)
	c.tok = tok
	c.login = DefaultLogin
	if hasTok && tok.Login != "" {
		c.login = tok.Login
	}
	if tok.ReadOnly && r.Method != http.MethodGet && r.Method != http.MethodHead {
		return &reply{status: http.StatusForbidden, body: map[string]any{
			"message":           "Resource not accessible by integration",
			"documentation_url": "https://docs.github.com/rest",
			"status":            "403",
		}}, c
	}

	if owner, ok := params["owner"]; ok {
		s.mu.Lock()
		c.repo = s.repos[strings.ToLower(owner+"/"+params["repo"])]
		hook := s.beforeUpdateRef
		s.mu.Unlock()
		if c.repo == nil {
			return errorReply(http.StatusNotFound, "Not Found"), c
		}
		if hook != nil && rt.op.id == "git/update-ref" {
			hook(c.repo.owner, c.repo.name, params["ref"])
		}
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	return rt.handle(c), c
}

func (s *Server) checkRequestBody(c *call, escaped string) *reply {
	op := c.op
	if op.request == nil {
		if len(bytes.TrimSpace(c.body)) > 0 {
			s.violation("%s %s (%s): request has a body but the operation takes none", c.r.Method, escaped, op.id)
		}
		return nil
	}
	if len(bytes.TrimSpace(c.body)) == 0 {
		if op.requestRequired {
			s.violation("%s %s (%s): missing required request body", c.r.Method, escaped, op.id)
			return errorReply(http.StatusBadRequest, "Problems parsing JSON")
		}
		return nil
	}
	if ct := c.r.Header.Get("Content-Type"); ct != "" && !strings.HasPrefix(ct, "application/json") {
		s.violation("%s %s (%s): request content type %q is not application/json", c.r.Method, escaped, op.id, ct)
	}
	if err := validateJSON(op.request, c.body); err != nil {
		s.violation("%s %s (%s): request body does not match the OpenAPI schema: %v\nbody: %s", c.r.Method, escaped, op.id, err, clip(c.body))
		return &reply{status: http.StatusUnprocessableEntity, body: map[string]any{
			"message":           "Invalid request.",
			"documentation_url": "https://docs.github.com/rest",
			"status":            "422",
		}}
	}
	return nil
}

func (s *Server) token(r *http.Request) (Token, bool) {
	h := r.Header.Get("Authorization")
	var tok string
	switch {
	case strings.HasPrefix(h, "Bearer "):
		tok = strings.TrimPrefix(h, "Bearer ")
	case strings.HasPrefix(h, "token "):
		tok = strings.TrimPrefix(h, "token ")
	default:
		return Token{}, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.tokens[tok]
	return t, ok
}

// write sends the reply, validating JSON answers of subset operations.
func (s *Server) write(w http.ResponseWriter, r *http.Request, rp *reply, c *call) {
	data := rp.raw
	ct := rp.contentType
	if rp.body != nil {
		var err error
		data, err = json.Marshal(rp.body)
		if err != nil {
			s.violation("marshal reply: %v", err)
		}
		if ct == "" {
			ct = "application/json; charset=utf-8"
		}
	}
	if c != nil && c.op != nil && s.isValidated(c.op) {
		s.checkResponse(c, rp, data, ct)
	}
	for k, vs := range rp.header {
		w.Header()[k] = vs
	}
	s.dateHeader(w.Header())
	if ct != "" {
		w.Header().Set("Content-Type", ct)
	}
	w.Header().Set("X-GitHub-Api-Version-Selected", "2022-11-28")
	w.WriteHeader(rp.status)
	if r.Method != http.MethodHead {
		n, _ := w.Write(data)
		s.mu.Lock()
		s.served += int64(n)
		s.mu.Unlock()
	}
}

// dateHeader dates an answer by the fake's clock, as GitHub dates its
// answers by its own (the Date header), unless h says otherwise: a Date
// of its own, or none (a Date key holding nil, which net/http then leaves
// out), as a fault may.
func (s *Server) dateHeader(h http.Header) {
	if _, set := h["Date"]; set {
		return
	}
	h.Set("Date", s.Now().Format(http.TimeFormat))
}

// Now is the fake's clock: GitHub's, which dates its answers (the Date
// header) and everything it records.
func (s *Server) Now() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.clock
}

// BytesServed is the total size of the response bodies the fake has
// answered: what a client downloaded.
func (s *Server) BytesServed() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.served
}

func (s *Server) isValidated(op *operation) bool {
	for _, rt := range s.routes {
		if rt.op == op {
			return rt.validated
		}
	}
	return false
}

func (s *Server) checkResponse(c *call, rp *reply, data []byte, ct string) {
	op := c.op
	where := fmt.Sprintf("%s %s (%s) -> %d", c.r.Method, c.r.URL.Path, op.id, rp.status)
	sch, documented := op.responses[rp.status]
	if !documented && rp.status < 400 {
		s.violation("%s: status not documented by the operation", where)
		return
	}
	if !strings.HasPrefix(ct, "application/json") {
		// Raw media types (contents with application/vnd.github.raw) are
		// not described by the subset.
		return
	}
	if !documented || sch == nil && rp.status >= 400 {
		// GitHub answers every error with a JSON body, also where the
		// description lists the status without one (the 422 of
		// pulls/request-reviewers).
		sch = s.spec.basicError
	}
	if sch == nil {
		if len(data) > 0 {
			s.violation("%s: the operation documents no JSON body for this status", where)
		}
		return
	}
	if err := validateJSON(sch, data); err != nil {
		s.violation("%s: response body does not match the OpenAPI schema: %v\nbody: %s", where, err, clip(data))
	}
}

func clip(b []byte) string {
	if len(b) > 2000 {
		return string(b[:2000]) + "…"
	}
	return string(b)
}

func errorReply(status int, msg string) *reply {
	return &reply{status: status, body: map[string]any{
		"message":           msg,
		"documentation_url": "https://docs.github.com/rest",
		"status":            fmt.Sprint(status),
	}}
}

func validationFailed(msg string) *reply {
	return &reply{status: http.StatusUnprocessableEntity, body: map[string]any{
		"message":           msg,
		"documentation_url": "https://docs.github.com/rest",
		"status":            "422",
	}}
}

func jsonReply(status int, body any) *reply {
	return &reply{status: status, body: body}
}

// ---- state ----

type repoState struct {
	owner, name   string
	id            int64
	defaultBranch string
	refs          map[string]string // "refs/heads/main" -> sha
	activity      []*activityState  // every branch move, oldest first
	forkOf        *repoState
	created       time.Time
}

func (r *repoState) fullName() string { return r.owner + "/" + r.name }

type pullState struct {
	number     int
	id         int64
	repo       *repoState
	headRepo   *repoState // nil: deleted fork
	headRef    string
	baseRef    string
	headSHA    string // snapshot, used when the head ref is gone or closed
	baseSHA    string
	author     string
	title      string
	body       string
	draft      bool
	assoc      string
	state      string
	created    time.Time
	updated    time.Time
	closedAt   time.Time
	reviews    []*reviewState
	commentIDs []int64
	// requestedUsers and requestedTeams are the pending review requests
	// (see reviewrequests.go).
	requestedUsers, requestedTeams []string
	// mergeKey is the base tip and head mergeability was last asked for,
	// unknownReads how many more reads answer UNKNOWN (merge.go).
	mergeKey     string
	unknownReads int
	// merged is set by MergePR, with the merge commit.
	merged      bool
	mergeCommit string
}

type reviewState struct {
	id        int64
	login     string
	state     string
	commitID  string
	body      string
	submitted time.Time
}

type commentState struct {
	id        int64
	repo      *repoState
	number    int
	login     string
	body      string
	created   time.Time
	updated   time.Time
	reactions []*reactionState
}

type reactionState struct {
	id      int64
	login   string
	content string
	created time.Time
}

type checkRunState struct {
	id          int64
	repo        *repoState
	app         App
	suite       int64
	name        string
	headSHA     string
	status      string
	conclusion  string
	externalID  *string
	detailsURL  *string
	title       *string
	summary     *string
	text        *string
	annotations []Annotation
	started     time.Time
	completed   time.Time
	requests    int
}

func (s *Server) tick() time.Time {
	if !s.next.IsZero() {
		s.clock, s.next = s.next, time.Time{}
		return s.clock
	}
	s.clock = s.clock.Add(time.Second)
	return s.clock
}

func (s *Server) newID() int64 {
	s.nextID++
	return s.nextID
}

func (s *Server) userID(login string) int64 {
	id, ok := s.users[strings.ToLower(login)]
	if !ok {
		id = int64(1000000 + len(s.users) + 1)
		s.users[strings.ToLower(login)] = id
	}
	return id
}

func (s *Server) repoLocked(owner, name string) *repoState {
	key := strings.ToLower(owner + "/" + name)
	r := s.repos[key]
	if r == nil {
		r = &repoState{owner: owner, name: name, id: s.newID(), refs: map[string]string{}, created: s.tick()}
		s.repos[key] = r
		s.repoOrder = append(s.repoOrder, r)
	}
	return r
}

// resolveRef resolves a commit-ish in repo r: a full commit SHA (or a
// unique prefix of at least 7 characters), "HEAD", a branch or tag name,
// "heads/x", "tags/x" or "refs/...". It returns "" if unknown.
func (s *Server) resolveRef(r *repoState, ref string) string {
	if ref == "" || ref == "HEAD" {
		return r.refs["refs/heads/"+r.defaultBranch]
	}
	if _, ok := s.store.commits[ref]; ok {
		return ref
	}
	for _, full := range []string{ref, "refs/" + ref, "refs/heads/" + ref, "refs/tags/" + ref} {
		if sha, ok := r.refs[full]; ok {
			return sha
		}
	}
	if len(ref) >= 7 && len(ref) < 40 && isHex(ref) {
		var found []string
		for sha := range s.store.commits {
			if strings.HasPrefix(sha, ref) {
				found = append(found, sha)
			}
		}
		if len(found) == 1 {
			return found[0]
		}
	}
	return ""
}

func isHex(s string) bool {
	for _, c := range s {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// headSHA is the current head commit of a pull request.
func (s *Server) headSHA(p *pullState) string {
	if p.state == "open" && p.headRepo != nil {
		if sha := p.headRepo.refs["refs/heads/"+p.headRef]; sha != "" {
			return sha
		}
	}
	return p.headSHA
}

func (s *Server) baseSHA(p *pullState) string {
	if p.state == "open" {
		if sha := p.repo.refs["refs/heads/"+p.baseRef]; sha != "" {
			return sha
		}
	}
	return p.baseSHA
}

func (s *Server) pullIn(r *repoState, number int) *pullState {
	p := s.pulls[number]
	if p == nil || p.repo != r {
		return nil
	}
	return p
}

func sortedIDs[T any](m map[int64]T) []int64 {
	ids := make([]int64, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	return ids
}
