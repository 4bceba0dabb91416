package action_test

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/pact-action/pact-action/action"
	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/internal/testkit/e2e"
	"github.com/pact-action/pact-action/internal/testkit/fakegithub"
	"github.com/pact-action/pact-action/projection"
	"github.com/pact-action/pact-action/report"
)

// The repositories the tests start from, one seeder per kind of question:
//
//   - seedPR: a pull request whose pact a test writes line by line, with
//     provenance off (check mode's rules, Rule 2, history, rendering);
//   - provSeed: seats mapped to accounts, events committed (and signed) by
//     them, under a provenance policy (who wrote each line);
//   - newBotScenario: accounts with permissions, reviews and comments to
//     turn into events (bot mode);
//   - seedBudget: a pact of n tasks (API calls that must not grow with it).

// ---- seedPR ----

// scenario is one pull request seeded in a fake GitHub: base files on main,
// head files on branch (started from main).
type scenario struct {
	s       *fakegithub.Server
	number  int
	branch  string
	baseSHA string
	headSHA string
}

// seedPR commits base's pact to main (with provenanceOff) and head's pact to
// branch, and opens the pull request. A nil base leaves main without a pact.
func seedPR(t *testing.T, s *fakegithub.Server, base, head map[string]string, branch string) scenario {
	t.Helper()
	if base == nil {
		base = map[string]string{"README.md": "demo\n"}
	}
	base = with(base, ".github/pact.yml", provenanceOff)
	baseSHA := s.CommitFiles(e2e.Owner, e2e.Repo, "main", base, "lead")
	headSHA := s.CommitFiles(e2e.Owner, e2e.Repo, branch, head, "dev", fakegithub.From("main"))
	n := s.OpenPR(e2e.Owner, e2e.Repo, fakegithub.PRSeed{Head: branch, Base: "main"})
	return scenario{s: s, number: n, branch: branch, baseSHA: baseSHA, headSHA: headSHA}
}

// event is the pull_request webhook of the scenario's PR.
func (sc scenario) event(t *testing.T) event {
	t.Helper()
	return event{name: "pull_request", payload: prPayload(t, sc.s, sc.number, sc.branch, "main")}
}

// check runs check mode on the scenario's pull_request event.
func (sc scenario) check(t *testing.T) result {
	t.Helper()
	return sc.event(t).run(t, sc.s)
}

// ---- provSeed ----

// Provenance scenarios: main holds the init (line 1), the assign of T1 on
// feat/login owned by dev and reviewed by rev (line 2), and
// .github/pact.yml mapping the seats to the accounts below; the pull
// request adds dev's join and checkpoint (lines 3–4), committed and signed
// by dev's account, and then an accept of T1 (line 5) written by whoever
// the test says.
const (
	provLeadGH = "lead-gh"
	provDevGH  = "dev-gh"
	provRevGH  = "rev-gh"
	provBranch = "feat/login"
)

type provPR struct {
	s      *fakegithub.Server
	n      int
	log    *e2e.Log // the branch's log so far
	worked string   // the commit of the join and checkpoint
}

func provPactYML(mode, stale string) string {
	return fmt.Sprintf("seats:\n  lead: [%s]\n  dev: [%s]\n  rev: [%s]\nprovenance:\n  mode: %s\n  stale: %s\n", provLeadGH, provDevGH, provRevGH, mode, stale)
}

// provSeed seeds the repository and opens the pull request into main.
func provSeed(t *testing.T, mode, stale string) *provPR {
	t.Helper()
	p := provRepo(t, mode, stale)
	p.open(t, "main")
	return p
}

// provRepo seeds main and the branch, without opening the pull request.
func provRepo(t *testing.T, mode, stale string) *provPR {
	t.Helper()
	s := e2e.NewServer(t)
	base := e2e.NewLog().Assign("T1", "LOGIN", provBranch, "dev", "rev")
	files := base.Files()
	files[".github/pact.yml"] = provPactYML(mode, stale)
	files["src/login.go"] = "package login\n"
	s.CommitFiles(e2e.Owner, e2e.Repo, "main", files, provLeadGH, fakegithub.Verified())
	work := base.Copy().Join("dev").Checkpoint("dev", "T1", "LOGIN")
	sha := s.CommitFiles(e2e.Owner, e2e.Repo, provBranch, work.Files(), provDevGH, fakegithub.From("main"), fakegithub.Verified())
	return &provPR{s: s, log: work, worked: sha}
}

// open opens the pull request from the branch into base.
func (p *provPR) open(t *testing.T, base string) {
	t.Helper()
	p.n = p.s.OpenPR(e2e.Owner, e2e.Repo, fakegithub.PRSeed{Head: provBranch, Base: base, Author: provDevGH})
}

