package action_test

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/internal/testkit/e2e"
	"github.com/pact-action/pact-action/internal/testkit/fakegithub"
	"github.com/pact-action/pact-action/report"
)

// Reading the head's pact: from the workspace when it holds the head
// commit, otherwise through GitHub's GraphQL API (one request for .pact/,
// whatever the number of tasks).

// TestCheckHeadSource: the head is read from the workspace when it holds
// exactly the head commit, and through the API at pull_request.head.sha
// otherwise (e.g. actions/checkout's merge commit); the check run is always
// on the PR head, never on the runner's merge SHA.
func TestCheckHeadSource(t *testing.T) {
	t.Parallel()
	base := e2e.NewLog().Assign("T1", "LOGIN", "feat/login", "dev", "rev")
	head := base.Copy().Join("dev").Checkpoint("dev", "T1", "LOGIN").Accept("rev", "T1", "LOGIN")
	// The workspace copy differs from what the API serves: a drift only
	// the workspace has tells which source was read.
	wsFiles := with(head.Files(), statePath, base.Files()[statePath])
	tests := []struct {
		name string
		git  func(headSHA, mergeSHA string) map[string]string
		disk bool
	}{
		{name: "detached HEAD at the head", disk: true,
			git: func(h, _ string) map[string]string { return map[string]string{"HEAD": h + "\n"} }},
		{name: "branch ref at the head", disk: true,
			git: func(h, _ string) map[string]string {
				return map[string]string{"HEAD": "ref: refs/heads/feat/login\n", "refs/heads/feat/login": h + "\n"}
			}},
		{name: "packed ref at the head", disk: true,
			git: func(h, _ string) map[string]string {
				return map[string]string{"HEAD": "ref: refs/heads/feat/login\n", "packed-refs": "# pack-refs with: peeled fully-peeled sorted\n" + h + " refs/heads/feat/login\n"}
			}},
		{name: "merge commit checked out",
			git: func(_, m string) map[string]string { return map[string]string{"HEAD": m + "\n"} }},
		{name: "no git directory",
			git: func(_, _ string) map[string]string { return nil }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := e2e.NewServer(t)
			sc := seedPR(t, s, base.Files(), head.Files(), "feat/login")
			// refs/pull/N/merge: what actions/checkout checks out by default.
			mergeSHA := s.CommitFiles(e2e.Owner, e2e.Repo, fmt.Sprintf("pull/%d/merge", sc.number), head.Files(), "",
				fakegithub.WithParents(sc.baseSHA, sc.headSHA))
			ev := sc.event(t)
			ev.sha, ev.workspace = mergeSHA, writeWorkspace(t, wsFiles, tc.git(sc.headSHA, mergeSHA))

			out := ev.run(t, s).only(t)

			if runs := s.CheckRuns(mergeSHA); len(runs) != 0 {
				t.Errorf("check run posted on the merge SHA: %+v", runs)
			}
			// The head's pact is one GraphQL read at the head commit: a
			// read of the head (rN) that names files there (rNf…, rNd…);
			// the head's check runs come with it, or alone when the
			// workspace holds the head.
			headReads := 0
			for _, r := range s.Requests() {
				if strings.HasPrefix(r.Path, repoPath+"/contents/.pact/") && strings.Contains(r.Query, "ref="+sc.headSHA) {
					t.Errorf("head file read through the contents API: %s?%s", r.Path, r.Query)
				}
				if r.Operation != fakegithub.GraphQLOperation {
					continue
				}
				for k, v := range r.Variables {
					if v == any(sc.headSHA) && slices.ContainsFunc(slices.Collect(maps.Keys(r.Variables)), func(f string) bool {
						return strings.HasPrefix(f, k+"f") || strings.HasPrefix(f, k+"d")
					}) {
						headReads++
					}
				}
			}
			if tc.disk {
				run := onlyRun(t, s, sc.headSHA, "pact", "failure")
				if got := codes(out.Findings); !slices.Equal(got, []string{"drift.state"}) {
					t.Errorf("codes = %v, want the workspace's drift", got)
				}
				checkAnnotations(t, run, out.Findings)
				checkOutcome(t, out, run, sc.number, 1, 0, 0)
				if headReads != 0 || out.Source != "the workspace" {
					t.Errorf("%d reads at the head through the API although the workspace holds the head (source %q)", headReads, out.Source)
				}
			} else {
				run := onlyRun(t, s, sc.headSHA, "pact", "success")
				checkOutcome(t, out, run, sc.number, 0, 0, 0)
				if headReads != 1 {
					t.Errorf("%d GraphQL reads at the head, want 1", headReads)
				}
			}
			if got := s.CountRequests("GET", repoPath+"/compare/*"); got != 1 {
				t.Errorf("merge base: %d compare requests, want 1", got)
			}
			noViolations(t, s)
		})
	}
}

