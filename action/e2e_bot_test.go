package action_test

// End-to-end tests of bot mode: the real pact-action binary, run the way a
// GitHub runner runs it, on webhook payloads adapted from GitHub's real
// examples, against the stateful fake GitHub of internal/testkit/fakegithub.

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pact-action/pact-action/bot"
	"github.com/pact-action/pact-action/internal/testkit/e2e"
	"github.com/pact-action/pact-action/internal/testkit/fakegithub"
	"github.com/pact-action/pact-action/projection"
	"github.com/pact-action/pact-action/report"
)

const (
	botRepoFull = e2e.Owner + "/" + e2e.Repo
	botLogin    = fakegithub.DefaultLogin // the workflow token's account (e2e.NewServer)
	// botReviewTS and botCommentTS are the submitted_at / created_at the payloads
	// carry: after every event of the e2e logs, as a real review would be.
	botReviewTS  = "2026-06-10T12:00:00Z"
	botCommentTS = "2026-06-10T12:30:00Z"
	// botReplyMarker is the hidden tag of the bot's replies (action/bot.go).
	botReplyMarker = "<!-- pact-action -->"
	botLogPath     = ".pact/log.jsonl"
	botStatePath   = ".pact/STATE.yml"
)

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
	base := e2e.NewLog().Assign("T1", "LOGIN", "feat/login", "dev", "rev")
	if sc.twoTasks {
		base.Assign("T2", "LOGIN", "feat/login", "dev", "lead")
	}
	baseFiles := base.Files()
	baseFiles[".github/pact.yml"] = seatMap
	baseFiles["src/main.go"] = "package main\n"
	s.CommitFiles(e2e.Owner, e2e.Repo, "main", baseFiles, "leaduser")

	head := base.Copy().Join("dev").Checkpoint("dev", "T1", "LOGIN")
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
	b.files = map[string]string{}
	for k, v := range baseFiles {
		b.files[k] = v
	}
	for k, v := range headFiles {
		b.files[k] = v
	}
	for _, u := range []string{"leaduser", "devuser", "revuser", "mallory"} {
		s.SetPermission(u, fakegithub.Write)
	}
	s.SetPermission("reader", fakegithub.Read)
	return b
}

// prEdits adapts a real payload's pull_request, repository and sender to
// this scenario.
func (b *botScenario) prEdits(sender string) map[string]any {
	return map[string]any{
		"pull_request.number": b.pr, "pull_request.state": "open",
		"pull_request.head.ref": b.branch, "pull_request.head.sha": b.headSHA,
		"pull_request.head.repo.full_name": b.headOwner + "/" + e2e.Repo, "pull_request.head.repo.name": e2e.Repo,
		"pull_request.base.ref": "main", "pull_request.base.sha": b.baseSHA,
		"pull_request.base.repo.full_name": botRepoFull, "pull_request.base.repo.name": e2e.Repo,
		"repository.full_name": botRepoFull, "repository.name": e2e.Repo, "repository.owner.login": e2e.Owner,
		"sender.login": sender,
	}
}

func mustTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

func botReviewURL(pr int, id int64) string {
	return fmt.Sprintf("https://github.example/%s/pull/%d#pullrequestreview-%d", botRepoFull, pr, id)
}

// review submits a review on the fake and returns its webhook payload (the
// webhook's state is lower-case, as GitHub sends it; state may override
// it). body nil is a review without a body (JSON null, as GitHub sends).
func (b *botScenario) review(t *testing.T, login, state string, body any) ([]byte, int64) {
	t.Helper()
	text, _ := body.(string)
	seedState := strings.ToUpper(state)
	if seedState != "APPROVED" && seedState != "CHANGES_REQUESTED" && seedState != "COMMENTED" && seedState != "DISMISSED" {
		seedState = "COMMENTED"
	}
	b.s.SetNow(mustTime(botReviewTS))
	id := b.s.AddReview(b.pr, fakegithub.ReviewSeed{Login: login, State: seedState, Body: text, CommitID: b.headSHA})
	edits := b.prEdits(login)
	edits["action"] = "submitted"
	edits["review.id"] = id
	edits["review.state"] = state
	edits["review.body"] = body
	edits["review.user.login"] = login
	edits["review.commit_id"] = b.headSHA
	edits["review.submitted_at"] = botReviewTS
	edits["review.html_url"] = botReviewURL(b.pr, id)
	return e2e.Payload(t, "pull_request_review/submitted.payload.json", edits), id
}

// comment posts an issue comment on the PR and returns its issue_comment
// webhook payload.
func (b *botScenario) comment(t *testing.T, login, body, association string) ([]byte, int64) {
	t.Helper()
	return b.commentAt(t, botCommentTS, login, body, association)
}

// commentAt is comment, made at the given time.
func (b *botScenario) commentAt(t *testing.T, when, login, body, association string) ([]byte, int64) {
	t.Helper()
	b.s.SetNow(mustTime(when))
	id := b.s.AddComment(b.pr, login, body)
	return e2e.Payload(t, "issue_comment/created.on-pull-request.go-playground-webhooks.json", map[string]any{
		"action":       "created",
		"issue.number": b.pr, "issue.state": "open",
		"issue.pull_request.url":      fmt.Sprintf("https://api.github.example/repos/%s/pulls/%d", botRepoFull, b.pr),
		"issue.pull_request.html_url": fmt.Sprintf("https://github.example/%s/pull/%d", botRepoFull, b.pr),
		"comment.id":                  id, "comment.body": body, "comment.user.login": login,
		"comment.created_at": when, "comment.updated_at": when,
		"comment.author_association": association,
		"comment.html_url":           fmt.Sprintf("https://github.example/%s/pull/%d#issuecomment-%d", botRepoFull, b.pr, id),
		"repository.full_name":       botRepoFull, "repository.name": e2e.Repo, "repository.owner.login": e2e.Owner,
		"sender.login": login,
	}), id
}

// reviewComment posts a comment on the diff and returns its
// pull_request_review_comment webhook payload.
func (b *botScenario) reviewComment(t *testing.T, login, body string) ([]byte, int64) {
	t.Helper()
	b.s.SetNow(mustTime(botCommentTS))
	id := b.s.AddReviewComment(b.pr, login, body)
	edits := b.prEdits(login)
	edits["action"] = "created"
	edits["comment.id"] = id
	edits["comment.body"] = body
	edits["comment.user.login"] = login
	edits["comment.created_at"] = botCommentTS
	edits["comment.author_association"] = "MEMBER"
	edits["comment.html_url"] = fmt.Sprintf("https://github.example/%s/pull/%d#discussion_r%d", botRepoFull, b.pr, id)
	return e2e.Payload(t, "pull_request_review_comment/created.payload.json", edits), id
}

func (b *botScenario) run(t *testing.T, event string, payload []byte) e2e.Result {
	t.Helper()
	return e2e.Run{Server: b.s, EventName: event, Payload: payload}.Exec(t)
}

func (b *botScenario) head() string { return b.s.BranchHead(b.headOwner, e2e.Repo, b.branch) }

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

