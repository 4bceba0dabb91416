package action_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/pact-action/pact-action/action"
	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/internal/testkit/e2e"
	"github.com/pact-action/pact-action/internal/testkit/fakegithub"
	"github.com/pact-action/pact-action/report"
)

// A decoy base never makes a head look better than it would look into the
// default branch (docs/semantics.md §5): the fourth round's two attacks,
// through the fake GitHub, each against the pull request into the decoy
// and then the same head into main.

// TestDecoyBaseUnmappedCodeIsBlocked: under unmapped-branches: block, the
// worker pushes scratch = main + unreviewed code, then opens a pull request
// from chore/tidy (scratch + a pact-only commit) into scratch. Against
// scratch it changes only the pact; into main it ships the code. The run
// on the head fails, so the pull request into main finds no green run on
// it while its own run is still to come.
func TestDecoyBaseUnmappedCodeIsBlocked(t *testing.T) {
	t.Parallel()
	s := e2e.NewServer(t)
	log := e2e.NewLog().Assign("T1", "LOGIN", "feat/login", "dev", "rev")
	s.CommitFiles(e2e.Owner, e2e.Repo, "main", with(log.Files(), ".github/pact.yml", provenanceOff+"unmapped-branches: block\n"), "lead")
	s.CommitFiles(e2e.Owner, e2e.Repo, "scratch", map[string]string{"src/backdoor.go": "package src // unreviewed\n"}, "dev", fakegithub.From("main"))
	head := s.CommitFiles(e2e.Owner, e2e.Repo, "chore/tidy", map[string]string{".pact/notes.md": "tidy\n"}, "dev", fakegithub.From("scratch"))
	n := s.OpenPR(e2e.Owner, e2e.Repo, fakegithub.PRSeed{Head: "chore/tidy", Base: "scratch", Author: "dev"})
	out := event{name: "pull_request", payload: prPayload(t, s, n, "chore/tidy", "scratch")}.run(t, s).only(t)
	run := onlyRun(t, s, head, "pact", report.ConclusionFailure)
	var found bool
	for _, f := range out.Findings {
		if f.Code == checks.CodePRUnmappedBranch {
			found = true
			if f.Severity != checks.SeverityError {
				t.Errorf("%s is a %s, want an error: %s", f.Code, f.Severity, f.Message)
			}
			contains(t, "message", f.Message, "as a pull request into the default branch main", "changes files outside .pact/")
		}
	}
	if !found {
		t.Fatalf("no %s finding: %v", checks.CodePRUnmappedBranch, codes(out.Findings))
	}
	contains(t, "summary", run.Summary, string(checks.CodePRUnmappedBranch))

	// The same head into main: no passing run to lend before its own, and
	// its own fails too.
	noPassingRun(t, s, head)
	m := s.OpenPR(e2e.Owner, e2e.Repo, fakegithub.PRSeed{Head: "chore/tidy", Base: "main", Author: "dev"})
	event{name: "pull_request", payload: prPayload(t, s, m, "chore/tidy", "main")}.run(t, s).only(t)
	noPassingRun(t, s, head)
	noViolations(t, s)
}

