package fakegithub

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// extraOperations are served by the fake but are not in the OpenAPI
// subset, so neither their requests nor their answers can be validated
// (only their path and parameters are matched against the templates
// below, taken from GitHub's REST documentation). Every operation the
// product uses is in the subset today; the list stays for the next one.
var extraOperations = []struct {
	id, method, template string
	params               []paramSpec
}{}

func (s *Server) buildRoutes() error {
	handlers := map[string]func(*call) *reply{
		"checks/create": s.createCheckRun,
		"checks/update": s.updateCheckRun,
		"checks/get":    s.getCheckRun,
		"repos/get-collaborator-permission-level": s.getPermission,
		"checks/list-for-ref":                     s.listCheckRunsForRef,
		"repos/compare-commits-with-basehead":     s.compare,
		"repos/get-content":                       s.getContent,
		"git/create-blob":                         s.createBlob,
		"git/get-blob":                            s.getBlob,
		"git/create-commit":                       s.createCommit,
		"git/get-commit":                          s.getCommit,
		"git/update-ref":                          s.updateRef,
		"git/get-ref":                             s.getRef,
		"git/list-matching-refs":                  s.listMatchingRefs,
		"git/create-tree":                         s.createTree,
		"git/get-tree":                            s.getTree,
		"reactions/create-for-issue-comment":      s.createIssueCommentReaction,
		"issues/create-comment":                   s.createComment,
		"issues/list-comments":                    s.listComments,
		"pulls/get":                               s.getPull,
		"pulls/list-files":                        s.listPullFiles,
		"pulls/list-reviews":                      s.listReviews,

		"pulls/list":         s.listPulls,
		"pulls/list-commits": s.listPullCommits,
		"reactions/create-for-pull-request-review-comment": s.createReviewCommentReaction,
		"issues/get-comment":       s.getIssueComment,
		"pulls/get-review-comment": s.getReviewComment,
		"repos/get-commit":         s.getRepoCommit,
		"repos/list-activities":    s.listActivities,

		"pulls/list-requested-reviewers": s.listRequestedReviewers,
		"pulls/request-reviewers":        s.requestReviewers,
	}
	s.settingsRoutes(handlers)
	for _, op := range s.spec.ops {
		// An operation of the subset the fake has no handler for is not
		// served: a request to it is answered 404 like an unknown path.
		if h := handlers[op.id]; h != nil {
			s.routes = append(s.routes, &route{op: op, validated: true, handle: h})
		}
	}
	for _, x := range extraOperations {
		if handlers[x.id] == nil {
			return fmt.Errorf("no handler for extra operation %s (%s %s)", x.id, x.method, x.template)
		}
	}
	for _, x := range extraOperations {
		op := &operation{id: x.id, method: x.method, template: x.template, params: map[string]*paramSpec{}}
		for _, p := range []paramSpec{{name: "owner", in: "path", required: true}, {name: "repo", in: "path", required: true}} {
			op.params[p.in+":"+p.name] = &p
		}
		for i := range x.params {
			p := x.params[i]
			op.params[p.in+":"+p.name] = &p
		}
		op.segments = parseTemplate(x.template, op.params)
		s.routes = append(s.routes, &route{op: op, handle: handlers[x.id]})
	}
	return nil
}

// ---- helpers ----

func (c *call) intParam(name string) (int64, bool) {
	n, err := strconv.ParseInt(c.params[name], 10, 64)
	return n, err == nil
}

func (c *call) decode(v any) *reply {
	if err := json.Unmarshal(c.body, v); err != nil {
		return errorReply(http.StatusBadRequest, "Problems parsing JSON")
	}
	return nil
}

// paginate returns the [lo, hi) window of n items for page/per_page and
// the Link header GitHub would send.
func (c *call) paginate(n, defPer int) (int, int, http.Header) {
	per := defPer
	if v, err := strconv.Atoi(c.query.Get("per_page")); err == nil && v > 0 {
		per = min(v, 100)
	}
	page := 1
	if v, err := strconv.Atoi(c.query.Get("page")); err == nil && v > 0 {
		page = v
	}
	lo := min((page-1)*per, n)
	hi := min(lo+per, n)
	last := max((n+per-1)/per, 1)
	mk := func(p int, rel string) string {
		q := url.Values{}
		for k, v := range c.query {
			q[k] = v
		}
		q.Set("page", strconv.Itoa(p))
		q.Set("per_page", strconv.Itoa(per))
		return fmt.Sprintf("<%s%s?%s>; rel=%q", c.s.URL, c.r.URL.Path, q.Encode(), rel)
	}
	var links []string
	if page < last {
		links = append(links, mk(page+1, "next"), mk(last, "last"))
	}
	if page > 1 {
		links = append(links, mk(1, "first"), mk(min(page-1, last), "prev"))
	}
	h := http.Header{}
	if len(links) > 0 {
		h.Set("Link", strings.Join(links, ", "))
	}
	return lo, hi, h
}