// botEvent is a log line as the bot writes it.
type botEvent struct {
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

// botAppended returns the lines the log at to has beyond the log at from,
// which must be a byte-exact prefix (the bot only appends).
func botAppended(t *testing.T, s *fakegithub.Server, from, to string) ([]string, []botEvent) {
	t.Helper()
	oldLog, ok1 := s.FileAt(from, botLogPath)
	newLog, ok2 := s.FileAt(to, botLogPath)
	if !ok1 || !ok2 {
		t.Fatalf("no %s at %s or %s", botLogPath, from, to)
	}
	rest, ok := strings.CutPrefix(newLog, oldLog)
	if !ok {
		t.Fatalf("the log at %s does not extend the log at %s:\n--- old\n%s--- new\n%s", to, from, oldLog, newLog)
	}
	if rest != "" && !strings.HasSuffix(rest, "\n") {
		t.Errorf("the new log does not end in a newline: %q", rest)
	}
	var lines []string
	var evs []botEvent
	for _, l := range strings.Split(strings.TrimSuffix(rest, "\n"), "\n") {
		if l == "" {
			continue
		}
		var ev botEvent
		if err := json.Unmarshal([]byte(l), &ev); err != nil {
			t.Fatalf("appended line is not JSON: %v\n%s", err, l)
		}
		lines, evs = append(lines, l), append(evs, ev)
	}
	return lines, evs
}

// botStateReplays checks that STATE.yml at sha is exactly the rendering
// of a replay of the log at sha, that the replay rejects nothing, and
// returns the replayed state.
func botStateReplays(t *testing.T, s *fakegithub.Server, sha string) *projection.State {
	t.Helper()
	logText, _ := s.FileAt(sha, botLogPath)
	state, ok := s.FileAt(sha, botStatePath)
	if !ok {
		t.Fatalf("no %s at %s", botStatePath, sha)
	}
	res := projection.Replay(projection.ParseBytes([]byte(logText)))
	if len(res.Rejections) != 0 {
		t.Errorf("the log at %s replays with rejections: %+v", sha, res.Rejections)
	}
	if want := string(projection.RenderBytes(res.State)); state != want {
		t.Errorf("%s at %s is not the replay's rendering\n--- got\n%s--- want\n%s", botStatePath, sha, state, want)
	}
	return res.State
}

// assertOnlyPactChanged checks that every file of the scenario other than
// the log and STATE.yml is unchanged at sha.
func (b *botScenario) assertOnlyPactChanged(t *testing.T, sha string, also ...string) {
	t.Helper()
	for p, want := range b.files {
		if p == botLogPath || p == botStatePath || slices.Contains(also, p) {
			continue
		}
		if got, ok := b.s.FileAt(sha, p); !ok || got != want {
			t.Errorf("%s changed at %s (present %v)", p, sha, ok)
		}
	}
}

func botTaskStatus(st *projection.State, id string) projection.TaskStatus {
	if t := st.Tasks[id]; t != nil {
		return t.Status
	}
	return ""
}

// replies returns the bodies of the bot's comments on the PR, without the
// hidden marker (which every one of them must carry).
func (b *botScenario) replies(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, c := range b.s.Comments(b.pr) {
		if c.Author != botLogin {
			continue
		}
		body, ok := strings.CutSuffix(c.Body, "\n\n"+botReplyMarker)
		if !ok {
			t.Errorf("bot reply without the hidden marker: %q", c.Body)
		}
		out = append(out, body)
	}
	return out
}

func botReactions(s *fakegithub.Server, pr int, id int64) []string {
	for _, c := range s.Comments(pr) {
		if c.ID == id {
			return c.Reactions
		}
	}
	return nil
}

// botGitWrites counts Git Data API writes (blobs, trees, commits, ref moves).
func botGitWrites(s *fakegithub.Server) int {
	n := 0
	for _, r := range s.Requests() {
		switch r.Operation {
		case "git/create-blob", "git/create-tree", "git/create-commit", "git/update-ref", "repos/create-or-update-file-contents":
			n++
		}
	}
	return n
}

func botCountOp(s *fakegithub.Server, op string) int {
	n := 0
	for _, r := range s.Requests() {
		if r.Operation == op {
			n++
		}
	}
	return n
}

// assertNothingWritten: the branch did not move, no Git object was
// created, and no check run was posted on the head.
func (b *botScenario) assertNothingWritten(t *testing.T) {
	t.Helper()
	if h := b.head(); h != b.headSHA {
		t.Errorf("the branch moved from %s to %s", b.headSHA, h)
	}
	if n := botGitWrites(b.s); n != 0 {
		t.Errorf("%d Git Data API writes, want none", n)
	}
	if runs := b.s.CheckRuns(b.headSHA); len(runs) != 0 {
		t.Errorf("check runs on the head: %+v", runs)
	}
}

func botNoViolations(t *testing.T, s *fakegithub.Server) {
	t.Helper()
	if v := s.Violations(); len(v) != 0 {
		t.Errorf("OpenAPI violations: %v", v)
	}
}

func botExit(t *testing.T, res e2e.Result, code int) {
	t.Helper()
	if res.Code != code {
		t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", res.Code, code, res.Stdout, res.Stderr)
	}
}

// botOneCheck returns the single check run on sha.
func botOneCheck(t *testing.T, s *fakegithub.Server, sha, conclusion string) fakegithub.CheckRun {
	t.Helper()
	runs := s.CheckRuns(sha)
	if len(runs) != 1 {
		t.Fatalf("check runs on %s = %d, want 1: %+v", sha, len(runs), runs)
	}
	r := runs[0]
	if r.Name != "pact" || r.Status != "completed" || r.Conclusion != conclusion {
		t.Errorf("check run on %s: name %q status %q conclusion %q, want pact completed %s (title %q)", sha, r.Name, r.Status, r.Conclusion, conclusion, r.Title)
	}
	return r
}

func botContains(t *testing.T, what, text string, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if !strings.Contains(text, p) {
			t.Errorf("%s lacks %q:\n%s", what, p, text)
		}
	}
}

// ---- reviews ----

func TestBotApproveByReviewerRecordsAcceptAndChecksNewHead(t *testing.T) {
	t.Parallel()
	b := newBotScenario(t, botOpts{})
	payload, id := b.review(t, "revuser", "approved", "LGTM")

	res := b.run(t, "pull_request_review", payload)
	botExit(t, res, 0)

	commits := b.newCommits(t)
	if len(commits) != 1 {
		t.Fatalf("new commits on %s = %d, want exactly 1", b.branch, len(commits))
	}
	c := commits[0]
	if c.AuthorLogin != botLogin || !c.Verified {
		t.Errorf("commit author %q verified %v, want the workflow token's account and a GitHub-signed commit", c.AuthorLogin, c.Verified)
	}
	if !strings.HasPrefix(c.Message, "pact: accept T1") {
		t.Errorf("commit message %q", c.Message)
	}
	lines, evs := botAppended(t, b.s, b.headSHA, c.SHA)
	if len(evs) != 1 {
		t.Fatalf("appended %d lines, want 1: %q", len(evs), lines)
	}
	ev := evs[0]
	wantID := bot.EventID(botRepoFull, "review", id, "T1")
	if ev.EventID != wantID || len(ev.EventID) != 32 {
		t.Errorf("event_id = %q, want %q (derived from the review)", ev.EventID, wantID)
	}
	if ev.TS != botReviewTS || ev.AgentID != "rev" || ev.Role != "reviewer" || ev.EventType != "accept" || ev.TaskID != "T1" || ev.Feature != "LOGIN" {
		t.Errorf("appended event = %+v", ev)
	}
	if ev.Payload.Commit != b.headSHA {
		t.Errorf("payload.commit = %q, want the reviewed head %s", ev.Payload.Commit, b.headSHA)
	}
	g := ev.Payload.GitHub
	if g == nil || g.ReviewID != id || g.CommentID != 0 || g.URL != botReviewURL(b.pr, id) || g.Login != "revuser" || g.HeadSHA != b.headSHA {
		t.Errorf("payload.github = %+v", g)
	}
	st := botStateReplays(t, b.s, c.SHA)
	if got := botTaskStatus(st, "T1"); got != projection.StatusAccepted {
		t.Errorf("T1 is %s after the approval", got)
	}
	b.assertOnlyPactChanged(t, c.SHA)

	run := botOneCheck(t, b.s, c.SHA, report.ConclusionSuccess)
	if run.DetailsURL == "" {
		t.Errorf("check run without details URL")
	}
	if runs := b.s.CheckRuns(b.headSHA); len(runs) != 0 {
		t.Errorf("the bot posted on the old head too: %+v", runs)
	}
	if r := b.replies(t); len(r) != 0 {
		t.Errorf("replies to a recorded approval: %q", r)
	}
	botContains(t, "stdout", res.Stdout, "recorded 1 event(s)", c.SHA)
	botNoViolations(t, b.s)
}

