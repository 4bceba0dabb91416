package fakegithub

import (
	"encoding/base64"
	"fmt"
	"net/url"
	"strings"
	"time"
)

// JSON builders. They produce the shapes of GitHub's REST answers, with
// every field the OpenAPI schemas require. All run with s.mu held.

type obj = map[string]any

func ts(t time.Time) string { return t.UTC().Format(time.RFC3339) }

func nullTS(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return ts(t)
}

func nullStr(p *string) any {
	if p == nil {
		return nil
	}
	return *p
}

func nodeID(prefix string, id int64) string {
	return base64.RawStdEncoding.EncodeToString([]byte(fmt.Sprintf("%s_%d", prefix, id)))
}

func escPath(p string) string {
	parts := strings.Split(p, "/")
	for i, s := range parts {
		parts[i] = url.PathEscape(s)
	}
	return strings.Join(parts, "/")
}

func (s *Server) apiRepo(r *repoState) string {
	return s.URL + "/repos/" + escPath(r.fullName())
}

// htmlurl is the web host of the fake's html_url links, as
// https://github.com is GitHub's (the API lives elsewhere).
const htmlurl = "https://github.example"

func (s *Server) htmlRepo(r *repoState) string {
	return htmlurl + "/" + escPath(r.fullName())
}

func (s *Server) userJSON(login string) obj {
	id := s.userID(login)
	base := s.URL + "/users/" + url.PathEscape(login)
	typ := "User"
	if strings.HasSuffix(login, "[bot]") {
		typ = "Bot"
	}
	return obj{
		"login":               login,
		"id":                  id,
		"node_id":             nodeID("U", id),
		"avatar_url":          s.URL + "/avatars/u/" + fmt.Sprint(id),
		"gravatar_id":         "",
		"url":                 base,
		"html_url":            s.URL + "/" + url.PathEscape(login),
		"followers_url":       base + "/followers",
		"following_url":       base + "/following{/other_user}",
		"gists_url":           base + "/gists{/gist_id}",
		"starred_url":         base + "/starred{/owner}{/repo}",
		"subscriptions_url":   base + "/subscriptions",
		"organizations_url":   base + "/orgs",
		"repos_url":           base + "/repos",
		"events_url":          base + "/events{/privacy}",
		"received_events_url": base + "/received_events",
		"type":                typ,
		"site_admin":          false,
	}
}

// nullableUser is a simple-user, or null for "" (no GitHub account).
func (s *Server) nullableUser(login string) any {
	if login == "" {
		return nil
	}
	return s.userJSON(login)
}

func (s *Server) repoJSON(r *repoState) obj {
	base := s.apiRepo(r)
	html := s.htmlRepo(r)
	host := strings.TrimPrefix(strings.TrimPrefix(s.URL, "http://"), "https://")
	created := ts(r.created)
	return obj{
		"id":                          r.id,
		"node_id":                     nodeID("R", r.id),
		"name":                        r.name,
		"full_name":                   r.fullName(),
		"owner":                       s.userJSON(r.owner),
		"private":                     false,
		"html_url":                    html,
		"description":                 nil,
		"fork":                        r.forkOf != nil,
		"url":                         base,
		"archive_url":                 base + "/{archive_format}{/ref}",
		"assignees_url":               base + "/assignees{/user}",
		"blobs_url":                   base + "/git/blobs{/sha}",
		"branches_url":                base + "/branches{/branch}",
		"collaborators_url":           base + "/collaborators{/collaborator}",
		"comments_url":                base + "/comments{/number}",
		"commits_url":                 base + "/commits{/sha}",
		"compare_url":                 base + "/compare/{base}...{head}",
		"contents_url":                base + "/contents/{+path}",
		"contributors_url":            base + "/contributors",
		"deployments_url":             base + "/deployments",
		"downloads_url":               base + "/downloads",
		"events_url":                  base + "/events",
		"forks_url":                   base + "/forks",
		"git_commits_url":             base + "/git/commits{/sha}",
		"git_refs_url":                base + "/git/refs{/sha}",
		"git_tags_url":                base + "/git/tags{/sha}",
		"git_url":                     "git://" + host + "/" + r.fullName() + ".git",
		"issue_comment_url":           base + "/issues/comments{/number}",
		"issue_events_url":            base + "/issues/events{/number}",
		"issues_url":                  base + "/issues{/number}",
		"keys_url":                    base + "/keys{/key_id}",
		"labels_url":                  base + "/labels{/name}",
		"languages_url":               base + "/languages",
		"merges_url":                  base + "/merges",
		"milestones_url":              base + "/milestones{/number}",
		"notifications_url":           base + "/notifications{?since,all,participating}",
		"pulls_url":                   base + "/pulls{/number}",
		"releases_url":                base + "/releases{/id}",
		"ssh_url":                     "git@" + host + ":" + r.fullName() + ".git",
		"stargazers_url":              base + "/stargazers",
		"statuses_url":                base + "/statuses/{sha}",
		"subscribers_url":             base + "/subscribers",
		"subscription_url":            base + "/subscription",
		"tags_url":                    base + "/tags",
		"teams_url":                   base + "/teams",
		"trees_url":                   base + "/git/trees{/sha}",
		"clone_url":                   html + ".git",
		"mirror_url":                  nil,
		"hooks_url":                   base + "/hooks",
		"svn_url":                     html,
		"homepage":                    nil,
		"language":                    nil,
		"forks_count":                 0,
		"forks":                       0,
		"stargazers_count":            0,
		"watchers_count":              0,
		"watchers":                    0,
		"size":                        0,
		"default_branch":              r.defaultBranch,
		"open_issues_count":           0,
		"open_issues":                 0,
		"is_template":                 false,
		"topics":                      []any{},
		"has_issues":                  true,
		"has_projects":                true,
		"has_wiki":                    true,
		"has_pages":                   false,
		"has_downloads":               true,
		"has_discussions":             false,
		"archived":                    false,
		"disabled":                    false,
		"visibility":                  "public",
		"pushed_at":                   created,
		"created_at":                  created,
		"updated_at":                  created,
		"license":                     nil,
		"allow_forking":               true,
		"web_commit_signoff_required": false,
	}
}