func sortedIntKeys[T any](m map[int]T) []int {
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	return keys
}

func validPath(p string) bool {
	if p == "" || strings.HasPrefix(p, "/") || strings.HasSuffix(p, "/") {
		return false
	}
	for _, part := range strings.Split(p, "/") {
		if part == "" || part == "." || part == ".." {
			return false
		}
	}
	return true
}

// ---- check runs ----

type outputIn struct {
	Title       *string `json:"title"`
	Summary     *string `json:"summary"`
	Text        *string `json:"text"`
	Annotations []struct {
		Path            string `json:"path"`
		StartLine       int    `json:"start_line"`
		EndLine         int    `json:"end_line"`
		AnnotationLevel string `json:"annotation_level"`
		Message         string `json:"message"`
		Title           string `json:"title"`
		RawDetails      string `json:"raw_details"`
	} `json:"annotations"`
}

type checkRunIn struct {
	Name        *string   `json:"name"`
	HeadSHA     string    `json:"head_sha"`
	DetailsURL  *string   `json:"details_url"`
	ExternalID  *string   `json:"external_id"`
	Status      *string   `json:"status"`
	Conclusion  *string   `json:"conclusion"`
	CompletedAt *string   `json:"completed_at"`
	Output      *outputIn `json:"output"`
}

func (s *Server) applyCheckRun(cr *checkRunState, in *checkRunIn) *reply {
	if in.Name != nil && *in.Name != "" {
		cr.name = *in.Name
	}
	if in.DetailsURL != nil {
		cr.detailsURL = in.DetailsURL
	}
	if in.ExternalID != nil {
		cr.externalID = in.ExternalID
	}
	if in.Status != nil {
		cr.status = *in.Status
	}
	if in.Conclusion != nil {
		cr.conclusion = *in.Conclusion
		cr.status = "completed"
	}
	if cr.status == "completed" {
		if cr.conclusion == "" {
			return validationFailed("Invalid request.\n\nConclusion is required when status is completed.")
		}
		cr.completed = s.tick()
		if in.CompletedAt != nil {
			if t, err := time.Parse(time.RFC3339, *in.CompletedAt); err == nil {
				cr.completed = t
			}
		}
	}
	if o := in.Output; o != nil {
		if o.Title != nil {
			cr.title = o.Title
		}
		if o.Summary != nil {
			cr.summary = o.Summary
		}
		if o.Text != nil {
			cr.text = o.Text
		}
		for _, a := range o.Annotations {
			cr.annotations = append(cr.annotations, Annotation{
				Path: a.Path, StartLine: a.StartLine, EndLine: a.EndLine, Level: a.AnnotationLevel,
				Title: a.Title, Message: a.Message, RawDetails: a.RawDetails,
			})
		}
	}
	cr.requests++
	return nil
}

func (s *Server) createCheckRun(c *call) *reply {
	var in checkRunIn
	if rp := c.decode(&in); rp != nil {
		return rp
	}
	if s.store.commits[in.HeadSHA] == nil {
		return validationFailed("No commit found for SHA: " + in.HeadSHA)
	}
	if c.tok.NoChecks {
		return errorReply(http.StatusForbidden, "Resource not accessible by integration")
	}
	app := c.app()
	cr := &checkRunState{id: s.newID(), repo: c.repo, app: app, suite: s.suiteID(c.repo, app, in.HeadSHA), headSHA: in.HeadSHA, status: "queued", started: s.tick()}
	if rp := s.applyCheckRun(cr, &in); rp != nil {
		return rp
	}
	s.checkRuns[cr.id] = cr
	return jsonReply(http.StatusCreated, s.checkRunJSON(cr))
}

