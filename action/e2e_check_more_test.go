package action_test

import (
	"fmt"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/internal/testkit/e2e"
	"github.com/pact-action/pact-action/internal/testkit/fakegithub"
	"github.com/pact-action/pact-action/projection"
)

// End-to-end tests of check mode where GitHub is not cooperative (read-only
// tokens, errors, rate limits), or where the inputs are unusual (GHES, a
// checked-out head, large logs, hostile text, fail-on).

var workflowCommand = regexp.MustCompile(`(?m)^::(error|warning|notice)( [^:]*)?::(.*)$`)

// commands lists the workflow annotation commands of stdout.
func commands(stdout string) [][]string {
	return workflowCommand.FindAllStringSubmatch(stdout, -1)
}

// TestCheckForkReadOnlyToken: a fork's read-only token cannot create check
// runs; the verdict goes to at most 10 workflow annotations (most important
// first) and the job summary, and the job itself fails on violations and on
// waiting.
func TestCheckForkReadOnlyToken(t *testing.T) {
	t.Parallel()
	base := e2e.NewLog().Assign("T1", "LOGIN", "feat/login", "dev", "rev").Assign("T2", "LOGIN", "feat/login", "dev", "rev")
	waiting := base.Copy().Join("dev").Checkpoint("dev", "T1", "LOGIN")
	violating := waiting.Copy()
	for range 14 {
		violating.Add("ghost", projection.TypeJoin, "", "", map[string]any{"roles": []string{"worker"}})
	}
	violatingFiles := without(violating.Files(), ".pact/tasks/T2.md") // one warning too
	tests := []struct {
		name  string
		files map[string]string
		exit  int
		// errors, pending, warnings expected
		errs, pending, warnings int
		conclusion              string
	}{
		{name: "violations", files: violatingFiles, exit: 1, errs: 14, pending: 2, warnings: 1, conclusion: "failure"},
		{name: "waiting only", files: waiting.Files(), exit: 4, pending: 2, conclusion: "action_required"},
		{name: "clean", files: base.Copy().Join("dev").Checkpoint("dev", "T1", "LOGIN").Checkpoint("dev", "T2", "LOGIN").
			Accept("rev", "T1", "LOGIN").Accept("rev", "T2", "LOGIN").Files(), exit: 0, conclusion: "success"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := e2e.NewServer(t)
			s.SetToken(e2e.Token, fakegithub.Token{Login: "github-actions[bot]", ReadOnly: true})
			baseSHA := s.CommitFiles(e2e.Owner, e2e.Repo, "main", with(base.Files(), ".github/pact.yml", provenanceOff), "lead")
			s.ForkRepo(e2e.Owner, e2e.Repo, "forker")
			headSHA := s.CommitFiles("forker", e2e.Repo, "feat/login", tc.files, "forker", fakegithub.From("main"))
			if _, ok := tc.files[".pact/tasks/T2.md"]; !ok {
				headSHA = s.CommitFiles("forker", e2e.Repo, "feat/login", map[string]string{}, "forker", fakegithub.Deleting(".pact/tasks/T2.md"))
			}
			n := s.OpenPR(e2e.Owner, e2e.Repo, fakegithub.PRSeed{Head: "feat/login", Base: "main", HeadOwner: "forker"})
			payload := e2e.Payload(t, "pull_request/synchronize.payload.json", map[string]any{
				"number": n, "pull_request.number": n,
				"pull_request.head.ref": "feat/login", "pull_request.head.sha": headSHA,
				"pull_request.head.repo.full_name": "forker/" + e2e.Repo, "pull_request.head.repo.fork": true,
				"pull_request.base.ref": "main", "pull_request.base.sha": baseSHA,
				"pull_request.base.repo.full_name": e2e.Owner + "/" + e2e.Repo,
				"repository.full_name":             e2e.Owner + "/" + e2e.Repo, "repository.name": e2e.Repo,
			})

			res := e2e.Run{Server: s, EventName: "pull_request", Payload: payload}.Exec(t)

			wantExit(t, res, tc.exit)
			if runs := s.CheckRuns(headSHA); len(runs) != 0 {
				t.Errorf("check runs were stored with a read-only token: %+v", runs)
			}
			if got := s.CountRequests("POST", repoPath+"/check-runs"); got != 1 {
				t.Errorf("create check run attempted %d times, want once (a 403 is not retried)", got)
			}
			if got := s.CountRequests("PATCH", repoPath+"/check-runs/*"); got != 0 {
				t.Errorf("%d check run updates without a check run", got)
			}
			notice := "pact: the token cannot create check runs (a pull request from a fork gets a read-only token), so the verdict goes to workflow annotations and the job summary instead."
			if strings.Count(res.Stdout, notice) != 1 {
				t.Errorf("stdout does not say once, in one line, why there is no check run:\n%s", res.Stdout)
			}
			if strings.Contains(res.Stderr, "level=ERROR") {
				t.Errorf("stderr has errors besides the one-line notice:\n%s", res.Stderr)
			}
			fs := findings(t, res, 0)
			c := checks.Count(fs)
			if c.Errors != tc.errs || c.Pending != tc.pending || c.Warnings != tc.warnings {
				t.Fatalf("counts = %+v, want errors %d pending %d warnings %d", c, tc.errs, tc.pending, tc.warnings)
			}
			checkOutputs(t, res, tc.conclusion, tc.errs, tc.warnings, tc.pending)
			runs := res.Report["runs"].([]any)
			if r := runs[0].(map[string]any); r["head_sha"] != headSHA || r["check_run_id"] != nil {
				t.Errorf("report run = %v; want head %s and no check run id", r, headSHA)
			}

			cmds := commands(res.Stdout)
			total := len(fs)
			if total > 10 {
				if len(cmds) != 10 {
					t.Fatalf("%d workflow annotations for %d findings, want 10:\n%s", len(cmds), total, res.Stdout)
				}
				last := cmds[9]
				if last[1] != "error" || !strings.Contains(last[3], fmt.Sprintf("%d more finding(s) are not annotated", total-9)) {
					t.Errorf("the 10th annotation does not summarise the rest: %q", last[0])
				}
				cmds = cmds[:9]
			} else if len(cmds) != total {
				t.Fatalf("%d workflow annotations for %d findings:\n%s", len(cmds), total, res.Stdout)
			}
			// Most important first: errors, then waiting, then warnings.
			rank := map[string]int{"error": 0, "notice": 1, "warning": 2}
			for i := 1; i < len(cmds); i++ {
				if rank[cmds[i][1]] < rank[cmds[i-1][1]] {
					t.Errorf("annotation %d (%s) after a less important one (%s)", i, cmds[i][1], cmds[i-1][1])
				}
			}
			for _, cmd := range cmds {
				if !strings.Contains(cmd[2], "file=.pact/") || !strings.Contains(cmd[2], "line=") {
					t.Errorf("annotation without file and line: %q", cmd[0])
				}
			}
			if tc.name == "waiting only" {
				for _, cmd := range cmds {
					if cmd[1] != "notice" || !strings.Contains(cmd[2], "title=pr.unaccepted_feature") {
						t.Errorf("waiting annotated as %q", cmd[0])
					}
				}
			}
			for _, w := range []string{"> " + strings.TrimPrefix(strings.TrimSuffix(notice, "."), "pact: "), "(branch feat/login)"} {
				if !strings.Contains(res.Summary, w) {
					t.Errorf("job summary lacks %q:\n%s", w, res.Summary)
				}
			}
			if tc.errs > 0 && strings.Count(res.Summary, "| ❌ error |") != tc.errs {
				t.Errorf("job summary does not list every violation:\n%s", res.Summary)
			}
			noViolations(t, s)
		})
	}
}