func TestBotReviewStateIsCaseInsensitiveAndSeatsHaveSeveralLogins(t *testing.T) {
	t.Parallel()
	b := newBotScenario(t, botOpts{})
	// The REST spelling, from the seat's second account (an app).
	payload, id := b.review(t, "rev-agent[bot]", "APPROVED", nil)

	botExit(t, b.run(t, "pull_request_review", payload), 0)

	commits := b.newCommits(t)
	if len(commits) != 1 {
		t.Fatalf("new commits = %d, want 1", len(commits))
	}
	_, evs := botAppended(t, b.s, b.headSHA, commits[0].SHA)
	if len(evs) != 1 || evs[0].EventType != "accept" || evs[0].AgentID != "rev" || evs[0].Payload.GitHub == nil ||
		evs[0].Payload.GitHub.Login != "rev-agent[bot]" || evs[0].EventID != bot.EventID(botRepoFull, "review", id, "T1") {
		t.Errorf("appended = %+v", evs)
	}
	botOneCheck(t, b.s, commits[0].SHA, report.ConclusionSuccess)
	botNoViolations(t, b.s)
}

func TestBotSameDeliveryTwiceAppendsOnce(t *testing.T) {
	t.Parallel()
	b := newBotScenario(t, botOpts{})
	payload, id := b.review(t, "revuser", "approved", nil)

	botExit(t, b.run(t, "pull_request_review", payload), 0)
	first := b.head()
	writes := botGitWrites(b.s)
	// GitHub redelivers the webhook (or the job is re-run): same payload.
	res := b.run(t, "pull_request_review", payload)
	botExit(t, res, 0)

	if h := b.head(); h != first {
		t.Errorf("the redelivery moved the branch from %s to %s", first, h)
	}
	if n := botGitWrites(b.s); n != writes {
		t.Errorf("the redelivery made %d Git writes", n-writes)
	}
	commits := b.newCommits(t)
	if len(commits) != 1 {
		t.Fatalf("new commits = %d, want 1", len(commits))
	}
	_, evs := botAppended(t, b.s, b.headSHA, b.head())
	if len(evs) != 1 || evs[0].EventID != bot.EventID(botRepoFull, "review", id, "T1") {
		t.Errorf("appended after two deliveries = %+v, want the one accept", evs)
	}
	logText, _ := b.s.FileAt(b.head(), botLogPath)
	if n := strings.Count(logText, evs[0].EventID); n != 1 {
		t.Errorf("event_id appears %d times in the log", n)
	}
	if r := b.replies(t); len(r) != 0 {
		t.Errorf("replies: %q", r)
	}
	botContains(t, "stdout of the redelivery", res.Stdout, "nothing recorded")
	botOneCheck(t, b.s, first, report.ConclusionSuccess)
	botNoViolations(t, b.s)
}

func TestBotApproveByOwnerIsRefused(t *testing.T) {
	t.Parallel()
	b := newBotScenario(t, botOpts{})
	payload, _ := b.review(t, "devuser", "approved", "self-review, looks fine")

	botExit(t, b.run(t, "pull_request_review", payload), 0)

	b.assertNothingWritten(t)
	r := b.replies(t)
	if len(r) != 1 {
		t.Fatalf("replies = %q, want one refusal", r)
	}
	botContains(t, "refusal", r[0], "Rule 1", "no self-acceptance", "@devuser", "`dev`", "`T1`", "`rev`", "Nothing was recorded",
		"Ask an account that holds `rev` and not `dev`", ".github/pact.yml")
	botNoViolations(t, b.s)
}

func TestBotApproveByOwnerHoldingReviewerSeatTooIsRefused(t *testing.T) {
	t.Parallel()
	// devuser holds both seats of T1: Rule 1 still refuses.
	b := newBotScenario(t, botOpts{seatMap: "seats:\n  lead: [leaduser]\n  dev: [devuser]\n  rev: [revuser, devuser]\n"})
	payload, _ := b.review(t, "devuser", "approved", nil)

	botExit(t, b.run(t, "pull_request_review", payload), 0)

	b.assertNothingWritten(t)
	r := b.replies(t)
	if len(r) != 1 {
		t.Fatalf("replies = %q, want one refusal", r)
	}
	botContains(t, "refusal", r[0], "Rule 1", "owns task `T1`", "`dev`", "even if it also holds the reviewer seat `rev`")
	botNoViolations(t, b.s)
}

func TestBotChangesRequested(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		body any
	}{
		{"with body", "Please handle the expired-token case.\n\nAnd add a test."},
		{"without body", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := newBotScenario(t, botOpts{})
			payload, id := b.review(t, "revuser", "changes_requested", tc.body)

			botExit(t, b.run(t, "pull_request_review", payload), 0)

			commits := b.newCommits(t)
			if len(commits) != 1 {
				t.Fatalf("new commits = %d, want 1", len(commits))
			}
			_, evs := botAppended(t, b.s, b.headSHA, commits[0].SHA)
			if len(evs) != 1 {
				t.Fatalf("appended %d events", len(evs))
			}
			ev := evs[0]
			if ev.EventType != "changes_requested" || ev.AgentID != "rev" || ev.Role != "reviewer" || ev.TaskID != "T1" ||
				ev.TS != botReviewTS || ev.EventID != bot.EventID(botRepoFull, "review", id, "T1") {
				t.Errorf("appended event = %+v", ev)
			}
			if ev.Payload.Reason == nil {
				t.Fatalf("changes_requested without payload.reason")
			}
			if body, ok := tc.body.(string); ok {
				if *ev.Payload.Reason != body {
					t.Errorf("reason = %q, want the review body %q", *ev.Payload.Reason, body)
				}
			} else if !strings.Contains(*ev.Payload.Reason, botReviewURL(b.pr, id)) {
				t.Errorf("default reason %q does not link the review", *ev.Payload.Reason)
			}
			if g := ev.Payload.GitHub; g == nil || g.ReviewID != id || g.Login != "revuser" || g.HeadSHA != b.headSHA {
				t.Errorf("payload.github = %+v", g)
			}
			st := botStateReplays(t, b.s, commits[0].SHA)
			if got := botTaskStatus(st, "T1"); got != projection.StatusInProgress {
				t.Errorf("T1 is %s after changes were requested, want in_progress", got)
			}
			if task := st.Tasks["T1"]; task == nil || task.Rounds != 1 {
				t.Errorf("T1 after one round of changes: %+v", task)
			}
			// Waiting again: the check blocks the merge without failing.
			botOneCheck(t, b.s, commits[0].SHA, report.ConclusionWaiting)
			if r := b.replies(t); len(r) != 0 {
				t.Errorf("replies: %q", r)
			}
			botNoViolations(t, b.s)
		})
	}
}

func TestBotReviewsThatRecordNothing(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		payload func(t *testing.T, b *botScenario) []byte
	}{
		{"commented", func(t *testing.T, b *botScenario) []byte {
			p, _ := b.review(t, "revuser", "commented", "a question")
			return p
		}},
		{"commented upper case", func(t *testing.T, b *botScenario) []byte {
			p, _ := b.review(t, "revuser", "COMMENTED", "a question")
			return p
		}},
		{"approved by a reviewer with no seat", func(t *testing.T, b *botScenario) []byte {
			p, _ := b.review(t, "mallory", "approved", "drive-by LGTM")
			return p
		}},
		{"changes requested by a reviewer with no seat", func(t *testing.T, b *botScenario) []byte {
			p, _ := b.review(t, "mallory", "changes_requested", "no")
			return p
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := newBotScenario(t, botOpts{})
			res := b.run(t, "pull_request_review", tc.payload(t, b))
			botExit(t, res, 0)
			b.assertNothingWritten(t)
			if c := b.s.Comments(b.pr); len(c) != 0 {
				t.Errorf("comments: %+v", c)
			}
			botNoViolations(t, b.s)
		})
	}
}