// TestDecoyBaseDroppedAssignIsARewrite: the decoy base deletes T2's assign
// line from the log; a branch built on it ships LOGIN's code with only T1
// accepted. Against the decoy its log only grew and T1 is LOGIN's one
// task; into main it deleted T2's assign, which is log.rewritten.
func TestDecoyBaseDroppedAssignIsARewrite(t *testing.T) {
	t.Parallel()
	s := e2e.NewServer(t)
	main := e2e.NewLog().Assign("T1", "LOGIN", "feat/login", "dev", "rev").Assign("T2", "LOGIN", "feat/login", "dev", "rev")
	s.CommitFiles(e2e.Owner, e2e.Repo, "main", with(main.Files(), ".github/pact.yml", provenanceOff), "lead")
	decoy := e2e.NewLog().Assign("T1", "LOGIN", "feat/login", "dev", "rev")
	s.CommitFiles(e2e.Owner, e2e.Repo, "scratch", decoy.Files(), "dev", fakegithub.From("main"), fakegithub.Deleting(".pact/tasks/T2.md"))
	work := decoy.Copy().Join("dev").Checkpoint("dev", "T1", "LOGIN").Accept("rev", "T1", "LOGIN")
	files := work.Files()
	files["src/login.go"] = "package login // T1 and T2's code\n"
	head := s.CommitFiles(e2e.Owner, e2e.Repo, "feat/login", files, "dev", fakegithub.From("scratch"))
	n := s.OpenPR(e2e.Owner, e2e.Repo, fakegithub.PRSeed{Head: "feat/login", Base: "scratch", Author: "dev"})
	out := event{name: "pull_request", payload: prPayload(t, s, n, "feat/login", "scratch")}.run(t, s).only(t)
	run := onlyRun(t, s, head, "pact", report.ConclusionFailure)
	var rewritten []checks.Finding
	for _, f := range out.Findings {
		if f.Code == checks.CodeLogRewritten {
			rewritten = append(rewritten, f)
		}
	}
	if len(rewritten) != 1 {
		t.Fatalf("%d %s findings, want 1: %v", len(rewritten), checks.CodeLogRewritten, out.Findings)
	}
	if f := rewritten[0]; f.Line != 3 || !strings.Contains(f.Message, "line 3 of the log where this head meets main") {
		t.Errorf("%s at line %d: %s; want line 3, naming where the head meets main", f.Code, f.Line, f.Message)
	}
	contains(t, "summary", run.Summary, string(checks.CodeLogRewritten))
	noPassingRun(t, s, head)
	noViolations(t, s)
}

// TestDecoyBaseDefaultMeetingFails: a pull request into another base is
// judged a second time as into the default branch, from where its head
// meets main. When GitHub cannot say where (the comparison failing every
// attempt, hung, or 404: no history in common) or the log there cannot be
// read, the judgement fails closed: the check run completed as failure,
// never the verdict of the decoy's meeting alone, and an error naming the
// default branch. A head the decoy base would pass is the one tried.
func TestDecoyBaseDefaultMeetingFails(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		// fault is injected on the comparison of main's tip and the head
		// ("compare"), or on the GraphQL read after the head's and the
		// decoy meeting's ("graphql").
		at    string
		fault fakegithub.Fault
		says  string
	}{
		{name: "no fault: the verdict is a pass"},
		{name: "the comparison fails every attempt", at: "compare", fault: fakegithub.Fault{Status: 502, Times: 100}, says: "502"},
		{name: "the comparison hangs", at: "compare", fault: fakegithub.Fault{Stall: true, Times: 100}, says: "did not answer"},
		{name: "no history in common (404)", at: "compare", fault: fakegithub.Fault{Status: 404, Times: 100}, says: "404 Not Found"},
		{name: "the log where they meet cannot be read", at: "graphql", fault: fakegithub.Fault{Status: 502, Skip: 2, Times: 100}, says: "502"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := e2e.NewServer(t)
			log := e2e.NewLog().Assign("T1", "LOGIN", "feat/login", "dev", "rev")
			s.CommitFiles(e2e.Owner, e2e.Repo, "main", with(log.Files(), ".github/pact.yml", provenanceOff), "lead")
			tip := s.BranchHead(e2e.Owner, e2e.Repo, "main")
			s.CommitFiles(e2e.Owner, e2e.Repo, "scratch", map[string]string{"docs/notes.md": "notes\n"}, "dev", fakegithub.From("main"))
			head := s.CommitFiles(e2e.Owner, e2e.Repo, "chore/tidy", log.Copy().Join("dev").Files(), "dev", fakegithub.From("scratch"))
			n := s.OpenPR(e2e.Owner, e2e.Repo, fakegithub.PRSeed{Head: "chore/tidy", Base: "scratch", Author: "dev"})
			f := tc.fault
			f.Method, f.Path = "GET", repoPath+"/compare/"+tip+"..."+head
			if tc.at == "graphql" {
				f.Method, f.Path = "POST", "/graphql"
			}
			ev := event{name: "pull_request", payload: prPayload(t, s, n, "chore/tidy", "scratch"), retry: hangRetry}
			if tc.at == "" {
				ev.run(t, s).only(t)
				onlyRun(t, s, head, "pact", report.ConclusionSuccess)
				return
			}
			s.Inject(f)

			res := ev.run(t, s)

			if faults(s) == 0 {
				t.Fatal("the fault was not reached")
			}
			contains(t, "the error", res.failed(t).Error(), "judge pull request #", "the default branch main", tc.says)
			noneInProgress(t, s)
			run := onlyRun(t, s, head, "pact", report.ConclusionFailure)
			contains(t, "the check run's summary", run.Summary, "the default branch main")
			noViolations(t, s)
		})
	}
}