// TestCheckAPI5xxThenSuccess: transient server errors on every kind of call
// are retried, and the verdict is the same as without them.
func TestCheckAPI5xxThenSuccess(t *testing.T) {
	t.Parallel()
	retryAfter := http.Header{"Retry-After": []string{"1"}}
	tests := []struct {
		name, method, path string
		status             int
		header             http.Header
		times              int
	}{
		{name: "compare 502 twice", method: "GET", path: repoPath + "/compare/*", status: 502, times: 2},
		{name: "contents 500", method: "GET", path: repoPath + "/contents/.pact/log.jsonl", status: 500, times: 1},
		{name: "create check run 503 with Retry-After", method: "POST", path: repoPath + "/check-runs", status: 503, header: retryAfter, times: 1},
		{name: "complete check run 504", method: "PATCH", path: repoPath + "/check-runs/*", status: 504, times: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := e2e.NewServer(t)
			base := e2e.NewLog().Assign("T1", "LOGIN", "feat/login", "dev", "rev")
			head := base.Copy().Join("dev").Checkpoint("dev", "T1", "LOGIN")
			sc := seedPR(t, s, base.Files(), head.Files(), "feat/login")
			s.FailNext(tc.method, tc.path, tc.status, tc.header, tc.times)

			start := time.Now()
			res := sc.run(t, nil)
			elapsed := time.Since(start)

			wantExit(t, res, 0)
			if got := faults(s); got != tc.times {
				t.Errorf("injected answers served = %d, want %d", got, tc.times)
			}
			if !strings.Contains(res.Stderr, "github request failed, retrying") || !strings.Contains(res.Stderr, fmt.Sprintf("status=%d", tc.status)) {
				t.Errorf("stderr does not log the retry:\n%s", res.Stderr)
			}
			run := onlyRun(t, s, sc.headSHA, "pact", "action_required")
			if got := codes(findings(t, res, 0)); !slices.Equal(got, []string{"pr.unaccepted_feature"}) {
				t.Errorf("codes = %v", got)
			}
			checkAnnotations(t, run, findings(t, res, 0))
			checkOutputs(t, res, "action_required", 0, 0, 1)
			if elapsed > 20*time.Second {
				t.Errorf("took %s", elapsed)
			}
			noViolations(t, s)
		})
	}
}