// accept appends rev's accept of T1 with payload and commits it as author.
func (p *provPR) accept(t *testing.T, payload any, author string, opts ...fakegithub.CommitOption) string {
	t.Helper()
	p.log.Add("rev", projection.TypeAccept, "T1", "LOGIN", payload)
	return p.s.CommitFiles(e2e.Owner, e2e.Repo, provBranch, p.log.Files(), author, opts...)
}

func (p *provPR) head() string { return p.s.BranchHead(e2e.Owner, e2e.Repo, provBranch) }

// check runs check mode on the pull request's head and returns its verdict
// and the check run, which must be completed with conclusion.
func (p *provPR) check(t *testing.T, conclusion string) (*action.Outcome, fakegithub.CheckRun) {
	t.Helper()
	head := p.head()
	out := event{name: "pull_request", payload: prPayload(t, p.s, p.n, provBranch, "main")}.run(t, p.s).only(t)
	return out, provVerdict(t, p.s, out, head, conclusion)
}

// provVerdict checks the one check run on head against the verdict.
func provVerdict(t *testing.T, s *fakegithub.Server, out *action.Outcome, head, conclusion string) fakegithub.CheckRun {
	t.Helper()
	run := onlyRun(t, s, head, "pact", conclusion)
	c := checks.Count(out.Findings)
	checkOutcome(t, out, run, 0, c.Errors, c.Warnings, c.Pending)
	if (c.Errors > 0) != (conclusion == report.ConclusionFailure) {
		t.Errorf("%d error(s) for conclusion %s", c.Errors, conclusion)
	}
	noViolations(t, s)
	return run
}

// provExpect is one finding a scenario must produce.
type provExpect struct {
	code     projection.Code
	severity checks.Severity
	line     int
	says     []string
}

// provWantFindings compares the findings with want (in the verdict's
// order) and checks that the check run's summary and annotations carry
// each message, so the explanation of the missing evidence reaches the
// reader.
func provWantFindings(t *testing.T, got []checks.Finding, run fakegithub.CheckRun, want ...provExpect) {
	t.Helper()
	if len(got) != len(want) {
		var b strings.Builder
		for _, f := range got {
			fmt.Fprintf(&b, "  %s %s %s:%d %s\n", f.Code, f.Severity, f.Path, f.Line, f.Message)
		}
		t.Fatalf("findings = %d, want %d:\n%s", len(got), len(want), b.String())
	}
	for i, w := range want {
		f := got[i]
		if f.Code != w.code || f.Severity != w.severity || f.Line != w.line || f.Path != logPath {
			t.Errorf("finding %d = %s %s %s:%d, want %s %s %s:%d", i, f.Code, f.Severity, f.Path, f.Line, w.code, w.severity, logPath, w.line)
		}
		for _, s := range w.says {
			if !strings.Contains(f.Message, s) {
				t.Errorf("finding %d (%s) message %q does not say %q", i, f.Code, f.Message, s)
			}
			if !strings.Contains(run.Summary, report.Escape(s)) {
				t.Errorf("the check run's summary does not say %q:\n%s", s, run.Summary)
			}
		}
	}
	checkAnnotations(t, run, got)
}

// ---- newBotScenario ----

// botSeatMap maps the seats of e2e.NewLog to GitHub accounts; rev has
// two accounts, one of them an app.
const botSeatMap = "seats:\n  lead: [leaduser]\n  dev: [devuser]\n  rev: [revuser, \"rev-agent[bot]\"]\n"

// botOpts describes the repository a bot test starts from: main holds the
// pact with T1 (owner dev, reviewer rev) assigned on feat/login and the seat
// map; feat/login has dev joined and T1 checkpointed, so T1 awaits review.
type botOpts struct {
	seatMap string // .github/pact.yml on main; "" is botSeatMap
	// twoTasks adds T2 (owner dev, reviewer lead) on feat/login, also
	// awaiting review.
	twoTasks bool
	// headFiles are extra files committed on the head branch.
	headFiles map[string]string
	// fork puts the head branch in forker/octo-repo.
	fork bool
	// taskID names the task under review; "" is T1.
	taskID string
}

type botScenario struct {
	s         *fakegithub.Server
	pr        int
	branch    string
	headOwner string
	baseSHA   string
	headSHA   string // the head when the PR was opened
	headLog   *e2e.Log
	files     map[string]string // every file of the head commit
}

