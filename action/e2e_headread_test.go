package action_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/internal/testkit/e2e"
	"github.com/pact-action/pact-action/internal/testkit/fakegithub"
	"github.com/pact-action/pact-action/report"
)

// End-to-end tests of reading the head's pact through GitHub's GraphQL API
// (one request for .pact/, whatever the number of tasks).

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
		{name: "log is a symbolic link", opt: func(string) fakegithub.CommitOption { return fakegithub.Symlink(".pact/log.jsonl", "/etc/passwd") },
			want: "read .pact/log.jsonl from the GitHub API at"},
		{name: "task file is a symbolic link", opt: func(string) fakegithub.CommitOption {
			return fakegithub.Symlink(".pact/tasks/T1.md", "../../README.md")
		},
			want: "read .pact/tasks/T1.md from the GitHub API at"},
		{name: "STATE.yml is a submodule", opt: func(sub string) fakegithub.CommitOption { return fakegithub.Submodule(".pact/STATE.yml", sub) },
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
			res := e2e.Run{Server: s, EventName: "pull_request", Payload: prPayload(t, s, sc.number, "feat/login", "main")}.Exec(t)

			wantExit(t, res, 2)
			run := latestRun(t, s, head)
			if run.Conclusion != report.ConclusionFailure || !strings.Contains(run.Summary, tc.want) ||
				!strings.Contains(run.Summary, "not a") {
				t.Errorf("check run %s, summary:\n%s", run.Conclusion, run.Summary)
			}
			if strings.Contains(run.Summary, "root:") {
				t.Error("the link's target was read")
			}
			noViolations(t, s)
		})
	}
}

// Every task file is checked however many tasks there are (the check read
// at most 200 through the API before), and a task file over GitHub's cut of
// Blob.text is read whole through the blobs API.
func TestHeadReadChecksEveryTaskFile(t *testing.T) {
	t.Parallel()
	const n = 600
	s := e2e.NewServer(t, fakegithub.WithGraphQLTextLimit(4096))
	base := e2e.NewLog()
	for i := 1; i <= n; i++ {
		base.Assign(fmt.Sprintf("T%d", i), "BIG", fmt.Sprintf("feat/t%d", i), "dev", "rev")
	}
	head := base.Copy().Join("dev")
	files := head.Files()
	// The last task's file is missing, the one before differs from the
	// log, and one is larger than the GraphQL text cut but right.
	files[fmt.Sprintf(".pact/tasks/T%d.md", n-1)] = "---\nid: nope\n---\n"
	files[".pact/tasks/T7.md"] += strings.Repeat("spec line\n", 1000)
	sc := seedPR(t, s, base.Files(), files, "feat/other")
	s.CommitFiles(e2e.Owner, e2e.Repo, "feat/other", nil, "dev", fakegithub.Deleting(fmt.Sprintf(".pact/tasks/T%d.md", n)))

	res := sc.run(t, nil)

	wantExit(t, res, 0) // task-file findings are warnings
	var got []string
	for _, f := range findings(t, res, 0) {
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
	if g, b := s.CountRequests("POST", "/graphql"), s.CountRequests("GET", repoPath+"/git/blobs/*"); g != 1 || b < 1 {
		t.Errorf("graphql requests %d, blob reads %d; want 1 and the large task file's blob", g, b)
	}
	noViolations(t, s)
}

// A GitHub whose GraphQL endpoint does not answer (an older GitHub
// Enterprise Server, a proxy) is read through the REST API: the same
// verdict, at more calls.
func TestCheckWithoutGraphQL(t *testing.T) {
	t.Parallel()
	s := e2e.NewServer(t, fakegithub.WithoutGraphQL())
	base := e2e.NewLog().Assign("T1", "LOGIN", "feat/login", "dev", "rev")
	sc := seedPR(t, s, base.Files(), base.Copy().Join("dev").Checkpoint("dev", "T1", "LOGIN").Files(), "feat/login")
	res := sc.run(t, nil)
	if res.Code != 0 || res.Outputs["conclusion"] != "action_required" {
		t.Fatalf("exit %d, conclusion %q\nstdout: %s\nstderr: %s", res.Code, res.Outputs["conclusion"], res.Stdout, res.Stderr)
	}
	if v := s.Violations(); len(v) != 0 {
		t.Errorf("violations: %v", v)
	}
}