// TestCheckSecondaryRateLimit: a secondary rate limit (403 or 429 with
// Retry-After) is waited out, then the run goes on.
func TestCheckSecondaryRateLimit(t *testing.T) {
	t.Parallel()
	// GitHub answers a GraphQL primary rate limit with 200 and an error.
	graphQLLimited := []byte(`{"errors":[{"type":"RATE_LIMITED","message":"API rate limit exceeded for installation ID 1."}]}`)
	for _, status := range []int{403, 429, 200} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			t.Parallel()
			s := e2e.NewServer(t)
			base := e2e.NewLog().Assign("T1", "LOGIN", "feat/login", "dev", "rev")
			head := base.Copy().Join("dev").Checkpoint("dev", "T1", "LOGIN").Accept("rev", "T1", "LOGIN")
			sc := seedPR(t, s, base.Files(), head.Files(), "feat/login")
			// The check run creation and the read of the head's pact
			// (GraphQL) each hit the limit.
			s.FailNext("POST", repoPath+"/check-runs", max(status, 403), http.Header{"Retry-After": []string{"1"}}, 1)
			fault := fakegithub.Fault{Method: "POST", Path: "/graphql", Status: status, Header: http.Header{"Retry-After": []string{"1"}}}
			if status == 200 {
				fault.Body = graphQLLimited
			}
			s.Inject(fault)

			start := time.Now()
			res := sc.run(t, nil)
			elapsed := time.Since(start)

			wantExit(t, res, 0)
			if got := faults(s); got != 2 {
				t.Errorf("rate-limited answers served = %d, want 2", got)
			}
			if elapsed < 2*time.Second {
				t.Errorf("finished in %s: did not honour Retry-After: 1 twice", elapsed)
			}
			if !strings.Contains(res.Stderr, "rate_limited=true") {
				t.Errorf("stderr does not log the rate limit:\n%s", res.Stderr)
			}
			if strings.Contains(res.Stdout, "cannot create check runs") {
				t.Errorf("a rate-limited 403 was taken for a read-only token:\n%s", res.Stdout)
			}
			onlyRun(t, s, sc.headSHA, "pact", "success")
			if got := s.CountRequests("POST", repoPath+"/check-runs"); got != 2 {
				t.Errorf("create check run sent %d times, want 2 (limited, then created)", got)
			}
			checkOutputs(t, res, "success", 0, 0, 0)
			noViolations(t, s)
		})
	}
}