// A dismissed review records nothing, but what backs the log changed (an
// accept that cited it no longer verifies), so the check is judged again on
// the head.
func TestBotDismissedReviewRejudgesTheHead(t *testing.T) {
	t.Parallel()
	b := newBotScenario(t, botOpts{})
	id := b.s.AddReview(b.pr, fakegithub.ReviewSeed{Login: "revuser", State: "DISMISSED"})
	edits := b.prEdits("leaduser")
	edits["review.id"] = id
	edits["review.user.login"] = "revuser"
	edits["review.commit_id"] = b.headSHA
	edits["review.submitted_at"] = botReviewTS
	res := b.run(t, "pull_request_review", e2e.Payload(t, "pull_request_review/dismissed.payload.json", edits))
	botExit(t, res, 0)
	if h := b.head(); h != b.headSHA || botGitWrites(b.s) != 0 {
		t.Errorf("a dismissal wrote to the branch")
	}
	botOneCheck(t, b.s, b.headSHA, report.ConclusionWaiting)
	if c := b.s.Comments(b.pr); len(c) != 0 {
		t.Errorf("comments: %+v", c)
	}
	botNoViolations(t, b.s)
}

func TestBotSeatHolderWhoseReviewConcernsNoTaskGetsAShortReply(t *testing.T) {
	t.Parallel()
	// leaduser holds lead, but T1 is reviewed by rev.
	b := newBotScenario(t, botOpts{})
	payload, _ := b.review(t, "leaduser", "approved", nil)

	botExit(t, b.run(t, "pull_request_review", payload), 0)

	b.assertNothingWritten(t)
	r := b.replies(t)
	if len(r) != 1 {
		t.Fatalf("replies = %q, want one", r)
	}
	botContains(t, "reply", r[0], "@leaduser", "`lead`", "feat/login", "recorded nothing", "`T1`", "LOGIN", "rev")
	botNoViolations(t, b.s)
}

func TestBotBaseBranchSeatMapWins(t *testing.T) {
	t.Parallel()
	// The PR rewrites .github/pact.yml so that its author, T1's owner, holds
	// the reviewer seat and nothing else. The bot must read main's file.
	headConfig := "seats:\n  lead: [leaduser]\n  dev: [someone-else]\n  rev: [devuser]\n"
	t.Run("review", func(t *testing.T) {
		t.Parallel()
		b := newBotScenario(t, botOpts{headFiles: map[string]string{".github/pact.yml": headConfig}})
		if got, _ := b.s.FileAt(b.headSHA, ".github/pact.yml"); got != headConfig {
			t.Fatalf("fixture: the head does not carry the edited seat map")
		}
		payload, _ := b.review(t, "devuser", "approved", nil)
		botExit(t, b.run(t, "pull_request_review", payload), 0)
		b.assertNothingWritten(t)
		r := b.replies(t)
		if len(r) != 1 {
			t.Fatalf("replies = %q, want one refusal", r)
		}
		botContains(t, "refusal", r[0], "Rule 1", "`T1`", "`dev`")
		botNoViolations(t, b.s)
	})
	t.Run("command", func(t *testing.T) {
		t.Parallel()
		b := newBotScenario(t, botOpts{headFiles: map[string]string{".github/pact.yml": headConfig}})
		payload, id := b.comment(t, "devuser", "/pact accept T1", "CONTRIBUTOR")
		botExit(t, b.run(t, "issue_comment", payload), 0)
		b.assertNothingWritten(t)
		r := b.replies(t)
		if len(r) != 1 {
			t.Fatalf("replies = %q, want one refusal", r)
		}
		botContains(t, "refusal", r[0], "Rule 1", "`T1`", "`dev`")
		if got := botReactions(b.s, b.pr, id); len(got) != 0 {
			t.Errorf("a refused command got reactions %q", got)
		}
		botNoViolations(t, b.s)
	})
}

// ---- slash commands ----

func TestBotSlashAcceptByWriter(t *testing.T) {
	t.Parallel()
	b := newBotScenario(t, botOpts{})
	payload, id := b.comment(t, "revuser", "Looks good to me.\n/pact accept T1\n", "MEMBER")

	res := b.run(t, "issue_comment", payload)
	botExit(t, res, 0)

	commits := b.newCommits(t)
	if len(commits) != 1 {
		t.Fatalf("new commits = %d, want 1", len(commits))
	}
	_, evs := botAppended(t, b.s, b.headSHA, commits[0].SHA)
	if len(evs) != 1 {
		t.Fatalf("appended %d events", len(evs))
	}
	ev := evs[0]
	if ev.EventID != bot.EventID(botRepoFull, "issue_comment#0", id, "T1") || ev.TS != botCommentTS || ev.AgentID != "rev" ||
		ev.Role != "reviewer" || ev.EventType != "accept" || ev.TaskID != "T1" || ev.Feature != "LOGIN" || ev.Payload.Commit != b.headSHA {
		t.Errorf("appended event = %+v", ev)
	}
	if g := ev.Payload.GitHub; g == nil || g.CommentID != id || g.ReviewID != 0 || g.Login != "revuser" || g.HeadSHA != b.headSHA ||
		!strings.HasSuffix(g.URL, fmt.Sprintf("#issuecomment-%d", id)) {
		t.Errorf("payload.github = %+v", g)
	}
	botStateReplays(t, b.s, commits[0].SHA)
	b.assertOnlyPactChanged(t, commits[0].SHA)
	botOneCheck(t, b.s, commits[0].SHA, report.ConclusionSuccess)
	if got := botReactions(b.s, b.pr, id); !slices.Equal(got, []string{botLogin + ":+1"}) {
		t.Errorf("reactions = %q, want the bot's +1", got)
	}
	if r := b.replies(t); len(r) != 0 {
		t.Errorf("replies: %q", r)
	}
	if n := botCountOp(b.s, "repos/get-collaborator-permission-level"); n != 1 {
		t.Errorf("permission endpoint asked %d times, want 1 (author_association MEMBER grants nothing by itself)", n)
	}
	botNoViolations(t, b.s)
}

func TestBotSameCommentTwiceAppendsOnce(t *testing.T) {
	t.Parallel()
	b := newBotScenario(t, botOpts{})
	payload, id := b.comment(t, "revuser", "/pact accept T1", "MEMBER")

	botExit(t, b.run(t, "issue_comment", payload), 0)
	first := b.head()
	botExit(t, b.run(t, "issue_comment", payload), 0)

	if h := b.head(); h != first {
		t.Errorf("the redelivery moved the branch")
	}
	if commits := b.newCommits(t); len(commits) != 1 {
		t.Errorf("new commits = %d, want 1", len(commits))
	}
	if _, evs := botAppended(t, b.s, b.headSHA, b.head()); len(evs) != 1 {
		t.Errorf("appended = %+v, want one accept", evs)
	}
	// Already recorded is not a failure: no "confused" reaction.
	if got := botReactions(b.s, b.pr, id); !slices.Equal(got, []string{botLogin + ":+1"}) {
		t.Errorf("reactions = %q, want only the bot's +1", got)
	}
	if r := b.replies(t); len(r) != 0 {
		t.Errorf("replies: %q", r)
	}
	botNoViolations(t, b.s)
}