func newBotScenario(t *testing.T, sc botOpts) *botScenario {
	t.Helper()
	s := e2e.NewServer(t)
	seatMap := sc.seatMap
	if seatMap == "" {
		seatMap = botSeatMap
	}
	id := cmp.Or(sc.taskID, "T1")
	base := e2e.NewLog().Assign(id, "LOGIN", "feat/login", "dev", "rev")
	if sc.twoTasks {
		base.Assign("T2", "LOGIN", "feat/login", "dev", "lead")
	}
	baseFiles := base.Files()
	baseFiles[".github/pact.yml"] = seatMap
	baseFiles["src/main.go"] = "package main\n"
	s.CommitFiles(e2e.Owner, e2e.Repo, "main", baseFiles, "leaduser")

	head := base.Copy().Join("dev").Checkpoint("dev", id, "LOGIN")
	if sc.twoTasks {
		head.Checkpoint("dev", "T2", "LOGIN")
	}
	headFiles := head.Files()
	headFiles["src/login.go"] = "package main\n\nfunc login() {}\n"
	for k, v := range sc.headFiles {
		headFiles[k] = v
	}
	b := &botScenario{s: s, branch: "feat/login", headOwner: e2e.Owner, headLog: head}
	seed := fakegithub.PRSeed{Head: b.branch, Base: "main", Author: "devuser"}
	if sc.fork {
		b.headOwner = "forker"
		s.ForkRepo(e2e.Owner, e2e.Repo, b.headOwner)
		seed.HeadOwner = b.headOwner
	}
	s.CommitFiles(b.headOwner, e2e.Repo, b.branch, headFiles, "devuser", fakegithub.From("main"))
	b.pr = s.OpenPR(e2e.Owner, e2e.Repo, seed)
	b.baseSHA = s.BranchHead(e2e.Owner, e2e.Repo, "main")
	b.headSHA = s.BranchHead(b.headOwner, e2e.Repo, b.branch)
	b.files = with(baseFiles)
	for k, v := range headFiles {
		b.files[k] = v
	}
	for _, u := range []string{"leaduser", "devuser", "revuser", "mallory"} {
		s.SetPermission(u, fakegithub.Write)
	}
	s.SetPermission("reader", fakegithub.Read)
	return b
}

// review submits a review of the head on the fake and returns its webhook
// (see reviewWebhook for state and body).
func (b *botScenario) review(t *testing.T, login, state string, body any) ([]byte, int64) {
	t.Helper()
	text, _ := body.(string)
	seedState := strings.ToUpper(state)
	if seedState != "APPROVED" && seedState != "CHANGES_REQUESTED" && seedState != "COMMENTED" && seedState != "DISMISSED" {
		seedState = "COMMENTED"
	}
	b.s.SetNow(mustTime(reviewTS))
	id := b.s.AddReview(b.pr, fakegithub.ReviewSeed{Login: login, State: seedState, Body: text, CommitID: b.headSHA})
	return reviewPayload(t, b.s, b.pr, b.headOwner, b.branch, reviewWebhook{id: id, login: login, state: state, body: body, commitID: b.headSHA}), id
}

// comment posts an issue comment on the PR and returns its issue_comment
// webhook.
func (b *botScenario) comment(t *testing.T, login, body, association string) ([]byte, int64) {
	t.Helper()
	return b.commentAt(t, commentTS, login, body, association)
}

// commentAt is comment, made at the given time.
func (b *botScenario) commentAt(t *testing.T, when, login, body, association string) ([]byte, int64) {
	t.Helper()
	b.s.SetNow(mustTime(when))
	id := b.s.AddComment(b.pr, login, body)
	return commentPayload(t, b.pr, id, when, login, body, association), id
}

// reviewComment posts a comment on the diff and returns its
// pull_request_review_comment webhook.
func (b *botScenario) reviewComment(t *testing.T, login, body string) ([]byte, int64) {
	t.Helper()
	b.s.SetNow(mustTime(commentTS))
	id := b.s.AddReviewComment(b.pr, login, body)
	edits := prEdits(b.s, b.pr, b.headOwner, b.branch, "main", login)
	edits["action"] = "created"
	edits["comment.id"] = id
	edits["comment.body"] = body
	edits["comment.user.login"] = login
	edits["comment.created_at"] = commentTS
	edits["comment.author_association"] = "MEMBER"
	edits["comment.html_url"] = fmt.Sprintf("https://github.example/%s/pull/%d#discussion_r%d", repoFull, b.pr, id)
	return e2e.Payload(t, "pull_request_review_comment/created.payload.json", edits), id
}

// run delivers a webhook to the action (mode auto).
func (b *botScenario) run(t *testing.T, name string, payload []byte) result {
	t.Helper()
	return event{name: name, payload: payload}.run(t, b.s)
}