// TestCheckGivesUpLeavesRunFailed: when retries give up mid-way, the check
// run is completed as failed with the error (never left in_progress), and the
// job exits 2 with one line saying what gave up.
func TestCheckGivesUpLeavesRunFailed(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, method, path string
		times              int // default: every request
		want               string
	}{
		{name: "compare", method: "GET", path: repoPath + "/compare/*", want: "find the merge base of"},
		{name: "the head's pact", method: "POST", path: "/graphql", want: "read .pact/log.jsonl, .pact/STATE.yml"},
		{name: "the merge base's log", method: "GET", path: repoPath + "/contents/.pact/log.jsonl", want: "read .pact/log.jsonl from the GitHub API"},
		// Completing fails five times; the sixth request, failing the run
		// on the way out, goes through.
		{name: "complete check run", method: "PATCH", path: repoPath + "/check-runs/*", times: 5, want: "post the verdict to check run"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := e2e.NewServer(t)
			base := e2e.NewLog().Assign("T1", "LOGIN", "feat/login", "dev", "rev")
			head := base.Copy().Join("dev").Checkpoint("dev", "T1", "LOGIN").Accept("rev", "T1", "LOGIN")
			sc := seedPR(t, s, base.Files(), head.Files(), "feat/login")
			// Retry-After: 1 keeps the four waits of the default policy short.
			times := tc.times
			if times == 0 {
				times = 100
			}
			s.FailNext(tc.method, tc.path, 500, http.Header{"Retry-After": []string{"1"}}, times)

			res := sc.run(t, nil)

			wantExit(t, res, 2)
			if got := faults(s); got != 5 {
				t.Errorf("attempts = %d, want 5 (the default policy)", got)
			}
			runs := s.CheckRuns(sc.headSHA)
			if len(runs) != 1 {
				t.Fatalf("check runs = %d, want 1", len(runs))
			}
			r := runs[0]
			if r.Status != "completed" || r.Conclusion != "failure" || r.Title != "pact-action failed" {
				t.Errorf("check run left %s/%s %q", r.Status, r.Conclusion, r.Title)
			}
			if !strings.Contains(r.Summary, "pact-action stopped before it finished judging this commit") || !strings.Contains(r.Summary, tc.want) ||
				!strings.Contains(r.Summary, "gave up after 5 attempts") {
				t.Errorf("check run summary does not carry the error:\n%s", r.Summary)
			}
			var lines []string
			for _, l := range strings.Split(strings.TrimSpace(res.Stderr), "\n") {
				if strings.HasPrefix(l, "pact-action: ") {
					lines = append(lines, l)
				}
			}
			if len(lines) != 1 || !strings.Contains(lines[0], tc.want) || !strings.Contains(lines[0], "gave up after 5 attempts") || !strings.Contains(lines[0], "500") {
				t.Errorf("stderr does not end with one clear line:\n%s", res.Stderr)
			}
			if strings.Contains(res.Stderr, "panic") || strings.Contains(res.Stderr, "goroutine") {
				t.Errorf("the binary crashed:\n%s", res.Stderr)
			}
			if !strings.Contains(res.Stdout, "::error::pact-action could not judge "+sc.headSHA) {
				t.Errorf("no workflow error annotation:\n%s", res.Stdout)
			}
			noViolations(t, s)
		})
	}
}