// queued puts the scenario's pull request in the merge queue, with group
// as the pact of the queue's merge commit, and runs check mode on the
// merge_group event.
func (sc scenario) queued(t *testing.T, group *e2e.Log) (groupSHA string, out *action.Outcome) {
	t.Helper()
	queue := fmt.Sprintf("gh-readonly-queue/main/pr-%d-%s", sc.number, sc.baseSHA)
	groupSHA = sc.s.CommitFiles(e2e.Owner, e2e.Repo, queue, group.Files(), "", fakegithub.WithParents(sc.baseSHA, sc.headSHA),
		fakegithub.WithMessage(fmt.Sprintf("Merge pull request #%d", sc.number)))
	return groupSHA, event{name: "merge_group", payload: mergeGroupPayload(t, groupSHA, queue, sc.baseSHA), sha: groupSHA}.run(t, sc.s).only(t)
}

// TestCheckMergeGroup: the queue's merge commit is judged for real, and Rule
// 2 applies to the branch of every queued PR.
func TestCheckMergeGroup(t *testing.T) {
	t.Parallel()
	base := soloLog(t).Assign("T1", "LOGIN", "feat/login", "solo", "rev").Assign("T2", "OTHER", "feat/other", "dev", "rev")
	review := base.Copy().Join("solo").Checkpoint("solo", "T1", "LOGIN")
	accepted := review.Copy().Accept("rev", "T1", "LOGIN")
	tests := []struct {
		name string
		// pr is the PR branch's pact; group the merge commit's.
		pr, group  *e2e.Log
		conclusion string
		want       []string
	}{
		{name: "accepted", pr: accepted, group: accepted, conclusion: "success", want: []string{}},
		{name: "forged accept in the group commit", pr: review, group: review.Copy().Accept("solo", "T1", "LOGIN"),
			conclusion: "failure", want: sorted("rule1.self_accept", "pr.unaccepted_feature")},
		{name: "queued PR still waiting", pr: review, group: review, conclusion: "action_required",
			want: []string{"pr.unaccepted_feature"}},
		{name: "group commit rewrites the base", pr: accepted,
			group:      &e2e.Log{Lines: append([]string{accepted.Lines[0], accepted.Lines[2], accepted.Lines[1]}, accepted.Lines[3:]...)},
			conclusion: "failure", want: []string{"log.rewritten"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := e2e.NewServer(t)
			sc := seedPR(t, s, base.Files(), tc.pr.Files(), "feat/login")

			groupSHA, out := sc.queued(t, tc.group)

			fs := out.Findings
			if got := codes(fs); !slices.Equal(got, tc.want) {
				t.Fatalf("codes = %v, want %v\n%+v", got, tc.want, fs)
			}
			run := onlyRun(t, s, groupSHA, "pact", tc.conclusion)
			if runs := s.CheckRuns(sc.headSHA); len(runs) != 0 {
				t.Errorf("check runs on the PR head: %+v", runs)
			}
			checkAnnotations(t, run, fs)
			c := checks.Count(fs)
			checkOutcome(t, out, run, sc.number, c.Errors, c.Warnings, c.Pending)
			for _, f := range fs {
				if f.Code == checks.CodePRUnaccepted && f.TaskID != "T1" {
					t.Errorf("waiting for %s, which is not on a queued PR's branch", f.TaskID)
				}
			}
			if n := s.CountRequests("GET", repoPath+"/pulls/"+fmt.Sprint(sc.number)); n != 1 {
				t.Errorf("read the queued PR %d times, want 1", n)
			}
			noViolations(t, s)
		})
	}
}

// TestCheckMergeGroupOfUnknownPRs: a merge group whose head ref names no
// pull request fails closed before anything is posted: without the queued
// pull requests Rule 2 cannot be judged.
func TestCheckMergeGroupOfUnknownPRs(t *testing.T) {
	t.Parallel()
	s := e2e.NewServer(t)
	sc := seedPR(t, s, e2e.NewLog().Files(), e2e.NewLog().Join("dev").Files(), "feat/login")
	group := s.CommitFiles(e2e.Owner, e2e.Repo, "queue/tmp", e2e.NewLog().Join("dev").Files(), "", fakegithub.WithParents(sc.baseSHA, sc.headSHA))

	err := event{name: "merge_group", payload: mergeGroupPayload(t, group, "queue/tmp", sc.baseSHA)}.run(t, s).failed(t)

	if !strings.Contains(err.Error(), "cannot tell which pull requests merge group "+group+" holds") {
		t.Errorf("error = %v", err)
	}
	if runs := s.CheckRuns(group); len(runs) != 0 {
		t.Errorf("check runs on the group: %+v", runs)
	}
}