func (s *Server) updateCheckRun(c *call) *reply {
	id, _ := c.intParam("check_run_id")
	cr := s.checkRuns[id]
	if cr == nil || cr.repo != c.repo {
		return errorReply(http.StatusNotFound, "Not Found")
	}
	if c.tok.NoChecks {
		return errorReply(http.StatusForbidden, "Resource not accessible by integration")
	}
	if app := c.app(); app.ID != cr.app.ID {
		return errorReply(http.StatusForbidden, fmt.Sprintf("Invalid app_id `%d` - check run can only be modified by the GitHub App that created it.", app.ID))
	}
	var in checkRunIn
	if rp := c.decode(&in); rp != nil {
		return rp
	}
	saved := *cr
	if rp := s.applyCheckRun(cr, &in); rp != nil {
		*cr = saved
		return rp
	}
	return jsonReply(http.StatusOK, s.checkRunJSON(cr))
}

func (s *Server) listCheckRunsForRef(c *call) *reply {
	if c.tok.NoChecks {
		return errorReply(http.StatusForbidden, "Resource not accessible by integration")
	}
	sha := s.resolveRef(c.repo, c.params["ref"])
	if sha == "" {
		return validationFailed("No commit found for SHA: " + c.params["ref"])
	}
	var runs []*checkRunState
	latest := c.query.Get("filter") != "all"
	seen := map[string]bool{}
	ids := sortedIDs(s.checkRuns)
	for i := len(ids) - 1; i >= 0; i-- { // newest first
		cr := s.checkRuns[ids[i]]
		if cr.repo != c.repo || cr.headSHA != sha {
			continue
		}
		if n := c.query.Get("check_name"); n != "" && cr.name != n {
			continue
		}
		if st := c.query.Get("status"); st != "" && cr.status != st {
			continue
		}
		if a := c.query.Get("app_id"); a != "" && a != strconv.FormatInt(cr.app.ID, 10) {
			continue
		}
		if latest && seen[cr.name] {
			continue
		}
		seen[cr.name] = true
		runs = append(runs, cr)
	}
	lo, hi, h := c.paginate(len(runs), 30)
	list := []any{}
	for _, cr := range runs[lo:hi] {
		list = append(list, s.checkRunJSON(cr))
	}
	return &reply{status: http.StatusOK, header: h, body: obj{"total_count": len(runs), "check_runs": list}}
}

// ---- collaborators ----

func (s *Server) getPermission(c *call) *reply {
	login := c.params["username"]
	level, ok := s.perms[strings.ToLower(login)]
	if !ok {
		return errorReply(http.StatusNotFound, login+" is not a user")
	}
	permission := map[string]string{Admin: "admin", Maintain: "write", Write: "write", Triage: "read", Read: "read", NoAccess: "none"}[level]
	rank := map[string]int{NoAccess: 0, Read: 1, Triage: 2, Write: 3, Maintain: 4, Admin: 5}[level]
	user := s.userJSON(login)
	user["permissions"] = obj{"pull": rank >= 1, "triage": rank >= 2, "push": rank >= 3, "maintain": rank >= 4, "admin": rank >= 5}
	user["role_name"] = level
	return jsonReply(http.StatusOK, obj{"permission": permission, "role_name": level, "user": user})
}

// ---- compare ----

// resolveInNetwork resolves "ref" or "owner:ref" from repository r.
func (s *Server) resolveInNetwork(r *repoState, spec string) string {
	if owner, ref, ok := strings.Cut(spec, ":"); ok {
		root := networkRoot(r)
		for _, o := range s.repoOrder {
			if strings.EqualFold(o.owner, owner) && networkRoot(o) == root {
				return s.resolveRef(o, ref)
			}
		}
		return ""
	}
	return s.resolveRef(r, spec)
}

func networkRoot(r *repoState) *repoState {
	for r.forkOf != nil {
		r = r.forkOf
	}
	return r
}