// A symbolic link or a submodule where the pact expects a file is not read
// as a file: the run fails closed with one sentence, as it does for the
// workspace.
func TestHeadReadRefusesWhatIsNotARegularFile(t *testing.T) {
	t.Parallel()
	log := e2e.NewLog().Assign("T1", "LOGIN", "feat/login", "dev", "rev")
	for _, tc := range []struct {
		name string
		opt  func(sub string) fakegithub.CommitOption
		want string
	}{
		{name: "log is a symbolic link", opt: func(string) fakegithub.CommitOption { return fakegithub.Symlink(logPath, "/etc/passwd") },
			want: "read .pact/log.jsonl from the GitHub API at"},
		{name: "task file is a symbolic link", opt: func(string) fakegithub.CommitOption {
			return fakegithub.Symlink(".pact/tasks/T1.md", "../../README.md")
		},
			want: "read .pact/tasks/T1.md from the GitHub API at"},
		{name: "STATE.yml is a submodule", opt: func(sub string) fakegithub.CommitOption { return fakegithub.Submodule(statePath, sub) },
			want: "read .pact/STATE.yml from the GitHub API at"},
		{name: "the pact directory is a symbolic link", opt: func(string) fakegithub.CommitOption { return fakegithub.Symlink(".pact", "elsewhere") },
			want: "read .pact from the GitHub API at"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := e2e.NewServer(t)
			sc := seedPR(t, s, log.Files(), log.Files(), "feat/login")
			sub := s.CommitFiles(e2e.Owner, e2e.Repo, "elsewhere", map[string]string{"x": "1"}, "dev")
			head := s.CommitFiles(e2e.Owner, e2e.Repo, "feat/login", nil, "dev", tc.opt(sub))

			err := sc.check(t).failed(t)

			run := latestRun(t, s, head)
			if run.Conclusion != report.ConclusionFailure || !strings.Contains(run.Summary, tc.want) ||
				!strings.Contains(run.Summary, "not a") {
				t.Errorf("check run %s, summary:\n%s", run.Conclusion, run.Summary)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error = %v", err)
			}
			if strings.Contains(run.Summary, "root:") {
				t.Error("the link's target was read")
			}
			noViolations(t, s)
		})
	}
}