// TestCheckMergeGroupCarriesThePRsAheadOfIt: the queue builds each entry's
// group on the group ahead of it, so the commit a merge_group event names
// carries every pull request queued before the one its ref names (and the
// queue may merge them together when the last group passes). Each one's
// branch is judged: an unaccepted feature blocks the group whether its
// pull request is queued ahead or is the one the ref names, behind an
// accepted one (a group judged for one of its branches only would ship
// the other's feature unaccepted).
func TestCheckMergeGroupCarriesThePRsAheadOfIt(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		// evilAhead queues feat/evil (T9, never accepted) ahead of
		// feat/login (T1, accepted); else behind it.
		evilAhead bool
	}{
		{"the pull request ahead waits", true},
		{"the pull request behind waits", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			base := soloLog(t).Assign("T1", "LOGIN", "feat/login", "solo", "rev").Assign("T9", "EVIL", "feat/evil", "solo", "rev")
			s := e2e.NewServer(t)
			baseSHA := s.CommitFiles(e2e.Owner, e2e.Repo, "main", with(base.Files(), ".github/pact.yml", provenanceOff), "lead")
			evil := base.Copy().Join("solo")
			login := evil.Copy().Checkpoint("solo", "T1", "LOGIN").Accept("rev", "T1", "LOGIN")
			type pr struct {
				branch string
				files  map[string]string
				n      int
				head   string
			}
			ahead, behind := &pr{branch: "feat/evil", files: with(evil.Files(), "src/evil.go", "package evil\n")}, &pr{branch: "feat/login", files: login.Files()}
			if !tc.evilAhead {
				ahead, behind = behind, ahead
			}
			for _, p := range []*pr{ahead, behind} { // opened in queue order: the one ahead has the lower number
				p.head = s.CommitFiles(e2e.Owner, e2e.Repo, p.branch, p.files, "solo", fakegithub.From("main"))
				p.n = s.OpenPR(e2e.Owner, e2e.Repo, fakegithub.PRSeed{Head: p.branch, Base: "main"})
			}
			aheadRef := fmt.Sprintf("gh-readonly-queue/main/pr-%d-%s", ahead.n, baseSHA)
			aheadSHA := s.CommitFiles(e2e.Owner, e2e.Repo, aheadRef, ahead.files, "", fakegithub.WithParents(baseSHA, ahead.head))
			// The group holds both pull requests: login's log, which extends
			// evil's, and evil's code.
			queue := fmt.Sprintf("gh-readonly-queue/main/pr-%d-%s", behind.n, aheadSHA)
			groupSHA := s.CommitFiles(e2e.Owner, e2e.Repo, queue, with(login.Files(), "src/evil.go", "package evil\n"), "", fakegithub.WithParents(aheadSHA, behind.head))
			// A group queued behind this one is not carried by it.
			s.CommitFiles(e2e.Owner, e2e.Repo, fmt.Sprintf("gh-readonly-queue/main/pr-%d-%s", 99, groupSHA), map[string]string{"x": "1"}, "", fakegithub.WithParents(groupSHA))

			out := event{name: "merge_group", payload: mergeGroupPayload(t, groupSHA, queue, aheadSHA), sha: groupSHA}.run(t, s).only(t)

			if want := []int{ahead.n, behind.n}; !slices.Equal(out.PRs, want) {
				t.Errorf("judged pull requests %v, want %v", out.PRs, want)
			}
			var waiting []string
			for _, f := range out.Findings {
				if f.Code == checks.CodePRUnaccepted {
					waiting = append(waiting, f.TaskID)
				}
			}
			if !slices.Equal(waiting, []string{"T9"}) {
				t.Errorf("waiting for %v, want [T9] (the feature of feat/evil, queued %s)", waiting, map[bool]string{true: "ahead", false: "behind feat/login"}[tc.evilAhead])
			}
			onlyRun(t, s, groupSHA, "pact", "action_required")
			noViolations(t, s)
		})
	}
}