func (s *Server) compare(c *call) *reply {
	basehead := c.params["basehead"]
	baseSpec, headSpec, ok := strings.Cut(basehead, "...")
	if !ok {
		return errorReply(http.StatusNotFound, "Not Found")
	}
	baseSHA, headSHA := s.resolveInNetwork(c.repo, baseSpec), s.resolveInNetwork(c.repo, headSpec)
	if baseSHA == "" || headSHA == "" {
		return errorReply(http.StatusNotFound, "Not Found")
	}
	mb := s.store.mergeBase(baseSHA, headSHA)
	if mb == "" {
		return errorReply(http.StatusNotFound, fmt.Sprintf("No common ancestor between %s and %s.", baseSpec, headSpec))
	}
	ahead := s.store.commitsBetween(baseSHA, headSHA)
	behind := s.store.commitsBetween(headSHA, baseSHA)
	status := "diverged"
	switch {
	case len(ahead) == 0 && len(behind) == 0:
		status = "identical"
	case len(behind) == 0:
		status = "ahead"
	case len(ahead) == 0:
		status = "behind"
	}
	commits := ahead
	var h http.Header
	if c.query.Has("page") || c.query.Has("per_page") {
		lo, hi, hdr := c.paginate(len(commits), 30)
		commits, h = commits[lo:hi], hdr
	} else if len(commits) > 250 {
		commits = commits[len(commits)-250:]
	}
	list := []any{}
	for _, cm := range commits {
		list = append(list, s.commitJSON(c.repo, cm))
	}
	files := []any{}
	for i, fc := range s.store.diffTrees(s.treeOf(mb), s.treeOf(headSHA)) {
		if i == 300 {
			break
		}
		files = append(files, s.diffEntryJSON(c.repo, headSHA, fc))
	}
	base := s.apiRepo(c.repo)
	html := s.htmlRepo(c.repo) + "/compare/" + escPath(basehead)
	return &reply{status: http.StatusOK, header: h, body: obj{
		"url":               base + "/compare/" + escPath(basehead),
		"html_url":          html,
		"permalink_url":     s.htmlRepo(c.repo) + "/compare/" + baseSHA + "..." + headSHA,
		"diff_url":          html + ".diff",
		"patch_url":         html + ".patch",
		"base_commit":       s.commitJSON(c.repo, s.store.commits[baseSHA]),
		"merge_base_commit": s.commitJSON(c.repo, s.store.commits[mb]),
		"status":            status,
		"ahead_by":          len(ahead),
		"behind_by":         len(behind),
		"total_commits":     len(ahead),
		"commits":           list,
		"files":             files,
	}}
}

// ---- contents ----

func wantsRaw(r *http.Request) bool {
	return strings.Contains(r.Header.Get("Accept"), ".raw")
}

func (s *Server) getContent(c *call) *reply {
	ref := c.query.Get("ref")
	sha := s.resolveRef(c.repo, ref)
	if sha == "" {
		return errorReply(http.StatusNotFound, "No commit found for the ref "+ref)
	}
	if ref == "" {
		ref = c.repo.defaultBranch
	}
	p := strings.Trim(c.params["path"], "/")
	e, ok := s.store.lookupPath(s.treeOf(sha), p)
	if !ok {
		return errorReply(http.StatusNotFound, "Not Found")
	}
	switch e.typ {
	case "tree":
		list := []any{}
		for _, child := range s.store.trees[e.sha].entries {
			list = append(list, s.contentEntryJSON(c.repo, ref, path.Join(p, child.name), child, false))
		}
		return jsonReply(http.StatusOK, list)
	case "commit":
		m := s.contentEntryJSON(c.repo, ref, p, e, false)
		m["submodule_git_url"] = "https://example.invalid/submodule.git"
		return jsonReply(http.StatusOK, m)
	}
	data := s.store.blobs[e.sha].data
	if wantsRaw(c.r) {
		if len(data) > s.rawLimit {
			return tooLarge()
		}
		return &reply{status: http.StatusOK, raw: data, contentType: "application/vnd.github.raw; charset=utf-8"}
	}
	if len(data) > jsonContentLimit {
		return tooLarge()
	}
	return jsonReply(http.StatusOK, s.contentEntryJSON(c.repo, ref, p, e, true))
}

func tooLarge() *reply {
	return &reply{status: http.StatusForbidden, body: obj{
		"message": "This API returns blobs up to 1 MB in size. The requested blob is too large to fetch via the API, " +
			"but you can use the Git Data API to request blobs up to 100 MB in size.",
		"errors":            []any{obj{"resource": "Blob", "field": "data", "code": "too_large"}},
		"documentation_url": "https://docs.github.com/rest/repos/contents#get-repository-content",
		"status":            "403",
	}}
}