// TestCheckGHESAPIPath: a GitHub Enterprise Server API URL (…/api/v3) works,
// with GraphQL at /api/graphql as the runner names it in
// GITHUB_GRAPHQL_URL, or derived from GITHUB_API_URL when a runner does not.
func TestCheckGHESAPIPath(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		path         string
		noGraphQLURL bool
	}{{path: "/api/v3"}, {path: "/api/v3/"}, {path: "/api/v3", noGraphQLURL: true}} {
		t.Run(fmt.Sprintf("%s, GITHUB_GRAPHQL_URL unset %v", tc.path, tc.noGraphQLURL), func(t *testing.T) {
			t.Parallel()
			s := e2e.NewServer(t)
			base := e2e.NewLog().Assign("T1", "LOGIN", "feat/login", "dev", "rev")
			head := base.Copy().Join("dev").Checkpoint("dev", "T1", "LOGIN").Accept("rev", "T1", "LOGIN").Accept("rev", "T1", "LOGIN")
			sc := seedPR(t, s, base.Files(), head.Files(), "feat/login")

			res := e2e.Run{Server: s, EventName: "pull_request", Payload: sc.payload(t), APIPath: tc.path, NoGraphQLURL: tc.noGraphQLURL,
				Env: map[string]string{"GITHUB_SERVER_URL": "https://ghes.example"}}.Exec(t)
			if n := s.CountRequests("POST", "/api/graphql"); n != 1 {
				t.Errorf("GraphQL requests to /api/graphql = %d, want 1: %+v", n, s.Requests())
			}

			wantExit(t, res, 1)
			run := onlyRun(t, s, sc.headSHA, "pact", "failure")
			if run.DetailsURL != "https://ghes.example/octo-org/octo-repo/actions/runs/4242" {
				t.Errorf("details_url = %q, want the GHES run", run.DetailsURL)
			}
			fs := findings(t, res, 0)
			if got := codes(fs); !slices.Equal(got, []string{"state.invalid_transition"}) {
				t.Errorf("codes = %v", got)
			}
			checkAnnotations(t, run, fs)
			if len(s.Requests()) == 0 {
				t.Error("no request reached the fake")
			}
			noViolations(t, s)
		})
	}
}

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
	wsFiles := with(head.Files(), ".pact/STATE.yml", base.Files()[".pact/STATE.yml"])
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
			ws := writeWorkspace(t, wsFiles, tc.git(sc.headSHA, mergeSHA))

			res := e2e.Run{Server: s, EventName: "pull_request", Payload: sc.payload(t), Workspace: ws,
				Env: map[string]string{"GITHUB_SHA": mergeSHA, "GITHUB_REF": fmt.Sprintf("refs/pull/%d/merge", sc.number)}}.Exec(t)

			if runs := s.CheckRuns(mergeSHA); len(runs) != 0 {
				t.Errorf("check run posted on the merge SHA: %+v", runs)
			}
			// The head's pact is one GraphQL read at the head commit.
			headReads := 0
			for _, r := range s.Requests() {
				if strings.HasPrefix(r.Path, repoPath+"/contents/.pact/") && strings.Contains(r.Query, "ref="+sc.headSHA) {
					t.Errorf("head file read through the contents API: %s?%s", r.Path, r.Query)
				}
				if r.Operation == fakegithub.GraphQLOperation && slices.Contains(slices.Collect(maps.Values(r.Variables)), any(sc.headSHA)) {
					headReads++
				}
			}
			if tc.disk {
				wantExit(t, res, 1)
				run := onlyRun(t, s, sc.headSHA, "pact", "failure")
				if got := codes(findings(t, res, 0)); !slices.Equal(got, []string{"drift.state"}) {
					t.Errorf("codes = %v, want the workspace's drift", got)
				}
				checkAnnotations(t, run, findings(t, res, 0))
				if headReads != 0 {
					t.Errorf("%d reads at the head through the API although the workspace holds the head", headReads)
				}
			} else {
				wantExit(t, res, 0)
				onlyRun(t, s, sc.headSHA, "pact", "success")
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

// TestCheckLargeLog: logs over 1 MB are read, through the raw media type or,
// when even that refuses them, through the blobs API.
func TestCheckLargeLog(t *testing.T) {
	t.Parallel()
	pad := strings.Repeat("x", 60<<10)
	base := e2e.NewLog().Assign("T1", "LOGIN", "feat/login", "dev", "rev")
	for i := range 20 { // ~1.2 MB of lines of an unknown type, ignored
		base.Raw(draft(t, 100+i, "dev", "note", "", "", map[string]any{"text": pad}))
	}
	head := base.Copy().Join("dev").Checkpoint("dev", "T1", "LOGIN").Accept("rev", "T1", "LOGIN").Accept("rev", "T1", "LOGIN")
	if len(base.Text()) <= 1<<20 {
		t.Fatalf("the base log is only %d bytes", len(base.Text()))
	}
	tests := []struct {
		name  string
		opts  []fakegithub.Option
		blobs bool
	}{
		{name: "raw media type"},
		{name: "blobs fallback", opts: []fakegithub.Option{fakegithub.WithRawContentLimit(512 << 10)}, blobs: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := e2e.NewServer(t, tc.opts...)
			sc := seedPR(t, s, base.Files(), head.Files(), "feat/login")

			res := sc.run(t, nil)

			wantExit(t, res, 1)
			fs := findings(t, res, 0)
			// The second accept (line 26) proves the whole log was read.
			if len(fs) != 1 || fs[0].Code != projection.CodeInvalidTransition || fs[0].Line != 26 {
				t.Fatalf("findings = %+v, want state.invalid_transition on line 26", fs)
			}
			run := onlyRun(t, s, sc.headSHA, "pact", "failure")
			checkAnnotations(t, run, fs)
			// GraphQL cuts Blob.text at 512,000 bytes: the head log is read
			// by its blob id; the merge base's log through the raw media
			// type, or the blobs API when even that refuses it.
			blobReads := s.CountRequests("GET", repoPath+"/git/blobs/*")
			if tc.blobs && blobReads != 2 {
				t.Errorf("blob reads = %d, want 2 (the head log and the merge-base log)", blobReads)
			}
			if !tc.blobs && blobReads != 1 {
				t.Errorf("blob reads = %d, want 1 (the head log)", blobReads)
			}
			noViolations(t, s)
		})
	}
}

