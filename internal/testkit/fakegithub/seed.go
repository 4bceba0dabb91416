package fakegithub

import (
	"maps"
	"slices"
	"sort"
	"strings"
	"time"
)

// CommitOption adjusts CommitFiles.
type CommitOption func(*commitSeed)

type commitSeed struct {
	parents   []string
	hasParent bool
	from      string
	message   string
	committer *string
	verified  bool
	deletes   []string
	email     string
	special   map[string]fileEntry // symlinks and submodules by path
}

// WithParents sets the parents explicitly (none: a root commit; two: a
// merge commit). By default the parent is the branch head, or for a new
// branch the head of From's ref, or of the default branch.
func WithParents(shas ...string) CommitOption {
	return func(c *commitSeed) { c.parents, c.hasParent = shas, true }
}

// From starts a new branch from ref (a branch of the same repository or a
// commit SHA). It is ignored when the branch exists.
func From(ref string) CommitOption {
	return func(c *commitSeed) { c.from = ref }
}

// WithMessage sets the commit message (default "update <paths>").
func WithMessage(msg string) CommitOption {
	return func(c *commitSeed) { c.message = msg }
}

// WithCommitter sets the committer's GitHub login (default: the author).
func WithCommitter(login string) CommitOption {
	return func(c *commitSeed) { c.committer = &login }
}

// WithAuthorEmail sets the author e-mail (default login@users.noreply...).
func WithAuthorEmail(email string) CommitOption {
	return func(c *commitSeed) { c.email = email }
}

// Verified marks the commit signature as verified by GitHub.
func Verified() CommitOption {
	return func(c *commitSeed) { c.verified = true }
}

// Deleting removes paths in the commit.
func Deleting(paths ...string) CommitOption {
	return func(c *commitSeed) { c.deletes = append(c.deletes, paths...) }
}

// Symlink commits a symbolic link at path pointing at target (mode 120000).
func Symlink(path, target string) CommitOption {
	return func(c *commitSeed) { c.addSpecial(path, fileEntry{mode: "120000", typ: "blob", sha: "blob:" + target}) }
}

// Executable commits an executable file at path (mode 100755).
func Executable(path, content string) CommitOption {
	return func(c *commitSeed) {
		c.addSpecial(path, fileEntry{mode: "100755", typ: "blob", sha: "blob:" + content})
	}
}

// Submodule commits a submodule at path, at commit sha (mode 160000).
func Submodule(path, sha string) CommitOption {
	return func(c *commitSeed) { c.addSpecial(path, fileEntry{mode: "160000", typ: "commit", sha: sha}) }
}

func (c *commitSeed) addSpecial(path string, e fileEntry) {
	if c.special == nil {
		c.special = map[string]fileEntry{}
	}
	c.special[path] = e
}

// CreateRepo creates an empty repository (CommitFiles creates repositories
// on demand). defaultBranch "" means "main".
func (s *Server) CreateRepo(owner, repo, defaultBranch string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.repoLocked(owner, repo)
	if defaultBranch == "" {
		defaultBranch = "main"
	}
	r.defaultBranch = defaultBranch
}

// SetDefaultBranch makes branch the default branch of owner/repo, as an
// admin does in the repository's settings: GET /repos/{owner}/{repo}
// (default_branch) and GraphQL's Repository.defaultBranchRef name it.
func (s *Server) SetDefaultBranch(owner, repo, branch string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.repoLocked(owner, repo).defaultBranch = branch
}

// ForkRepo creates forkOwner/repo as a fork of owner/repo with the same
// branches. Both share the object store, like a GitHub fork network.
func (s *Server) ForkRepo(owner, repo, forkOwner string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	base := s.repos[strings.ToLower(owner+"/"+repo)]
	if base == nil {
		s.t.Fatalf("fakegithub: fork of unknown repository %s/%s", owner, repo)
	}
	f := s.repoLocked(forkOwner, repo)
	f.forkOf = base
	f.defaultBranch = base.defaultBranch
	for k, v := range base.refs {
		f.refs[k] = v
	}
}