type gitUserIn struct {
	Name  string `json:"name"`
	Email string `json:"email"`
	Date  string `json:"date"`
}

// newCommit stores a commit made through the API by the acting user.
// Without explicit author, committer or signature GitHub signs the commit
// itself, so it is verified.
func (s *Server) newCommit(c *call, tree string, parents []string, msg string, author, committer *gitUserIn, signature string) *commitObject {
	now := s.tick()
	cm := &commitObject{
		tree: tree, parents: parents, message: msg, date: now,
		authorLogin: c.login, committerLogin: c.login,
		verified: author == nil && committer == nil && signature == "",
		reason:   "unsigned",
	}
	if cm.verified {
		cm.reason = "valid"
	}
	cm.authorName, cm.authorEmail = identity(c.login, "")
	cm.committerName, cm.committerEmail = cm.authorName, cm.authorEmail
	if author != nil {
		cm.authorName, cm.authorEmail = author.Name, author.Email
		cm.authorLogin = loginFromEmail(author.Email)
		if t, err := time.Parse(time.RFC3339, author.Date); err == nil {
			cm.date = t
		}
		cm.committerName, cm.committerEmail, cm.committerLogin = cm.authorName, cm.authorEmail, cm.authorLogin
	}
	if committer != nil && committer.Name != "" {
		cm.committerName, cm.committerEmail = committer.Name, committer.Email
		cm.committerLogin = loginFromEmail(committer.Email)
	}
	if signature != "" {
		cm.reason = "unknown_key"
	}
	s.store.putCommit(cm)
	return s.store.commits[cm.sha]
}

// loginFromEmail maps a users.noreply.github.com address to its login.
func loginFromEmail(email string) string {
	local, domain, ok := strings.Cut(email, "@")
	if !ok || domain != "users.noreply.github.com" {
		return ""
	}
	if _, login, ok := strings.Cut(local, "+"); ok {
		return login
	}
	return local
}

// ---- git data ----

func (s *Server) createBlob(c *call) *reply {
	var in struct {
		Content  string `json:"content"`
		Encoding string `json:"encoding"`
	}
	if rp := c.decode(&in); rp != nil {
		return rp
	}
	var data []byte
	switch in.Encoding {
	case "", "utf-8":
		data = []byte(in.Content)
	case "base64":
		var err error
		if data, err = base64.StdEncoding.DecodeString(strings.ReplaceAll(in.Content, "\n", "")); err != nil {
			return validationFailed("Invalid request.\n\ncontent is not valid Base64.")
		}
	default:
		return validationFailed("Invalid request.\n\nencoding must be utf-8 or base64.")
	}
	sha := s.store.putBlob(data)
	u := s.apiRepo(c.repo) + "/git/blobs/" + sha
	return &reply{status: http.StatusCreated, header: http.Header{"Location": {u}}, body: obj{"url": u, "sha": sha}}
}

func (s *Server) getBlob(c *call) *reply {
	sha := c.params["file_sha"]
	b := s.store.blobs[sha]
	if b == nil {
		return errorReply(http.StatusNotFound, "Not Found")
	}
	if wantsRaw(c.r) {
		return &reply{status: http.StatusOK, raw: b.data, contentType: "application/vnd.github.raw; charset=utf-8"}
	}
	return jsonReply(http.StatusOK, obj{
		"content":  wrapBase64(b.data),
		"encoding": "base64",
		"url":      s.apiRepo(c.repo) + "/git/blobs/" + sha,
		"sha":      sha,
		"size":     len(b.data),
		"node_id":  "B_" + sha[:12],
	})
}

func (s *Server) createCommit(c *call) *reply {
	var in struct {
		Message   string     `json:"message"`
		Tree      string     `json:"tree"`
		Parents   []string   `json:"parents"`
		Author    *gitUserIn `json:"author"`
		Committer *gitUserIn `json:"committer"`
		Signature string     `json:"signature"`
	}
	if rp := c.decode(&in); rp != nil {
		return rp
	}
	if s.store.trees[in.Tree] == nil {
		return validationFailed("Tree SHA does not exist")
	}
	for _, p := range in.Parents {
		if s.store.commits[p] == nil {
			return validationFailed("Parent SHA does not exist or is not a commit object")
		}
	}
	cm := s.newCommit(c, in.Tree, append([]string{}, in.Parents...), in.Message, in.Author, in.Committer, in.Signature)
	u := s.apiRepo(c.repo) + "/git/commits/" + cm.sha
	return &reply{status: http.StatusCreated, header: http.Header{"Location": {u}}, body: s.gitCommitJSON(c.repo, cm)}
}

