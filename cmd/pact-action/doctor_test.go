package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"testing"

	goldenfile "github.com/pact-action/pact-action/internal/testkit/golden"

	doctorpkg "github.com/pact-action/pact-action/doctor"
	"github.com/pact-action/pact-action/internal/testkit/e2e"
	"github.com/pact-action/pact-action/internal/testkit/fakegithub"
)

// The README's bot workflow; the check workflow is the one doctor
// recommends (doctor.CheckWorkflow).
const (
	botWorkflow = `name: pact-bot
on:
  pull_request_review:
    types: [submitted, dismissed]
  issue_comment:
    types: [created, edited, deleted]
  pull_request_review_comment:
    types: [created, edited, deleted]
  push:
    branches: [main]
  schedule:
    - cron: "17 * * * *"
permissions:
  contents: write
  pull-requests: write
  checks: write
jobs:
  bot:
    runs-on: ubuntu-latest
    steps:
      - uses: pact-action/pact-action@v1
`
	seatMap = "seats:\n  lead: [alice]\n  dev: [bob]\n  rev: [carol]\nprovenance:\n  mode: require\n  stale: tree\nunmapped-branches: block\n"
)

// doctorRepo seeds octo-org/octo-repo with a pact (seats lead, dev, rev),
// the files given (over the defaults) and accounts alice (admin), bob
// (write) and carol (maintain).
func doctorRepo(t *testing.T, files map[string]string) *fakegithub.Server {
	t.Helper()
	s := e2e.NewServer(t)
	all := e2e.NewLog().Files()
	all[".github/workflows/pact.yml"] = doctorpkg.CheckWorkflow
	all[".github/workflows/pact-bot.yml"] = botWorkflow
	all[".github/pact.yml"] = seatMap
	all[".gitattributes"] = "# The pact's files keep LF line endings on every checkout (pactify init).\n.pact/** text eol=lf\n"
	for p, c := range files {
		if c == "" {
			delete(all, p)
			continue
		}
		all[p] = c
	}
	s.CommitFiles(e2e.Owner, e2e.Repo, "main", all, "alice")
	s.SetPermission("alice", fakegithub.Admin)
	s.SetPermission("bob", fakegithub.Write)
	s.SetPermission("carol", fakegithub.Maintain)
	return s
}

func protectMain(s *fakegithub.Server, checks ...fakegithub.RequiredCheck) {
	s.AddRuleset(e2e.Owner, e2e.Repo, fakegithub.Ruleset{Name: "protect main", Rules: []fakegithub.Rule{
		fakegithub.RequireChecksRule(checks...), fakegithub.PullRequestRule(true), fakegithub.BlockForcePushesRule(),
	}})
}

func runDoctorE2E(t *testing.T, s *fakegithub.Server, args ...string) e2e.Result {
	t.Helper()
	return e2e.Run{Server: s, Args: append([]string{"doctor"}, args...), Env: map[string]string{"GITHUB_TOKEN": e2e.Token}}.Exec(t)
}

func TestDoctorOnAProtectedRepository(t *testing.T) {
	t.Parallel()
	s := doctorRepo(t, nil)
	protectMain(s, fakegithub.RequiredCheck{Context: "pact", AppID: fakegithub.GitHubActionsAppID})
	res := runDoctorE2E(t, s)
	if res.Code != exitOK {
		t.Fatalf("exit %d, want 0\n%s%s", res.Code, res.Stdout, res.Stderr)
	}
	for _, line := range strings.Split(strings.TrimSpace(res.Stdout), "\n") {
		if strings.HasPrefix(line, "✗") || strings.HasPrefix(line, "!") || strings.HasPrefix(line, "?") {
			t.Errorf("not every probe passes: %s", line)
		}
	}
	for _, want := range []string{
		"✓ `pact` is a required check on main\n    required by ruleset \"protect main\"",
		"✓ `pact` must come from GitHub Actions",
		"✓ .github/workflows/pact.yml runs pact-action in check mode",
		"✓ pull_request runs on opened, synchronize, reopened, edited",
		"✓ the check job has contents: read, checks: write, pull-requests: write",
		"✓ the check job may request reviews (pull-requests: write)",
		"✓ every seat (no task names a reviewer yet) can be asked for a review",
		"✓ .github/workflows/pact-bot.yml runs pact-action in bot mode on reviews and comments",
		"✓ .github/workflows/pact-bot.yml brings pull requests up to date on a push to main",
		"✓ the job that brings pull requests up to date has contents: write, pull-requests: write, checks: write",
		"✓ bob (seat dev) can write",
		"✓ provenance is required (stale: tree)",
		"✓ .gitattributes on main keeps git from converting the line endings of .pact",
		"28 passed, 0 failed, 0 warnings, 0 unknown",
	} {
		if !strings.Contains(res.Stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, res.Stdout)
		}
	}
	if n := s.CountRequests("GET", "/repos/*/*/actions/permissions/workflow"); n != 0 {
		t.Errorf("asked for the default workflow permissions %d times though every job sets its own", n)
	}
	if len(s.Violations()) > 0 {
		t.Errorf("OpenAPI violations: %v", s.Violations())
	}
}