func TestBotCommandRefusedByReplayOfCurrentLog(t *testing.T) {
	t.Parallel()
	b := newBotScenario(t, botOpts{})
	// Its reviewer approves and, a little later, also types the command;
	// the approval is recorded first. At the comment's head T1 awaited
	// review, so the bot plans the accept, and the engine refuses it
	// against the branch's current log.
	review, _ := b.review(t, "revuser", "approved", nil)
	payload, id := b.comment(t, "revuser", "/pact accept T1", "MEMBER")
	botExit(t, b.run(t, "pull_request_review", review), 0)
	accepted := b.head()
	writes := botGitWrites(b.s)

	botExit(t, b.run(t, "issue_comment", payload), 0)

	if h := b.head(); h != accepted || botGitWrites(b.s) != writes {
		t.Errorf("a refused command wrote to the branch")
	}
	r := b.replies(t)
	if len(r) != 1 {
		t.Fatalf("replies = %q, want one refusal", r)
	}
	botContains(t, "refusal", r[0], "refused", "accept T1", "state.invalid_transition", "Nothing was recorded")
	if got := botReactions(b.s, b.pr, id); !slices.Equal(got, []string{botLogin + ":confused"}) {
		t.Errorf("reactions = %q, want the bot's confused", got)
	}
	if runs := b.s.CheckRuns(accepted); len(runs) != 1 {
		t.Errorf("check runs on the head = %d, want only the approval's", len(runs))
	}
	botNoViolations(t, b.s)

	// Typed once more now that T1 is accepted at the head: the bot plans
	// against the log when the comment was made, and refuses there.
	again, againID := b.commentAt(t, "2026-06-10T13:30:00Z", "revuser", "/pact accept T1", "MEMBER")
	botExit(t, b.run(t, "issue_comment", again), 0)
	r = b.replies(t)
	if len(r) != 2 {
		t.Fatalf("replies = %q, want a second refusal", r)
	}
	botContains(t, "refusal", r[1], "T1", "was not awaiting review at commit", "nothing was recorded")
	if got := botReactions(b.s, b.pr, againID); !slices.Equal(got, []string{botLogin + ":confused"}) {
		t.Errorf("reactions = %q, want the bot's confused", got)
	}
}

func TestBotSlashChangesInReviewComment(t *testing.T) {
	t.Parallel()
	b := newBotScenario(t, botOpts{})
	payload, id := b.reviewComment(t, "revuser", "/pact changes T1 the error path returns nil, please return the error")

	botExit(t, b.run(t, "pull_request_review_comment", payload), 0)

	commits := b.newCommits(t)
	if len(commits) != 1 {
		t.Fatalf("new commits = %d, want 1", len(commits))
	}
	_, evs := botAppended(t, b.s, b.headSHA, commits[0].SHA)
	if len(evs) != 1 || evs[0].EventType != "changes_requested" || evs[0].Payload.Reason == nil ||
		*evs[0].Payload.Reason != "the error path returns nil, please return the error" || evs[0].AgentID != "rev" || evs[0].TS != botCommentTS {
		t.Fatalf("appended = %+v", evs)
	}
	botStateReplays(t, b.s, commits[0].SHA)
	botOneCheck(t, b.s, commits[0].SHA, report.ConclusionWaiting)
	if c, ok := b.s.ReviewComment(id); !ok || !slices.Equal(c.Reactions, []string{botLogin + ":+1"}) {
		t.Errorf("review comment reactions = %+v", c.Reactions)
	}
	botNoViolations(t, b.s)
}

func TestBotSlashCommandByReadOnlyUser(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, association string
		askEndpoint       int
	}{
		// author_association never grants: the endpoint says read.
		{"association OWNER", "OWNER", 1},
		{"association CONTRIBUTOR", "CONTRIBUTOR", 1},
		// A read-only association refuses at once.
		{"association NONE", "NONE", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := newBotScenario(t, botOpts{seatMap: "seats:\n  lead: [leaduser]\n  dev: [devuser]\n  rev: [reader]\n"})
			payload, id := b.comment(t, "reader", "/pact accept T1", tc.association)

			botExit(t, b.run(t, "issue_comment", payload), 0)

			b.assertNothingWritten(t)
			r := b.replies(t)
			if len(r) != 1 {
				t.Fatalf("replies = %q, want one", r)
			}
			botContains(t, "refusal", r[0], "@reader", "write permission", "`/pact accept`", "nothing was recorded")
			if got := botReactions(b.s, b.pr, id); len(got) != 0 {
				t.Errorf("reactions on a refused command: %q", got)
			}
			if n := botCountOp(b.s, "repos/get-collaborator-permission-level"); n != tc.askEndpoint {
				t.Errorf("permission endpoint asked %d times, want %d", n, tc.askEndpoint)
			}
			botNoViolations(t, b.s)
		})
	}
}

func TestBotSlashCommandRule1Refusals(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, login, body string
		want              []string
	}{
		{"owner accepts", "devuser", "/pact accept T1", []string{"Rule 1", "no self-acceptance", "`T1`", "`dev`", "`rev`", "Nothing was recorded"}},
		{"owner requests changes", "devuser", "/pact changes T1 meh", []string{"Rule 1", "request changes on", "`T1`", "`dev`"}},
		{"another seat's holder", "leaduser", "/pact accept T1", []string{"Rule 1", "only the reviewer", "`T1`", "seat `rev`", "holds `lead`", "/pact accept T1"}},
		{"no seat at all", "mallory", "/pact accept T1", []string{"Rule 1", "`T1`", "seat `rev`", "@mallory holds no seat"}},
		{"unknown task", "revuser", "/pact accept T9", []string{"no task `T9`", "nothing was recorded", "`T1`"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := newBotScenario(t, botOpts{})
			payload, id := b.comment(t, tc.login, tc.body, "COLLABORATOR")

			botExit(t, b.run(t, "issue_comment", payload), 0)

			b.assertNothingWritten(t)
			r := b.replies(t)
			if len(r) != 1 {
				t.Fatalf("replies = %q, want one", r)
			}
			botContains(t, "refusal", r[0], tc.want...)
			if got := botReactions(b.s, b.pr, id); len(got) != 0 {
				t.Errorf("reactions on a refused command: %q", got)
			}
			botNoViolations(t, b.s)
		})
	}
}

func TestBotSeveralCommandsInOneComment(t *testing.T) {
	t.Parallel()
	// revuser holds rev (T1's reviewer) and lead (T2's reviewer).
	b := newBotScenario(t, botOpts{twoTasks: true, seatMap: "seats:\n  lead: [leaduser, revuser]\n  dev: [devuser]\n  rev: [revuser]\n"})
	body := "Two things:\r\n\r\n/pact accept T1\r\n  /pact changes T2 needs a test for the expired token\r\n/pact status\r\nthanks"
	payload, id := b.comment(t, "revuser", body, "MEMBER")

	botExit(t, b.run(t, "issue_comment", payload), 0)

	commits := b.newCommits(t)
	if len(commits) != 1 {
		t.Fatalf("new commits = %d, want one commit holding both events", len(commits))
	}
	newHead := commits[0].SHA
	_, evs := botAppended(t, b.s, b.headSHA, newHead)
	if len(evs) != 2 {
		t.Fatalf("appended %d events, want 2: %+v", len(evs), evs)
	}
	if e := evs[0]; e.EventType != "accept" || e.TaskID != "T1" || e.AgentID != "rev" || e.TS != botCommentTS ||
		e.EventID != bot.EventID(botRepoFull, "issue_comment#0", id, "T1") {
		t.Errorf("first event = %+v", e)
	}
	if e := evs[1]; e.EventType != "changes_requested" || e.TaskID != "T2" || e.AgentID != "lead" || e.Role != "reviewer" ||
		e.TS != botCommentTS || e.EventID != bot.EventID(botRepoFull, "issue_comment#1", id, "T2") ||
		e.Payload.Reason == nil || *e.Payload.Reason != "needs a test for the expired token" {
		t.Errorf("second event = %+v", e)
	}
	if evs[0].EventID == evs[1].EventID {
		t.Errorf("both events share event_id %s", evs[0].EventID)
	}
	st := botStateReplays(t, b.s, newHead)
	if botTaskStatus(st, "T1") != projection.StatusAccepted || botTaskStatus(st, "T2") != projection.StatusInProgress {
		t.Errorf("T1 %s, T2 %s", botTaskStatus(st, "T1"), botTaskStatus(st, "T2"))
	}
	botOneCheck(t, b.s, newHead, report.ConclusionWaiting)
	r := b.replies(t)
	if len(r) != 1 {
		t.Fatalf("replies = %q, want the status table", r)
	}
	// The status is the pact after this comment's own commands.
	botContains(t, "status reply", r[0], "pact status for `feat/login`", "T1", "T2", "waiting")
	if !strings.Contains(r[0], "| T1 | ✅ accepted |") || !strings.Contains(r[0], "| T2 | in_progress (1 change round(s)) |") {
		t.Errorf("the status reply does not show this comment's own events (judged before the write?):\n%s", r[0])
	}
	if got := botReactions(b.s, b.pr, id); !slices.Equal(got, []string{botLogin + ":+1"}) {
		t.Errorf("reactions = %q", got)
	}
	botNoViolations(t, b.s)
}