func link(href string) obj { return obj{"href": href} }

func (s *Server) pullJSON(p *pullState) obj {
	base := s.apiRepo(p.repo)
	self := fmt.Sprintf("%s/pulls/%d", base, p.number)
	html := fmt.Sprintf("%s/pull/%d", s.htmlRepo(p.repo), p.number)
	issue := fmt.Sprintf("%s/issues/%d", base, p.number)
	headSHA, baseSHA := s.headSHA(p), s.baseSHA(p)
	head := obj{"label": "", "ref": p.headRef, "sha": headSHA, "repo": nil, "user": s.userJSON(p.author)}
	if p.headRepo != nil {
		head["label"] = p.headRepo.owner + ":" + p.headRef
		head["repo"] = s.repoJSON(p.headRepo)
		head["user"] = s.userJSON(p.headRepo.owner)
	}
	requestedUsers, requestedTeams := s.requestedJSON(p)
	mb := s.store.mergeBase(baseSHA, headSHA)
	changes := s.store.diffTrees(s.treeOf(mb), s.treeOf(headSHA))
	adds, dels := 0, 0
	for _, c := range changes {
		adds += c.additions
		dels += c.deletions
	}
	m := obj{
		"url":                 self,
		"id":                  p.id,
		"node_id":             nodeID("PR", p.id),
		"html_url":            html,
		"diff_url":            html + ".diff",
		"patch_url":           html + ".patch",
		"issue_url":           issue,
		"commits_url":         self + "/commits",
		"review_comments_url": self + "/comments",
		"review_comment_url":  base + "/pulls/comments{/number}",
		"comments_url":        issue + "/comments",
		"statuses_url":        base + "/statuses/" + headSHA,
		"number":              p.number,
		"state":               p.state,
		"locked":              false,
		"title":               p.title,
		"user":                s.userJSON(p.author),
		"body":                nil,
		"labels":              []any{},
		"milestone":           nil,
		"active_lock_reason":  nil,
		"created_at":          ts(p.created),
		"updated_at":          ts(p.updated),
		"closed_at":           nullTS(p.closedAt),
		"merged_at":           nil,
		"merge_commit_sha":    nil,
		"assignee":            nil,
		"assignees":           []any{},
		"requested_reviewers": requestedUsers,
		"requested_teams":     requestedTeams,
		"head":                head,
		"base": obj{
			"label": p.repo.owner + ":" + p.baseRef,
			"ref":   p.baseRef,
			"sha":   baseSHA,
			"repo":  s.repoJSON(p.repo),
			"user":  s.userJSON(p.repo.owner),
		},
		"_links": obj{
			"self":            link(self),
			"html":            link(html),
			"issue":           link(issue),
			"comments":        link(issue + "/comments"),
			"review_comments": link(self + "/comments"),
			"review_comment":  link(base + "/pulls/comments{/number}"),
			"commits":         link(self + "/commits"),
			"statuses":        link(base + "/statuses/" + headSHA),
		},
		"author_association":    p.assoc,
		"auto_merge":            nil,
		"draft":                 p.draft,
		"merged":                false,
		"mergeable":             nil,
		"rebaseable":            nil,
		"mergeable_state":       "unknown",
		"merged_by":             nil,
		"comments":              len(p.commentIDs),
		"review_comments":       0,
		"maintainer_can_modify": false,
		"commits":               len(s.store.commitsBetween(mb, headSHA)),
		"additions":             adds,
		"deletions":             dels,
		"changed_files":         len(changes),
	}
	if p.body != "" {
		m["body"] = p.body
	}
	if p.merged {
		m["merged"], m["merged_at"], m["merge_commit_sha"] = true, ts(p.closedAt), p.mergeCommit
	}
	return m
}

