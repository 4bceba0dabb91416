package doctor

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/pact-action/pact-action/config"
)

// readmeCheckWorkflow is the workflow doctor prints as the fix: the
// README's shape.
const readmeCheckWorkflow = CheckWorkflow + "\n"

// readmeBotWorkflow is the bot workflow the README recommends, read from
// the README so the two never drift apart; readmeCheckSnippet likewise.
var (
	readmeBotWorkflow  = readmeSnippet("# .github/workflows/pact-bot.yml")
	readmeCheckSnippet = readmeSnippet("# .github/workflows/pact.yml")
)

// readmeSnippet is the ```yaml block of README.md whose first line is first.
func readmeSnippet(first string) string {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		panic(err)
	}
	for _, block := range strings.Split(string(b), "```yaml\n")[1:] {
		body, _, _ := strings.Cut(block, "```")
		if strings.HasPrefix(body, first+"\n") {
			return body
		}
	}
	panic("README.md has no yaml block starting " + first)
}

func workflowAt(t *testing.T, path, yaml string) workflow {
	t.Helper()
	f, err := parseWorkflow([]byte(yaml))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return workflow{Path: path, Name: f.Name, State: "active", File: f}
}

func mustConfig(t *testing.T, yaml string) *config.Config {
	t.Helper()
	c, err := config.Parse([]byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// protected is a repository set up as the README says: every probe passes.
func protected(t *testing.T) Facts {
	return Facts{
		Repository: "octo-org/octo-repo", DefaultBranch: "main", CheckName: "pact", PactDir: ".pact",
		Rules: []rule{
			{Type: "required_status_checks", Ruleset: "protect main", RequiredChecks: []requiredCheck{{Context: "ci"}, {Context: "pact", AppID: 15368}}},
			{Type: "pull_request", Ruleset: "protect main", DismissStaleReviewsOnPush: true},
			{Type: "non_fast_forward", Ruleset: "protect main"},
		},
		Workflows: []workflow{
			workflowAt(t, ".github/workflows/pact.yml", readmeCheckWorkflow),
			workflowAt(t, ".github/workflows/pact-bot.yml", readmeBotWorkflow),
		},
		DefaultTokenPermission: "read",
		Roster:                 []string{"lead", "dev", "rev"},
		ReviewerSeats:          []string{"rev"},
		GitAttributes:          []byte("*.png binary\n.pact/** text eol=lf\n"),
		Config:                 mustConfig(t, "seats:\n  lead: [alice]\n  dev: [bob]\n  rev: [carol, Alice]\nprovenance:\n  mode: require\nunmapped-branches: block\n"),
		Accounts: map[string]account{
			"alice": {Exists: true, Permission: "admin"}, "bob": {Exists: true, Permission: "write"}, "carol": {Exists: true, Permission: "maintain"},
		},
	}
}

// The README's check workflow is the one doctor prints as the fix, and
// passes.
func TestTheREADMEsCheckWorkflowPasses(t *testing.T) {
	t.Parallel()
	f := protected(t)
	f.Workflows[0] = workflowAt(t, ".github/workflows/pact.yml", readmeCheckSnippet)
	for _, c := range Judge(f) {
		if strings.HasPrefix(c.ID, "workflow.") && c.Status != StatusPass {
			t.Errorf("%s: %s %q (%s)", c.ID, c.Status, c.Title, c.Detail)
		}
	}
}

func TestAProtectedRepositoryPassesEveryProbe(t *testing.T) {
	t.Parallel()
	probes := Judge(protected(t))
	var ids []string
	for _, c := range probes {
		ids = append(ids, c.ID)
		if c.Status != StatusPass {
			t.Errorf("%s: %s %q (%s) fix %q", c.ID, c.Status, c.Title, c.Detail, c.Fix)
		}
	}
	want := "branch.required_check branch.check_source branch.dismiss_stale_reviews branch.force_push_blocked branch.merge_queue " +
		"workflow.check workflow.pull_request_types workflow.merge_group workflow.check_permissions workflow.bot workflow.bot_rejudge workflow.bot_permissions " +
		"workflow.update_trigger workflow.update_permissions workflow.job_name " +
		"pact.roster pact.line_endings config.file seat.lead seat.dev seat.rev login.alice login.bob login.carol config.provenance config.unmapped_branches " +
		"config.review_requests config.review_seats"
	if got := strings.Join(ids, " "); got != want {
		t.Errorf("probes:\n got %s\nwant %s", got, want)
	}
	if !OK(probes) {
		t.Error("OK = false")
	}
}

// setWorkflow replaces the check workflow.
func setWorkflow(t *testing.T, yaml string) func(*Facts) {
	return func(f *Facts) { f.Workflows[0] = workflowAt(t, ".github/workflows/pact.yml", yaml) }
}

// checkWith is the README's check workflow with one replacement.
func checkWith(old, new string) string {
	if !strings.Contains(readmeCheckWorkflow, old) {
		panic("no " + old)
	}
	return strings.Replace(readmeCheckWorkflow, old, new, 1)
}

func TestJudge(t *testing.T) {
	t.Parallel()
	forbiddenAdmin := &unknown{Reason: "GitHub answered 403 Resource not accessible by personal access token", Permission: "Administration: read"}
	rules := func(rs ...rule) func(*Facts) { return func(f *Facts) { f.Rules = rs } }
	classic := func(p protection) func(*Facts) { return func(f *Facts) { f.Protection = &p } }
	both := func(ms ...func(*Facts)) func(*Facts) {
		return func(f *Facts) {
			for _, m := range ms {
				m(f)
			}
		}
	}
	pinned := []requiredCheck{{Context: "pact", AppID: 15368}}
	anyApp := []requiredCheck{{Context: "pact"}}
	blockForce := rule{Type: "non_fast_forward", Ruleset: "protect main"}
	dismiss := rule{Type: "pull_request", Ruleset: "protect main", DismissStaleReviewsOnPush: true}
	tests := []struct {
		name   string
		mutate func(*Facts)
		id     string
		want   Status
		// wantText are substrings of the probe's title, detail and fix.
		wantText []string
	}{
		// Is the check required, and from GitHub Actions?
		{"required by classic protection pinned to Actions", both(rules(), classic(protection{RequiredChecks: pinned})), "branch.check_source", StatusPass, []string{"pinned by branch protection"}},
		{"required from any source by classic protection", both(rules(blockForce, dismiss), classic(protection{RequiredChecks: anyApp})), "branch.check_source", StatusFail,
			[]string{"`pact` is accepted from any source", "Settings → Branches → edit the branch protection rule of main → Require status checks to pass before merging → next to `pact`, choose GitHub Actions as the source (not Any source)"}},
		{"required from any source by a ruleset", rules(rule{Type: "required_status_checks", Ruleset: "protect main", RequiredChecks: anyApp}), "branch.check_source", StatusFail,
			[]string{`ruleset "protect main" requires it from any app`, `Settings → Rules → Rulesets → "protect main" → Require status checks to pass → next to ` + "`pact`"}},
		{"any source in a ruleset, pinned in classic", both(rules(rule{Type: "required_status_checks", Ruleset: "r", RequiredChecks: anyApp}), classic(protection{RequiredChecks: pinned})), "branch.check_source", StatusPass, nil},
		{"pinned to another app", rules(rule{Type: "required_status_checks", Ruleset: "r", RequiredChecks: []requiredCheck{{Context: "pact", AppID: 99}}}), "branch.check_source", StatusWarn,
			[]string{"must come from app 99, not GitHub Actions"}},
		{"a differently named check is required", rules(rule{Type: "required_status_checks", Ruleset: "protect main", RequiredChecks: []requiredCheck{{Context: "pact / pact", AppID: 15368}}}), "branch.required_check", StatusFail,
			[]string{"`pact` is not a required check on main", `Settings → Rules → Rulesets → "protect main" → Require status checks to pass → Add checks → ` + "`pact`, source GitHub Actions"}},
		{"nothing protects the branch", rules(), "branch.required_check", StatusFail,
			[]string{"New branch ruleset (Enforcement status: Active; Target branches: Include default branch)", "with classic protection instead: Settings → Branches"}},
		{"a ruleset in evaluate mode would require it", both(rules(), func(f *Facts) { f.InactiveRulesets = []string{"trial"} }), "branch.required_check", StatusFail,
			[]string{`ruleset "trial" requires it but is not active`, `Settings → Rules → Rulesets → "trial" → Enforcement status: Active`}},
		{"protection unreadable, rulesets silent", both(rules(), func(f *Facts) { f.ProtectionUnknown = forbiddenAdmin }), "branch.required_check", StatusUnknown,
			[]string{"cannot tell whether `pact` is a required check on main", "403 Resource not accessible", "give the token Administration: read (fine-grained token: Repository permissions → Administration → Read-only)"}},
		{"protection unreadable, a ruleset pins it", func(f *Facts) { f.ProtectionUnknown = forbiddenAdmin }, "branch.check_source", StatusPass, nil},
		{"protection unreadable, a ruleset leaves the source open", both(rules(rule{Type: "required_status_checks", Ruleset: "r", RequiredChecks: anyApp}), func(f *Facts) { f.ProtectionUnknown = forbiddenAdmin }), "branch.check_source", StatusUnknown,
			[]string{"Administration: read"}},
		{"custom check name", both(func(f *Facts) { f.CheckName = "gate" }), "branch.required_check", StatusFail, []string{"`gate` is not a required check"}},
		{"custom check name, default step", both(func(f *Facts) { f.CheckName = "gate" }), "workflow.check", StatusFail,
			[]string{"the check workflow posts `pact`, not `gate`", "sets no check-name, so it posts the default, pact", "set `check-name: gate` in .github/workflows/pact.yml"}},

		// Stale approvals and force pushes.
		{"classic protection dismisses stale reviews", both(rules(blockForce), classic(protection{RequiresReviews: true, DismissStaleReviews: true})), "branch.dismiss_stale_reviews", StatusPass, []string{"by branch protection"}},
		{"classic reviews without dismissal", both(rules(blockForce), classic(protection{RequiresReviews: true})), "branch.dismiss_stale_reviews", StatusFail,
			[]string{"approvals survive new commits", "Settings → Branches → edit the branch protection rule of main → Require a pull request before merging → Dismiss stale pull request approvals when new commits are pushed"}},
		{"a ruleset's pull request rule without dismissal", rules(rule{Type: "pull_request", Ruleset: "protect main"}), "branch.dismiss_stale_reviews", StatusFail,
			[]string{`Settings → Rules → Rulesets → "protect main" → Require a pull request before merging → Dismiss stale`}},
		{"stale reviews unknown", both(rules(), func(f *Facts) { f.ProtectionUnknown = forbiddenAdmin }), "branch.dismiss_stale_reviews", StatusUnknown, nil},
		{"classic protection blocks force pushes by default", both(rules(), classic(protection{})), "branch.force_push_blocked", StatusPass, []string{"by branch protection"}},
		{"classic protection allows force pushes", both(rules(), classic(protection{AllowForcePushes: true})), "branch.force_push_blocked", StatusFail,
			[]string{"force pushes to main are allowed", "clear Allow force pushes"}},
		{"a ruleset blocks what classic allows", classic(protection{AllowForcePushes: true}), "branch.force_push_blocked", StatusPass, []string{`ruleset "protect main"`}},
		{"no protection at all", rules(dismiss), "branch.force_push_blocked", StatusFail, []string{`Settings → Rules → Rulesets → "protect main" → Block force pushes`}},

		// Merge queue.
		{"merge queue on, workflow runs on merge_group", func(f *Facts) { f.Rules = append(f.Rules, rule{Type: "merge_queue", Ruleset: "queue"}) }, "workflow.merge_group", StatusPass, nil},
		{"merge queue on, workflow lacks merge_group", both(func(f *Facts) { f.Rules = append(f.Rules, rule{Type: "merge_queue", Ruleset: "queue"}) }, setWorkflow(t, checkWith("  merge_group:\n", ""))),
			"workflow.merge_group", StatusFail, []string{"a merge queue is on", "on:\n  merge_group:"}},
		{"no merge queue, no merge_group", setWorkflow(t, checkWith("  merge_group:\n", "")), "workflow.merge_group", StatusPass, []string{"not needed"}},
		{"rules unreadable, no merge_group", both(func(f *Facts) { f.RulesUnknown = &unknown{Reason: "403", Permission: "Metadata: read"} }, setWorkflow(t, checkWith("  merge_group:\n", ""))),
			"workflow.merge_group", StatusUnknown, nil},

		// The check workflow's triggers.
		{"pull_request without types lacks edited", setWorkflow(t, checkWith("    types: [opened, synchronize, reopened, edited]\n", "")), "workflow.pull_request_types", StatusFail,
			[]string{"pull_request has no types, so it runs on opened, synchronize, reopened only", "retargeted", "in .github/workflows/pact.yml:\non:\n  pull_request:\n    types: [opened, synchronize, reopened, edited]"}},
		{"types without edited", setWorkflow(t, checkWith("edited]", "labeled]")), "workflow.pull_request_types", StatusFail, []string{"pull_request types lack edited"}},
		{"types as a list of lines", setWorkflow(t, checkWith("[opened, synchronize, reopened, edited]", "\n      - edited\n      - opened\n      - reopened\n      - synchronize")), "workflow.pull_request_types", StatusPass, nil},
		{"on as a list", setWorkflow(t, checkWith("on:\n  pull_request:\n    types: [opened, synchronize, reopened, edited]\n  merge_group:\n  workflow_dispatch:\n", "on: [pull_request, merge_group]\n")),
			"workflow.pull_request_types", StatusFail, []string{"pull_request has no types"}},
		{"pull_request_target", setWorkflow(t, checkWith("  pull_request:\n", "  pull_request_target:\n")), "workflow.pull_request_types", StatusPass, []string{"pull_request_target runs on"}},
		{"a branch filter without the default branch", setWorkflow(t, checkWith("reopened, edited]\n", "reopened, edited]\n    branches: [develop, 'release/**']\n")), "workflow.pull_request_types", StatusFail,
			[]string{"the branch filter of pull_request leaves out main", "    branches: [main]"}},
		{"a branch filter with a pattern", setWorkflow(t, checkWith("reopened, edited]\n", "reopened, edited]\n    branches: ['ma*', '!maint']\n")), "workflow.pull_request_types", StatusPass, nil},
		{"branches-ignore the default branch", setWorkflow(t, checkWith("reopened, edited]\n", "reopened, edited]\n    branches-ignore: [main]\n")), "workflow.pull_request_types", StatusFail, nil},
		{"a paths filter", setWorkflow(t, checkWith("reopened, edited]\n", "reopened, edited]\n    paths: ['.pact/**']\n")), "workflow.pull_request_types", StatusWarn,
			[]string{"gets no `pact` check and cannot merge"}},

		// The check workflow itself.
		{"no workflow", func(f *Facts) { f.Workflows = nil }, "workflow.check", StatusFail,
			[]string{"no workflow on main uses pact-action/pact-action", "add this workflow on main:\n# .github/workflows/pact.yml", "types: [opened, synchronize, reopened, edited]"}},
		{"only a bot workflow", func(f *Facts) { f.Workflows = f.Workflows[1:] }, "workflow.check", StatusFail,
			[]string{".github/workflows/pact-bot.yml uses the action, but not in check mode on pull_request or pull_request_target"}},
		{"bot mode on pull requests", setWorkflow(t, checkWith("mode: check", "mode: bot")), "workflow.check", StatusFail, nil},
		{"a workflow that cannot be parsed", func(f *Facts) {
			f.Workflows = []workflow{{Path: ".github/workflows/x.yml", State: "active", ParseError: "not valid YAML"}}
		}, "workflow.check", StatusFail,
			[]string{".github/workflows/x.yml cannot be parsed (not valid YAML)"}},
		{"mode auto runs check on pull requests", setWorkflow(t, checkWith("        with:\n          mode: check\n", "")), "workflow.check", StatusPass, []string{"job check, line 16"}},
		{"the published image by digest", setWorkflow(t, checkWith("pact-action/pact-action@main", "docker://ghcr.io/pact-action/pact-action@sha256:0123")), "workflow.check", StatusPass, nil},
		{"a look-alike action", setWorkflow(t, checkWith("pact-action/pact-action@main", "pact-action/pact-action-fork@v1")), "workflow.check", StatusFail, nil},
		{"uses ./ in pact-action itself", both(func(f *Facts) { f.Repository = "pact-action/pact-action" }, setWorkflow(t, checkWith("pact-action/pact-action@main", "./"))), "workflow.check", StatusPass, nil},
		{"uses ./ elsewhere", setWorkflow(t, checkWith("pact-action/pact-action@main", "./")), "workflow.check", StatusFail, nil},
		{"a disabled workflow", func(f *Facts) { f.Workflows[0].State = "disabled_manually" }, "workflow.check", StatusFail,
			[]string{"is disabled manually", "Actions → pact → ⋯ → Enable workflow"}},
		{"another check name", setWorkflow(t, checkWith("mode: check", "mode: check\n          check-name: pact-check")), "workflow.check", StatusFail,
			[]string{"posts `pact-check`, not `pact`"}},
		{"workflows unreadable", func(f *Facts) {
			f.WorkflowsUnknown = &unknown{Reason: "GitHub answered 403", Permission: "Actions: read"}
		}, "workflow.check", StatusUnknown,
			[]string{"give the token Actions: read"}},

		// The check job's permissions.
		{"no checks: write", setWorkflow(t, checkWith("  checks: write\n", "")), "workflow.check_permissions", StatusFail,
			[]string{"the check job lacks checks: write (has none)", "permissions:\n  contents: read\n  checks: write\n  pull-requests: write"}},
		{"job permissions replace the workflow's", setWorkflow(t, checkWith("    runs-on:", "    permissions:\n      checks: write\n    runs-on:")), "workflow.check_permissions", StatusFail,
			[]string{"contents: read (has none)", "pull-requests: read (has none)", "jobs.check.permissions"}},
		{"write-all", setWorkflow(t, checkWith("permissions:\n  contents: read\n  checks: write\n  pull-requests: write\n", "permissions: write-all\n")), "workflow.check_permissions", StatusPass, nil},
		{"read-all", setWorkflow(t, checkWith("permissions:\n  contents: read\n  checks: write\n  pull-requests: write\n", "permissions: read-all\n")), "workflow.check_permissions", StatusFail, []string{"checks: write (has read)"}},
		{"an empty block", setWorkflow(t, checkWith("permissions:\n  contents: read\n  checks: write\n  pull-requests: write\n", "permissions: {}\n")), "workflow.check_permissions", StatusFail, nil},
		{"no block, restricted default", setWorkflow(t, checkWith("permissions:\n  contents: read\n  checks: write\n  pull-requests: write\n", "")), "workflow.check_permissions", StatusFail,
			[]string{"the repository's default token permissions (read repository contents)"}},
		{"no block, permissive default", both(setWorkflow(t, checkWith("permissions:\n  contents: read\n  checks: write\n  pull-requests: write\n", "")), func(f *Facts) { f.DefaultTokenPermission = "write" }),
			"workflow.check_permissions", StatusWarn, []string{"the default (read and write) covers the job today"}},
		{"no block, default unreadable", both(setWorkflow(t, checkWith("permissions:\n  contents: read\n  checks: write\n  pull-requests: write\n", "")), func(f *Facts) { f.DefaultTokenUnknown = forbiddenAdmin }),
			"workflow.check_permissions", StatusUnknown, nil},

		// A job named like the check (GitHub names each job's own check
		// run after it).
		{"the check job's id is the check's name", setWorkflow(t, checkWith("jobs:\n  check:\n", "jobs:\n  pact:\n")), "workflow.job_name", StatusWarn,
			[]string{"job pact of .github/workflows/pact.yml is named like the check, pact", "jobs.pact"}},
		{"the check job's name: is the check's name", setWorkflow(t, checkWith("jobs:\n  check:\n", "jobs:\n  check:\n    name: Pact\n")), "workflow.job_name", StatusWarn, nil},
		{"a job named pact with another name:", setWorkflow(t, checkWith("jobs:\n  check:\n", "jobs:\n  pact:\n    name: judge\n")), "workflow.job_name", StatusPass, nil},
		{"the bot job named like the check", func(f *Facts) {
			f.Workflows[1] = workflowAt(t, ".github/workflows/pact-bot.yml", strings.Replace(readmeBotWorkflow, "jobs:\n  bot:\n", "jobs:\n  pact:\n", 1))
		}, "workflow.job_name", StatusWarn, []string{"pact-bot.yml"}},

		// The bot.
		{"no bot workflow", func(f *Facts) { f.Workflows = f.Workflows[:1] }, "workflow.bot", StatusPass, []string{"no bot workflow (optional)"}},
		{"a bot that misses comments", func(f *Facts) {
			f.Workflows[1] = workflowAt(t, ".github/workflows/pact-bot.yml", regexp.MustCompile(`(?m)^  issue_comment:\n    types: .*\n`).ReplaceAllString(readmeBotWorkflow, ""))
		}, "workflow.bot", StatusFail, []string{"does not run on issue_comment (created)"}},
		{"a bot that does not judge again when a review is dismissed", func(f *Facts) {
			f.Workflows[1] = workflowAt(t, ".github/workflows/pact-bot.yml", strings.Replace(readmeBotWorkflow, "[submitted, dismissed]", "[submitted]", 1))
		}, "workflow.bot_rejudge", StatusWarn, []string{"does not run on pull_request_review (dismissed)"}},
		{"a bot without a schedule", func(f *Facts) {
			f.Workflows[1] = workflowAt(t, ".github/workflows/pact-bot.yml", regexp.MustCompile(`(?m)^  schedule:\n    - cron: .*\n`).ReplaceAllString(readmeBotWorkflow, ""))
		}, "workflow.bot_rejudge", StatusWarn, []string{"a schedule"}},
		{"unmapped branches only warn", func(f *Facts) {
			f.Config = mustConfig(t, "seats:\n  lead: [alice]\n  dev: [bob]\n  rev: [carol]\nprovenance:\n  mode: require\n")
		}, "config.unmapped_branches", StatusWarn, []string{"not blocked (unmapped-branches: warn)"}},
		{"a bot without contents: write", func(f *Facts) {
			f.Workflows[1] = workflowAt(t, ".github/workflows/pact-bot.yml", strings.Replace(readmeBotWorkflow, "contents: write", "contents: read", 1))
		}, "workflow.bot_permissions", StatusFail, []string{"the bot job lacks contents: write (has read)"}},

		// The branch updater.
		{"a bot that updates pull requests", func(f *Facts) {}, "workflow.update_trigger", StatusPass,
			[]string{".github/workflows/pact-bot.yml brings pull requests up to date on a push to main"}},
		{"a bot without the push trigger", func(f *Facts) {
			f.Workflows[1] = workflowAt(t, ".github/workflows/pact-bot.yml", regexp.MustCompile(`(?m)^  push:\n    branches: .*\n`).ReplaceAllString(readmeBotWorkflow, ""))
		}, "workflow.update_trigger", StatusWarn, []string{"no workflow runs pact-action on a push to main", "waits for the bot's schedule",
			"in .github/workflows/pact-bot.yml:\non:\n  push:\n    branches: [main]"}},
		{"a push trigger for another branch", func(f *Facts) {
			f.Workflows[1] = workflowAt(t, ".github/workflows/pact-bot.yml", strings.Replace(readmeBotWorkflow, "branches: [main]", "branches: [release]", 1))
		}, "workflow.update_trigger", StatusWarn, []string{"no workflow runs pact-action on a push to main"}},
		{"a push trigger in mode check", func(f *Facts) {
			f.Workflows[0] = workflowAt(t, ".github/workflows/pact.yml", checkWith("  workflow_dispatch:\n", "  workflow_dispatch:\n  push:\n    branches: [main]\n"))
			f.Workflows[1] = workflowAt(t, ".github/workflows/pact-bot.yml", regexp.MustCompile(`(?m)^  push:\n    branches: .*\n`).ReplaceAllString(readmeBotWorkflow, ""))
		}, "workflow.update_trigger", StatusWarn, []string{"or mode: check, does not count"}},
		{"an updater without contents: write", func(f *Facts) {
			f.Workflows[1] = workflowAt(t, ".github/workflows/pact-bot.yml", strings.Replace(readmeBotWorkflow, "contents: write", "contents: read", 1))
		}, "workflow.update_permissions", StatusFail, []string{"the job that brings pull requests up to date lacks contents: write (has read)", "contents: write\n  pull-requests: write\n  checks: write"}},

		// The pact and its seat map.
		{"no log", func(f *Facts) { f.Roster, f.LogProblem = nil, ".pact/log.jsonl does not exist on main" }, "pact.roster", StatusFail, []string{"run `pactify init`"}},
		// Line endings.
		{"no .gitattributes", func(f *Facts) { f.GitAttributes, f.GitAttributesMissing = nil, true }, "pact.line_endings", StatusWarn,
			[]string{"no .gitattributes on main keeps git from converting the line endings of .pact", "core.autocrlf=true", "add this line to .gitattributes on main (pactify init writes it):\n.pact/** text eol=lf"}},
		{"a .gitattributes without the line", func(f *Facts) { f.GitAttributes = []byte("* text=auto\n") }, "pact.line_endings", StatusWarn,
			[]string{".gitattributes on main does not keep git", ".pact/** text eol=lf"}},
		{"a line for another directory", func(f *Facts) { f.PactDir = "docs/pact" }, "pact.line_endings", StatusWarn,
			[]string{"line endings of docs/pact", "docs/pact/** text eol=lf"}},
		{"a rule of its own", func(f *Facts) { f.GitAttributes = []byte("* -text\n") }, "pact.line_endings", StatusPass,
			[]string{".gitattributes on main keeps git from converting the line endings of .pact"}},
		{".gitattributes unreadable", func(f *Facts) {
			f.GitAttributes, f.GitAttributesUnknown = nil, &unknown{Reason: "GitHub answered 403", Permission: "Contents: read"}
		}, "pact.line_endings", StatusUnknown, []string{"cannot read .gitattributes on main", "Contents: read"}},
		{"no config", func(f *Facts) { f.Config, f.ConfigMissing = nil, true }, "config.file", StatusFail,
			[]string{"no .github/pact.yml on main", "the file on any other branch grants nothing", "seats:\n  lead: [<github-login>]\n  dev: [<github-login>]\n  rev: [<github-login>]\nprovenance:\n  mode: require"}},
		{"the config is read from the default branch", func(f *Facts) {}, "config.file", StatusPass,
			[]string{".github/pact.yml on main is valid", "read the seats and policies from .github/pact.yml on main, the default branch, whatever a pull request's base"}},
		{"no config means provenance warn", func(f *Facts) { f.Config, f.ConfigMissing = nil, true }, "config.provenance", StatusWarn, nil},
		{"an unusable config", func(f *Facts) { f.Config, f.ConfigError = nil, ".github/pact.yml line 3: unknown key \"seat\"" }, "config.file", StatusFail, []string{"unknown key"}},
		{"a config seat outside the roster", func(f *Facts) {
			f.Config = mustConfig(t, "seats:\n  lead: [alice]\n  dev: [bob]\n  rev: [carol]\n  ghost: [dan]\nprovenance:\n  mode: require\n")
		}, "config.file", StatusFail, []string{`seat "ghost" is not in the roster`}},
		{"an unmapped seat", func(f *Facts) {
			f.Config = mustConfig(t, "seats:\n  lead: [alice]\n  dev: [bob]\nprovenance:\n  mode: require\n")
		}, "seat.rev", StatusFail,
			[]string{"seat rev is mapped to no GitHub account", "in .github/pact.yml on main:\nseats:\n  rev: [<github-login>]"}},
		{"a login that does not exist", func(f *Facts) { f.Accounts["bob"] = account{} }, "login.bob", StatusFail,
			[]string{"bob (seat dev) is not a GitHub account", "correct the login under seats.dev"}},
		{"a login without write", func(f *Facts) { f.Accounts["bob"] = account{Exists: true, Permission: "read"} }, "login.bob", StatusFail,
			[]string{"bob (seat dev) cannot write to octo-org/octo-repo", "permission: read", "Settings → Collaborators and teams → Add people → bob, role Write"}},
		{"a login held twice is checked once, with both seats", nil, "login.alice", StatusPass, []string{"alice (seat lead, rev) can write"}},
		{"an app's account", func(f *Facts) {
			f.Config = mustConfig(t, "seats:\n  lead: [alice]\n  dev: [\"dev-agent[bot]\"]\n  rev: [carol]\nprovenance:\n  mode: require\n")
			f.Accounts["dev-agent[bot]"] = account{Exists: true}
		}, "login.dev-agent[bot]", StatusUnknown, []string{"installed on octo-org/octo-repo with Contents: read and write"}},
		{"permission unreadable", func(f *Facts) {
			f.Accounts["bob"] = account{Exists: true, Unreadable: &unknown{Reason: "403", Permission: "Metadata: read"}}
		}, "login.bob", StatusUnknown, nil},
		{"provenance warn", func(f *Facts) { f.Config.Provenance.Mode = config.ModeWarn }, "config.provenance", StatusWarn,
			[]string{"provenance only warns (mode warn, stale: change)", "provenance:\n  mode: require"}},
		{"provenance off", func(f *Facts) { f.Config.Provenance.Mode = config.ModeOff }, "config.provenance", StatusFail, []string{"provenance is off"}},
		{"sticky accepts cover any code", func(f *Facts) { f.Config.Provenance.Stale = config.StaleSticky }, "config.provenance", StatusWarn, []string{"stale: sticky keeps an accept valid", "reused after a merge re-ships"}},

		// Review requests.
		{"the check job may request reviews", nil, "config.review_requests", StatusPass, []string{"the check job may request reviews (pull-requests: write)", "from the workflow's permissions"}},
		{"review requests off", func(f *Facts) { f.Config.ReviewRequests = config.RequestsOff }, "config.review_requests", StatusPass, []string{"asks nobody for reviews (review-requests: off)"}},
		{"the check job reads pull requests only", setWorkflow(t, checkWith("pull-requests: write", "pull-requests: read")), "config.review_requests", StatusWarn,
			[]string{"the check job cannot request reviews (pull-requests: read)", "nobody is asked", "permissions:\n  contents: read\n  checks: write\n  pull-requests: write", "review-requests: off"}},
		{"no block, restricted default", setWorkflow(t, checkWith("permissions:\n  contents: read\n  checks: write\n  pull-requests: write\n", "")), "config.review_requests", StatusWarn,
			[]string{"pull-requests: none", "the repository's default token permissions"}},
		{"no block, default unreadable", both(setWorkflow(t, checkWith("permissions:\n  contents: read\n  checks: write\n  pull-requests: write\n", "")), func(f *Facts) { f.DefaultTokenUnknown = forbiddenAdmin }),
			"config.review_requests", StatusUnknown, nil},
		{"no check workflow", func(f *Facts) { f.Workflows = nil }, "config.review_requests", StatusUnknown, []string{"no check workflow"}},
		{"every reviewer seat can be asked", nil, "config.review_seats", StatusPass, []string{"every seat that reviews a task can be asked"}},
		{"a worker seat held by an app is not judged", func(f *Facts) {
			f.Config = mustConfig(t, "seats:\n  lead: [alice]\n  dev: [\"dev-agent[bot]\"]\n  rev: [carol]\n")
		}, "config.review_seats", StatusPass, nil},
		{"a reviewer seat held by an app only", func(f *Facts) {
			f.Config = mustConfig(t, "seats:\n  lead: [alice]\n  dev: [bob]\n  rev: [\"rev-agent[bot]\"]\n")
		}, "config.review_seats", StatusWarn, []string{"no account of seat rev can be asked for a review: rev-agent[bot] is an app's account", "seats:\n  rev: [<github-login>]"}},
		{"a reviewer seat without access", func(f *Facts) {
			f.Config = mustConfig(t, "seats:\n  lead: [alice]\n  dev: [bob]\n  rev: [erin, zed]\n")
			f.Accounts["erin"] = account{Exists: true, Permission: "none"}
			f.Accounts["zed"] = account{}
		}, "config.review_seats", StatusWarn, []string{"erin has no access to octo-org/octo-repo; zed is not a GitHub account"}},
		{"one askable account is enough", func(f *Facts) {
			f.Config = mustConfig(t, "seats:\n  lead: [alice]\n  dev: [bob]\n  rev: [\"rev-agent[bot]\", carol]\n")
		}, "config.review_seats", StatusPass, nil},
		{"a reviewer seat's access unreadable", func(f *Facts) {
			f.Config = mustConfig(t, "seats:\n  lead: [alice]\n  dev: [bob]\n  rev: [carol]\n")
			f.Accounts["carol"] = account{Exists: true, Unreadable: &unknown{Reason: "403"}}
		},
			"config.review_seats", StatusUnknown, []string{"the access of carol cannot be read"}},
		{"no task yet: every seat of the roster", func(f *Facts) {
			f.ReviewerSeats = nil
			f.Config = mustConfig(t, "seats:\n  lead: [alice]\n  dev: [\"dev-agent[bot]\"]\n  rev: [carol]\n")
		}, "config.review_seats", StatusWarn, []string{"no account of seat dev can be asked"}},
		{"a team, with the workflow's token", func(f *Facts) {
			f.Config = mustConfig(t, "seats:\n  lead: [alice]\n  dev: [bob]\n  rev: [carol]\nreview-teams:\n  rev: [reviewers]\n")
		}, "config.review_seats", StatusWarn, []string{"seat rev is asked through team reviewers, which the workflow's GITHUB_TOKEN cannot request", "GitHub App token with Members: read"}},
		{"a team, with the workflow's token named", both(setWorkflow(t, checkWith("mode: check", "mode: check\n          token: ${{ secrets.GITHUB_TOKEN }}")), func(f *Facts) {
			f.Config = mustConfig(t, "seats:\n  lead: [alice]\n  dev: [bob]\n  rev: [carol]\nreview-teams:\n  rev: [reviewers]\n")
		}), "config.review_seats", StatusWarn, nil},
		{"a team, with an app's token", both(setWorkflow(t, checkWith("mode: check", "mode: check\n          token: ${{ steps.app.outputs.token }}")), func(f *Facts) {
			f.Config = mustConfig(t, "seats:\n  lead: [alice]\n  dev: [bob]\n  rev: [carol]\nreview-teams:\n  rev: [reviewers]\n")
		}), "config.review_seats", StatusPass, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := protected(t)
			if tt.mutate != nil {
				tt.mutate(&f)
			}
			probes := Judge(f)
			var got *Probe
			for i := range probes {
				if probes[i].ID == tt.id {
					got = &probes[i]
				}
			}
			if got == nil {
				t.Fatalf("no probe %s in %+v", tt.id, probes)
			}
			if got.Status != tt.want {
				t.Errorf("%s = %s, want %s: %q / %q / fix %q", tt.id, got.Status, tt.want, got.Title, got.Detail, got.Fix)
			}
			text := got.Title + "\n" + got.Detail + "\n" + got.Fix
			for _, w := range tt.wantText {
				if !strings.Contains(text, w) {
					t.Errorf("%s lacks %q:\n%s", tt.id, w, text)
				}
			}
			if got.Status == StatusFail && got.Fix == "" {
				t.Errorf("%s fails without a fix", tt.id)
			}
			if tt.want == StatusFail && OK(probes) {
				t.Errorf("OK = true with %s failing", tt.id)
			}
		})
	}
}

// Without a required check there is no source to judge: one ✗, not two.
func TestNoSourceLineWhenNotRequired(t *testing.T) {
	t.Parallel()
	f := protected(t)
	f.Rules = nil
	for _, c := range Judge(f) {
		if c.ID == "branch.check_source" {
			t.Errorf("unexpected %+v", c)
		}
	}
}

// Warnings and unknowns are worth a look, but only a ✗ fails doctor.
func TestWarningsAndUnknownsDoNotFail(t *testing.T) {
	t.Parallel()
	f := protected(t)
	f.Config.Provenance.Mode = config.ModeWarn
	f.Accounts["bob"] = account{Exists: true, Unreadable: &unknown{Reason: "403"}}
	probes := Judge(f)
	statuses := map[Status]int{}
	for _, c := range probes {
		statuses[c.Status]++
	}
	if statuses[StatusWarn] != 1 || statuses[StatusUnknown] != 1 || statuses[StatusFail] != 0 || !OK(probes) {
		t.Errorf("statuses %v, OK %v", statuses, OK(probes))
	}
}