func TestBotStatusRecheckAndHelp(t *testing.T) {
	t.Parallel()
	t.Run("status", func(t *testing.T) {
		t.Parallel()
		b := newBotScenario(t, botOpts{})
		// Reading the status needs no write permission.
		payload, id := b.comment(t, "reader", "/pact status", "NONE")
		botExit(t, b.run(t, "issue_comment", payload), 0)
		b.assertNothingWritten(t)
		r := b.replies(t)
		if len(r) != 1 {
			t.Fatalf("replies = %q", r)
		}
		botContains(t, "status", r[0], "pact status for `feat/login`", "waiting", "T1", "awaiting")
		if got := botReactions(b.s, b.pr, id); !slices.Equal(got, []string{botLogin + ":+1"}) {
			t.Errorf("reactions = %q", got)
		}
		if n := botCountOp(b.s, "repos/get-collaborator-permission-level"); n != 0 {
			t.Errorf("status asked for permissions %d times", n)
		}
		botNoViolations(t, b.s)
	})
	t.Run("recheck by a writer", func(t *testing.T) {
		t.Parallel()
		b := newBotScenario(t, botOpts{})
		payload, id := b.comment(t, "devuser", "/pact recheck", "CONTRIBUTOR")
		botExit(t, b.run(t, "issue_comment", payload), 0)
		if h := b.head(); h != b.headSHA || botGitWrites(b.s) != 0 {
			t.Errorf("recheck wrote to the branch")
		}
		botOneCheck(t, b.s, b.headSHA, report.ConclusionWaiting)
		if got := botReactions(b.s, b.pr, id); !slices.Equal(got, []string{botLogin + ":+1"}) {
			t.Errorf("reactions = %q", got)
		}
		if r := b.replies(t); len(r) != 0 {
			t.Errorf("replies: %q", r)
		}
		botNoViolations(t, b.s)
	})
	t.Run("recheck by a read-only user", func(t *testing.T) {
		t.Parallel()
		b := newBotScenario(t, botOpts{})
		payload, _ := b.comment(t, "reader", "/pact recheck", "CONTRIBUTOR")
		botExit(t, b.run(t, "issue_comment", payload), 0)
		b.assertNothingWritten(t)
		r := b.replies(t)
		if len(r) != 1 {
			t.Fatalf("replies = %q", r)
		}
		botContains(t, "refusal", r[0], "write permission", "`/pact recheck`")
		botNoViolations(t, b.s)
	})
	t.Run("help", func(t *testing.T) {
		t.Parallel()
		b := newBotScenario(t, botOpts{})
		payload, id := b.comment(t, "mallory", "/pact help", "NONE")
		botExit(t, b.run(t, "issue_comment", payload), 0)
		b.assertNothingWritten(t)
		if r := b.replies(t); len(r) != 1 || r[0] != bot.HelpText {
			t.Errorf("replies = %q, want the help text", r)
		}
		if got := botReactions(b.s, b.pr, id); !slices.Equal(got, []string{botLogin + ":+1"}) {
			t.Errorf("reactions = %q", got)
		}
		botNoViolations(t, b.s)
	})
}

func TestBotMalformedAndUnknownCommandsGetHelp(t *testing.T) {
	t.Parallel()
	b := newBotScenario(t, botOpts{})
	body := "/pact acept T1\n/pact accept\n/pact changes T1\n/pact status please\n/PACT frobnicate"
	payload, _ := b.comment(t, "revuser", body, "MEMBER")

	botExit(t, b.run(t, "issue_comment", payload), 0)

	b.assertNothingWritten(t)
	r := b.replies(t)
	want := []string{
		"`acept` is not a /pact command.",
		"`/pact accept` takes exactly one task id.",
		"`/pact changes` needs a task id and a reason.",
		"`/pact status` takes no arguments.",
	}
	if len(r) != len(want) {
		t.Fatalf("replies = %q, want %d help replies", r, len(want))
	}
	for i, w := range want {
		if !strings.HasPrefix(r[i], "❓ "+w) || !strings.HasSuffix(r[i], bot.HelpText) {
			t.Errorf("reply %d = %q, want %q then the help text", i, r[i], w)
		}
	}
	if n := botCountOp(b.s, "repos/get-collaborator-permission-level"); n != 0 {
		t.Errorf("permission endpoint asked %d times for commands that cannot run", n)
	}
	botNoViolations(t, b.s)
}

func TestBotIgnoresWhatIsNotACommand(t *testing.T) {
	t.Parallel()
	for _, body := range []string{
		"Please /pact accept T1 when you can.",
		"/pactaccept T1",
		"```\n/pact accept T1\n```",
		"> /pact accept T1",
	} {
		t.Run(body, func(t *testing.T) {
			t.Parallel()
			b := newBotScenario(t, botOpts{})
			payload, id := b.comment(t, "revuser", body, "MEMBER")
			res := b.run(t, "issue_comment", payload)
			botExit(t, res, 0)
			b.assertNothingWritten(t)
			if r := b.replies(t); len(r) != 0 {
				t.Errorf("replies: %q", r)
			}
			if got := botReactions(b.s, b.pr, id); len(got) != 0 {
				t.Errorf("reactions: %q", got)
			}
			botContains(t, "stdout", res.Stdout, "nothing to do")
			botNoViolations(t, b.s)
		})
	}
}

func TestBotIgnoresCommentsOnPlainIssues(t *testing.T) {
	t.Parallel()
	b := newBotScenario(t, botOpts{})
	payload := e2e.Payload(t, "issue_comment/created.payload.json", map[string]any{
		"comment.body": "/pact accept T1", "comment.user.login": "revuser", "comment.author_association": "MEMBER",
		"repository.full_name": botRepoFull, "repository.name": e2e.Repo, "sender.login": "revuser",
	})

	res := b.run(t, "issue_comment", payload)
	botExit(t, res, 0)

	b.assertNothingWritten(t)
	if n := len(b.s.Requests()); n != 0 {
		t.Errorf("%d API requests for a comment on an issue: %+v", n, b.s.Requests())
	}
	botContains(t, "stdout", res.Stdout, "nothing to do", "not a pull request")
	botNoViolations(t, b.s)
}