func (s *Server) getCommit(c *call) *reply {
	cm := s.store.commits[c.params["commit_sha"]]
	if cm == nil {
		return errorReply(http.StatusNotFound, "Not Found")
	}
	return jsonReply(http.StatusOK, s.gitCommitJSON(c.repo, cm))
}

func (s *Server) updateRef(c *call) *reply {
	var in struct {
		SHA   string `json:"sha"`
		Force bool   `json:"force"`
	}
	if rp := c.decode(&in); rp != nil {
		return rp
	}
	full := "refs/" + c.params["ref"]
	cur := c.repo.refs[full]
	if cur == "" {
		return validationFailed("Reference does not exist")
	}
	if s.store.commits[in.SHA] == nil {
		return validationFailed("Object does not exist")
	}
	if !in.Force && !s.store.isAncestor(cur, in.SHA) {
		return validationFailed("Update is not a fast forward")
	}
	if wf := s.workflowChange(cur, in.SHA); wf != "" && !c.tok.Workflows {
		return validationFailed(fmt.Sprintf("refusing to allow a GitHub App to create or update workflow `%s` without `workflows` permission", wf))
	}
	s.setRefLocked(c.repo, full, in.SHA, c.login)
	return jsonReply(http.StatusOK, s.gitRefJSON(c.repo, full, in.SHA))
}

// workflowChange is the first file under .github/workflows/ whose entry
// differs between commits from and to ("" for none): what GitHub refuses
// to let a token without the workflows permission push.
func (s *Server) workflowChange(from, to string) string {
	a, b := s.store.flatten(s.treeOf(from)), s.store.flatten(s.treeOf(to))
	var changed []string
	for _, m := range []map[string]fileEntry{a, b} {
		for p := range m {
			if strings.HasPrefix(p, ".github/workflows/") && a[p] != b[p] {
				changed = append(changed, p)
			}
		}
	}
	if len(changed) == 0 {
		return ""
	}
	sort.Strings(changed)
	return changed[0]
}

// getRef answers GET .../git/ref/{ref}: how a client learns whether a
// ref update whose answer was lost landed.
func (s *Server) getRef(c *call) *reply {
	full := "refs/" + c.params["ref"]
	sha := c.repo.refs[full]
	if sha == "" {
		return errorReply(http.StatusNotFound, "Not Found")
	}
	return jsonReply(http.StatusOK, s.gitRefJSON(c.repo, full, sha))
}