// misconfigured: the check required from any source, a pull_request
// trigger without edited, a check job that may not request reviews, an
// unmapped seat and a login that cannot write.
func misconfigured(t *testing.T) *fakegithub.Server {
	s := doctorRepo(t, map[string]string{
		".github/workflows/pact.yml": strings.NewReplacer("    types: [opened, synchronize, reopened, edited]\n", "", "pull-requests: write", "pull-requests: read").Replace(doctorpkg.CheckWorkflow),
		".github/pact.yml":           "seats:\n  lead: [alice]\n  dev: [bob]\nprovenance:\n  mode: require\n",
	})
	s.SetPermission("bob", fakegithub.Read)
	s.SetBranchProtection(e2e.Owner, e2e.Repo, "main", &fakegithub.BranchProtection{
		RequiredChecks: []fakegithub.RequiredCheck{{Context: "pact"}}, RequireReviews: true, DismissStaleReviews: true,
	})
	return s
}

func TestDoctorOnAMisconfiguredRepository(t *testing.T) {
	t.Parallel()
	s := misconfigured(t)
	res := runDoctorE2E(t, s)
	if res.Code != exitViolation {
		t.Fatalf("exit %d, want 1\n%s%s", res.Code, res.Stdout, res.Stderr)
	}
	for _, want := range []string{
		"✗ `pact` is accepted from any source\n" +
			"    branch protection requires it from any app, so any GitHub App or commit status with write access can post a passing `pact`\n" +
			"    fix: Settings → Branches → edit the branch protection rule of main → Require status checks to pass before merging → next to `pact`, choose GitHub Actions as the source (not Any source)\n",
		"✗ pull_request does not run on every pull request change\n" +
			"    pull_request has no types, so it runs on opened, synchronize, reopened only: a pull request that is edited or retargeted to another base is not judged again\n" +
			"    fix: in .github/workflows/pact.yml:\n" +
			"        on:\n" +
			"          pull_request:\n" +
			"            types: [opened, synchronize, reopened, edited]\n",
		"✗ seat rev is mapped to no GitHub account\n" +
			"    nobody can act for it through the bot, and its events can never be verified\n" +
			"    fix: in .github/pact.yml on main:\n" +
			"        seats:\n" +
			"          rev: [<github-login>]\n",
		"✗ bob (seat dev) cannot write to octo-org/octo-repo\n" +
			"    permission: read; the bot refuses its /pact accept and changes, and it cannot push the seat's events\n" +
			"    fix: Settings → Collaborators and teams → Add people → bob, role Write (or a team with Write)\n",
		"✓ force pushes to main are blocked\n    by branch protection\n",
		"! the check job cannot request reviews (pull-requests: read)\n" +
			"    review-requests is on, but .github/workflows/pact.yml, job check, gets its permissions from the workflow's permissions: nobody is asked for the reviews the pact waits for, and every summary says so (to ask nobody, set review-requests: off in .github/pact.yml)\n",
	} {
		if !strings.Contains(res.Stdout, want) {
			t.Errorf("output lacks\n%s\nin:\n%s", want, res.Stdout)
		}
	}
	if len(s.Violations()) > 0 {
		t.Errorf("OpenAPI violations: %v", s.Violations())
	}
	docExample(t, res.Stdout)
}