// CommitFiles commits files (path → content) by author (a GitHub login;
// "" for an author with no GitHub account) on branch of owner/repo,
// creating the repository and the branch as needed, and returns the commit
// SHA. The first branch of a repository becomes its default branch.
func (s *Server) CommitFiles(owner, repo, branch string, files map[string]string, author string, opts ...CommitOption) string {
	s.t.Helper()
	var cs commitSeed
	for _, o := range opts {
		o(&cs)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.repoLocked(owner, repo)
	if r.defaultBranch == "" {
		r.defaultBranch = branch
	}
	refName := "refs/heads/" + branch
	parents := cs.parents
	if !cs.hasParent {
		switch {
		case r.refs[refName] != "":
			parents = []string{r.refs[refName]}
		case cs.from != "":
			sha := s.resolveRef(r, cs.from)
			if sha == "" {
				s.t.Fatalf("fakegithub: CommitFiles: unknown ref %q in %s", cs.from, r.fullName())
			}
			parents = []string{sha}
		case r.refs["refs/heads/"+r.defaultBranch] != "":
			parents = []string{r.refs["refs/heads/"+r.defaultBranch]}
		}
	}
	flat := map[string]fileEntry{}
	for _, p := range parents {
		if s.store.commits[p] == nil {
			s.t.Fatalf("fakegithub: CommitFiles: unknown parent %s", p)
		}
	}
	if len(parents) > 0 {
		flat = s.store.flatten(s.store.commits[parents[0]].tree)
	}
	var paths []string
	for p, content := range files {
		flat[p] = fileEntry{mode: "100644", typ: "blob", sha: s.store.putBlob([]byte(content))}
		paths = append(paths, p)
	}
	for p, e := range cs.special {
		if data, ok := strings.CutPrefix(e.sha, "blob:"); ok {
			e.sha = s.store.putBlob([]byte(data))
		}
		for k := range flat {
			if strings.HasPrefix(k, p+"/") {
				delete(flat, k) // a link or submodule replaces a directory
			}
		}
		flat[p] = e
		paths = append(paths, p)
	}
	for _, p := range cs.deletes {
		delete(flat, p)
		paths = append(paths, p)
	}
	sort.Strings(paths)
	msg := cs.message
	if msg == "" {
		msg = "update " + strings.Join(paths, ", ")
	}
	committer := author
	if cs.committer != nil {
		committer = *cs.committer
	}
	c := &commitObject{
		tree:           s.store.buildTree(flat),
		parents:        append([]string(nil), parents...),
		message:        msg,
		authorLogin:    author,
		committerLogin: committer,
		date:           s.tick(),
		verified:       cs.verified,
		reason:         "unsigned",
	}
	if cs.verified {
		c.reason = "valid"
	}
	c.authorName, c.authorEmail = identity(author, cs.email)
	c.committerName, c.committerEmail = identity(committer, "")
	sha := s.store.putCommit(c)
	s.setRefLocked(r, refName, sha, author)
	return sha
}

func identity(login, email string) (name, mail string) {
	if login == "" {
		if email == "" {
			email = "someone@example.com"
		}
		return "Someone", email
	}
	if email == "" {
		email = login + "@users.noreply.github.com"
	}
	return login, email
}

// SetBranch points branch of owner/repo at sha (a forced push).
func (s *Server) SetBranch(owner, repo, branch, sha string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.repoLocked(owner, repo)
	if s.store.commits[sha] == nil {
		s.t.Fatalf("fakegithub: SetBranch: unknown commit %s", sha)
	}
	if r.defaultBranch == "" {
		r.defaultBranch = branch
	}
	s.setRefLocked(r, "refs/heads/"+branch, sha, "")
}

// BranchHead returns the commit branch points at ("" if none).
func (s *Server) BranchHead(owner, repo, branch string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.repos[strings.ToLower(owner+"/"+repo)]
	if r == nil {
		return ""
	}
	return r.refs["refs/heads/"+branch]
}

// CommitInfo describes a stored commit.
type CommitInfo struct {
	SHA            string
	Parents        []string
	Message        string
	AuthorLogin    string
	CommitterLogin string
	Verified       bool
	// Date is the commit's author and committer date.
	Date time.Time
}

// Commit returns the stored commit sha.
func (s *Server) Commit(sha string) (CommitInfo, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.store.commits[sha]
	if c == nil {
		return CommitInfo{}, false
	}
	return CommitInfo{
		SHA: c.sha, Parents: append([]string(nil), c.parents...), Message: c.message,
		AuthorLogin: c.authorLogin, CommitterLogin: c.committerLogin, Verified: c.verified, Date: c.date,
	}, true
}

// TreeEntry is a file, link or submodule of a commit's tree.
type TreeEntry struct {
	Mode, Type, SHA string
}

// Tree lists the entries of commit sha's tree other than directories, by
// full path (nil for a commit the store lacks).
func (s *Server) Tree(sha string) map[string]TreeEntry {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.store.commits[sha]
	if c == nil {
		return nil
	}
	out := map[string]TreeEntry{}
	for p, e := range s.store.flatten(c.tree) {
		out[p] = TreeEntry{Mode: e.mode, Type: e.typ, SHA: e.sha}
	}
	return out
}

// CommitIDs lists the ids of every stored commit, sorted.
func (s *Server) CommitIDs() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Sorted(maps.Keys(s.store.commits))
}