// TestCheckSummaryEscapesUserText: text from the log cannot inject Markdown,
// HTML or @-mentions into the check run or the job summary.
func TestCheckSummaryEscapesUserText(t *testing.T) {
	t.Parallel()
	s := e2e.NewServer(t)
	const (
		task    = "T1-@admin-<img src=x onerror=alert(1)>"
		feature = "F**bold**[link](https://evil.example)|#1"
	)
	base := e2e.NewLog().Assign(task, feature, "feat/login", "dev", "rev")
	head := base.Copy().Join("dev").Checkpoint("dev", task, feature).
		Add("rev", projection.TypeChangesRequested, task, feature, map[string]any{"reason": "@admin <script>alert(1)</script>\n# heading"}).
		Raw(`{"not": "closed @admin <b>`)
	sc := seedPR(t, s, base.Files(), head.Files(), "feat/login")

	res := sc.run(t, nil)

	wantExit(t, res, 1)
	run := onlyRun(t, s, sc.headSHA, "pact", "failure")
	if got := codes(findings(t, res, 0)); !slices.Equal(got, sorted("log.malformed_json", "pr.unaccepted_feature")) {
		t.Fatalf("codes = %v", got)
	}
	for name, text := range map[string]string{"check run summary": run.Summary, "check run text": run.Text, "job summary": res.Summary} {
		for _, raw := range []string{"@admin", "<img", "<script", "<b>", "](https://", "**bold**", "|#1", "\n# heading"} {
			if strings.Contains(text, raw) {
				t.Errorf("%s contains %q raw:\n%s", name, raw, text)
			}
		}
	}
	for _, want := range []string{"T1-@\u200badmin-&lt;img src=x onerror=alert\\(1\\)&gt;", "@\u200badmin"} {
		if !strings.Contains(run.Summary, want) {
			t.Errorf("summary lacks the escaped %q:\n%s", want, run.Summary)
		}
	}
	noViolations(t, s)
}

// TestCheckFailOn: fail-on decides the exit code; the check run's conclusion
// does not change with it.
func TestCheckFailOn(t *testing.T) {
	t.Parallel()
	base := e2e.NewLog().Assign("T1", "LOGIN", "feat/login", "dev", "rev")
	clean := base.Copy().Join("dev").Checkpoint("dev", "T1", "LOGIN").Accept("rev", "T1", "LOGIN")
	warning := without(clean.Files(), ".pact/tasks/T1.md")
	violation := clean.Copy().Accept("rev", "T1", "LOGIN").Files()
	waiting := base.Copy().Join("dev").Files()
	tests := []struct {
		failOn     string
		files      map[string]string
		deleteTask bool
		conclusion string
		exit       int
	}{
		{failOn: "error", files: warning, deleteTask: true, conclusion: "success", exit: 0},
		{failOn: "warning", files: warning, deleteTask: true, conclusion: "success", exit: 1},
		{failOn: "WARNING", files: violation, conclusion: "failure", exit: 1},
		{failOn: "never", files: violation, conclusion: "failure", exit: 0},
		{failOn: "never", files: warning, deleteTask: true, conclusion: "success", exit: 0},
		{failOn: "warning", files: waiting, conclusion: "action_required", exit: 0},
		{failOn: "", files: violation, conclusion: "failure", exit: 1},
	}
	for _, tc := range tests {
		t.Run(tc.failOn+"/"+tc.conclusion, func(t *testing.T) {
			t.Parallel()
			s := e2e.NewServer(t)
			sc := seedPR(t, s, base.Files(), tc.files, "feat/login")
			if tc.deleteTask {
				sc.headSHA = s.CommitFiles(e2e.Owner, e2e.Repo, "feat/login", map[string]string{}, "dev", fakegithub.Deleting(".pact/tasks/T1.md"))
			}

			res := sc.run(t, map[string]string{"fail-on": tc.failOn})

			wantExit(t, res, tc.exit)
			run := onlyRun(t, s, sc.headSHA, "pact", tc.conclusion)
			fs := findings(t, res, 0)
			checkAnnotations(t, run, fs)
			if tc.deleteTask && !slices.Equal(codes(fs), []string{"taskfile.missing"}) {
				t.Errorf("codes = %v, want taskfile.missing", codes(fs))
			}
			noViolations(t, s)
		})
	}
	t.Run("invalid", func(t *testing.T) {
		t.Parallel()
		s := e2e.NewServer(t)
		sc := seedPR(t, s, base.Files(), clean.Files(), "feat/login")
		res := sc.run(t, map[string]string{"fail-on": "sometimes"})
		wantExit(t, res, 2)
		if !strings.Contains(res.Stderr, `fail-on must be error, warning or never, not "sometimes"`) {
			t.Errorf("stderr = %s", res.Stderr)
		}
		if len(s.CheckRuns(sc.headSHA)) != 0 || len(s.Requests()) != 0 {
			t.Error("a bad input still reached GitHub")
		}
	})
}

