package action_test

import (
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

// Bot mode writing to the branch: races with other deliveries and pushes,
// bounded retries, and branches it cannot write (forks, read-only tokens).

func TestBotTwoDeliveriesRacingOnOneBranch(t *testing.T) {
	t.Parallel()
	b := newBotScenario(t, botOpts{twoTasks: true})
	p1, id1 := b.review(t, "revuser", "approved", nil)  // accepts T1 (reviewer rev)
	p2, id2 := b.review(t, "leaduser", "approved", nil) // accepts T2 (reviewer lead)
	// Hold the first two ref updates until both runs have built their commit
	// on the same parent: exactly one wins, the other must re-read and retry.
	holdFirstRefUpdates(b.s, 2)

	var wg sync.WaitGroup
	results := make([]result, 2)
	for i, p := range [][]byte{p1, p2} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = b.run(t, "pull_request_review", p)
		}()
	}
	wg.Wait()
	for _, res := range results {
		res.botDone(t)
	}

	if n := countOp(b.s, "git/update-ref"); n != 3 {
		t.Errorf("update-ref requests = %d, want 3 (two racing, one retry)", n)
	}
	commits := b.newCommits(t)
	if len(commits) != 2 {
		t.Fatalf("new commits = %d, want 2", len(commits))
	}
	_, evs := appended(t, b.s, b.headSHA, b.head())
	var ids []string
	for _, e := range evs {
		ids = append(ids, e.EventID)
	}
	slices.Sort(ids)
	want := []string{bot.EventID(repoFull, "review", id1, "T1"), bot.EventID(repoFull, "review", id2, "T2")}
	slices.Sort(want)
	if !slices.Equal(ids, want) {
		t.Fatalf("events in the final log = %+v, want both accepts", evs)
	}
	st := stateReplays(t, b.s, b.head())
	if taskStatus(st, "T1") != projection.StatusAccepted || taskStatus(st, "T2") != projection.StatusAccepted {
		t.Errorf("T1 %s, T2 %s: an update was lost", taskStatus(st, "T1"), taskStatus(st, "T2"))
	}
	// Each run checked the head it wrote; the final one is mergeable.
	stateReplays(t, b.s, commits[0].SHA)
	onlyRun(t, b.s, commits[0].SHA, "pact", report.ConclusionWaiting)
	onlyRun(t, b.s, commits[1].SHA, "pact", report.ConclusionSuccess)
	noViolations(t, b.s)
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
	results := make([]result, 2)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = b.run(t, "pull_request_review", payload)
		}()
	}
	wg.Wait()
	for _, res := range results {
		res.botDone(t)
	}

	if n := countOp(b.s, "git/update-ref"); n != 2 {
		t.Errorf("update-ref requests = %d, want 2 (the loser re-reads and finds its event recorded)", n)
	}
	if commits := b.newCommits(t); len(commits) != 1 {
		t.Errorf("new commits = %d, want 1", len(commits))
	}
	if _, evs := appended(t, b.s, b.headSHA, b.head()); len(evs) != 1 || evs[0].EventID != bot.EventID(repoFull, "review", id, "T1") {
		t.Errorf("appended = %+v, want the one accept", evs)
	}
	stateReplays(t, b.s, b.head())
	// The loser finds its event written and, when the winner's verdict is
	// not yet posted, checks the head too (a delivery cannot tell a winner
	// still at work from one that was killed): one or two runs, each with
	// the verdict.
	runs := b.s.CheckRuns(b.head())
	if len(runs) == 0 || len(runs) > 2 {
		t.Errorf("check runs on the head = %d, want 1 or 2", len(runs))
	}
	for _, r := range runs {
		if r.Status != "completed" || r.Conclusion != report.ConclusionSuccess {
			t.Errorf("check run %d is %s %s, want completed %s", r.ID, r.Status, r.Conclusion, report.ConclusionSuccess)
		}
	}
	noViolations(t, b.s)
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
	out := res.botDone(t)

	if n := countOp(b.s, "git/update-ref"); n != 2 {
		t.Errorf("update-ref requests = %d, want 2 (refused, then retried)", n)
	}
	if len(res.waits) != 1 {
		t.Errorf("waits = %v, want one before the retry", res.waits)
	}
	commits := b.newCommits(t)
	if len(commits) != 2 || commits[0].SHA != concurrent {
		t.Fatalf("history = %+v, want the concurrent push then the bot's commit on top of it", commits)
	}
	if commits[1].AuthorLogin != botAccount {
		t.Errorf("the top commit is by %q", commits[1].AuthorLogin)
	}
	// The retry re-read the branch: the concurrent line is kept, the bot's
	// line follows it, and STATE.yml reflects both.
	_, evs := appended(t, b.s, concurrent, b.head())
	if len(evs) != 1 || evs[0].EventID != bot.EventID(repoFull, "review", id, "T1") {
		t.Fatalf("appended by the bot = %+v", evs)
	}
	if got, _ := b.s.FileAt(b.head(), "src/login.go"); !strings.Contains(got, "error") {
		t.Errorf("the concurrent code change was lost: %q", got)
	}
	st := stateReplays(t, b.s, b.head())
	if taskStatus(st, "T1") != projection.StatusAccepted || taskStatus(st, "T2") != projection.StatusAccepted {
		t.Errorf("T1 %s, T2 %s", taskStatus(st, "T1"), taskStatus(st, "T2"))
	}
	checkPosted(t, out.Check, onlyRun(t, b.s, b.head(), "pact", report.ConclusionSuccess))
	noViolations(t, b.s)
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

	contains(t, "error", res.failed(t).Error(), "after 6 attempt(s)", "not a fast forward")
	if len(res.waits) != 5 {
		t.Errorf("waits = %v, want one between each two of the 6 attempts", res.waits)
	}
	if n := countOp(b.s, "git/update-ref"); n != 6 {
		t.Errorf("update-ref requests = %d, want 6 (bounded)", n)
	}
	for _, c := range b.newCommits(t) {
		if c.AuthorLogin == botAccount {
			t.Errorf("the bot's commit %s landed", c.SHA)
		}
	}
	noViolations(t, b.s)
}

