package action_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/internal/testkit/e2e"
	"github.com/pact-action/pact-action/internal/testkit/fakegithub"
	"github.com/pact-action/pact-action/projection"
	"github.com/pact-action/pact-action/report"
)

// The branch updater's stories through the real binary (issue 33, items 3
// and 5): the push to main is delivered to the bot workflow as the runner
// delivers it (mode auto, GITHUB_EVENT_NAME push), where the wiring
// matters; the approvals go through the bot in process (their wiring is
// TestBinaryBot's).

// storySeed is the order the stories merge in: PACT_UPDATE_SEED, or the
// clock's. It is printed, so a failing order can be run again.
func storySeed(t *testing.T) uint64 {
	t.Helper()
	seed := uint64(time.Now().UnixNano())
	if v := os.Getenv("PACT_UPDATE_SEED"); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("PACT_UPDATE_SEED=%q: %v", v, err)
		}
		seed = n
	}
	t.Logf("merge order seed: PACT_UPDATE_SEED=%d", seed)
	return seed
}

// pushMain delivers the push of main's tip to the bot workflow, through
// the binary, and returns what it did and how long it took.
func (f *fleet) pushMain(t *testing.T) (e2e.Result, time.Duration) {
	t.Helper()
	e2e.Binary(t) // built before the clock starts
	start := time.Now()
	res := e2e.Run{Server: f.s, EventName: "push", Payload: pushPayload(t, f.s, "main"), Inputs: map[string]string{"mode": "auto"}}.Exec(t)
	took := time.Since(start)
	wantExit(t, res, 0)
	return res, took
}

// finalLog checks main's log after every pull request merged: valid, with
// every event of every pull request exactly once, STATE.yml its render,
// and every check run posted completed and passing.
func (f *fleet) finalLog(t *testing.T) {
	t.Helper()
	log, _ := f.s.FileAt(f.s.BranchHead(e2e.Owner, e2e.Repo, "main"), logPath)
	state, _ := f.s.FileAt(f.s.BranchHead(e2e.Owner, e2e.Repo, "main"), statePath)
	parsed, res := projection.ReadEvents([]byte(log))
	if len(res.Rejections) != 0 || len(parsed.Malformed) != 0 {
		t.Errorf("main's log is not valid: %+v", res.Rejections)
	}
	if !projection.RenderMatches(res.State, []byte(state)) {
		t.Errorf("main's STATE.yml is not the render of its log")
	}
	ids := map[string]int{}
	for _, ev := range parsed.Events {
		ids[ev.EventID]++
	}
	// init, then per pull request its assign, join, checkpoint and accept.
	if want := 1 + 4*len(f.prs); len(parsed.Events) != want || len(ids) != want {
		t.Errorf("main's log has %d events under %d ids, want %d once each:\n%s", len(parsed.Events), len(ids), want, log)
	}
	for _, p := range f.prs {
		if task := res.State.Tasks[p.task]; task == nil || task.Status != projection.StatusAccepted {
			t.Errorf("%s is not accepted on main: %+v", p.task, task)
		}
	}
	for _, r := range noneInProgress(t, f.s) {
		if r.Conclusion != report.ConclusionSuccess || strings.Contains(r.Summary, string(checks.CodeLogRewritten)) {
			t.Errorf("check run on %s: %s\n%s", r.HeadSHA, r.Conclusion, r.Summary)
		}
	}
	noViolations(t, f.s)
}

// Five pull requests opened from one main, each assigning, checkpointing
// and accepted by review through the bot, under provenance require and
// stale change, merged one after another in a shuffled order: after each
// merge the push to main brings the others up to date, and every one
// merges with the merge button, with no human resolution, no
// log.rewritten, and every accept still covering its pull request.
func TestBinaryUpdateFiveMergesInAnyOrder(t *testing.T) {
	t.Parallel()
	f := newFleet(t, 5, nil)
	f.approveAll(t)
	order := slices.Clone(f.prs)
	rand.New(rand.NewPCG(storySeed(t), 33)).Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	names := make([]string, len(order))
	for i, p := range order {
		names[i] = p.branch
	}
	t.Logf("merge order: %s", strings.Join(names, ", "))

	for i, p := range order {
		if _, err := f.s.MergePR(p.n, provLeadGH); err != nil {
			t.Fatalf("merge %d of 5 (%s) needed a human: %v", i+1, p.branch, err)
		}
		rest := order[i+1:]
		old := map[int]string{}
		for _, q := range rest {
			old[q.n] = f.head(q)
		}
		before := calls(f.s)
		res, took := f.pushMain(t)
		diff := calls(f.s)
		for k, v := range before {
			diff[k] -= v
			if diff[k] == 0 {
				delete(diff, k)
			}
		}
		t.Logf("push %d: %s", i+1, perOperation(diff))
		before2 := len(f.s.Requests()) - total(diff)
		for _, q := range rest {
			f.mergedOnto(t, q, old[q.n])
			onlyRun(t, f.s, f.head(q), "pact", report.ConclusionSuccess)
		}
		if len(rest) > 0 {
			t.Logf("push %d: %d pull request(s) brought up to date in %s, %d calls (%d each, the listing aside)", i+1, len(rest), took.Round(time.Millisecond),
				len(f.s.Requests())-before2, (len(f.s.Requests())-before2-1)/len(rest))
		}
		contains(t, "stdout", res.Stdout, fmt.Sprintf("pact: %d open pull request(s), %d conflicting with their base", len(rest), len(rest)))
	}
	for _, p := range f.prs {
		if c := f.s.Comments(p.n); len(c) != 0 {
			t.Errorf("#%d: the bot replied %+v", p.n, c)
		}
	}
	f.finalLog(t)
}