// pullSimpleJSON is the list form of a pull request (pull-request-simple):
// the full form without the counters.
func (s *Server) pullSimpleJSON(p *pullState) obj {
	m := s.pullJSON(p)
	for _, k := range []string{"merged", "mergeable", "rebaseable", "mergeable_state", "merged_by", "comments",
		"review_comments", "maintainer_can_modify", "commits", "additions", "deletions", "changed_files"} {
		delete(m, k)
	}
	return m
}

func (s *Server) treeOf(commitSHA string) string {
	if c := s.store.commits[commitSHA]; c != nil {
		return c.tree
	}
	return ""
}

func (s *Server) verificationJSON(c *commitObject) obj {
	v := obj{"verified": c.verified, "reason": c.reason, "payload": nil, "signature": nil, "verified_at": nil}
	if c.verified {
		v["verified_at"] = ts(c.date)
		v["signature"] = "-----BEGIN PGP SIGNATURE-----\nfake\n-----END PGP SIGNATURE-----\n"
		v["payload"] = "tree " + c.tree + "\n"
	}
	return v
}

func gitUser(name, email string, t time.Time) obj {
	return obj{"name": name, "email": email, "date": ts(t)}
}

// commitJSON is the "commit" schema (compare, pull request commits).
func (s *Server) commitJSON(r *repoState, c *commitObject) obj {
	base := s.apiRepo(r)
	parents := []any{}
	for _, p := range c.parents {
		parents = append(parents, obj{"sha": p, "url": base + "/commits/" + p, "html_url": s.htmlRepo(r) + "/commit/" + p})
	}
	return obj{
		"url":          base + "/commits/" + c.sha,
		"sha":          c.sha,
		"node_id":      "C_" + c.sha[:12],
		"html_url":     s.htmlRepo(r) + "/commit/" + c.sha,
		"comments_url": base + "/commits/" + c.sha + "/comments",
		"commit": obj{
			"url":           base + "/git/commits/" + c.sha,
			"author":        gitUser(c.authorName, c.authorEmail, c.date),
			"committer":     gitUser(c.committerName, c.committerEmail, c.date),
			"message":       c.message,
			"comment_count": 0,
			"tree":          obj{"sha": c.tree, "url": base + "/git/trees/" + c.tree},
			"verification":  s.verificationJSON(c),
		},
		"author":    s.nullableUser(c.authorLogin),
		"committer": s.nullableUser(c.committerLogin),
		"parents":   parents,
	}
}

// gitCommitJSON is the "git-commit" schema (Git Data API).
func (s *Server) gitCommitJSON(r *repoState, c *commitObject) obj {
	base := s.apiRepo(r)
	parents := []any{}
	for _, p := range c.parents {
		parents = append(parents, obj{"sha": p, "url": base + "/git/commits/" + p, "html_url": s.htmlRepo(r) + "/commit/" + p})
	}
	return obj{
		"sha":          c.sha,
		"node_id":      "C_" + c.sha[:12],
		"url":          base + "/git/commits/" + c.sha,
		"html_url":     s.htmlRepo(r) + "/commit/" + c.sha,
		"author":       gitUser(c.authorName, c.authorEmail, c.date),
		"committer":    gitUser(c.committerName, c.committerEmail, c.date),
		"tree":         obj{"sha": c.tree, "url": base + "/git/trees/" + c.tree},
		"message":      c.message,
		"parents":      parents,
		"verification": s.verificationJSON(c),
	}
}

func (s *Server) diffEntryJSON(r *repoState, ref string, fc fileChange) obj {
	m := obj{
		"sha":          nil,
		"filename":     fc.filename,
		"status":       fc.status,
		"additions":    fc.additions,
		"deletions":    fc.deletions,
		"changes":      fc.additions + fc.deletions,
		"blob_url":     s.htmlRepo(r) + "/blob/" + ref + "/" + escPath(fc.filename),
		"raw_url":      s.htmlRepo(r) + "/raw/" + ref + "/" + escPath(fc.filename),
		"contents_url": s.apiRepo(r) + "/contents/" + escPath(fc.filename) + "?ref=" + ref,
	}
	if fc.sha != "" {
		m["sha"] = fc.sha
	}
	if fc.previousFilename != "" {
		m["previous_filename"] = fc.previousFilename
	}
	return m
}