func TestBotForkPullRequestExplains(t *testing.T) {
	t.Parallel()
	b := newBotScenario(t, botOpts{fork: true})
	payload, _ := b.review(t, "revuser", "approved", nil)

	out := b.run(t, "pull_request_review", payload).botDone(t)

	b.assertNothingWritten(t)
	if h := b.s.BranchHead(e2e.Owner, e2e.Repo, b.branch); h != "" {
		t.Errorf("the bot created %s in the base repository", b.branch)
	}
	r := b.replies(t)
	if len(r) != 1 {
		t.Fatalf("replies = %q, want one explanation", r)
	}
	cmd := "PACT_AGENT_ID=rev pactify accept 'T1'"
	contains(t, "reply", r[0], "fork", "recorded nothing", cmd, "git push")
	contains(t, "notices (the job log and summary)", strings.Join(out.Notices, "\n"), cmd)
	noViolations(t, b.s)
}

func TestBotForkPullRequestCommandExplains(t *testing.T) {
	t.Parallel()
	// The comment payload names no head: the bot reads the PR from the API,
	// which says it comes from a fork.
	b := newBotScenario(t, botOpts{fork: true})
	payload, id := b.comment(t, "revuser", "/pact changes T1 it's not done", "MEMBER")

	out := b.run(t, "issue_comment", payload).botDone(t)

	b.assertNothingWritten(t)
	r := b.replies(t)
	if len(r) != 1 {
		t.Fatalf("replies = %q, want one explanation", r)
	}
	cmd := `PACT_AGENT_ID=rev pactify changes 'T1' --reason 'it'\''s not done'`
	contains(t, "reply", r[0], "fork", cmd)
	contains(t, "notices (the job log and summary)", strings.Join(out.Notices, "\n"), cmd)
	if got := b.reactions(id); !slices.Equal(got, []string{botAccount + ":confused"}) {
		t.Errorf("reactions = %q, want confused: nothing was recorded", got)
	}
	noViolations(t, b.s)
}