// The same with two pull requests that change one file of code: when the
// first merges, the second's update needs a human, and the bot leaves it
// alone and says so once, though every push is delivered twice. Its
// author merges main by hand (the pact merged as pactify resolve merges
// it); the reviewer approves the resolution, which renews the accept
// under change; it merges, and so do the others.
func TestBinaryUpdateLeavesACodeConflictToAHuman(t *testing.T) {
	t.Parallel()
	shared := func(i int) map[string]string {
		code := map[string]string{fmt.Sprintf("src/p%d.go", i): fmt.Sprintf("package p%d\n", i)}
		if i == 2 || i == 4 {
			code["src/shared.go"] = fmt.Sprintf("package shared // p%d\n", i)
		}
		return code
	}
	f := newFleet(t, 5, shared)
	f.approveAll(t)
	order := slices.Clone(f.prs)
	rand.New(rand.NewPCG(storySeed(t), 33)).Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	said := map[int]int{} // replies about the conflict, per pull request
	resolved := false
	for i, p := range order {
		if _, err := f.s.MergePR(p.n, provLeadGH); err != nil {
			if !strings.Contains(err.Error(), "src/shared.go") || resolved {
				t.Fatalf("merge %d (%s): %v", i+1, p.branch, err)
			}
			f.resolveByHand(t, p, "package shared // p2 and p4\n")
			resolved = true
			if _, err := f.s.MergePR(p.n, provLeadGH); err != nil {
				t.Fatalf("merge %d (%s) after the resolution: %v", i+1, p.branch, err)
			}
		}
		for range 2 {
			f.pushMain(t)
		}
		for _, q := range order[i+1:] {
			said[q.n] = 0
			for _, c := range f.s.Comments(q.n) {
				if strings.Contains(c.Body, "which both branches changed") {
					said[q.n]++
				}
			}
			if said[q.n] == 0 {
				delete(said, q.n)
			}
		}
		for n, k := range said {
			if k > 1 {
				t.Fatalf("#%d: %d replies about its conflict, want one", n, k)
			}
		}
	}
	if !resolved || len(said) != 1 {
		t.Fatalf("resolved %v, replies %v: want one pull request left to a human, told once", resolved, said)
	}
	f.finalLog(t)
}

// resolveByHand is what p's author does with the commands of the bot's
// reply: merge main's tip into the branch, resolving code (the file both
// changed, as resolution) and the pact as pactify resolve does
// (projection.MergeLogs, STATE.yml rendered), then push, signed; and the
// reviewer approves the result, which renews the accept (the resolution
// changed what the pull request changes).
func (f *fleet) resolveByHand(t *testing.T, p *fleetPR, resolution string) {
	t.Helper()
	s := f.s
	head, tip := f.head(p), s.BranchHead(e2e.Owner, e2e.Repo, "main")
	mb := s.MergeBase(head, tip)
	files := map[string]string{"src/shared.go": resolution}
	var deleted []string
	o, m := s.Tree(mb), s.Tree(tip)
	for path, e := range m {
		if o[path] != e {
			files[path], _ = s.FileAt(tip, path)
		}
	}
	for path := range o {
		if _, ok := m[path]; !ok {
			deleted = append(deleted, path)
		}
	}
	logAt := func(sha string) []byte { l, _ := s.FileAt(sha, logPath); return []byte(l) }
	merged, err := projection.MergeLogs(logAt(mb), logAt(tip), logAt(head))
	if err != nil {
		t.Fatal(err)
	}
	files[logPath], files[statePath] = string(merged.Bytes()), string(projection.RenderBytes(merged.Result.State))
	s.CommitFiles(e2e.Owner, e2e.Repo, p.branch, files, provDevGH, fakegithub.WithParents(head, tip), fakegithub.Verified(),
		fakegithub.WithMessage("Merge branch 'main' into "+p.branch), fakegithub.Deleting(deleted...))
	out := event{name: "pull_request_review", payload: f.approval(t, p)}.run(t, s).botDone(t)
	if out.Check == nil || out.Check.Conclusion != report.ConclusionSuccess || len(out.Appended) != 0 {
		t.Fatalf("the fresh review did not renew %s: %+v", p.task, out.Check)
	}
}