func (s *Server) gitRefJSON(r *repoState, full, sha string) obj {
	base := s.apiRepo(r)
	return obj{
		"ref":     full,
		"node_id": "REF_" + url.PathEscape(full),
		"url":     base + "/git/" + escPath(full),
		"object":  obj{"type": "commit", "sha": sha, "url": base + "/git/commits/" + sha},
	}
}

func (s *Server) treeJSON(r *repoState, sha string, recursive bool) obj {
	base := s.apiRepo(r)
	entries := []any{}
	var walk func(prefix, sha string)
	walk = func(prefix, sha string) {
		for _, e := range s.store.trees[sha].entries {
			p := e.name
			if prefix != "" {
				p = prefix + "/" + e.name
			}
			m := obj{"path": p, "mode": e.mode, "type": e.typ, "sha": e.sha}
			switch e.typ {
			case "blob":
				m["size"] = len(s.store.blobs[e.sha].data)
				m["url"] = base + "/git/blobs/" + e.sha
			case "tree":
				m["url"] = base + "/git/trees/" + e.sha
			}
			entries = append(entries, m)
			if recursive && e.typ == "tree" {
				walk(p, e.sha)
			}
		}
	}
	walk("", sha)
	return obj{"sha": sha, "url": base + "/git/trees/" + sha, "truncated": false, "tree": entries}
}

// appJSON is the GitHub App a that owns check runs.
func (s *Server) appJSON(a App) obj {
	t := ts(time.Date(2018, 7, 30, 9, 30, 17, 0, time.UTC))
	owner := s.userJSON(a.Owner)
	owner["type"] = "Organization"
	return obj{
		"id":           a.ID,
		"slug":         a.Slug,
		"node_id":      nodeID("A", a.ID),
		"owner":        owner,
		"name":         a.Name,
		"description":  "",
		"external_url": "https://github.com/apps/" + a.Slug,
		"html_url":     "https://github.com/apps/" + a.Slug,
		"created_at":   t,
		"updated_at":   t,
		"permissions":  obj{"checks": "write", "contents": "write", "issues": "write", "metadata": "read", "pull_requests": "write", "statuses": "write"},
		"events":       []any{"check_run", "check_suite", "pull_request", "push"},
	}
}

func (s *Server) checkRunJSON(cr *checkRunState) obj {
	base := s.apiRepo(cr.repo)
	self := fmt.Sprintf("%s/check-runs/%d", base, cr.id)
	prs := []any{}
	for _, n := range sortedIntKeys(s.pulls) {
		p := s.pulls[n]
		if p.repo != cr.repo || p.state != "open" || s.headSHA(p) != cr.headSHA || p.headRepo == nil {
			continue
		}
		prs = append(prs, obj{
			"id":     p.id,
			"number": p.number,
			"url":    fmt.Sprintf("%s/pulls/%d", base, p.number),
			"head":   obj{"ref": p.headRef, "sha": s.headSHA(p), "repo": obj{"id": p.headRepo.id, "url": s.apiRepo(p.headRepo), "name": p.headRepo.name}},
			"base":   obj{"ref": p.baseRef, "sha": s.baseSHA(p), "repo": obj{"id": p.repo.id, "url": base, "name": p.repo.name}},
		})
	}
	var conclusion any
	if cr.conclusion != "" {
		conclusion = cr.conclusion
	}
	return obj{
		"id":           cr.id,
		"head_sha":     cr.headSHA,
		"node_id":      nodeID("CR", cr.id),
		"external_id":  nullStr(cr.externalID),
		"url":          self,
		"html_url":     fmt.Sprintf("%s/runs/%d", s.htmlRepo(cr.repo), cr.id),
		"details_url":  nullStr(cr.detailsURL),
		"status":       cr.status,
		"conclusion":   conclusion,
		"started_at":   nullTS(cr.started),
		"completed_at": nullTS(cr.completed),
		"output": obj{
			"title":             nullStr(cr.title),
			"summary":           nullStr(cr.summary),
			"text":              nullStr(cr.text),
			"annotations_count": len(cr.annotations),
			"annotations_url":   self + "/annotations",
		},
		"name":          cr.name,
		"check_suite":   obj{"id": cr.suite},
		"app":           s.appJSON(cr.app),
		"pull_requests": prs,
	}
}

