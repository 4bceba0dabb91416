package fakegithub

import (
	"fmt"
	"net/http"
	"path"
	"sort"
	"strings"
)

// Repository settings: classic branch protection, rulesets, workflows and
// the default token permissions of GitHub Actions, plus user accounts.
// `pact-action doctor` reads them; tests seed them with SetBranchProtection,
// AddRuleset, SetDefaultWorkflowPermissions, SetWorkflowState, AddUser and
// DenyAdministration. Workflows are the files under .github/workflows/ of
// the default branch: commit them with CommitFiles.

// RequiredCheck is a required status check and the app that must post it.
type RequiredCheck struct {
	Context string
	// AppID is the app that must post it; 0 means any source.
	AppID int64
}

// GitHubActionsAppID is the app id of GitHub Actions.
const GitHubActionsAppID = 15368

// BranchProtection is the classic protection of one branch.
type BranchProtection struct {
	RequiredChecks []RequiredCheck
	Strict         bool
	// RequireReviews turns on "require a pull request before merging".
	RequireReviews      bool
	DismissStaleReviews bool
	AllowForcePushes    bool
	EnforceAdmins       bool
}

// Rule is a rule of a ruleset: GitHub's type and parameters as sent.
type Rule struct {
	Type       string
	Parameters map[string]any
}

// RequireChecksRule requires status checks (required_status_checks).
func RequireChecksRule(checks ...RequiredCheck) Rule {
	list := []any{}
	for _, c := range checks {
		m := obj{"context": c.Context}
		if c.AppID != 0 {
			m["integration_id"] = c.AppID
		}
		list = append(list, m)
	}
	return Rule{Type: "required_status_checks", Parameters: map[string]any{
		"required_status_checks": list, "strict_required_status_checks_policy": false,
	}}
}

// PullRequestRule requires a pull request with one approval (pull_request).
func PullRequestRule(dismissStaleReviewsOnPush bool) Rule {
	return Rule{Type: "pull_request", Parameters: map[string]any{
		"dismiss_stale_reviews_on_push": dismissStaleReviewsOnPush, "require_code_owner_review": false,
		"require_last_push_approval": false, "required_approving_review_count": 1, "required_review_thread_resolution": false,
	}}
}

// BlockForcePushesRule blocks force pushes (non_fast_forward).
func BlockForcePushesRule() Rule { return Rule{Type: "non_fast_forward"} }

// MergeQueueRule requires merges through a merge queue (merge_queue).
func MergeQueueRule() Rule {
	return Rule{Type: "merge_queue", Parameters: map[string]any{
		"check_response_timeout_minutes": 60, "grouping_strategy": "ALLGREEN", "max_entries_to_build": 5,
		"max_entries_to_merge": 5, "merge_method": "MERGE", "min_entries_to_merge": 1, "min_entries_to_merge_wait_minutes": 5,
	}}
}

// Ruleset is a branch ruleset of a repository.
type Ruleset struct {
	Name string
	// Enforcement is active (the default), evaluate or disabled.
	Enforcement string
	// Include and Exclude are ref name conditions: "~DEFAULT_BRANCH"
	// (the default Include), "~ALL", or "refs/heads/<pattern>".
	Include, Exclude []string
	Rules            []Rule
}

type rulesetState struct {
	id int64
	Ruleset
}

type repoSettings struct {
	protection    map[string]*BranchProtection // by branch
	rulesets      []*rulesetState
	workflowPerms string
	workflowState map[string]string // by path
	workflowIDs   map[string]int64  // by path
}

type settingsState struct {
	repos map[*repoState]*repoSettings
	users map[string]bool // lower-case logins added with AddUser
	// noAdmin holds tokens that lack the Administration permission.
	noAdmin map[string]bool
}

// settingsState returns the settings of the server, made on first use;
// callers hold s.mu.
func (s *Server) settingsState() *settingsState {
	if s.settings == nil {
		s.settings = &settingsState{repos: map[*repoState]*repoSettings{}, users: map[string]bool{}, noAdmin: map[string]bool{}}
	}
	return s.settings
}

// settingsOf returns the settings of r; callers hold s.mu.
func (s *Server) settingsOf(r *repoState) *repoSettings {
	rs := s.settingsState().repos[r]
	if rs == nil {
		rs = &repoSettings{protection: map[string]*BranchProtection{}, workflowPerms: "read",
			workflowState: map[string]string{}, workflowIDs: map[string]int64{}}
		s.settings.repos[r] = rs
	}
	return rs
}