func (b *botScenario) head() string { return b.s.BranchHead(b.headOwner, e2e.Repo, b.branch) }

// oneNewCommit is the one commit the bot added to the branch since the PR
// was opened and the events it appended; any other number of commits
// fails the test.
func (b *botScenario) oneNewCommit(t *testing.T) (fakegithub.CommitInfo, []loggedEvent) {
	t.Helper()
	commits := b.newCommits(t)
	if len(commits) != 1 {
		t.Fatalf("new commits on %s = %d, want exactly 1", b.branch, len(commits))
	}
	_, evs := appended(t, b.s, b.headSHA, commits[0].SHA)
	return commits[0], evs
}

// newCommits walks first parents from the branch head back to the head the
// PR was opened on and returns the commits in between, oldest first.
func (b *botScenario) newCommits(t *testing.T) []fakegithub.CommitInfo {
	t.Helper()
	var out []fakegithub.CommitInfo
	for sha := b.head(); sha != b.headSHA; {
		c, ok := b.s.Commit(sha)
		if !ok || len(c.Parents) == 0 || len(out) > 50 {
			t.Fatalf("the branch head does not descend from the PR's original head %s", b.headSHA)
		}
		if len(c.Parents) != 1 {
			t.Errorf("commit %s has %d parents; the bot writes linear history", sha, len(c.Parents))
		}
		out = append(out, c)
		sha = c.Parents[0]
	}
	slices.Reverse(out)
	return out
}

// replies returns the bodies of the bot's comments on the PR, without the
// hidden marker (which every one of them must carry).
func (b *botScenario) replies(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, c := range b.s.Comments(b.pr) {
		if c.Author != botAccount {
			continue
		}
		body, ok := strings.CutSuffix(c.Body, "\n\n"+replyMarker)
		if !ok {
			t.Errorf("bot reply without the hidden marker: %q", c.Body)
		}
		out = append(out, body)
	}
	return out
}

// reactions are the reactions on issue comment id ("login:content").
func (b *botScenario) reactions(id int64) []string {
	for _, c := range b.s.Comments(b.pr) {
		if c.ID == id {
			return c.Reactions
		}
	}
	return nil
}

// assertOnlyPactChanged checks that every file of the scenario other than
// the log and STATE.yml is unchanged at sha.
func (b *botScenario) assertOnlyPactChanged(t *testing.T, sha string) {
	t.Helper()
	for p, want := range b.files {
		if p == logPath || p == statePath {
			continue
		}
		if got, ok := b.s.FileAt(sha, p); !ok || got != want {
			t.Errorf("%s changed at %s (present %v)", p, sha, ok)
		}
	}
}

// assertNothingWritten: the branch did not move, no Git object was
// created, and no check run was posted on the head.
func (b *botScenario) assertNothingWritten(t *testing.T) {
	t.Helper()
	if h := b.head(); h != b.headSHA {
		t.Errorf("the branch moved from %s to %s", b.headSHA, h)
	}
	if n := gitWrites(b.s); n != 0 {
		t.Errorf("%d Git Data API writes, want none", n)
	}
	if runs := b.s.CheckRuns(b.headSHA); len(runs) != 0 {
		t.Errorf("check runs on the head: %+v", runs)
	}
}

// loggedEvent is a log line as the bot writes it.
type loggedEvent struct {
	EventID   string `json:"event_id"`
	TS        string `json:"ts"`
	AgentID   string `json:"agent_id"`
	Role      string `json:"role"`
	EventType string `json:"event_type"`
	TaskID    string `json:"task_id"`
	Feature   string `json:"feature"`
	Payload   struct {
		Reason *string `json:"reason"`
		Commit string  `json:"commit"`
		GitHub *struct {
			ReviewID  int64  `json:"review_id"`
			CommentID int64  `json:"comment_id"`
			URL       string `json:"url"`
			Login     string `json:"login"`
			HeadSHA   string `json:"head_sha"`
		} `json:"github"`
	} `json:"payload"`
}

// appended returns the lines the log at to has beyond the log at from,
// which must be a byte-exact prefix (the bot only appends).
func appended(t *testing.T, s *fakegithub.Server, from, to string) ([]string, []loggedEvent) {
	t.Helper()
	oldLog, ok1 := s.FileAt(from, logPath)
	newLog, ok2 := s.FileAt(to, logPath)
	if !ok1 || !ok2 {
		t.Fatalf("no %s at %s or %s", logPath, from, to)
	}
	rest, ok := strings.CutPrefix(newLog, oldLog)
	if !ok {
		t.Fatalf("the log at %s does not extend the log at %s:\n--- old\n%s--- new\n%s", to, from, oldLog, newLog)
	}
	if rest != "" && !strings.HasSuffix(rest, "\n") {
		t.Errorf("the new log does not end in a newline: %q", rest)
	}
	var lines []string
	var evs []loggedEvent
	for _, l := range strings.Split(strings.TrimSuffix(rest, "\n"), "\n") {
		if l == "" {
			continue
		}
		var ev loggedEvent
		if err := json.Unmarshal([]byte(l), &ev); err != nil {
			t.Fatalf("appended line is not JSON: %v\n%s", err, l)
		}
		lines, evs = append(lines, l), append(evs, ev)
	}
	return lines, evs
}