func (s *Server) rollupJSON(url string, rs []*reactionState) obj {
	m := obj{"url": url, "total_count": len(rs)}
	for _, k := range []string{"+1", "-1", "laugh", "confused", "heart", "hooray", "eyes", "rocket"} {
		m[k] = 0
	}
	for _, r := range rs {
		m[r.content] = m[r.content].(int) + 1
	}
	return m
}

func (s *Server) commentJSON(c *commentState) obj {
	base := s.apiRepo(c.repo)
	self := fmt.Sprintf("%s/issues/comments/%d", base, c.id)
	assoc := "NONE"
	if c.login == c.repo.owner {
		assoc = "OWNER"
	}
	return obj{
		"id":                 c.id,
		"node_id":            nodeID("IC", c.id),
		"url":                self,
		"body":               c.body,
		"html_url":           fmt.Sprintf("%s/pull/%d#issuecomment-%d", s.htmlRepo(c.repo), c.number, c.id),
		"user":               s.nullableUser(c.login),
		"created_at":         ts(c.created),
		"updated_at":         ts(c.updated),
		"issue_url":          fmt.Sprintf("%s/issues/%d", base, c.number),
		"author_association": assoc,
		"reactions":          s.rollupJSON(self+"/reactions", c.reactions),
	}
}

func (s *Server) reactionJSON(r *reactionState) obj {
	return obj{
		"id":         r.id,
		"node_id":    nodeID("REA", r.id),
		"user":       s.nullableUser(r.login),
		"content":    r.content,
		"created_at": ts(r.created),
	}
}

func (s *Server) reviewJSON(p *pullState, rv *reviewState) obj {
	html := fmt.Sprintf("%s/pull/%d#pullrequestreview-%d", s.htmlRepo(p.repo), p.number, rv.id)
	prURL := fmt.Sprintf("%s/pulls/%d", s.apiRepo(p.repo), p.number)
	m := obj{
		"id":                 rv.id,
		"node_id":            nodeID("PRR", rv.id),
		"user":               s.nullableUser(rv.login),
		"body":               rv.body,
		"state":              rv.state,
		"html_url":           html,
		"pull_request_url":   prURL,
		"_links":             obj{"html": link(html), "pull_request": link(prURL)},
		"commit_id":          rv.commitID,
		"author_association": "COLLABORATOR",
	}
	if rv.state != "PENDING" {
		m["submitted_at"] = ts(rv.submitted)
	}
	return m
}

// contentEntryJSON describes a tree entry for the contents API; withContent
// adds the base64 content of a file.
func (s *Server) contentEntryJSON(r *repoState, ref, p string, e treeEntry, withContent bool) obj {
	base := s.apiRepo(r)
	self := base + "/contents/" + escPath(p) + "?ref=" + url.QueryEscape(ref)
	html := s.htmlRepo(r) + "/blob/" + url.PathEscape(ref) + "/" + escPath(p)
	typ, size := "file", 0
	var git, download any
	switch e.typ {
	case "tree":
		typ = "dir"
		html = s.htmlRepo(r) + "/tree/" + url.PathEscape(ref) + "/" + escPath(p)
		git = base + "/git/trees/" + e.sha
	case "commit":
		typ = "submodule"
	default:
		if e.mode == "120000" {
			typ = "symlink"
		}
		size = len(s.store.blobs[e.sha].data)
		git = base + "/git/blobs/" + e.sha
		download = s.URL + "/raw/" + escPath(r.fullName()) + "/" + url.PathEscape(ref) + "/" + escPath(p)
	}
	name := p[strings.LastIndex(p, "/")+1:]
	m := obj{
		"type":         typ,
		"size":         size,
		"name":         name,
		"path":         p,
		"sha":          e.sha,
		"url":          self,
		"git_url":      git,
		"html_url":     html,
		"download_url": download,
		"_links":       obj{"self": self, "git": git, "html": html},
	}
	if withContent {
		m["encoding"] = "base64"
		m["content"] = wrapBase64(s.store.blobs[e.sha].data)
		if typ == "symlink" {
			m["target"] = string(s.store.blobs[e.sha].data)
		}
	}
	return m
}

// wrapBase64 encodes like GitHub: base64 with a newline every 60
// characters.
func wrapBase64(data []byte) string {
	enc := base64.StdEncoding.EncodeToString(data)
	var b strings.Builder
	for len(enc) > 60 {
		b.WriteString(enc[:60])
		b.WriteByte('\n')
		enc = enc[60:]
	}
	b.WriteString(enc)
	if b.Len() > 0 {
		b.WriteByte('\n')
	}
	return b.String()
}