// SetBranchProtection sets the classic protection of branch; nil removes it.
func (s *Server) SetBranchProtection(owner, repo, branch string, p *BranchProtection) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rs := s.settingsOf(s.repoLocked(owner, repo))
	if p == nil {
		delete(rs.protection, branch)
		return
	}
	cp := *p
	cp.RequiredChecks = append([]RequiredCheck(nil), p.RequiredChecks...)
	rs.protection[branch] = &cp
}

// AddRuleset adds a branch ruleset to owner/repo and returns its id.
func (s *Server) AddRuleset(owner, repo string, r Ruleset) int64 {
	switch r.Enforcement {
	case "":
		r.Enforcement = "active"
	case "active", "evaluate", "disabled":
	default:
		s.t.Fatalf("fakegithub: AddRuleset: unknown enforcement %q", r.Enforcement)
	}
	if len(r.Include) == 0 {
		r.Include = []string{"~DEFAULT_BRANCH"}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	rs := s.settingsOf(s.repoLocked(owner, repo))
	st := &rulesetState{id: s.newID(), Ruleset: r}
	rs.rulesets = append(rs.rulesets, st)
	return st.id
}

// SetDefaultWorkflowPermissions sets the GITHUB_TOKEN's default
// permissions of owner/repo: "read" (the default) or "write".
func (s *Server) SetDefaultWorkflowPermissions(owner, repo, perm string) {
	if perm != "read" && perm != "write" {
		s.t.Fatalf("fakegithub: SetDefaultWorkflowPermissions: %q is not read or write", perm)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.settingsOf(s.repoLocked(owner, repo)).workflowPerms = perm
}

// SetWorkflowState sets the state of the workflow at path (active by
// default; disabled_manually, disabled_inactivity, ...).
func (s *Server) SetWorkflowState(owner, repo, workflowPath, state string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.settingsOf(s.repoLocked(owner, repo)).workflowState[workflowPath] = state
}

// AddUser makes login a GitHub account. Accounts given a permission with
// SetPermission, repository owners and commit authors exist too.
func (s *Server) AddUser(login string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.settingsState().users[strings.ToLower(login)] = true
}

// DenyAdministration makes token a fine-grained token without the
// Administration permission: branch protection and the Actions settings
// answer 403, as GitHub does.
func (s *Server) DenyAdministration(token string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.settingsState().noAdmin[token] = true
}

// lacksAdministration reports a token denied with DenyAdministration;
// callers hold s.mu.
func (s *Server) lacksAdministration(c *call) bool {
	if s.settings == nil {
		return false
	}
	h := c.r.Header.Get("Authorization")
	for _, prefix := range []string{"Bearer ", "token "} {
		if tok, ok := strings.CutPrefix(h, prefix); ok {
			return s.settings.noAdmin[tok]
		}
	}
	return false
}

func forbiddenForToken(docs string) *reply {
	return &reply{status: http.StatusForbidden, body: obj{
		"message":           "Resource not accessible by personal access token",
		"documentation_url": docs,
		"status":            "403",
	}}
}

// ---- handlers ----

func (s *Server) getRepo(c *call) *reply {
	m := s.repoJSON(c.repo)
	m["network_count"] = 0
	m["subscribers_count"] = 0
	return jsonReply(http.StatusOK, m)
}

func (s *Server) protectionOf(c *call) (*BranchProtection, *reply) {
	if s.lacksAdministration(c) {
		return nil, forbiddenForToken("https://docs.github.com/rest/branches/branch-protection#get-branch-protection")
	}
	p := s.settingsOf(c.repo).protection[c.params["branch"]]
	if p == nil {
		return nil, errorReply(http.StatusNotFound, "Branch not protected")
	}
	return p, nil
}

func (s *Server) statusChecksJSON(c *call, p *BranchProtection) obj {
	base := s.apiRepo(c.repo) + "/branches/" + escPath(c.params["branch"]) + "/protection/required_status_checks"
	contexts, checks := []any{}, []any{}
	for _, rc := range p.RequiredChecks {
		contexts = append(contexts, rc.Context)
		var app any
		if rc.AppID != 0 {
			app = rc.AppID
		}
		checks = append(checks, obj{"context": rc.Context, "app_id": app})
	}
	return obj{"url": base, "strict": p.Strict, "contexts": contexts, "checks": checks, "contexts_url": base + "/contexts"}
}

func (s *Server) getBranchProtection(c *call) *reply {
	p, rp := s.protectionOf(c)
	if rp != nil {
		return rp
	}
	base := s.apiRepo(c.repo) + "/branches/" + escPath(c.params["branch"]) + "/protection"
	enabled := func(b bool) obj { return obj{"enabled": b} }
	m := obj{
		"url":                              base,
		"enforce_admins":                   obj{"url": base + "/enforce_admins", "enabled": p.EnforceAdmins},
		"required_linear_history":          enabled(false),
		"allow_force_pushes":               enabled(p.AllowForcePushes),
		"allow_deletions":                  enabled(false),
		"block_creations":                  enabled(false),
		"required_conversation_resolution": enabled(false),
		"lock_branch":                      enabled(false),
		"allow_fork_syncing":               enabled(false),
		"required_signatures":              obj{"url": base + "/required_signatures", "enabled": false},
	}
	if len(p.RequiredChecks) > 0 {
		m["required_status_checks"] = s.statusChecksJSON(c, p)
	}
	if p.RequireReviews {
		m["required_pull_request_reviews"] = obj{
			"url": base + "/required_pull_request_reviews", "dismiss_stale_reviews": p.DismissStaleReviews,
			"require_code_owner_reviews": false, "required_approving_review_count": 1, "require_last_push_approval": false,
		}
	}
	return jsonReply(http.StatusOK, m)
}

func (s *Server) getStatusChecksProtection(c *call) *reply {
	p, rp := s.protectionOf(c)
	if rp != nil {
		return rp
	}
	if len(p.RequiredChecks) == 0 {
		return errorReply(http.StatusNotFound, "Required status checks not enabled")
	}
	return jsonReply(http.StatusOK, s.statusChecksJSON(c, p))
}

// refMatches applies a ruleset's ref_name conditions to branch.
func refMatches(r *repoState, rs *rulesetState, branch string) bool {
	match := func(patterns []string) bool {
		for _, p := range patterns {
			switch p {
			case "~ALL":
				return true
			case "~DEFAULT_BRANCH":
				if branch == r.defaultBranch {
					return true
				}
				continue
			}
			if ok, _ := path.Match(strings.TrimPrefix(p, "refs/heads/"), branch); ok {
				return true
			}
		}
		return false
	}
	return match(rs.Include) && !match(rs.Exclude)
}

func ruleJSON(rule Rule) obj {
	m := obj{"type": rule.Type}
	if rule.Parameters != nil {
		m["parameters"] = rule.Parameters
	}
	return m
}

func (s *Server) getBranchRules(c *call) *reply {
	branch := c.params["branch"]
	var rules []any
	for _, rs := range s.settingsOf(c.repo).rulesets {
		if rs.Enforcement != "active" || !refMatches(c.repo, rs, branch) {
			continue
		}
		for _, rule := range rs.Rules {
			m := ruleJSON(rule)
			m["ruleset_source_type"] = "Repository"
			m["ruleset_source"] = c.repo.fullName()
			m["ruleset_id"] = rs.id
			rules = append(rules, m)
		}
	}
	lo, hi, h := c.paginate(len(rules), 30)
	return &reply{status: http.StatusOK, header: h, body: append([]any{}, rules[lo:hi]...)}
}

func (s *Server) rulesetJSON(r *repoState, rs *rulesetState, full bool) obj {
	self := s.apiRepo(r) + fmt.Sprintf("/rulesets/%d", rs.id)
	m := obj{
		"id": rs.id, "name": rs.Name, "target": "branch", "source_type": "Repository", "source": r.fullName(),
		"enforcement": rs.Enforcement, "node_id": nodeID("RRS", rs.id),
		"_links":     obj{"self": obj{"href": self}, "html": obj{"href": s.htmlRepo(r) + fmt.Sprintf("/rules/%d", rs.id)}},
		"created_at": ts(r.created), "updated_at": ts(r.created),
	}
	if full {
		rules := []any{}
		for _, rule := range rs.Rules {
			rules = append(rules, ruleJSON(rule))
		}
		m["rules"] = rules
		m["bypass_actors"] = []any{}
		m["current_user_can_bypass"] = "never"
		m["conditions"] = obj{"ref_name": obj{"include": nonNil(rs.Include), "exclude": nonNil(rs.Exclude)}}
	}
	return m
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func (s *Server) listRulesets(c *call) *reply {
	all := s.settingsOf(c.repo).rulesets
	lo, hi, h := c.paginate(len(all), 30)
	list := []any{}
	for _, rs := range all[lo:hi] {
		list = append(list, s.rulesetJSON(c.repo, rs, false))
	}
	return &reply{status: http.StatusOK, header: h, body: list}
}

func (s *Server) getRuleset(c *call) *reply {
	id, _ := c.intParam("ruleset_id")
	for _, rs := range s.settingsOf(c.repo).rulesets {
		if rs.id == id {
			return jsonReply(http.StatusOK, s.rulesetJSON(c.repo, rs, true))
		}
	}
	return errorReply(http.StatusNotFound, "Not Found")
}

// workflowPaths lists the workflow files on the default branch.
func (s *Server) workflowPaths(r *repoState) []string {
	head := r.refs["refs/heads/"+r.defaultBranch]
	if head == "" {
		return nil
	}
	var out []string
	for p, e := range s.store.flatten(s.store.commits[head].tree) {
		dir, name := path.Split(p)
		if dir == ".github/workflows/" && e.typ == "blob" && (strings.HasSuffix(name, ".yml") || strings.HasSuffix(name, ".yaml")) {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// workflowName is the file's top-level name:, or its path as on GitHub.
func (s *Server) workflowName(r *repoState, p string) string {
	head := r.refs["refs/heads/"+r.defaultBranch]
	if e, ok := s.store.lookupPath(s.store.commits[head].tree, p); ok {
		for _, line := range strings.Split(string(s.store.blobs[e.sha].data), "\n") {
			if v, ok := strings.CutPrefix(line, "name:"); ok {
				if v = strings.Trim(strings.TrimSpace(v), `"'`); v != "" {
					return v
				}
			}
		}
	}
	return p
}

func (s *Server) listWorkflows(c *call) *reply {
	rs := s.settingsOf(c.repo)
	paths := s.workflowPaths(c.repo)
	lo, hi, h := c.paginate(len(paths), 30)
	list := []any{}
	for _, p := range paths[lo:hi] {
		id := rs.workflowIDs[p]
		if id == 0 {
			id = s.newID()
			rs.workflowIDs[p] = id
		}
		state := rs.workflowState[p]
		if state == "" {
			state = "active"
		}
		html := s.htmlRepo(c.repo) + "/blob/" + escPath(c.repo.defaultBranch) + "/" + escPath(p)
		list = append(list, obj{
			"id": id, "node_id": nodeID("W", id), "name": s.workflowName(c.repo, p), "path": p, "state": state,
			"created_at": ts(c.repo.created), "updated_at": ts(c.repo.created),
			"url": s.apiRepo(c.repo) + fmt.Sprintf("/actions/workflows/%d", id), "html_url": html,
			"badge_url": s.htmlRepo(c.repo) + "/workflows/" + escPath(path.Base(p)) + "/badge.svg",
		})
	}
	return &reply{status: http.StatusOK, header: h, body: obj{"total_count": len(paths), "workflows": list}}
}

func (s *Server) getDefaultWorkflowPermissions(c *call) *reply {
	if s.lacksAdministration(c) {
		return forbiddenForToken("https://docs.github.com/rest/actions/permissions#get-default-workflow-permissions-for-a-repository")
	}
	return jsonReply(http.StatusOK, obj{"default_workflow_permissions": s.settingsOf(c.repo).workflowPerms, "can_approve_pull_request_reviews": false})
}

// userExists: accounts added with AddUser or SetPermission, repository
// owners, and accounts the fake has already shown (commit authors, ...).
func (s *Server) userExists(login string) bool {
	key := strings.ToLower(login)
	if _, ok := s.perms[key]; ok {
		return true
	}
	if _, ok := s.users[key]; ok {
		return true
	}
	if s.settings != nil && s.settings.users[key] {
		return true
	}
	for _, r := range s.repoOrder {
		if strings.EqualFold(r.owner, login) {
			return true
		}
	}
	return false
}

func (s *Server) getUser(c *call) *reply {
	login := c.params["username"]
	if !s.userExists(login) {
		return errorReply(http.StatusNotFound, "Not Found")
	}
	m := s.userJSON(login)
	created := ts(s.clock)
	public := obj{
		"user_view_type": "public", "name": nil, "company": nil, "blog": nil, "location": nil, "email": nil,
		"hireable": nil, "bio": nil, "public_repos": 0, "public_gists": 0, "followers": 0, "following": 0,
		"created_at": created, "updated_at": created,
	}
	for k, v := range public {
		m[k] = v
	}
	return jsonReply(http.StatusOK, m)
}

// settingsRoutes adds the handlers of this file to buildRoutes' map.
func (s *Server) settingsRoutes(handlers map[string]func(*call) *reply) {
	ours := map[string]func(*call) *reply{
		"repos/get":                          s.getRepo,
		"repos/get-branch-protection":        s.getBranchProtection,
		"repos/get-status-checks-protection": s.getStatusChecksProtection,
		"repos/get-branch-rules":             s.getBranchRules,
		"repos/get-repo-rulesets":            s.listRulesets,
		"repos/get-repo-ruleset":             s.getRuleset,
		"actions/list-repo-workflows":        s.listWorkflows,
		"users/get-by-username":              s.getUser,
		"actions/get-github-actions-default-workflow-permissions-repository": s.getDefaultWorkflowPermissions,
	}
	for id, h := range ours {
		handlers[id] = h
	}
}