// The time from a push to main to five updated pull requests, and the
// calls per update, on the fake: main moves (lead assigns a task there),
// all five conflict, and one run of the binary brings them up to date.
func TestBinaryUpdateFiveAtOnce(t *testing.T) {
	t.Parallel()
	f := newFleet(t, 5, nil)
	f.approveAll(t)
	main := e2e.NewLog().Branch("main").Assign("T0", "F0", "feat/p0", "dev", "rev")
	f.s.CommitFiles(e2e.Owner, e2e.Repo, "main", main.Files(), provLeadGH, fakegithub.Verified())
	old := map[int]string{}
	for _, p := range f.prs {
		old[p.n] = f.head(p)
	}
	before := len(f.s.Requests())
	res, took := f.pushMain(t)
	n := len(f.s.Requests()) - before
	for _, p := range f.prs {
		f.mergedOnto(t, p, old[p.n])
	}
	contains(t, "stdout", res.Stdout, "pact: 5 open pull request(s), 5 conflicting with their base")
	t.Logf("a push to main → 5 pull requests brought up to date and checked: %s, %d calls (the listing, then %d per pull request)", took.Round(time.Millisecond), n, (n-1)/5)
	if (n-1)%5 != 0 {
		t.Errorf("%d calls: not one listing and the same for each pull request", n)
	}
}

// TestBinaryUpdateKilledThenRerun: the job bringing a pull request up to
// date is killed outright (SIGKILL: the runner lost) once its check run on
// the new commit exists, while the judgement waits on GitHub. The branch
// moved, once, without force; the check run is left in progress, which
// nothing of that job will complete. The next scheduled run finishes it:
// nothing more is merged, the new head is judged, and the run the killed
// job left is completed with that verdict.
func TestBinaryUpdateKilledThenRerun(t *testing.T) {
	t.Parallel()
	f := newFleet(t, 2, nil)
	f.approveAll(t)
	f.merge(t, f.prs[0])
	other := f.prs[1]
	old := f.head(other)
	var once sync.Once
	f.s.BeforeUpdateRef(func(string, string, string) {
		once.Do(func() { f.s.Inject(fakegithub.Fault{Method: "POST", Path: "/graphql", Stall: true}) })
	})
	killed := e2e.Run{Server: f.s, EventName: "push", Payload: pushPayload(t, f.s, "main"), Inputs: map[string]string{"mode": "auto"}, Env: env(nil), Timeout: 30 * time.Second}
	killed.While = func(p *os.Process) {
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if stalled(f.s) {
				_ = p.Kill()
				return
			}
		}
	}
	if res := killed.Exec(t); res.Code == 0 {
		t.Fatalf("the killed job exited 0:\n%s", res.Stderr)
	}
	moved := f.head(other)
	left := f.s.CheckRuns(moved)
	if c, _ := f.s.Commit(moved); !slices.Equal(c.Parents, []string{old, f.s.BranchHead(e2e.Owner, e2e.Repo, "main")}) || len(left) != 1 || left[0].Status != "in_progress" {
		t.Fatalf("after the kill: head %+v, check runs %+v; want the bot's merge with one run in progress", c, left)
	}
	f.s.BeforeUpdateRef(nil)
	f.s.ClearFaults()
	writes := gitWrites(f.s)

	res := e2e.Run{Server: f.s, EventName: "schedule", Payload: []byte(`{"schedule":"17 * * * *"}`), Inputs: map[string]string{"mode": "auto"}, Env: env(nil)}.Exec(t)

	wantExit(t, res, 0)
	if f.head(other) != moved || gitWrites(f.s) != writes {
		t.Errorf("the re-run wrote again: head %s, was %s", f.head(other), moved)
	}
	f.mergedOnto(t, other, old)
	runs := f.s.CheckRuns(moved)
	if len(runs) != 2 || runs[0].ID != left[0].ID || runs[0].Conclusion != runs[1].Conclusion ||
		runs[0].Title != fmt.Sprintf("superseded by check run %d: %s", runs[1].ID, runs[1].Title) {
		t.Errorf("check runs on the new head: %+v; want the killed job's superseded by the re-run's", runs)
	}
	noneInProgress(t, f.s)
	noViolations(t, f.s)
}