// listMatchingRefs answers GET .../git/matching-refs/{ref}: every ref
// whose name starts with refs/{ref}, in name order.
func (s *Server) listMatchingRefs(c *call) *reply {
	prefix := "refs/" + c.params["ref"]
	var names []string
	for name := range c.repo.refs {
		if strings.HasPrefix(name, prefix) {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	list := []any{}
	for _, n := range names {
		list = append(list, s.gitRefJSON(c.repo, n, c.repo.refs[n]))
	}
	return jsonReply(http.StatusOK, list)
}

func (s *Server) createTree(c *call) *reply {
	var in struct {
		BaseTree string `json:"base_tree"`
		Tree     []struct {
			Path    string          `json:"path"`
			Mode    string          `json:"mode"`
			Type    string          `json:"type"`
			SHA     json.RawMessage `json:"sha"`
			Content *string         `json:"content"`
		} `json:"tree"`
	}
	if rp := c.decode(&in); rp != nil {
		return rp
	}
	flat := map[string]fileEntry{}
	if in.BaseTree != "" {
		if s.store.trees[in.BaseTree] == nil {
			return validationFailed("Invalid request.\n\nbase_tree is not a valid tree oid.")
		}
		flat = s.store.flatten(in.BaseTree)
	}
	removeUnder := func(p string) {
		for k := range flat {
			if k == p || strings.HasPrefix(k, p+"/") {
				delete(flat, k)
			}
		}
	}
	for _, e := range in.Tree {
		if !validPath(e.Path) {
			return validationFailed("Invalid request.\n\ntree.path " + e.Path + " is invalid.")
		}
		var sha *string
		if len(e.SHA) > 0 && string(e.SHA) != "null" {
			var v string
			if err := json.Unmarshal(e.SHA, &v); err != nil {
				return errorReply(http.StatusBadRequest, "Problems parsing JSON")
			}
			sha = &v
		}
		switch {
		case e.Content != nil:
			removeUnder(e.Path)
			flat[e.Path] = fileEntry{mode: e.Mode, typ: "blob", sha: s.store.putBlob([]byte(*e.Content))}
		case sha == nil:
			removeUnder(e.Path) // "sha": null deletes
		case e.Type == "tree":
			if s.store.trees[*sha] == nil {
				return validationFailed("Invalid request.\n\ntree.sha " + *sha + " is not a valid tree.")
			}
			removeUnder(e.Path)
			for k, v := range s.store.flatten(*sha) {
				flat[e.Path+"/"+k] = v
			}
		case e.Type == "commit":
			removeUnder(e.Path)
			flat[e.Path] = fileEntry{mode: "160000", typ: "commit", sha: *sha}
		default:
			if s.store.blobs[*sha] == nil {
				return validationFailed("Invalid request.\n\ntree.sha " + *sha + " is not a valid blob.")
			}
			removeUnder(e.Path)
			flat[e.Path] = fileEntry{mode: e.Mode, typ: "blob", sha: *sha}
		}
	}
	for k, v := range flat {
		// A file under a path that is itself a file is invalid.
		for dir := path.Dir(k); dir != "."; dir = path.Dir(dir) {
			if _, clash := flat[dir]; clash {
				return validationFailed("Invalid request.\n\ntree.path " + k + " conflicts with " + dir + ".")
			}
		}
		if v.mode == "" {
			v.mode = "100644"
			flat[k] = v
		}
	}
	sha := s.store.buildTree(flat)
	u := s.apiRepo(c.repo) + "/git/trees/" + sha
	return &reply{status: http.StatusCreated, header: http.Header{"Location": {u}}, body: s.treeJSON(c.repo, sha, false)}
}

func (s *Server) getTree(c *call) *reply {
	ts := c.params["tree_sha"]
	sha := ""
	switch {
	case s.store.trees[ts] != nil:
		sha = ts
	default:
		if cm := s.resolveRef(c.repo, ts); cm != "" {
			sha = s.treeOf(cm)
		}
	}
	if sha == "" {
		return errorReply(http.StatusNotFound, "Not Found")
	}
	return jsonReply(http.StatusOK, s.treeJSON(c.repo, sha, c.query.Has("recursive")))
}

// ---- issues, comments, reactions ----

func (s *Server) react(c *call, cm *commentState) *reply {
	if cm == nil || cm.repo != c.repo {
		return errorReply(http.StatusNotFound, "Not Found")
	}
	var in struct {
		Content string `json:"content"`
	}
	if rp := c.decode(&in); rp != nil {
		return rp
	}
	for _, r := range cm.reactions {
		if r.login == c.login && r.content == in.Content {
			return jsonReply(http.StatusOK, s.reactionJSON(r))
		}
	}
	r := &reactionState{id: s.newID(), login: c.login, content: in.Content, created: s.tick()}
	cm.reactions = append(cm.reactions, r)
	return jsonReply(http.StatusCreated, s.reactionJSON(r))
}

func (s *Server) createIssueCommentReaction(c *call) *reply {
	id, _ := c.intParam("comment_id")
	return s.react(c, s.comments[id])
}

func (s *Server) createReviewCommentReaction(c *call) *reply {
	id, _ := c.intParam("comment_id")
	return s.react(c, s.reviewComments[id])
}

func (s *Server) issuePull(c *call) *pullState {
	n, _ := c.intParam("issue_number")
	if p, ok := c.intParam("pull_number"); ok {
		n = p
	}
	return s.pullIn(c.repo, int(n))
}

func (s *Server) createComment(c *call) *reply {
	p := s.issuePull(c)
	if p == nil {
		return errorReply(http.StatusNotFound, "Not Found")
	}
	var in struct {
		Body string `json:"body"`
	}
	if rp := c.decode(&in); rp != nil {
		return rp
	}
	// GitHub refuses a longer body (422, "Body is too long (maximum is
	// 65536 characters)"); its OpenAPI description does not say so.
	if utf8.RuneCountInString(in.Body) > 65536 {
		return errorReply(http.StatusUnprocessableEntity, "Validation Failed: body is too long (maximum is 65536 characters)")
	}
	cm := s.addCommentLocked(p, c.login, in.Body)
	return &reply{status: http.StatusCreated, header: http.Header{"Location": {fmt.Sprintf("%s/issues/comments/%d", s.apiRepo(c.repo), cm.id)}}, body: s.commentJSON(cm)}
}

// listComments answers GET .../issues/{issue_number}/comments, oldest
// first, paginated: how a client learns whether a comment whose answer
// was lost was posted.
func (s *Server) listComments(c *call) *reply {
	p := s.issuePull(c)
	if p == nil {
		return errorReply(http.StatusNotFound, "Not Found")
	}
	lo, hi, h := c.paginate(len(p.commentIDs), 30)
	list := []any{}
	for _, id := range p.commentIDs[lo:hi] {
		list = append(list, s.commentJSON(s.comments[id]))
	}
	return &reply{status: http.StatusOK, header: h, body: list}
}

func (s *Server) getPull(c *call) *reply {
	p := s.issuePull(c)
	if p == nil {
		return errorReply(http.StatusNotFound, "Not Found")
	}
	return jsonReply(http.StatusOK, s.pullJSON(p))
}

func (s *Server) listPulls(c *call) *reply {
	state := c.query.Get("state")
	if state == "" {
		state = "open"
	}
	var ps []*pullState
	for _, n := range sortedIntKeys(s.pulls) {
		p := s.pulls[n]
		if p.repo != c.repo || (state != "all" && p.state != state) {
			continue
		}
		if b := c.query.Get("base"); b != "" && p.baseRef != b {
			continue
		}
		if h := c.query.Get("head"); h != "" && (p.headRepo == nil || !strings.EqualFold(p.headRepo.owner+":"+p.headRef, h)) {
			continue
		}
		ps = append(ps, p)
	}
	if c.query.Get("direction") != "asc" {
		sort.SliceStable(ps, func(i, j int) bool { return ps[i].number > ps[j].number })
	}
	lo, hi, h := c.paginate(len(ps), 30)
	list := []any{}
	for _, p := range ps[lo:hi] {
		list = append(list, s.pullSimpleJSON(p))
	}
	return &reply{status: http.StatusOK, header: h, body: list}
}

// maxPullCommits is GitHub's cap on the commits listed for a pull request.
const maxPullCommits = 250

func (s *Server) listPullCommits(c *call) *reply {
	p := s.issuePull(c)
	if p == nil {
		return errorReply(http.StatusNotFound, "Not Found")
	}
	head := s.headSHA(p)
	commits := s.store.commitsBetween(s.store.mergeBase(s.baseSHA(p), head), head)
	if len(commits) > maxPullCommits {
		commits = commits[:maxPullCommits]
	}
	lo, hi, h := c.paginate(len(commits), 30)
	list := []any{}
	for _, cm := range commits[lo:hi] {
		list = append(list, s.commitJSON(c.repo, cm))
	}
	return &reply{status: http.StatusOK, header: h, body: list}
}

func (s *Server) listPullFiles(c *call) *reply {
	p := s.issuePull(c)
	if p == nil {
		return errorReply(http.StatusNotFound, "Not Found")
	}
	head := s.headSHA(p)
	changes := s.store.diffTrees(s.treeOf(s.store.mergeBase(s.baseSHA(p), head)), s.treeOf(head))
	if len(changes) > 3000 {
		changes = changes[:3000]
	}
	lo, hi, h := c.paginate(len(changes), 30)
	list := []any{}
	for _, fc := range changes[lo:hi] {
		list = append(list, s.diffEntryJSON(c.repo, head, fc))
	}
	return &reply{status: http.StatusOK, header: h, body: list}
}

func (s *Server) listReviews(c *call) *reply {
	p := s.issuePull(c)
	if p == nil {
		return errorReply(http.StatusNotFound, "Not Found")
	}
	lo, hi, h := c.paginate(len(p.reviews), 30)
	list := []any{}
	for _, rv := range p.reviews[lo:hi] {
		list = append(list, s.reviewJSON(p, rv))
	}
	return &reply{status: http.StatusOK, header: h, body: list}
}