// stackedQueue is the story of a queue: PR #1 (feat/login) adds
// T1's checkpoint and accept; PR #2 (feat/two), built on PR #1's branch,
// edits the evidence of that checkpoint. Each PR's own log extends
// main's, and so does each group's; only the group ahead has the
// checkpoint as PR #1 wrote it. Provenance is off (main's file).
func stackedQueue(t *testing.T) (s *fakegithub.Server, g1, g2 fakegithub.MergeGroup, prs []int) {
	t.Helper()
	base := e2e.NewLog().Assign("T1", "LOGIN", "feat/login", "dev", "rev")
	s = e2e.NewServer(t)
	s.CommitFiles(e2e.Owner, e2e.Repo, "main", with(base.Files(), ".github/pact.yml", provenanceOff+"unmapped-branches: allow\n"), "lead")
	one := base.Copy().Join("dev").Checkpoint("dev", "T1", "LOGIN").Accept("rev", "T1", "LOGIN")
	s.CommitFiles(e2e.Owner, e2e.Repo, "feat/login", with(one.Files(), "src/login.go", "package login\n"), "dev", fakegithub.From("main"))
	two := one.Copy()
	two.Lines[3] = strings.Replace(two.Lines[3], "tests pass", "tests pass (CI run 7)", 1)
	if two.Lines[3] == one.Lines[3] {
		t.Fatalf("the checkpoint line holds no evidence to edit: %s", one.Lines[3])
	}
	s.CommitFiles(e2e.Owner, e2e.Repo, "feat/two", with(two.Files(), "src/two.go", "package two\n"), "dev", fakegithub.From("feat/login"))
	n1 := s.OpenPR(e2e.Owner, e2e.Repo, fakegithub.PRSeed{Head: "feat/login", Base: "main"})
	n2 := s.OpenPR(e2e.Owner, e2e.Repo, fakegithub.PRSeed{Head: "feat/two", Base: "main"})
	g1 = s.QueuePR(n1, "")
	g2 = s.QueuePR(n2, g1.HeadSHA)
	return s, g1, g2, []int{n1, n2}
}

// TestCheckMergeGroupAppendOnlyAgainstTheGroupAhead: the group behind
// another is append-only against it (merge_group.base_sha), not only
// against main, whose log both groups extend.
func TestCheckMergeGroupAppendOnlyAgainstTheGroupAhead(t *testing.T) {
	t.Parallel()
	s, g1, g2, prs := stackedQueue(t)
	for i, branch := range []string{"feat/login", "feat/two"} {
		event{name: "pull_request", payload: prPayload(t, s, prs[i], branch, "main")}.run(t, s).only(t)
		onlyRun(t, s, s.BranchHead(e2e.Owner, e2e.Repo, branch), "pact", "success") // neither PR's own check can see it
	}
	out := event{name: "merge_group", payload: mergeGroupPayload(t, g1.HeadSHA, g1.HeadRef, g1.BaseSHA), sha: g1.HeadSHA}.run(t, s).only(t)
	if len(out.Findings) != 0 {
		t.Errorf("group 1: %+v", out.Findings)
	}
	onlyRun(t, s, g1.HeadSHA, "pact", "success")

	out = event{name: "merge_group", payload: mergeGroupPayload(t, g2.HeadSHA, g2.HeadRef, g2.BaseSHA), sha: g2.HeadSHA}.run(t, s).only(t)
	run := onlyRun(t, s, g2.HeadSHA, "pact", "failure")
	if got := codes(out.Findings); !slices.Equal(got, []string{"log.rewritten"}) || out.Findings[0].Line != 4 {
		t.Fatalf("group 2: %+v", out.Findings)
	}
	if msg := out.Findings[0].Message; !strings.Contains(msg, "line 4 of the log of "+g1.HeadSHA[:12]) || !strings.Contains(msg, "tests pass (CI run 7)") {
		t.Errorf("the finding does not name the group ahead and the edit: %q", msg)
	}
	// The group's summary speaks of the group, never of "this PR".
	contains(t, "group 2's summary", run.Summary, "log.rewritten",
		fmt.Sprintf(", the merge group of pull requests #%d, #%d into main (branches feat/login, feat/two).", prs[0], prs[1]), "**feat/login** (in this group)")
	if strings.Contains(run.Summary, "this PR") || strings.Contains(run.Summary, "head of 2 open pull requests") {
		t.Errorf("the group's summary speaks of a pull request:\n%s", run.Summary)
	}
	if !slices.Equal(out.PRs, prs) {
		t.Errorf("group 2 holds %v, want %v", out.PRs, prs)
	}
	noViolations(t, s)
}