// Every task file the pull request adds or changes is checked however many
// there are, in one request by blob id after the listings of the head and
// the merge base; one it leaves as it was is not read (docs/semantics.md
// §7 "Task files"), and a task file over GitHub's cut of Blob.text is read
// whole through the blobs API.
func TestHeadReadChecksChangedTaskFiles(t *testing.T) {
	t.Parallel()
	const n = 600
	base := e2e.NewLog()
	for i := 1; i <= n; i++ {
		base.Assign(fmt.Sprintf("T%d", i), "BIG", fmt.Sprintf("feat/t%d", i), "dev", "rev")
	}
	head := base.Copy().Join("dev")
	baseFiles := base.Files()
	// Wrong at the merge base already, and left so: not the PR's doing.
	baseFiles[".pact/tasks/T3.md"] = "---\nid: T3\nowner: nobody\n---\n"
	files := head.Files()
	files[".pact/tasks/T3.md"] = baseFiles[".pact/tasks/T3.md"]
	// The last task's file is missing, the one before differs from the
	// log, and one is larger than the GraphQL text cut but right.
	files[fmt.Sprintf(".pact/tasks/T%d.md", n-1)] = "---\nid: nope\n---\n"
	files[".pact/tasks/T7.md"] += strings.Repeat("spec line\n", 1000)
	last := fmt.Sprintf(".pact/tasks/T%d.md", n)
	// The same verdict whether the head is read through the API or from
	// the workspace (where each blob id is computed from the file).
	for _, disk := range []bool{false, true} {
		t.Run(fmt.Sprintf("workspace=%v", disk), func(t *testing.T) {
			t.Parallel()
			s := e2e.NewServer(t, fakegithub.WithGraphQLTextLimit(4096))
			sc := seedPR(t, s, baseFiles, files, "feat/other")
			headSHA := s.CommitFiles(e2e.Owner, e2e.Repo, "feat/other", nil, "dev", fakegithub.Deleting(last))
			ev := sc.event(t)
			if disk {
				ev.workspace = writeWorkspace(t, without(files, last), map[string]string{"HEAD": headSHA + "\n"})
			}

			out := ev.run(t, s).only(t)

			var got []string
			for _, f := range out.Findings {
				if f.Code == checks.CodeTaskfileMissing || f.Code == checks.CodeTaskfileMismatch {
					got = append(got, fmt.Sprintf("%s %s", f.Code, f.TaskID))
				}
			}
			want := []string{fmt.Sprintf("%s T%d", checks.CodeTaskfileMismatch, n-1), fmt.Sprintf("%s T%d", checks.CodeTaskfileMissing, n)}
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("task file findings = %v, want %v", got, want)
			}
			if c := checks.Count(out.Findings); c.Errors != 0 {
				t.Errorf("%d error(s): task-file findings are warnings", c.Errors)
			}
			if g, b := s.CountRequests("POST", "/graphql"), s.CountRequests("GET", repoPath+"/git/blobs/*"); !disk && (g != 3 || b != 4) {
				t.Errorf("graphql requests %d, blob reads %d; want 3 (the head's listing, the merge base's, the changed task files) and 4 (both logs, STATE.yml and the one task file over the cut)", g, b)
			} else if disk && (g != 2 || b != 1) {
				t.Errorf("graphql requests %d, blob reads %d; want 2 (the base branch's configuration, the merge base's log and listing) and 1 (its log)", g, b)
			}
			noViolations(t, s)
		})
	}
}

// A GitHub whose GraphQL endpoint does not answer (an older GitHub
// Enterprise Server, a proxy) is read through the REST API: the same
// verdict, at more calls.
func TestCheckWithoutGraphQL(t *testing.T) {
	t.Parallel()
	s := e2e.NewServer(t, fakegithub.WithoutGraphQL())
	base := e2e.NewLog().Assign("T1", "LOGIN", "feat/login", "dev", "rev")
	sc := seedPR(t, s, base.Files(), base.Copy().Join("dev").Checkpoint("dev", "T1", "LOGIN").Files(), "feat/login")
	out := sc.check(t).only(t)
	if out.Conclusion != "action_required" {
		t.Fatalf("conclusion %q, want action_required:\n%s", out.Conclusion, out.Summary)
	}
	if runs := s.CheckRuns(sc.headSHA); len(runs) != 1 || runs[0].Conclusion != "action_required" {
		t.Errorf("check runs: %+v", runs)
	}
	if v := s.Violations(); len(v) != 0 {
		t.Errorf("violations: %v", v)
	}
}