func TestBotReadOnlyTokenExplainsInJobLog(t *testing.T) {
	t.Parallel()
	b := newBotScenario(t, botOpts{})
	b.s.SetToken(e2e.Token, fakegithub.Token{Login: botAccount, ReadOnly: true})
	payload, _ := b.review(t, "revuser", "changes_requested", "rename it")

	out := b.run(t, "pull_request_review", payload).botDone(t)

	if h := b.head(); h != b.headSHA {
		t.Errorf("the branch moved")
	}
	cmd := "PACT_AGENT_ID=rev pactify changes 'T1' --reason 'rename it'"
	// The reply cannot be posted either: the job log and summary say it all.
	notices := strings.Join(out.Notices, "\n")
	contains(t, "notices (the job log and summary)", notices, cmd, "token")
	if strings.Contains(notices, "comes from a fork") {
		t.Errorf("a same-repository PR is explained as a fork:\n%s", notices)
	}
	noViolations(t, b.s)
}

// A log committed with CRLF line endings is continued in CRLF, as pactify
// continues one (pactfile.AppendLines): the bot never mixes the two.
func TestBotAppendsInTheLogsLineEnding(t *testing.T) {
	t.Parallel()
	crlf := strings.ReplaceAll(e2e.NewLog().Assign("T1", "LOGIN", "feat/login", "dev", "rev").Join("dev").Checkpoint("dev", "T1", "LOGIN").Text(), "\n", "\r\n")
	b := newBotScenario(t, botOpts{headFiles: map[string]string{logPath: crlf}})
	payload, _ := b.review(t, "revuser", "approved", "LGTM")
	out := b.run(t, "pull_request_review", payload).botDone(t)
	if out.NewHead == "" {
		t.Fatalf("nothing recorded: %+v", out)
	}
	log, _ := b.s.FileAt(out.NewHead, logPath)
	rest, ok := strings.CutPrefix(log, crlf)
	if !ok || !strings.HasSuffix(rest, "\r\n") || strings.Count(rest, "\n") != 1 || strings.Count(rest, "\r\n") != 1 {
		t.Errorf("the bot appended %q to a CRLF log; want one line ending in CRLF after the log as it was", rest)
	}
}

// A branch's log whose last line has no line break (a write cut off
// half-way, or a CRLF line whose LF is missing) is refused, never sealed
// into an event line by the bot's append (pactfile.Unterminated, the rule
// pactify follows): nothing is written, and the reply says why and how to
// mend it.
func TestBotRefusesALogCutOff(t *testing.T) {
	t.Parallel()
	whole := e2e.NewLog().Assign("T1", "LOGIN", "feat/login", "dev", "rev").Join("dev").Checkpoint("dev", "T1", "LOGIN").Text()
	for name, log := range map[string]string{
		"fragment":      whole + `{"event_id":"0123`,
		"crlf-cr-alone": strings.ReplaceAll(whole, "\n", "\r\n") + `{"v":1}` + "\r",
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b := newBotScenario(t, botOpts{headFiles: map[string]string{logPath: log}})
			payload, _ := b.review(t, "revuser", "approved", "LGTM")
			out := b.run(t, "pull_request_review", payload).botDone(t)
			if out.NewHead != "" || len(out.Appended) != 0 {
				t.Fatalf("the bot appended %q after a cut-off line", out.Appended)
			}
			b.assertNothingWritten(t)
			r := b.replies(t)
			if len(r) != 1 {
				t.Fatalf("replies = %q, want one refusal", r)
			}
			contains(t, "reply", r[0], "has no line break", "Nothing was recorded", "accept T1", "cut the file back")
			noViolations(t, b.s)
		})
	}
}