// TestCheckMergeGroupParentFailsClosed: a base_sha that is no commit id, or
// a commit the group does not build on, is not trusted: the group's check
// run fails, saying so in one sentence.
func TestCheckMergeGroupParentFailsClosed(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, parent, says string }{
		{"not a commit id", "main", `names "main" as the commit merge group`},
		{"empty", "", `names "" as the commit merge group`},
		{"a commit the group does not build on", "", "but the group does not build on it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, g1, g2, _ := stackedQueue(t)
			parent := tc.parent
			if strings.Contains(tc.name, "does not build on") {
				// The first group: none is queued ahead of it.
				g2 = g1
				parent = s.CommitFiles(e2e.Owner, e2e.Repo, "elsewhere", map[string]string{"x": "1"}, "dev", fakegithub.From("main"))
			}
			err := event{name: "merge_group", payload: mergeGroupPayload(t, g2.HeadSHA, g2.HeadRef, parent), sha: g2.HeadSHA}.run(t, s).failed(t)
			if !strings.Contains(err.Error(), tc.says) || !strings.Contains(err.Error(), "what is queued ahead of it cannot be judged") || strings.Count(err.Error(), ". ") > 0 {
				t.Errorf("error = %v", err)
			}
			run := onlyRun(t, s, g2.HeadSHA, "pact", "failure")
			contains(t, "the failed run", run.Summary, "cannot be judged")
		})
	}
}

// TestCheckMergeGroupParentMustBeTheGroupAhead: a base_sha that the group
// builds on, yet is not the head of the group queued ahead of it, would
// judge the group against a log that already holds (or lacks) what the
// pull request ahead adds: the group's own head, the base branch's tip
// while a group is queued ahead, or a commit of the pull request behind
// (whose log already carries the edit). Each disagrees with the queue's
// branches and fails closed; the true parent is judged.
func TestCheckMergeGroupParentMustBeTheGroupAhead(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, says string }{
		{"the group's own head", "that is the group itself"},
		{"the base's tip with a group ahead", "queued ahead of it"},
		{"a commit of the pull request behind", "queued ahead of it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, g1, g2, _ := stackedQueue(t)
			parent := map[string]string{
				"the group's own head":                g2.HeadSHA,
				"the base's tip with a group ahead":   g1.BaseSHA,
				"a commit of the pull request behind": s.BranchHead(e2e.Owner, e2e.Repo, "feat/two"),
			}[tc.name]
			res := event{name: "merge_group", payload: mergeGroupPayload(t, g2.HeadSHA, g2.HeadRef, parent), sha: g2.HeadSHA}.run(t, s)
			if res.err == nil {
				t.Fatalf("the group was judged against %s: %+v", tc.name, res.outcomes[0].Findings)
			}
			if !strings.Contains(res.err.Error(), tc.says) || !strings.Contains(res.err.Error(), "cannot be judged") {
				t.Errorf("error = %v", res.err)
			}
			onlyRun(t, s, g2.HeadSHA, "pact", "failure")
		})
	}
}

// TestCheckMergeGroupParentIsTheLatestAhead: with two groups queued ahead,
// the parent must be the later one: the earlier one (which the later one
// builds on) fails closed, the later one is judged.
func TestCheckMergeGroupParentIsTheLatestAhead(t *testing.T) {
	t.Parallel()
	s, g1, g2, _ := stackedQueue(t)
	s.CommitFiles(e2e.Owner, e2e.Repo, "feat/three", map[string]string{"src/three.go": "package three\n"}, "dev", fakegithub.From("main"))
	n3 := s.OpenPR(e2e.Owner, e2e.Repo, fakegithub.PRSeed{Head: "feat/three", Base: "main"})
	g3 := s.QueuePR(n3, g2.HeadSHA)
	res := event{name: "merge_group", payload: mergeGroupPayload(t, g3.HeadSHA, g3.HeadRef, g1.HeadSHA), sha: g3.HeadSHA}.run(t, s)
	if res.err == nil || !strings.Contains(res.err.Error(), "group "+g2.HeadSHA[:7]) || !strings.Contains(res.err.Error(), "cannot be judged") {
		t.Fatalf("judged against the group two places ahead: err %v", res.err)
	}
	// Against g2, its true parent, the group is judged (and passes: it
	// adds nothing to the log; g2's own check fails on its rewrite).
	event{name: "merge_group", payload: mergeGroupPayload(t, g3.HeadSHA, g3.HeadRef, g3.BaseSHA), sha: g3.HeadSHA}.run(t, s).only(t)
	noViolations(t, s)
}