// FileAt returns the content of path at ref: a commit SHA, a branch of
// the first repository created, or "owner/repo:branch".
func (s *Server) FileAt(ref, p string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sha := ref
	if s.store.commits[sha] == nil {
		var r *repoState
		name := ref
		if repoPart, branch, ok := strings.Cut(ref, ":"); ok {
			r, name = s.repos[strings.ToLower(repoPart)], branch
		} else if len(s.repoOrder) > 0 {
			r = s.repoOrder[0]
		}
		if r == nil {
			return "", false
		}
		sha = s.resolveRef(r, name)
	}
	c := s.store.commits[sha]
	if c == nil {
		return "", false
	}
	e, ok := s.store.lookupPath(c.tree, strings.Trim(p, "/"))
	if !ok || e.typ != "blob" {
		return "", false
	}
	return string(s.store.blobs[e.sha].data), true
}

// PRSeed describes a pull request to open.
type PRSeed struct {
	// Head and Base are branch names. Head lives in HeadOwner/HeadRepo
	// (a fork, see ForkRepo) when HeadOwner is set, else in the base
	// repository.
	Head, Base      string
	HeadOwner       string
	HeadRepo        string // default: the base repository's name
	Author          string // default: the head repository owner
	Title, Body     string
	Draft           bool
	DeletedHeadRepo bool // answer head.repo null, like a deleted fork
	// AuthorAssociation defaults to CONTRIBUTOR.
	AuthorAssociation string
}

// OpenPR opens a pull request on owner/repo and returns its number.
// Numbers are unique across the whole server (so Comments(number) needs
// no repository).
func (s *Server) OpenPR(owner, repo string, pr PRSeed) int {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.repos[strings.ToLower(owner+"/"+repo)]
	if r == nil {
		s.t.Fatalf("fakegithub: OpenPR: unknown repository %s/%s", owner, repo)
	}
	head := r
	if pr.HeadOwner != "" {
		name := pr.HeadRepo
		if name == "" {
			name = repo
		}
		head = s.repos[strings.ToLower(pr.HeadOwner+"/"+name)]
		if head == nil {
			s.t.Fatalf("fakegithub: OpenPR: unknown head repository %s/%s", pr.HeadOwner, name)
		}
	}
	headSHA := head.refs["refs/heads/"+pr.Head]
	baseSHA := r.refs["refs/heads/"+pr.Base]
	if headSHA == "" || baseSHA == "" {
		s.t.Fatalf("fakegithub: OpenPR: unknown branch %q or %q", pr.Head, pr.Base)
	}
	s.nextNumber++
	now := s.tick()
	p := &pullState{
		number: s.nextNumber, id: s.newID(), repo: r, headRepo: head,
		headRef: pr.Head, baseRef: pr.Base, headSHA: headSHA, baseSHA: baseSHA,
		author: pr.Author, title: pr.Title, body: pr.Body, draft: pr.Draft,
		state: "open", created: now, updated: now,
	}
	if p.author == "" {
		p.author = head.owner
	}
	if p.title == "" {
		p.title = "Merge " + pr.Head + " into " + pr.Base
	}
	p.assoc = pr.AuthorAssociation
	if p.assoc == "" {
		p.assoc = "CONTRIBUTOR"
	}
	s.pulls[p.number] = p
	return p.number
}