// docExample holds the doctor example of docs/doctor.md to the real
// output.
func docExample(t *testing.T, out string) {
	t.Helper()
	const doc = "../../docs/doctor.md"
	b, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	const begin = "<!-- doctor example: the misconfigured end-to-end scenario of cmd/pact-action/doctor_test.go -->\n```text\n"
	_, rest, ok := strings.Cut(string(b), begin)
	example, _, closed := strings.Cut(rest, "```\n")
	if !ok || !closed {
		t.Fatalf("%s lacks the doctor example block after %q", doc, begin)
	}
	if example != out {
		if goldenfile.Updating() {
			if err := os.WriteFile(doc, []byte(strings.Replace(string(b), begin+example, begin+out, 1)), 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		t.Errorf("%s's doctor example differs from the real output (go test ./cmd/pact-action -update rewrites it); it is:\n%s", doc, out)
	}
}

func TestDoctorOnAnUnprotectedRepository(t *testing.T) {
	t.Parallel()
	s := doctorRepo(t, nil)
	res := runDoctorE2E(t, s)
	if res.Code != exitViolation {
		t.Fatalf("exit %d, want 1\n%s%s", res.Code, res.Stdout, res.Stderr)
	}
	for _, want := range []string{
		"✗ `pact` is not a required check on main\n" +
			"    a pull request can merge whatever the check concludes\n" +
			"    fix: Settings → Rules → Rulesets → New ruleset → New branch ruleset (Enforcement status: Active; Target branches: Include default branch) → Require status checks to pass → Add checks → `pact`, source GitHub Actions" +
			" (with classic protection instead: Settings → Branches → edit the branch protection rule of main → Require status checks to pass before merging → `pact`, source GitHub Actions)\n",
		"✗ approvals survive new commits\n",
		"✗ force pushes to main are allowed\n",
	} {
		if !strings.Contains(res.Stdout, want) {
			t.Errorf("output lacks\n%s\nin:\n%s", want, res.Stdout)
		}
	}
	if strings.Contains(res.Stdout, "source") && strings.Contains(res.Stdout, "accepted from any source") {
		t.Errorf("a check that is not required has no source to judge:\n%s", res.Stdout)
	}
}

func TestDoctorJSON(t *testing.T) {
	t.Parallel()
	s := misconfigured(t)
	res := runDoctorE2E(t, s, "--format", "json")
	if res.Code != exitViolation {
		t.Fatalf("exit %d, want 1\n%s%s", res.Code, res.Stdout, res.Stderr)
	}
	var doc struct {
		Repository string `json:"repository"`
		OK         *bool  `json:"ok"`
		Checks     []struct {
			ID, Status, Title, Detail, Fix string
		} `json:"checks"`
	}
	dec := json.NewDecoder(strings.NewReader(res.Stdout))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("not the documented JSON: %v\n%s", err, res.Stdout)
	}
	if doc.Repository != "octo-org/octo-repo" || doc.OK == nil || *doc.OK {
		t.Errorf("repository %q ok %v", doc.Repository, doc.OK)
	}
	statuses := map[string]string{}
	for _, c := range doc.Checks {
		statuses[c.ID] = c.Status
		if c.Status == "fail" && c.Fix == "" {
			t.Errorf("%s fails without a fix", c.ID)
		}
	}
	want := map[string]string{"branch.required_check": "pass", "branch.check_source": "fail", "workflow.pull_request_types": "fail",
		"seat.rev": "fail", "login.bob": "fail", "login.alice": "pass", "config.provenance": "pass", "config.review_requests": "warn", "config.review_seats": "pass"}
	for id, st := range want {
		if statuses[id] != st {
			t.Errorf("%s = %q, want %q", id, statuses[id], st)
		}
	}
}

// A fine-grained read-only token without Administration: read cannot see
// branch protection: doctor says it cannot tell, and what to add.
func TestDoctorWithoutAdministration(t *testing.T) {
	t.Parallel()
	s := doctorRepo(t, map[string]string{".github/workflows/pact.yml": strings.Replace(doctorpkg.CheckWorkflow,
		"permissions:\n  contents: read\n  checks: write\n  pull-requests: write\n", "", 1)})
	// The ruleset dismisses stale reviews and blocks force pushes; only
	// classic protection (unreadable) could require the check.
	protectMain(s, fakegithub.RequiredCheck{Context: "ci"})
	s.SetBranchProtection(e2e.Owner, e2e.Repo, "main", &fakegithub.BranchProtection{
		RequiredChecks: []fakegithub.RequiredCheck{{Context: "pact", AppID: fakegithub.GitHubActionsAppID}},
	})
	s.DenyAdministration(e2e.Token)
	res := runDoctorE2E(t, s)
	if res.Code != exitOK {
		t.Fatalf("exit %d, want 0 (unknown is not ✗)\n%s%s", res.Code, res.Stdout, res.Stderr)
	}
	for _, want := range []string{
		"? cannot tell whether `pact` is a required check on main\n" +
			"    no active ruleset requires it, and branch protection cannot be read: GitHub answered 403 Resource not accessible by personal access token\n" +
			"    fix: give the token Administration: read (fine-grained token: Repository permissions → Administration → Read-only), then run doctor again\n",
		"? cannot tell the permissions of the check job (.github/workflows/pact.yml, job check)\n",
		"? cannot tell whether the check job may request reviews\n",
		"✓ stale approvals are dismissed when new commits are pushed\n",
	} {
		if !strings.Contains(res.Stdout, want) {
			t.Errorf("output lacks\n%s\nin:\n%s", want, res.Stdout)
		}
	}
}

func TestDoctorUsageAndAPIErrors(t *testing.T) {
	t.Parallel()
	s := doctorRepo(t, nil)
	if res := runDoctorE2E(t, s, "--repo", "octo-org/nope"); res.Code != exitUsage || !strings.Contains(res.Stderr, "check --repo") {
		t.Errorf("unknown repository: exit %d, stderr %q", res.Code, res.Stderr)
	}
	tests := []struct {
		name string
		args []string
		env  map[string]string
		want string
	}{
		{"bad format", []string{"doctor", "--format", "xml"}, map[string]string{"GITHUB_TOKEN": "t", "GITHUB_REPOSITORY": "o/r"}, "--format must be text or json"},
		{"no repository", []string{"doctor"}, map[string]string{"GITHUB_TOKEN": "t"}, "doctor needs --repo owner/name"},
		{"no token", []string{"doctor", "--repo", "o/r"}, nil, "GITHUB_TOKEN or GH_TOKEN"},
		{"unknown flag", []string{"doctor", "--nope"}, nil, "doctor does not take the flag --nope"},
		{"stray argument", []string{"doctor", "--repo", "o/r", "extra"}, nil, "doctor takes no arguments"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), tt.args, strings.NewReader(""), &stdout, &stderr, func(k string) string { return tt.env[k] })
			if code != exitUsage || !strings.Contains(stderr.String(), tt.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr.String(), tt.want)
			}
		})
	}
}

// TestDoctorSaysWhatItWaitsFor: when GitHub does not answer, the first line
// a person reads is one sentence saying so; the retry lines come after it.
func TestDoctorSaysWhatItWaitsFor(t *testing.T) {
	t.Parallel()
	s := doctorRepo(t, nil)
	protectMain(s, fakegithub.RequiredCheck{Context: "pact", AppID: fakegithub.GitHubActionsAppID})
	s.FailNext("GET", "/repos/*/*", http.StatusBadGateway, nil, 1)
	res := runDoctorE2E(t, s)
	if res.Code != exitOK {
		t.Fatalf("exit %d, want 0 after one retry\n%s%s", res.Code, res.Stdout, res.Stderr)
	}
	lines := strings.Split(strings.TrimSpace(res.Stderr), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "pact-action doctor: GitHub's API at ") || !strings.Contains(lines[0], "does not answer") ||
		!strings.Contains(lines[1], "level=WARN") {
		t.Errorf("stderr should be one sentence, then the one retry line:\n%s", res.Stderr)
	}
}