func TestBotIgnoresItsOwnAccount(t *testing.T) {
	t.Parallel()
	t.Run("github-actions[bot]", func(t *testing.T) {
		t.Parallel()
		b := newBotScenario(t, botOpts{})
		payload, _ := b.comment(t, botLogin, "/pact accept T1", "NONE")
		res := b.run(t, "issue_comment", payload)
		botExit(t, res, 0)
		b.assertNothingWritten(t)
		if n := len(b.s.Requests()); n != 0 {
			t.Errorf("%d API requests for the bot's own comment", n)
		}
		botContains(t, "stdout", res.Stdout, "nothing to do", "bot's own")
		botNoViolations(t, b.s)
	})
	t.Run("a reply carrying the marker", func(t *testing.T) {
		t.Parallel()
		// An app token posts as another account; the marker still stops a loop.
		b := newBotScenario(t, botOpts{})
		payload, _ := b.comment(t, "pact-app[bot]", "/pact help\n\n"+botReplyMarker, "NONE")
		res := b.run(t, "issue_comment", payload)
		botExit(t, res, 0)
		b.assertNothingWritten(t)
		if r := b.replies(t); len(r) != 0 {
			t.Errorf("replies: %q", r)
		}
		botNoViolations(t, b.s)
	})
}

func TestBotConfigWithUnknownKeyIsAnError(t *testing.T) {
	t.Parallel()
	b := newBotScenario(t, botOpts{seatMap: "seats:\n  rev: [revuser]\nreviewers: [revuser]\n"})
	payload, _ := b.comment(t, "revuser", "/pact accept T1", "MEMBER")

	res := b.run(t, "issue_comment", payload)

	if res.Code == 0 {
		t.Errorf("exit 0 on an unusable seat map\nstdout: %s", res.Stdout)
	}
	b.assertNothingWritten(t)
	r := b.replies(t)
	if len(r) != 1 {
		t.Fatalf("replies = %q", r)
	}
	botContains(t, "reply", r[0], ".github/pact.yml", "main", "reviewers", "Nothing was recorded")
	botNoViolations(t, b.s)
}

// ---- writing: races, retries, forks ----

func TestBotTwoDeliveriesRacingOnOneBranch(t *testing.T) {
	t.Parallel()
	b := newBotScenario(t, botOpts{twoTasks: true})
	p1, id1 := b.review(t, "revuser", "approved", nil)  // accepts T1 (reviewer rev)
	p2, id2 := b.review(t, "leaduser", "approved", nil) // accepts T2 (reviewer lead)
	// Hold the first two ref updates until both runs have built their commit
	// on the same parent: exactly one wins, the other must re-read and retry.
	holdFirstRefUpdates(b.s, 2)

	var wg sync.WaitGroup
	results := make([]e2e.Result, 2)
	for i, p := range [][]byte{p1, p2} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = b.run(t, "pull_request_review", p)
		}()
	}
	wg.Wait()
	for _, res := range results {
		botExit(t, res, 0)
	}

	if n := botCountOp(b.s, "git/update-ref"); n != 3 {
		t.Errorf("update-ref requests = %d, want 3 (two racing, one retry)", n)
	}
	commits := b.newCommits(t)
	if len(commits) != 2 {
		t.Fatalf("new commits = %d, want 2", len(commits))
	}
	_, evs := botAppended(t, b.s, b.headSHA, b.head())
	var ids []string
	for _, e := range evs {
		ids = append(ids, e.EventID)
	}
	slices.Sort(ids)
	want := []string{bot.EventID(botRepoFull, "review", id1, "T1"), bot.EventID(botRepoFull, "review", id2, "T2")}
	slices.Sort(want)
	if !slices.Equal(ids, want) {
		t.Fatalf("events in the final log = %+v, want both accepts", evs)
	}
	st := botStateReplays(t, b.s, b.head())
	if botTaskStatus(st, "T1") != projection.StatusAccepted || botTaskStatus(st, "T2") != projection.StatusAccepted {
		t.Errorf("T1 %s, T2 %s: an update was lost", botTaskStatus(st, "T1"), botTaskStatus(st, "T2"))
	}
	// Each run checked the head it wrote; the final one is mergeable.
	botStateReplays(t, b.s, commits[0].SHA)
	botOneCheck(t, b.s, commits[0].SHA, report.ConclusionWaiting)
	botOneCheck(t, b.s, commits[1].SHA, report.ConclusionSuccess)
	botNoViolations(t, b.s)
}

// holdFirstRefUpdates makes the first n ref updates wait for each other, so
// n runs build their commits on the same parent before any of them lands.
func holdFirstRefUpdates(s *fakegithub.Server, n int) {
	var mu sync.Mutex
	arrived := 0
	all := make(chan struct{})
	s.BeforeUpdateRef(func(owner, repo, ref string) {
		mu.Lock()
		arrived++
		k := arrived
		mu.Unlock()
		if k == n {
			close(all)
		}
		if k <= n {
			select {
			case <-all:
			case <-time.After(20 * time.Second):
			}
		}
	})
}

func TestBotSameDeliveryRacingItselfAppendsOnce(t *testing.T) {
	t.Parallel()
	b := newBotScenario(t, botOpts{})
	payload, id := b.review(t, "revuser", "approved", nil)
	holdFirstRefUpdates(b.s, 2)

	var wg sync.WaitGroup
	results := make([]e2e.Result, 2)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = b.run(t, "pull_request_review", payload)
		}()
	}
	wg.Wait()
	for _, res := range results {
		botExit(t, res, 0)
	}

	if n := botCountOp(b.s, "git/update-ref"); n != 2 {
		t.Errorf("update-ref requests = %d, want 2 (the loser re-reads and finds its event recorded)", n)
	}
	if commits := b.newCommits(t); len(commits) != 1 {
		t.Errorf("new commits = %d, want 1", len(commits))
	}
	if _, evs := botAppended(t, b.s, b.headSHA, b.head()); len(evs) != 1 || evs[0].EventID != bot.EventID(botRepoFull, "review", id, "T1") {
		t.Errorf("appended = %+v, want the one accept", evs)
	}
	botStateReplays(t, b.s, b.head())
	botOneCheck(t, b.s, b.head(), report.ConclusionSuccess)
	botNoViolations(t, b.s)
}

func TestBotNonFastForwardThenSuccess(t *testing.T) {
	t.Parallel()
	b := newBotScenario(t, botOpts{twoTasks: true})
	payload, id := b.review(t, "revuser", "approved", nil)
	// While the bot writes, lead accepts T2 with pactify and pushes, along
	// with a code change.
	pushed := b.headLog.Copy().Accept("lead", "T2", "LOGIN")
	var once sync.Once
	var concurrent string
	b.s.BeforeUpdateRef(func(owner, repo, ref string) {
		once.Do(func() {
			files := pushed.Files()
			files["src/login.go"] = "package main\n\nfunc login() error { return nil }\n"
			concurrent = b.s.CommitFiles(e2e.Owner, e2e.Repo, b.branch, files, "leaduser")
		})
	})

	res := b.run(t, "pull_request_review", payload)
	botExit(t, res, 0)

	if n := botCountOp(b.s, "git/update-ref"); n != 2 {
		t.Errorf("update-ref requests = %d, want 2 (refused, then retried)", n)
	}
	commits := b.newCommits(t)
	if len(commits) != 2 || commits[0].SHA != concurrent {
		t.Fatalf("history = %+v, want the concurrent push then the bot's commit on top of it", commits)
	}
	if commits[1].AuthorLogin != botLogin {
		t.Errorf("the top commit is by %q", commits[1].AuthorLogin)
	}
	// The retry re-read the branch: the concurrent line is kept, the bot's
	// line follows it, and STATE.yml reflects both.
	_, evs := botAppended(t, b.s, concurrent, b.head())
	if len(evs) != 1 || evs[0].EventID != bot.EventID(botRepoFull, "review", id, "T1") {
		t.Fatalf("appended by the bot = %+v", evs)
	}
	if got, _ := b.s.FileAt(b.head(), "src/login.go"); !strings.Contains(got, "error") {
		t.Errorf("the concurrent code change was lost: %q", got)
	}
	st := botStateReplays(t, b.s, b.head())
	if botTaskStatus(st, "T1") != projection.StatusAccepted || botTaskStatus(st, "T2") != projection.StatusAccepted {
		t.Errorf("T1 %s, T2 %s", botTaskStatus(st, "T1"), botTaskStatus(st, "T2"))
	}
	botOneCheck(t, b.s, b.head(), report.ConclusionSuccess)
	botNoViolations(t, b.s)
}