// stateReplays checks that STATE.yml at sha is exactly the rendering of a
// replay of the log at sha, that the replay rejects nothing, and returns
// the replayed state.
func stateReplays(t *testing.T, s *fakegithub.Server, sha string) *projection.State {
	t.Helper()
	logText, _ := s.FileAt(sha, logPath)
	state, ok := s.FileAt(sha, statePath)
	if !ok {
		t.Fatalf("no %s at %s", statePath, sha)
	}
	_, res := projection.ReadEvents([]byte(logText))
	if len(res.Rejections) != 0 {
		t.Errorf("the log at %s replays with rejections: %+v", sha, res.Rejections)
	}
	if want := string(projection.RenderBytes(res.State)); state != want {
		t.Errorf("%s at %s is not the replay's rendering\n--- got\n%s--- want\n%s", statePath, sha, state, want)
	}
	return res.State
}

func taskStatus(st *projection.State, id string) projection.TaskStatus {
	if t := st.Tasks[id]; t != nil {
		return t.Status
	}
	return ""
}

// ---- seedBudget ----

// budgetRepo is main with n tasks (T1 on feat/login, the rest on other
// branches), each with its task file, and a pull request from feat/login
// that adds dev's join (one commit) and T1's checkpoint with code (a second
// commit): a realistic PR of a few added events.
type budgetRepo struct {
	s     *fakegithub.Server
	pr    int
	head  string
	files map[string]string // the head commit's files
}

func seedBudget(t *testing.T, tasks int, provenance string, opts ...fakegithub.Option) *budgetRepo {
	t.Helper()
	s := e2e.NewServer(t, opts...)
	base := e2e.NewLog()
	for i := 1; i <= tasks; i++ {
		branch := fmt.Sprintf("feat/other-%d", i)
		if i == 1 {
			branch = "feat/login"
		}
		feature := fmt.Sprintf("F%d", i%10)
		if i == 1 {
			feature = "LOGIN"
		}
		base.Assign(fmt.Sprintf("T%d", i), feature, branch, "dev", "rev")
	}
	cfg := fmt.Sprintf("seats:\n  lead: [%s]\n  dev: [%s]\n  rev: [%s]\nprovenance:\n  mode: %s\n", provLeadGH, provDevGH, provRevGH, provenance)
	s.CommitFiles(e2e.Owner, e2e.Repo, "main", with(base.Files(), ".github/pact.yml", cfg, "src/main.go", "package main\n"), provLeadGH, fakegithub.Verified())
	joined := base.Copy().Join("dev")
	s.CommitFiles(e2e.Owner, e2e.Repo, "feat/login", joined.Files(), provDevGH, fakegithub.From("main"), fakegithub.Verified())
	work := joined.Copy().Checkpoint("dev", "T1", "LOGIN")
	files := with(work.Files(), "src/login.go", "package main\n\nfunc login() {}\n")
	head := s.CommitFiles(e2e.Owner, e2e.Repo, "feat/login", files, provDevGH, fakegithub.Verified())
	n := s.OpenPR(e2e.Owner, e2e.Repo, fakegithub.PRSeed{Head: "feat/login", Base: "main", Author: provDevGH})
	s.SetPermission(provRevGH, fakegithub.Write)
	// As the first check of the checkpoint left it: rev's review of T1
	// requested (budget rows that ask start from a clean slate).
	s.RequestReviews(n, provRevGH)
	return &budgetRepo{s: s, pr: n, head: head, files: files}
}

// approval submits rev's approval of the head and returns its webhook.
func (b *budgetRepo) approval(t *testing.T) []byte {
	t.Helper()
	b.s.SetNow(mustTime(reviewTS))
	id := b.s.AddReview(b.pr, fakegithub.ReviewSeed{Login: provRevGH, State: "APPROVED", CommitID: b.head})
	return reviewPayload(t, b.s, b.pr, e2e.Owner, "feat/login", reviewWebhook{id: id, login: provRevGH, state: "approved", commitID: b.head})
}