// TestCheckRateLimitTooLong: a rate limit asking for a longer wait than the
// policy allows gives up at once with a clear message; it is not mistaken for
// a read-only token.
func TestCheckRateLimitTooLong(t *testing.T) {
	t.Parallel()
	s := e2e.NewServer(t)
	base := e2e.NewLog().Assign("T1", "LOGIN", "feat/login", "dev", "rev")
	sc := seedPR(t, s, base.Files(), base.Copy().Join("dev").Files(), "feat/login")
	s.FailNext("POST", repoPath+"/check-runs", 403, http.Header{"Retry-After": []string{"600"}}, 1)

	start := time.Now()
	res := sc.run(t, nil)

	wantExit(t, res, 2)
	if time.Since(start) > 20*time.Second {
		t.Errorf("waited %s for a limit it was going to give up on", time.Since(start))
	}
	if strings.Contains(res.Stdout, "cannot create check runs") {
		t.Errorf("a rate limit was taken for a read-only token:\n%s", res.Stdout)
	}
	last := strings.Split(strings.TrimSpace(res.Stderr), "\n")
	if l := last[len(last)-1]; !strings.HasPrefix(l, `pact-action: create the "pact" check run on `) || !strings.Contains(l, "server asked to wait 10m0s") {
		t.Errorf("last stderr line = %q", l)
	}
	if len(s.CheckRuns(sc.headSHA)) != 0 {
		t.Error("a check run was created")
	}
	noViolations(t, s)
}

// TestCheckInputs: check-name, pact-dir and report-path are honoured.
func TestCheckInputs(t *testing.T) {
	t.Parallel()
	s := e2e.NewServer(t)
	base := e2e.NewLog().Assign("T1", "LOGIN", "feat/login", "dev", "rev")
	head := base.Copy().Join("dev").Checkpoint("dev", "T1", "LOGIN").Accept("rev", "T1", "LOGIN").Accept("rev", "T1", "LOGIN")
	move := func(files map[string]string) map[string]string {
		out := map[string]string{}
		for k, v := range files {
			out["meta/pact/"+strings.TrimPrefix(k, ".pact/")] = v
		}
		return out
	}
	sc := seedPR(t, s, move(base.Files()), move(head.Files()), "feat/login")

	res := sc.run(t, map[string]string{"check-name": "pact / protocol", "pact-dir": "meta/pact/", "report-path": "out/pact.json"})

	wantExit(t, res, 1)
	if res.Outputs["report"] != "out/pact.json" {
		t.Errorf("report output = %q", res.Outputs["report"])
	}
	fs := findings(t, res, 0)
	if len(fs) != 1 || fs[0].Code != projection.CodeInvalidTransition || fs[0].Path != "meta/pact/log.jsonl" || fs[0].Line != 6 {
		t.Fatalf("findings = %+v, want state.invalid_transition at meta/pact/log.jsonl:6", fs)
	}
	run := onlyRun(t, s, sc.headSHA, "pact / protocol", "failure")
	checkAnnotations(t, run, fs)
	if !strings.Contains(res.Summary, "## ❌ pact / protocol: 1 violation") {
		t.Errorf("job summary:\n%s", res.Summary)
	}
	noViolations(t, s)
}

