package action_test

import (
	"strings"
	"testing"

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