// ClosePR closes pull request number.
func (s *Server) ClosePR(number int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.pulls[number]
	if p == nil {
		s.t.Fatalf("fakegithub: ClosePR: unknown pull request %d", number)
	}
	p.headSHA, p.baseSHA = s.headSHA(p), s.baseSHA(p)
	p.state = "closed"
	p.closedAt = s.tick()
	p.updated = p.closedAt
}

// ReviewSeed describes a review to add.
type ReviewSeed struct {
	Login string
	// State is APPROVED, CHANGES_REQUESTED, COMMENTED, DISMISSED or
	// PENDING (default APPROVED).
	State string
	// CommitID defaults to the pull request's current head.
	CommitID string
	Body     string
}

// AddReview adds a submitted review to pull request number and returns its
// id.
func (s *Server) AddReview(number int, rv ReviewSeed) int64 {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.pulls[number]
	if p == nil {
		s.t.Fatalf("fakegithub: AddReview: unknown pull request %d", number)
	}
	st := &reviewState{id: s.newID(), login: rv.Login, state: strings.ToUpper(rv.State), commitID: rv.CommitID, body: rv.Body, submitted: s.tick()}
	if st.state == "" {
		st.state = "APPROVED"
	}
	if st.commitID == "" {
		st.commitID = s.headSHA(p)
	}
	p.reviews = append(p.reviews, st)
	if st.state != "PENDING" {
		s.reviewedLocked(p, st.login)
	}
	return st.id
}

// AddComment seeds an issue comment by login on pull request number.
func (s *Server) AddComment(number int, login, body string) int64 {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.pulls[number]
	if p == nil {
		s.t.Fatalf("fakegithub: AddComment: unknown pull request %d", number)
	}
	return s.addCommentLocked(p, login, body).id
}

func (s *Server) addCommentLocked(p *pullState, login, body string) *commentState {
	now := s.tick()
	c := &commentState{id: s.newID(), repo: p.repo, number: p.number, login: login, body: body, created: now, updated: now}
	s.comments[c.id] = c
	p.commentIDs = append(p.commentIDs, c.id)
	return c
}

// AddReviewComment seeds a review comment (on the diff) by login on pull
// request number.
func (s *Server) AddReviewComment(number int, login, body string) int64 {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.pulls[number]
	if p == nil {
		s.t.Fatalf("fakegithub: AddReviewComment: unknown pull request %d", number)
	}
	now := s.tick()
	c := &commentState{id: s.newID(), repo: p.repo, number: number, login: login, body: body, created: now, updated: now}
	s.reviewComments[c.id] = c
	return c.id
}

// Permission levels for SetPermission.
const (
	Admin    = "admin"
	Maintain = "maintain"
	Write    = "write"
	Triage   = "triage"
	Read     = "read"
	NoAccess = "none"
)