// TestCheckNoPact: a repository without a pact passes, saying so.
func TestCheckNoPact(t *testing.T) {
	t.Parallel()
	s := e2e.NewServer(t)
	sc := seedPR(t, s, nil, map[string]string{"src/main.go": "package main\n"}, "feat/login")

	res := sc.run(t, nil)

	wantExit(t, res, 0)
	run := onlyRun(t, s, sc.headSHA, "pact", "success")
	if !strings.Contains(run.Summary, "This commit has no .pact/log.jsonl; there is nothing to enforce.") {
		t.Errorf("summary:\n%s", run.Summary)
	}
	checkOutputs(t, res, "success", 0, 0, 0)
	noViolations(t, s)
}

// TestCheckWorkflowDispatch: a manual run re-judges every open pull request,
// each on its own head; with a read-only token the step still shows at most
// 10 annotations in all, and says once why.
func TestCheckWorkflowDispatch(t *testing.T) {
	t.Parallel()
	for _, readOnly := range []bool{false, true} {
		t.Run(fmt.Sprintf("read-only=%v", readOnly), func(t *testing.T) {
			t.Parallel()
			s := e2e.NewServer(t)
			if readOnly {
				s.SetToken(e2e.Token, fakegithub.Token{ReadOnly: true})
			}
			base := e2e.NewLog().Assign("T1", "LOGIN", "feat/login", "dev", "rev").Assign("T2", "OTHER", "feat/other", "dev", "rev")
			s.CommitFiles(e2e.Owner, e2e.Repo, "main", with(base.Files(), ".github/pact.yml", provenanceOff), "lead")
			login := base.Copy().Join("dev").Checkpoint("dev", "T1", "LOGIN").Accept("rev", "T1", "LOGIN")
			other := base.Copy().Join("dev")
			for range 8 {
				login.Add("ghost", projection.TypeJoin, "", "", map[string]any{"roles": []string{"worker"}})
				other.Add("ghost", projection.TypeJoin, "", "", map[string]any{"roles": []string{"worker"}})
			}
			loginSHA := s.CommitFiles(e2e.Owner, e2e.Repo, "feat/login", login.Files(), "dev", fakegithub.From("main"))
			otherSHA := s.CommitFiles(e2e.Owner, e2e.Repo, "feat/other", other.Files(), "dev", fakegithub.From("main"))
			n1 := s.OpenPR(e2e.Owner, e2e.Repo, fakegithub.PRSeed{Head: "feat/login", Base: "main"})
			n2 := s.OpenPR(e2e.Owner, e2e.Repo, fakegithub.PRSeed{Head: "feat/other", Base: "main"})

			res := e2e.Run{Server: s, EventName: "workflow_dispatch", Payload: e2e.Payload(t, "workflow_dispatch/payload.json", map[string]any{
				"repository.full_name": e2e.Owner + "/" + e2e.Repo, "repository.name": e2e.Repo})}.Exec(t)

			wantExit(t, res, 1)
			checkOutputs(t, res, "failure", 16, 0, 1)
			runs, _ := res.Report["runs"].([]any)
			got := map[float64]string{}
			for _, r := range runs {
				m := r.(map[string]any)
				got[m["pull_request"].(float64)] = m["head_sha"].(string)
			}
			if len(runs) != 2 || got[float64(n1)] != loginSHA || got[float64(n2)] != otherSHA {
				t.Errorf("report runs = %v", runs)
			}
			if !readOnly {
				onlyRun(t, s, loginSHA, "pact", "failure")
				onlyRun(t, s, otherSHA, "pact", "failure")
				if cmds := commands(res.Stdout); len(cmds) != 0 {
					t.Errorf("workflow annotations although check runs carry the verdict: %v", cmds)
				}
				noViolations(t, s)
				return
			}
			if cmds := commands(res.Stdout); len(cmds) != 10 || !strings.Contains(cmds[9][3], "8 more finding(s) are not annotated") {
				t.Errorf("%d workflow annotations for 17 findings in one step, want 10 with the rest counted:\n%s", len(cmds), res.Stdout)
			}
			if n := strings.Count(res.Stdout, "the token cannot create check runs"); n != 1 {
				t.Errorf("the read-only notice appears %d times:\n%s", n, res.Stdout)
			}
			if strings.Count(res.Summary, "## ❌ pact: 8 violations") != 2 {
				t.Errorf("job summary lacks a verdict per PR:\n%s", res.Summary)
			}
			noViolations(t, s)
		})
	}
}