// TestCheckRewrittenHistory: the merge base's lines must be an exact prefix
// of the head's.
func TestCheckRewrittenHistory(t *testing.T) {
	t.Parallel()
	// Lines: 1 init, 2 assign T1, 3 assign T2 (another branch), 4 join,
	// 5 checkpoint T1.
	base := e2e.NewLog().Assign("T1", "LOGIN", "feat/login", "dev", "rev").Assign("T2", "OTHER", "feat/other", "dev", "rev").
		Join("dev").Checkpoint("dev", "T1", "LOGIN")
	accept := base.Copy().Accept("rev", "T1", "LOGIN").Lines[5]
	lines := func(ls ...string) *e2e.Log { return &e2e.Log{Lines: ls} }
	b := base.Lines
	tests := []struct {
		name     string
		head     *e2e.Log
		want     []string
		wantLine int
		wantMsg  string
	}{
		{name: "line edited", head: lines(b[0], b[1], b[2], b[3], strings.Replace(b[4], "tests pass", "tests pass, honestly", 1), accept),
			want: sorted("log.rewritten"), wantLine: 5, wantMsg: "line 5 of the merge-base log was changed"},
		{name: "line deleted", head: lines(b[0], b[1], b[3], b[4], accept),
			want: sorted("log.rewritten"), wantLine: 3},
		{name: "lines reordered", head: lines(b[0], b[2], b[1], b[3], b[4], accept),
			want: sorted("log.rewritten"), wantLine: 2},
		{name: "line inserted before the end", head: lines(b[0], b[1], b[2], b[3], accept, b[4]),
			want: sorted("log.rewritten"), wantLine: 5, wantMsg: "a line was inserted before line 5"},
		{name: "tail truncated", head: lines(b[0], b[1], b[2], b[3]),
			want: sorted("log.rewritten", "pr.unaccepted_feature"), wantLine: 4, wantMsg: "line 5 and every line after it were deleted"},
		{name: "CRLF line terminators are not a rewrite", head: lines(b[0]+"\r", b[1]+"\r", b[2]+"\r", b[3]+"\r", b[4]+"\r", accept),
			want: []string{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := e2e.NewServer(t)
			sc := seedPR(t, s, base.Files(), tc.head.Files(), "feat/login")

			out := sc.check(t).only(t)

			fs := out.Findings
			if got := codes(fs); !slices.Equal(got, tc.want) {
				t.Fatalf("codes = %v, want %v\n%v", got, tc.want, fs)
			}
			if len(tc.want) == 0 {
				run := onlyRun(t, s, sc.headSHA, "pact", "success")
				checkOutcome(t, out, run, sc.number, 0, 0, 0)
				return
			}
			for _, f := range fs {
				if f.Code == "log.rewritten" && (f.Path != logPath || f.Line != tc.wantLine || f.Severity != checks.SeverityError || !strings.Contains(f.Message, tc.wantMsg)) {
					t.Errorf("log.rewritten at %s:%d (%s) %q; want %s:%d containing %q", f.Path, f.Line, f.Severity, f.Message, logPath, tc.wantLine, tc.wantMsg)
				}
			}
			run := onlyRun(t, s, sc.headSHA, "pact", "failure")
			checkAnnotations(t, run, fs)
			c := checks.Count(fs)
			checkOutcome(t, out, run, sc.number, c.Errors, 0, c.Pending)
			checkSummaryFindings(t, run.Summary, fs)
			if !strings.Contains(run.Text, "`log.rewritten`") {
				t.Errorf("summary or text lacks the code:\n%s\n%s", run.Summary, run.Text)
			}
			noViolations(t, s)
		})
	}
}