// SetPermission sets the permission of login on every repository: admin,
// maintain, write, triage, read or none. Users without a permission are
// unknown to the fake (404).
func (s *Server) SetPermission(login, level string) {
	switch level {
	case Admin, Maintain, Write, Triage, Read, NoAccess:
	default:
		s.t.Fatalf("fakegithub: SetPermission: unknown level %q", level)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.perms[strings.ToLower(login)] = level
}

// Annotation is a stored check run annotation.
type Annotation struct {
	Path       string
	StartLine  int
	EndLine    int
	Level      string
	Title      string
	Message    string
	RawDetails string
}

// CheckRun is a snapshot of a check run.
type CheckRun struct {
	ID         int64
	Repo       string // owner/name
	App        int64  // the app that created it
	Name       string
	HeadSHA    string
	Status     string
	Conclusion string
	ExternalID string
	DetailsURL string
	Title      string
	Summary    string
	Text       string
	// Annotations holds every annotation sent, across all updates.
	Annotations []Annotation
	// Requests counts the create and update requests of the run.
	Requests    int
	StartedAt   time.Time
	CompletedAt time.Time
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// CheckRuns returns the check runs on headSHA, oldest first.
func (s *Server) CheckRuns(headSHA string) []CheckRun {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []CheckRun
	for _, id := range sortedIDs(s.checkRuns) {
		cr := s.checkRuns[id]
		if cr.headSHA != headSHA {
			continue
		}
		out = append(out, CheckRun{
			ID: cr.id, Repo: cr.repo.fullName(), App: cr.app.ID, Name: cr.name, HeadSHA: cr.headSHA,
			Status: cr.status, Conclusion: cr.conclusion,
			ExternalID: deref(cr.externalID), DetailsURL: deref(cr.detailsURL),
			Title: deref(cr.title), Summary: deref(cr.summary), Text: deref(cr.text),
			Annotations: append([]Annotation(nil), cr.annotations...),
			Requests:    cr.requests, StartedAt: cr.started, CompletedAt: cr.completed,
		})
	}
	return out
}

// Comment is a snapshot of an issue comment.
type Comment struct {
	ID     int64
	Number int
	Author string
	Body   string
	// Reactions lists "login:content" in order.
	Reactions []string
}

// Comments returns the issue comments of pull request number, oldest
// first.
func (s *Server) Comments(number int) []Comment {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.pulls[number]
	if p == nil {
		return nil
	}
	var out []Comment
	for _, id := range p.commentIDs {
		c := s.comments[id]
		out = append(out, commentSnapshot(c))
	}
	return out
}

func commentSnapshot(c *commentState) Comment {
	cm := Comment{ID: c.id, Number: c.number, Author: c.login, Body: c.body}
	for _, r := range c.reactions {
		cm.Reactions = append(cm.Reactions, r.login+":"+r.content)
	}
	return cm
}

// ReviewComment returns review comment id with its reactions.
func (s *Server) ReviewComment(id int64) (Comment, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.reviewComments[id]
	if c == nil {
		return Comment{}, false
	}
	return commentSnapshot(c), true
}

// MergeBase returns the merge base the fake computes for two commits.
func (s *Server) MergeBase(a, b string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.store.mergeBase(a, b)
}

// RetargetPR changes the base branch of pull request number, as a user
// editing the pull request does.
func (s *Server) RetargetPR(number int, base string) {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.pulls[number]
	if p == nil || p.repo.refs["refs/heads/"+base] == "" {
		s.t.Fatalf("fakegithub: RetargetPR: unknown pull request %d or branch %q", number, base)
	}
	p.baseRef = base
	p.baseSHA = p.repo.refs["refs/heads/"+base]
	p.updated = s.tick()
}

// DismissReview dismisses review id of pull request number: its state
// becomes DISMISSED, as GitHub reports a dismissed review.
func (s *Server) DismissReview(number int, id int64) {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if p := s.pulls[number]; p != nil {
		for _, rv := range p.reviews {
			if rv.id == id {
				rv.state = "DISMISSED"
				return
			}
		}
	}
	s.t.Fatalf("fakegithub: DismissReview: unknown review %d of pull request %d", id, number)
}

// EditComment replaces the body of issue comment id, as its author (or
// anyone with write access to the repository) editing it does.
func (s *Server) EditComment(id int64, body string) {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.comments[id]
	if c == nil {
		c = s.reviewComments[id]
	}
	if c == nil {
		s.t.Fatalf("fakegithub: EditComment: unknown comment %d", id)
	}
	c.body = body
	c.updated = s.tick()
}

// ReviewInfo is a review as the fake holds it.
type ReviewInfo struct {
	ID          int64
	Login       string
	State       string
	CommitID    string
	SubmittedAt time.Time
}

// Review returns review id of pull request number.
func (s *Server) Review(number int, id int64) (ReviewInfo, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p := s.pulls[number]; p != nil {
		for _, rv := range p.reviews {
			if rv.id == id {
				return ReviewInfo{ID: rv.id, Login: rv.login, State: rv.state, CommitID: rv.commitID, SubmittedAt: rv.submitted}, true
			}
		}
	}
	return ReviewInfo{}, false
}

// CommentCreatedAt returns the creation time of comment id (issue or review
// comment).
func (s *Server) CommentCreatedAt(id int64) (time.Time, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c := s.comments[id]; c != nil {
		return c.created, true
	}
	if c := s.reviewComments[id]; c != nil {
		return c.created, true
	}
	return time.Time{}, false
}

// SetNow makes the next thing the fake records (a review, a comment, a
// commit, a push) happen at t; the clock goes on from there.
func (s *Server) SetNow(t time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.next = t.UTC()
}