func TestBotGivesUpAfterBoundedRetries(t *testing.T) {
	t.Parallel()
	b := newBotScenario(t, botOpts{})
	payload, _ := b.review(t, "revuser", "approved", nil)
	// Someone pushes before every one of the bot's ref updates.
	var mu sync.Mutex
	pushes := 0
	b.s.BeforeUpdateRef(func(owner, repo, ref string) {
		mu.Lock()
		pushes++
		n := pushes
		mu.Unlock()
		b.s.CommitFiles(e2e.Owner, e2e.Repo, b.branch, map[string]string{"src/busy.go": fmt.Sprintf("package main // %d\n", n)}, "devuser")
	})

	res := b.run(t, "pull_request_review", payload)

	if res.Code != 2 {
		t.Errorf("exit %d, want 2\nstderr: %s", res.Code, res.Stderr)
	}
	botContains(t, "stderr", res.Stderr, "after 6 attempt(s)", "not a fast forward")
	if n := botCountOp(b.s, "git/update-ref"); n != 6 {
		t.Errorf("update-ref requests = %d, want 6 (bounded)", n)
	}
	for _, c := range b.newCommits(t) {
		if c.AuthorLogin == botLogin {
			t.Errorf("the bot's commit %s landed", c.SHA)
		}
	}
	botNoViolations(t, b.s)
}

func TestBotForkPullRequestExplains(t *testing.T) {
	t.Parallel()
	b := newBotScenario(t, botOpts{fork: true})
	payload, _ := b.review(t, "revuser", "approved", nil)

	res := b.run(t, "pull_request_review", payload)
	botExit(t, res, 0)

	b.assertNothingWritten(t)
	if h := b.s.BranchHead(e2e.Owner, e2e.Repo, b.branch); h != "" {
		t.Errorf("the bot created %s in the base repository", b.branch)
	}
	r := b.replies(t)
	if len(r) != 1 {
		t.Fatalf("replies = %q, want one explanation", r)
	}
	cmd := "PACT_AGENT_ID=rev pactify accept 'T1'"
	botContains(t, "reply", r[0], "fork", "recorded nothing", cmd, "git push")
	botContains(t, "job summary", res.Summary, cmd)
	botContains(t, "stdout", res.Stdout, cmd)
	botNoViolations(t, b.s)
}

func TestBotForkPullRequestCommandExplains(t *testing.T) {
	t.Parallel()
	// The comment payload names no head: the bot reads the PR from the API,
	// which says it comes from a fork.
	b := newBotScenario(t, botOpts{fork: true})
	payload, id := b.comment(t, "revuser", "/pact changes T1 it's not done", "MEMBER")

	res := b.run(t, "issue_comment", payload)
	botExit(t, res, 0)

	b.assertNothingWritten(t)
	r := b.replies(t)
	if len(r) != 1 {
		t.Fatalf("replies = %q, want one explanation", r)
	}
	botContains(t, "reply", r[0], "fork", `PACT_AGENT_ID=rev pactify changes 'T1' --reason 'it'\''s not done'`)
	if got := botReactions(b.s, b.pr, id); !slices.Equal(got, []string{botLogin + ":confused"}) {
		t.Errorf("reactions = %q, want confused: nothing was recorded", got)
	}
	botNoViolations(t, b.s)
}

func TestBotReadOnlyTokenExplainsInJobLog(t *testing.T) {
	t.Parallel()
	b := newBotScenario(t, botOpts{})
	b.s.SetToken(e2e.Token, fakegithub.Token{Login: botLogin, ReadOnly: true})
	payload, _ := b.review(t, "revuser", "changes_requested", "rename it")

	res := b.run(t, "pull_request_review", payload)
	botExit(t, res, 0)

	if h := b.head(); h != b.headSHA {
		t.Errorf("the branch moved")
	}
	cmd := "PACT_AGENT_ID=rev pactify changes 'T1' --reason 'rename it'"
	// The reply cannot be posted either: the job log and summary say it all.
	botContains(t, "job summary", res.Summary, cmd)
	botContains(t, "stdout", res.Stdout, cmd, "token")
	if strings.Contains(res.Stdout, "comes from a fork") {
		t.Errorf("a same-repository PR is explained as a fork:\n%s", res.Stdout)
	}
	botNoViolations(t, b.s)
}

// ---- manual and scheduled runs ----

func TestBotModeManualAndScheduledRunsRejudgeEveryOpenPR(t *testing.T) {
	t.Parallel()
	for _, event := range []string{"workflow_dispatch", "schedule"} {
		t.Run(event, func(t *testing.T) {
			t.Parallel()
			b := newBotScenario(t, botOpts{})
			s := b.s
			// A second open PR, fully accepted, and a closed one.
			other := e2e.NewLog().Assign("T1", "LOGIN", "feat/login", "dev", "rev").Assign("T7", "SEARCH", "feat/search", "dev", "rev")
			other.Join("dev").Checkpoint("dev", "T7", "SEARCH").Accept("rev", "T7", "SEARCH")
			files := other.Files()
			s.CommitFiles(e2e.Owner, e2e.Repo, "feat/search", files, "devuser", fakegithub.From("main"))
			n2 := s.OpenPR(e2e.Owner, e2e.Repo, fakegithub.PRSeed{Head: "feat/search", Base: "main"})
			s.CommitFiles(e2e.Owner, e2e.Repo, "feat/old", map[string]string{"src/old.go": "package main\n"}, "devuser", fakegithub.From("main"))
			n3 := s.OpenPR(e2e.Owner, e2e.Repo, fakegithub.PRSeed{Head: "feat/old", Base: "main"})
			s.ClosePR(n3)

			var payload []byte
			if event == "workflow_dispatch" {
				payload = e2e.Payload(t, "workflow_dispatch/payload.json", map[string]any{
					"ref": "refs/heads/main", "repository.full_name": botRepoFull, "repository.name": e2e.Repo, "sender.login": "leaduser",
				})
			} else {
				payload = []byte(`{"schedule":"*/30 * * * *"}`)
			}
			res := e2e.Run{Server: s, EventName: event, Payload: payload, Inputs: map[string]string{"mode": "bot"}}.Exec(t)
			botExit(t, res, 0)

			botOneCheck(t, s, b.headSHA, report.ConclusionWaiting)
			botOneCheck(t, s, s.BranchHead(e2e.Owner, e2e.Repo, "feat/search"), report.ConclusionSuccess)
			if runs := s.CheckRuns(s.BranchHead(e2e.Owner, e2e.Repo, "feat/old")); len(runs) != 0 {
				t.Errorf("the closed PR was judged: %+v", runs)
			}
			if botGitWrites(s) != 0 || len(s.Comments(b.pr)) != 0 || len(s.Comments(n2)) != 0 {
				t.Errorf("a re-judging run wrote or commented")
			}
			if res.Outputs["conclusion"] != report.ConclusionWaiting {
				t.Errorf("outputs = %v", res.Outputs)
			}
			if runs, _ := res.Report["runs"].([]any); len(runs) != 2 {
				t.Errorf("report runs = %d, want 2", len(runs))
			}
			botNoViolations(t, s)
		})
	}
}
