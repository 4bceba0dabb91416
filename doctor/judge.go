package doctor

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/pact-action/pact-action/action"
	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/config"
	"github.com/pact-action/pact-action/ghapi"
	"github.com/pact-action/pact-action/internal/prose"
	"github.com/pact-action/pact-action/pactfile"
	"github.com/pact-action/pact-action/projection"
)

// Status is the verdict of one check.
type Status string

// Statuses, from good to bad. Only StatusFail makes doctor exit 1: a
// warning is worth a look, and unknown says what the token could not read.
const (
	StatusPass    Status = "pass"
	StatusWarn    Status = "warn"
	StatusUnknown Status = "unknown"
	StatusFail    Status = "fail"
)

// Check is one line of doctor's report.
type Check struct {
	// ID is stable: a family ("branch.required_check") or a family and the
	// seat or login it is about ("seat.lead", "login.octocat").
	ID     string `json:"id"`
	Status Status `json:"status"`
	// Title is the line itself, a statement of how things are.
	Title string `json:"title"`
	// Detail says why it matters or what was found.
	Detail string `json:"detail"`
	// Fix is the exact change: a settings path or a YAML snippet.
	Fix string `json:"fix"`
}

// OK reports that no check failed.
func OK(checks []Check) bool {
	return !slices.ContainsFunc(checks, func(c Check) bool { return c.Status == StatusFail })
}

// Judge decides every check from the facts. It is pure.
func Judge(f Facts) []Check {
	if f.CheckName == "" {
		f.CheckName = "pact"
	}
	var out []Check
	out = append(out, judgeBranch(f)...)
	out = append(out, judgeWorkflows(f)...)
	out = append(out, judgePact(f)...)
	return out
}

// ---- branch protection and rulesets ----

// requirement is one place that requires the check.
type requirement struct {
	appID int64
	// ruleset names the ruleset; "" for classic branch protection.
	ruleset string
}

func (r requirement) where() string {
	if r.ruleset == "" {
		return "branch protection"
	}
	return fmt.Sprintf("ruleset %q", r.ruleset)
}

func requirements(f Facts) []requirement {
	var out []requirement
	if p := f.Protection; p != nil {
		for _, rc := range p.RequiredChecks {
			if rc.Context == f.CheckName {
				out = append(out, requirement{appID: rc.AppID})
			}
		}
	}
	for _, r := range f.Rules {
		for _, rc := range r.RequiredChecks {
			if r.Type == "required_status_checks" && rc.Context == f.CheckName {
				out = append(out, requirement{appID: rc.AppID, ruleset: r.Ruleset})
			}
		}
	}
	return out
}

// settingsUnknown is why protection or rules could not be read, if so.
func settingsUnknown(f Facts) *Unknown {
	if f.ProtectionUnknown != nil {
		return f.ProtectionUnknown
	}
	return f.RulesUnknown
}

// rulesetOf names the first ruleset with a rule of type typ, if any.
func rulesetOf(f Facts, typ string) string {
	for _, r := range f.Rules {
		if r.Type == typ || typ == "" {
			return r.Ruleset
		}
	}
	return ""
}

// rulesetPath is the settings path to the ruleset named, or to a new one
// targeting the default branch.
func rulesetPath(f Facts, name string) string {
	if name == "" {
		name = rulesetOf(f, "")
	}
	if name == "" {
		return "Settings → Rules → Rulesets → New ruleset → New branch ruleset (Enforcement status: Active; Target branches: Include default branch)"
	}
	return fmt.Sprintf("Settings → Rules → Rulesets → %q", name)
}

func protectionPath(f Facts) string {
	return fmt.Sprintf("Settings → Branches → edit the branch protection rule of %s", f.DefaultBranch)
}

func judgeBranch(f Facts) []Check {
	name, branch := f.CheckName, f.DefaultBranch
	reqs := requirements(f)
	unknown := settingsUnknown(f)
	var out []Check

	required := Check{ID: "branch.required_check"}
	switch {
	case len(reqs) > 0:
		var where []string
		for _, r := range reqs {
			where = appendUnique(where, r.where())
		}
		required.Status = StatusPass
		required.Title = fmt.Sprintf("`%s` is a required check on %s", name, branch)
		required.Detail = "required by " + strings.Join(where, " and ")
	case unknown != nil:
		required.Status = StatusUnknown
		required.Title = fmt.Sprintf("cannot tell whether `%s` is a required check on %s", name, branch)
		required.Detail = "no active ruleset requires it, and " + unreadable(f)
		required.Fix = permissionFix(unknown)
	default:
		required.Status = StatusFail
		required.Title = fmt.Sprintf("`%s` is not a required check on %s", name, branch)
		required.Detail = "a pull request can merge whatever the check concludes"
		if len(f.InactiveRulesets) > 0 {
			required.Detail += fmt.Sprintf("; ruleset %q requires it but is not active", f.InactiveRulesets[0])
			required.Fix = fmt.Sprintf("Settings → Rules → Rulesets → %q → Enforcement status: Active", f.InactiveRulesets[0])
		} else {
			required.Fix = fmt.Sprintf("%s → Require status checks to pass → Add checks → `%s`, source GitHub Actions"+
				" (with classic protection instead: %s → Require status checks to pass before merging → `%s`, source GitHub Actions)",
				rulesetPath(f, rulesetOf(f, "required_status_checks")), name, protectionPath(f), name)
		}
	}
	out = append(out, required)

	if len(reqs) > 0 {
		out = append(out, judgeSource(f, reqs, unknown))
	}

	stale := Check{ID: "branch.dismiss_stale_reviews"}
	dismissed := ""
	if p := f.Protection; p != nil && p.DismissStaleReviews {
		dismissed = "branch protection"
	}
	for _, r := range f.Rules {
		if r.Type == "pull_request" && r.DismissStaleReviewsOnPush && dismissed == "" {
			dismissed = fmt.Sprintf("ruleset %q", r.Ruleset)
		}
	}
	switch {
	case dismissed != "":
		stale.Status, stale.Title, stale.Detail = StatusPass, "stale approvals are dismissed when new commits are pushed", "by "+dismissed
	case f.ProtectionUnknown != nil:
		stale.Status, stale.Title = StatusUnknown, "cannot tell whether stale approvals are dismissed"
		stale.Detail, stale.Fix = "no active ruleset dismisses them, and "+unreadable(f), permissionFix(f.ProtectionUnknown)
	default:
		stale.Status, stale.Title = StatusFail, "approvals survive new commits"
		stale.Detail = "an approval given before a push still counts after it, for GitHub's review requirement and for the bot, which records approvals as accepts"
		if p := f.Protection; p != nil && p.RequiresReviews && rulesetOf(f, "pull_request") == "" {
			stale.Fix = protectionPath(f) + " → Require a pull request before merging → Dismiss stale pull request approvals when new commits are pushed"
		} else {
			stale.Fix = rulesetPath(f, rulesetOf(f, "pull_request")) + " → Require a pull request before merging → Dismiss stale pull request approvals when new commits are pushed"
		}
	}
	out = append(out, stale)

	force := Check{ID: "branch.force_push_blocked"}
	switch {
	case rulesetOf(f, "non_fast_forward") != "":
		force.Status, force.Title = StatusPass, fmt.Sprintf("force pushes to %s are blocked", branch)
		force.Detail = fmt.Sprintf("by ruleset %q", rulesetOf(f, "non_fast_forward"))
	case f.Protection != nil && !f.Protection.AllowForcePushes:
		force.Status, force.Title, force.Detail = StatusPass, fmt.Sprintf("force pushes to %s are blocked", branch), "by branch protection"
	case unknown != nil:
		force.Status, force.Title = StatusUnknown, fmt.Sprintf("cannot tell whether force pushes to %s are blocked", branch)
		force.Detail, force.Fix = "no active ruleset blocks them, and "+unreadable(f), permissionFix(unknown)
	default:
		force.Status, force.Title = StatusFail, fmt.Sprintf("force pushes to %s are allowed", branch)
		force.Detail = "a force push can rewrite the log on " + branch + ", the history every pull request's log must extend"
		if f.Protection != nil {
			force.Fix = protectionPath(f) + " → Rules applied to everyone including administrators → clear Allow force pushes"
		} else {
			force.Fix = rulesetPath(f, "") + " → Block force pushes"
		}
	}
	out = append(out, force)

	queue := Check{ID: "branch.merge_queue", Status: StatusPass}
	switch {
	case rulesetOf(f, "merge_queue") != "":
		queue.Title = fmt.Sprintf("a merge queue is on for %s", branch)
		queue.Detail = fmt.Sprintf("ruleset %q; the check workflow must run on merge_group", rulesetOf(f, "merge_queue"))
	case f.RulesUnknown != nil:
		queue.Status, queue.Title = StatusUnknown, fmt.Sprintf("cannot tell whether a merge queue is on for %s", branch)
		queue.Detail, queue.Fix = "the rules of "+branch+" cannot be read: "+f.RulesUnknown.Reason, permissionFix(f.RulesUnknown)
	default:
		queue.Title = fmt.Sprintf("no merge queue on %s", branch)
	}
	return append(out, queue)
}

func judgeSource(f Facts, reqs []requirement, unknown *Unknown) Check {
	c := Check{ID: "branch.check_source"}
	name := f.CheckName
	var other []requirement
	for _, r := range reqs {
		if r.appID == ghapi.GitHubActionsAppID {
			c.Status, c.Title = StatusPass, fmt.Sprintf("`%s` must come from GitHub Actions", name)
			c.Detail = "pinned by " + r.where()
			return c
		}
		if r.appID != 0 {
			other = append(other, r)
		}
	}
	anySource := reqs[0]
	for _, r := range reqs {
		if r.appID == 0 {
			anySource = r
			break
		}
	}
	fix := fmt.Sprintf("%s → Require status checks to pass → next to `%s`, choose GitHub Actions as the source (not Any source)", rulesetPath(f, anySource.ruleset), name)
	if anySource.ruleset == "" {
		fix = fmt.Sprintf("%s → Require status checks to pass before merging → next to `%s`, choose GitHub Actions as the source (not Any source)", protectionPath(f), name)
	}
	switch {
	case f.ProtectionUnknown != nil && f.Protection == nil:
		// Classic protection might pin what the rulesets leave open.
		c.Status, c.Title = StatusUnknown, fmt.Sprintf("cannot tell whether `%s` must come from GitHub Actions", name)
		c.Detail, c.Fix = "the rulesets accept it from any source, and "+unreadable(f), permissionFix(f.ProtectionUnknown)
	case len(other) == len(reqs):
		c.Status, c.Title = StatusWarn, fmt.Sprintf("`%s` must come from app %d, not GitHub Actions", name, other[0].appID)
		c.Detail = fmt.Sprintf("pinned by %s; the check workflow's runs come from GitHub Actions (app %d), so only that app's own runs pass", other[0].where(), ghapi.GitHubActionsAppID)
		if other[0].ruleset == "" {
			c.Fix = fmt.Sprintf("%s → Require status checks to pass before merging → next to `%s`, choose GitHub Actions as the source", protectionPath(f), name)
		} else {
			c.Fix = fmt.Sprintf("%s → Require status checks to pass → next to `%s`, choose GitHub Actions as the source", rulesetPath(f, other[0].ruleset), name)
		}
	default:
		c.Status, c.Title = StatusFail, fmt.Sprintf("`%s` is accepted from any source", name)
		c.Detail = fmt.Sprintf("%s requires it from any app, so any GitHub App or commit status with write access can post a passing `%s`", anySource.where(), name)
		c.Fix = fix
	}
	return c
}

// unreadable describes the settings the token could not read.
func unreadable(f Facts) string {
	switch {
	case f.ProtectionUnknown != nil:
		return "branch protection cannot be read: " + f.ProtectionUnknown.Reason
	case f.RulesUnknown != nil:
		return "the rulesets cannot be read: " + f.RulesUnknown.Reason
	}
	return ""
}

// permissionFix says how to make an unreadable fact readable.
func permissionFix(u *Unknown) string {
	if u == nil || u.Permission == "" {
		return ""
	}
	scope, _, _ := strings.Cut(u.Permission, ":")
	return fmt.Sprintf("give the token %s (fine-grained token: Repository permissions → %s → Read-only), then run doctor again", u.Permission, scope)
}

func appendUnique(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// ---- workflows ----

// usage is a step that runs this action.
type usage struct {
	wf   *Workflow
	job  Job
	step Step
}

// mode is the step's mode input as the action reads it.
func (u usage) mode() string {
	m := strings.ToLower(strings.TrimSpace(u.step.With["mode"]))
	if m == "" {
		return "auto"
	}
	return m
}

// modeOn is the mode the step runs in on event ("" if it does not run).
func (u usage) modeOn(event string) string {
	switch m := u.mode(); m {
	case "check", "bot":
		return m
	case "auto":
		m, err := action.ModeFor(event)
		if err != nil {
			return ""
		}
		return m
	}
	return ""
}

func (u usage) checkName() string {
	if n := strings.TrimSpace(u.step.With["check-name"]); n != "" {
		return n
	}
	return "pact"
}

// prEvents are the pull request events of the workflow in check mode.
func (u usage) prEvents() []string {
	var out []string
	for _, ev := range []string{"pull_request", "pull_request_target"} {
		if _, ok := u.wf.File.On[ev]; ok && u.modeOn(ev) == "check" {
			out = append(out, ev)
		}
	}
	return out
}

// permissions is what the step's job gets, and where that comes from.
func (u usage) permissions(f Facts) (Permissions, string, *Unknown) {
	switch {
	case u.job.Permissions.Set:
		return u.job.Permissions, fmt.Sprintf("jobs.%s.permissions", u.job.ID), nil
	case u.wf.File.Permissions.Set:
		return u.wf.File.Permissions, "the workflow's permissions", nil
	case f.DefaultTokenUnknown != nil:
		return Permissions{}, "", f.DefaultTokenUnknown
	}
	return DefaultTokenPermissions(f.DefaultTokenPermission), fmt.Sprintf("the repository's default token permissions (%s)", defaultTokenWords(f.DefaultTokenPermission)), nil
}

func defaultTokenWords(setting string) string {
	if setting == AccessWrite {
		return "read and write"
	}
	return "read repository contents"
}

func usages(f Facts) []usage {
	self := strings.EqualFold(f.Repository, ActionRepository)
	var out []usage
	for i := range f.Workflows {
		wf := &f.Workflows[i]
		if wf.File == nil {
			continue
		}
		for _, job := range wf.File.Jobs {
			for _, step := range job.Steps {
				if UsesThisAction(step.Uses, self) {
					out = append(out, usage{wf: wf, job: job, step: step})
				}
			}
		}
	}
	return out
}

// checkStep finds the step that runs the check on pull requests: the first
// in an active workflow, else the first at all.
func checkStep(f Facts) (usage, bool) {
	var fallback *usage
	for _, u := range usages(f) {
		if len(u.prEvents()) == 0 {
			continue
		}
		if u.wf.State == "" || u.wf.State == "active" {
			return u, true
		}
		if fallback == nil {
			fallback = &u
		}
	}
	if fallback != nil {
		return *fallback, true
	}
	return usage{}, false
}

// CheckPactDir is the pact-dir input of the check step, "" when none.
func CheckPactDir(f Facts) string {
	if u, ok := checkStep(f); ok {
		return strings.TrimSpace(u.step.With["pact-dir"])
	}
	return ""
}

// Required trigger types and permissions, as the README's workflows list
// them.
var (
	checkTypes = []string{"opened", "synchronize", "reopened", "edited"}
	checkPerms = []scopeNeed{{"contents", AccessRead}, {"checks", AccessWrite}, {"pull-requests", AccessRead}}
	botPerms   = []scopeNeed{{"contents", AccessWrite}, {"pull-requests", AccessWrite}, {"checks", AccessWrite}}
)

// checkPermsSnippet is the check job's permissions block as the README
// writes it: pull-requests: write lets it request reviews (read is enough
// for the verdict).
const checkPermsSnippet = "contents: read\n  checks: write\n  pull-requests: write"

type scopeNeed struct{ scope, level string }

// CheckWorkflow is the check workflow doctor prints when a repository has
// none; it passes every workflow check.
const CheckWorkflow = `# .github/workflows/pact.yml
name: pact
on:
  pull_request:
    types: [opened, synchronize, reopened, edited]
  merge_group:
  workflow_dispatch:
permissions:
  contents: read
  checks: write
  pull-requests: write
jobs:
  pact:
    runs-on: ubuntu-latest
    steps:
      - uses: pact-action/pact-action@v1
        with:
          mode: check`

func judgeWorkflows(f Facts) []Check {
	if f.WorkflowsUnknown != nil {
		return []Check{{ID: "workflow.check", Status: StatusUnknown, Title: "cannot tell which workflows run pact-action",
			Detail: "the workflows cannot be read: " + f.WorkflowsUnknown.Reason, Fix: permissionFix(f.WorkflowsUnknown)}}
	}
	var out []Check
	u, ok := checkStep(f)
	out = append(out, judgeCheckStep(f, u, ok))
	if ok {
		out = append(out, judgeTypes(f, u), judgeMergeGroup(f, u), judgePermissions(f, u, "workflow.check_permissions", checkPerms, checkPermsSnippet))
	}
	return append(out, judgeBot(f)...)
}

func judgeCheckStep(f Facts, u usage, ok bool) Check {
	c := Check{ID: "workflow.check"}
	if !ok {
		c.Status = StatusFail
		c.Title = "no workflow runs pact-action in check mode on pull requests"
		var found []string
		for _, x := range usages(f) {
			found = appendUnique(found, x.wf.Path)
		}
		var broken []string
		for _, wf := range f.Workflows {
			switch {
			case wf.ParseError != "":
				broken = append(broken, fmt.Sprintf("%s cannot be parsed (%s)", wf.Path, wf.ParseError))
			case wf.Unreadable != nil:
				broken = append(broken, fmt.Sprintf("%s cannot be read (%s)", wf.Path, wf.Unreadable.Reason))
			}
		}
		switch {
		case len(found) > 0:
			c.Detail = fmt.Sprintf("%s uses the action, but not in check mode on pull_request or pull_request_target", strings.Join(found, ", "))
		default:
			c.Detail = fmt.Sprintf("no workflow on %s uses pact-action/pact-action, so nothing posts the `%s` check", f.DefaultBranch, f.CheckName)
		}
		if len(broken) > 0 {
			c.Detail += "; " + strings.Join(broken, "; ")
		}
		c.Fix = "add this workflow on " + f.DefaultBranch + ":\n" + CheckWorkflow
		if f.CheckName != "pact" {
			c.Fix += "\n          check-name: " + f.CheckName
		}
		return c
	}
	where := fmt.Sprintf("job %s, line %d", u.job.ID, u.step.Line)
	switch {
	case u.wf.State != "" && u.wf.State != "active":
		c.Status, c.Title = StatusFail, fmt.Sprintf("the check workflow %s is %s", u.wf.Path, strings.ReplaceAll(u.wf.State, "_", " "))
		c.Detail = "a disabled workflow never runs, so the required check never arrives"
		c.Fix = fmt.Sprintf("Actions → %s → ⋯ → Enable workflow", nameOr(u.wf))
	case u.checkName() != f.CheckName:
		c.Status, c.Title = StatusFail, fmt.Sprintf("the check workflow posts `%s`, not `%s`", u.checkName(), f.CheckName)
		c.Detail = fmt.Sprintf("%s (%s) sets check-name: %s", u.wf.Path, where, u.checkName())
		if strings.TrimSpace(u.step.With["check-name"]) == "" {
			c.Detail = fmt.Sprintf("%s (%s) sets no check-name, so it posts the default, pact", u.wf.Path, where)
		}
		c.Fix = fmt.Sprintf("use one name: set `check-name: %s` in %s, or require `%s` (and run doctor with --check-name %s)", f.CheckName, u.wf.Path, u.checkName(), u.checkName())
	default:
		c.Status, c.Title = StatusPass, fmt.Sprintf("%s runs pact-action in check mode", u.wf.Path)
		c.Detail = where
	}
	return c
}

func nameOr(wf *Workflow) string {
	if wf.Name != "" {
		return wf.Name
	}
	return wf.Path
}

func judgeTypes(f Facts, u usage) Check {
	c := Check{ID: "workflow.pull_request_types"}
	events := u.prEvents()
	var problems []string
	for _, ev := range events {
		t := u.wf.File.On[ev]
		types := t.EffectiveTypes(ev)
		var missing []string
		for _, want := range checkTypes {
			if !slices.Contains(types, want) {
				missing = append(missing, want)
			}
		}
		switch {
		case len(missing) > 0 && t.Types == nil:
			problems = append(problems, fmt.Sprintf("%s has no types, so it runs on %s only: a pull request that is edited or retargeted to another base is not judged again", ev, strings.Join(types, ", ")))
		case len(missing) > 0:
			problems = append(problems, fmt.Sprintf("%s types lack %s", ev, strings.Join(missing, ", ")))
		case !t.RunsFor(f.DefaultBranch):
			problems = append(problems, fmt.Sprintf("the branch filter of %s leaves out %s", ev, f.DefaultBranch))
		case t.PathFiltered:
			c.Status, c.Title = StatusWarn, fmt.Sprintf("%s has a paths filter", ev)
			c.Detail = fmt.Sprintf("a pull request that touches none of those paths gets no `%s` check and cannot merge", f.CheckName)
			c.Fix = fmt.Sprintf("remove paths / paths-ignore from the %s trigger in %s", ev, u.wf.Path)
		default:
			c.Status, c.Title = StatusPass, fmt.Sprintf("%s runs on %s", ev, strings.Join(checkTypes, ", "))
			return c
		}
	}
	if c.Status != "" {
		return c
	}
	ev := events[0]
	c.Status = StatusFail
	c.Title = fmt.Sprintf("%s does not run on every pull request change", ev)
	c.Detail = strings.Join(problems, "; ")
	c.Fix = fmt.Sprintf("in %s:\non:\n  %s:\n    types: [%s]", u.wf.Path, ev, strings.Join(checkTypes, ", "))
	if t := u.wf.File.On[ev]; !t.RunsFor(f.DefaultBranch) {
		c.Fix += fmt.Sprintf("\n    branches: [%s]", f.DefaultBranch)
	}
	return c
}

func judgeMergeGroup(f Facts, u usage) Check {
	c := Check{ID: "workflow.merge_group", Status: StatusPass}
	_, has := u.wf.File.On["merge_group"]
	has = has && u.modeOn("merge_group") == "check"
	queue := rulesetOf(f, "merge_queue") != ""
	switch {
	case has:
		c.Title = fmt.Sprintf("%s runs on merge_group", u.wf.Path)
	case queue:
		c.Status, c.Title = StatusFail, fmt.Sprintf("%s does not run on merge_group, but a merge queue is on", u.wf.Path)
		c.Detail = fmt.Sprintf("the queue waits for `%s` on its merge commit, which only a merge_group run posts", f.CheckName)
		c.Fix = fmt.Sprintf("in %s:\non:\n  merge_group:", u.wf.Path)
	case f.RulesUnknown != nil:
		c.Status, c.Title = StatusUnknown, fmt.Sprintf("%s does not run on merge_group; cannot tell whether a merge queue needs it", u.wf.Path)
		c.Fix = permissionFix(f.RulesUnknown)
	default:
		c.Title = "merge_group is not needed: no merge queue"
	}
	return c
}

func judgePermissions(f Facts, u usage, id string, needs []scopeNeed, snippet string) Check {
	c := Check{ID: id}
	perms, from, unknown := u.permissions(f)
	what := "the check job"
	if id != "workflow.check_permissions" {
		what = "the bot job"
	}
	if unknown != nil {
		c.Status, c.Title = StatusUnknown, fmt.Sprintf("cannot tell the permissions of %s (%s, job %s)", what, u.wf.Path, u.job.ID)
		c.Detail = "it sets no permissions block, and the repository's default token permissions cannot be read: " + unknown.Reason
		c.Fix = "add this block to the workflow or the job (it also documents what the job needs):\npermissions:\n  " + snippet
		return c
	}
	var lacking []string
	for _, n := range needs {
		if got := perms.Level(n.scope); accessRank(got) < accessRank(n.level) {
			lacking = append(lacking, fmt.Sprintf("%s: %s (has %s)", n.scope, n.level, got))
		}
	}
	switch {
	case len(lacking) > 0:
		c.Status, c.Title = StatusFail, fmt.Sprintf("%s lacks %s", what, strings.Join(lacking, ", "))
		c.Detail = fmt.Sprintf("%s, job %s: permissions come from %s", u.wf.Path, u.job.ID, from)
		c.Fix = fmt.Sprintf("in %s, at the top (or under jobs.%s):\npermissions:\n  %s", u.wf.Path, u.job.ID, snippet)
	case !u.job.Permissions.Set && !u.wf.File.Permissions.Set:
		c.Status, c.Title = StatusWarn, fmt.Sprintf("%s gets the repository's default token permissions", what)
		c.Detail = fmt.Sprintf("%s sets no permissions block; the default (%s) covers the job today but changes with the repository setting", u.wf.Path, defaultTokenWords(f.DefaultTokenPermission))
		c.Fix = fmt.Sprintf("in %s, at the top:\npermissions:\n  %s", u.wf.Path, snippet)
	default:
		var have []string
		for _, n := range needs {
			have = append(have, n.scope+": "+perms.Level(n.scope))
		}
		c.Status, c.Title = StatusPass, fmt.Sprintf("%s has %s", what, strings.Join(have, ", "))
		c.Detail = "from " + from
	}
	return c
}

func judgeBot(f Facts) []Check {
	var bot *usage
	for _, u := range usages(f) {
		for _, ev := range []string{"pull_request_review", "issue_comment", "pull_request_review_comment"} {
			if _, ok := u.wf.File.On[ev]; ok && u.modeOn(ev) == "bot" && bot == nil {
				bot = &u
			}
		}
	}
	if bot == nil {
		return []Check{{ID: "workflow.bot", Status: StatusPass, Title: "no bot workflow (optional)",
			Detail: "approvals and /pact commands are not turned into pact events; reviewers record them with pactify"}}
	}
	u := *bot
	c := Check{ID: "workflow.bot"}
	var missing []string
	for _, need := range []struct{ event, typ string }{{"pull_request_review", "submitted"}, {"issue_comment", "created"}} {
		t, ok := u.wf.File.On[need.event]
		if !ok || u.modeOn(need.event) != "bot" || !slices.Contains(t.EffectiveTypes(need.event), need.typ) {
			missing = append(missing, need.event+" ("+need.typ+")")
		}
	}
	if len(missing) == 0 {
		c.Status, c.Title = StatusPass, fmt.Sprintf("%s runs pact-action in bot mode on reviews and comments", u.wf.Path)
		c.Detail = fmt.Sprintf("job %s, line %d", u.job.ID, u.step.Line)
	} else {
		c.Status, c.Title = StatusFail, fmt.Sprintf("the bot workflow %s does not run on %s", u.wf.Path, strings.Join(missing, " or "))
		c.Detail = "approvals (pull_request_review submitted) and /pact commands (issue_comment created) that it does not see are never recorded"
		c.Fix = fmt.Sprintf("in %s:\non:\n  pull_request_review:\n    types: [submitted]\n  issue_comment:\n    types: [created]", u.wf.Path)
	}
	return []Check{c, judgeRejudge(u), judgePermissions(f, u, "workflow.bot_permissions", botPerms, "contents: write\n  pull-requests: write\n  checks: write")}
}

// judgeRejudge: a dismissed review, or an edited or deleted comment, can
// take away what backs an event already in the log; the bot workflow should
// judge the pull request again when they happen, and on a schedule so a
// missed event (or a cancelled run) never leaves a stale verdict.
func judgeRejudge(u usage) Check {
	c := Check{ID: "workflow.bot_rejudge"}
	var missing []string
	for _, need := range []struct{ event, typ string }{
		{"pull_request_review", "dismissed"}, {"issue_comment", "edited"}, {"issue_comment", "deleted"},
	} {
		t, ok := u.wf.File.On[need.event]
		if !ok || !slices.Contains(t.EffectiveTypes(need.event), need.typ) {
			missing = append(missing, need.event+" ("+need.typ+")")
		}
	}
	if _, ok := u.wf.File.On["schedule"]; !ok {
		missing = append(missing, "a schedule")
	}
	if len(missing) == 0 {
		c.Status, c.Title = StatusPass, fmt.Sprintf("%s judges pull requests again on dismissed reviews, edited comments and a schedule", u.wf.Path)
		return c
	}
	c.Status, c.Title = StatusWarn, fmt.Sprintf("the bot workflow %s does not run on %s", u.wf.Path, strings.Join(missing, ", "))
	c.Detail = "a dismissed review or an edited comment may take away what backs an accept; without these the verdict is only renewed by the next push"
	c.Fix = fmt.Sprintf("in %s:\non:\n  pull_request_review:\n    types: [submitted, dismissed]\n  issue_comment:\n    types: [created, edited, deleted]\n  pull_request_review_comment:\n    types: [created, edited, deleted]\n  schedule:\n    - cron: \"17 * * * *\"", u.wf.Path)
	return c
}

// ---- the pact and .github/pact.yml ----

func judgePact(f Facts) []Check {
	var out []Check
	branch := f.DefaultBranch
	dir := f.PactDir
	if dir == "" {
		dir = pactfile.DefaultDir
	}
	logCheck := Check{ID: "pact.roster"}
	switch {
	case f.LogUnknown != nil:
		logCheck.Status, logCheck.Title = StatusUnknown, "cannot read the pact's roster on "+branch
		logCheck.Detail, logCheck.Fix = f.LogUnknown.Reason, permissionFix(f.LogUnknown)
	case f.LogProblem != "":
		logCheck.Status, logCheck.Title = StatusFail, "no pact roster on "+branch
		logCheck.Detail = f.LogProblem
		logCheck.Fix = fmt.Sprintf("run `pactify init` on a branch and merge it into %s (doctor reads %s/log.jsonl)", branch, dir)
	default:
		logCheck.Status = StatusPass
		logCheck.Title = fmt.Sprintf("the pact on %s declares %s: %s", branch, prose.Plural(len(f.Roster), "seat"), strings.Join(f.Roster, ", "))
	}
	out = append(out, logCheck, judgeLineEndings(f, dir))

	cfgCheck := Check{ID: "config.file"}
	cfg := f.Config
	switch {
	case f.ConfigUnknown != nil:
		cfgCheck.Status, cfgCheck.Title = StatusUnknown, "cannot read "+pactfile.ConfigPath+" on "+branch
		cfgCheck.Detail, cfgCheck.Fix = f.ConfigUnknown.Reason, permissionFix(f.ConfigUnknown)
		return append(out, cfgCheck)
	case f.ConfigError != "":
		cfgCheck.Status, cfgCheck.Title = StatusFail, pactfile.ConfigPath+" on "+branch+" cannot be used"
		cfgCheck.Detail = f.ConfigError
		cfgCheck.Fix = "fix " + pactfile.ConfigPath + " on " + branch + ": only the keys seats, provenance, unmapped-branches, review-requests and review-teams, seats of the roster, GitHub logins"
		return append(out, cfgCheck)
	case f.ConfigMissing || cfg == nil:
		cfgCheck.Status, cfgCheck.Title = StatusFail, "no "+pactfile.ConfigPath+" on "+branch
		cfgCheck.Detail = "no GitHub account holds a seat: the bot cannot tell which seat a reviewer holds, and provenance can verify nothing"
		cfgCheck.Fix = "add " + pactfile.ConfigPath + " on " + branch + ":\n" + configSnippet(f.Roster)
		out = append(out, cfgCheck)
		out = append(out, judgeProvenance(f, config.Default()), judgeUnmapped(f, config.Default()))
		return append(out, judgeReviewRequests(f, config.Default())...)
	}
	var roster []projection.Seat
	for _, s := range f.Roster {
		roster = append(roster, projection.Seat{ID: s})
	}
	if problems := cfg.Check(roster); len(f.Roster) > 0 && len(problems) > 0 {
		cfgCheck.Status, cfgCheck.Title = StatusFail, pactfile.ConfigPath+" names seats the pact does not have"
		cfgCheck.Detail = strings.Join(problems, "; ")
		cfgCheck.Fix = "in " + pactfile.ConfigPath + " on " + branch + ", keep only the seats " + strings.Join(f.Roster, ", ")
	} else {
		cfgCheck.Status, cfgCheck.Title = StatusPass, pactfile.ConfigPath+" on "+branch+" is valid"
	}
	out = append(out, cfgCheck)

	for _, seat := range f.Roster {
		c := Check{ID: "seat." + seat}
		if logins := cfg.LoginsOf(seat); len(logins) > 0 {
			c.Status, c.Title = StatusPass, fmt.Sprintf("seat %s is held by %s", seat, strings.Join(logins, ", "))
		} else {
			c.Status, c.Title = StatusFail, fmt.Sprintf("seat %s is mapped to no GitHub account", seat)
			c.Detail = "nobody can act for it through the bot, and its events can never be verified"
			c.Fix = fmt.Sprintf("in %s on %s:\nseats:\n  %s: [<github-login>]", pactfile.ConfigPath, branch, seat)
		}
		out = append(out, c)
	}
	out = append(out, judgeLogins(f, cfg)...)
	out = append(out, judgeProvenance(f, cfg), judgeUnmapped(f, cfg))
	return append(out, judgeReviewRequests(f, cfg)...)
}

// judgeLineEndings checks that .gitattributes keeps git from converting the
// line endings of the pact's files (pactfile.KeepsLF). Without it a Windows
// checkout with core.autocrlf=true rewrites them with CRLF: the check
// judges them the same, so it is a warning, not a hole in the gate.
func judgeLineEndings(f Facts, dir string) Check {
	c := Check{ID: "pact.line_endings"}
	layout := pactfile.Layout(dir)
	file, branch := pactfile.GitAttributesFile, f.DefaultBranch
	switch {
	case f.GitAttributesUnknown != nil:
		c.Status, c.Title = StatusUnknown, "cannot read "+file+" on "+branch
		c.Detail, c.Fix = f.GitAttributesUnknown.Reason, permissionFix(f.GitAttributesUnknown)
		return c
	case pactfile.KeepsLF(f.GitAttributes, layout):
		c.Status, c.Title = StatusPass, fmt.Sprintf("%s on %s keeps git from converting the line endings of %s", file, branch, layout.Dir())
		return c
	case f.GitAttributesMissing:
		c.Title = fmt.Sprintf("no %s on %s keeps git from converting the line endings of %s", file, branch, layout.Dir())
	default:
		c.Title = fmt.Sprintf("%s on %s does not keep git from converting the line endings of %s", file, branch, layout.Dir())
	}
	c.Status = StatusWarn
	c.Detail = "a Windows checkout with core.autocrlf=true gives the pact's files CRLF line endings: the check judges them the same, but every other tool sees them rewritten"
	c.Fix = fmt.Sprintf("add this line to %s on %s (pactify init writes it):\n%s", file, branch, pactfile.GitAttributesLine(layout))
	return c
}

// judgeLogins checks every login of the seat map once, in roster order.
func judgeLogins(f Facts, cfg *config.Config) []Check {
	var out []Check
	seen := map[string]bool{}
	seats := append([]string(nil), f.Roster...)
	for _, s := range sortedSeats(cfg) {
		seats = appendUnique(seats, s)
	}
	for _, seat := range seats {
		for _, login := range cfg.LoginsOf(seat) {
			key := strings.ToLower(login)
			if seen[key] {
				continue
			}
			seen[key] = true
			held := strings.Join(cfg.SeatsOf(login), ", ")
			a := f.Accounts[key]
			c := Check{ID: "login." + login}
			switch {
			case a.Unreadable != nil:
				c.Status, c.Title = StatusUnknown, fmt.Sprintf("cannot tell whether %s (seat %s) can write", login, held)
				c.Detail, c.Fix = a.Unreadable.Reason, permissionFix(a.Unreadable)
			case !a.Exists:
				c.Status, c.Title = StatusFail, fmt.Sprintf("%s (seat %s) is not a GitHub account", login, held)
				c.Fix = fmt.Sprintf("correct the login under seats.%s in %s on %s", seat, pactfile.ConfigPath, f.DefaultBranch)
			case strings.HasSuffix(login, "[bot]"):
				c.Status, c.Title = StatusUnknown, fmt.Sprintf("cannot tell whether the app %s (seat %s) can write", login, held)
				c.Detail = "GitHub reports no repository permission for an app's account"
				c.Fix = fmt.Sprintf("make sure the app is installed on %s with Contents: read and write", f.Repository)
			case canWrite(a.Permission):
				c.Status, c.Title = StatusPass, fmt.Sprintf("%s (seat %s) can write", login, held)
				c.Detail = "permission: " + a.Permission
			default:
				c.Status, c.Title = StatusFail, fmt.Sprintf("%s (seat %s) cannot write to %s", login, held, f.Repository)
				c.Detail = fmt.Sprintf("permission: %s; the bot refuses its /pact accept and changes, and it cannot push the seat's events", a.Permission)
				c.Fix = fmt.Sprintf("Settings → Collaborators and teams → Add people → %s, role Write (or a team with Write)", login)
			}
			out = append(out, c)
		}
	}
	return out
}

func sortedSeats(cfg *config.Config) []string {
	var out []string
	for s := range cfg.Seats {
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

func canWrite(permission string) bool {
	switch permission {
	case "admin", "maintain", "write":
		return true
	}
	return false
}

func judgeProvenance(f Facts, cfg *config.Config) Check {
	c := Check{ID: "config.provenance"}
	mode, stale := cfg.Provenance.Mode, cfg.Provenance.Stale
	fix := fmt.Sprintf("in %s on %s:\nprovenance:\n  mode: require", pactfile.ConfigPath, f.DefaultBranch)
	switch mode {
	case config.ModeRequire:
		c.Status, c.Title = StatusPass, fmt.Sprintf("provenance is required (stale: %s)", stale)
		c.Detail = "an event the pull request adds must be backed by its seat's account, and a stale accept does not count"
	case config.ModeWarn:
		c.Status, c.Title = StatusWarn, fmt.Sprintf("provenance only warns (mode warn, stale: %s)", stale)
		c.Detail = "a forged or stale accept is a warning and the check still passes; warn is for rolling provenance out"
		c.Fix = fix
	default:
		c.Status, c.Title = StatusFail, fmt.Sprintf("provenance is off (stale: %s)", stale)
		c.Detail = "anyone who can push to a pull request's branch can append an accept under the reviewer's seat"
		c.Fix = fix
	}
	if stale == config.StaleSticky {
		// Coverage (docs/semantics.md §5) is what sticky gives up: an
		// accept keeps counting for any code, even code pushed later under
		// a reused branch name.
		c.Detail += "; stale: sticky keeps an accept valid whatever is pushed after it, and a branch name reused after a merge re-ships the accepted feature with new code"
		if c.Status == StatusPass {
			c.Status = StatusWarn
		}
		c.Fix = fmt.Sprintf("in %s on %s:\nprovenance:\n  mode: require\n  stale: tree", pactfile.ConfigPath, f.DefaultBranch)
	}
	return c
}

// judgeUnmapped: without unmapped-branches: block, the same code opened
// from a branch no task names dodges Rule 2 (a warning at most).
func judgeUnmapped(f Facts, cfg *config.Config) Check {
	c := Check{ID: "config.unmapped_branches"}
	if cfg.UnmappedBranches == config.UnmappedBlock {
		c.Status, c.Title = StatusPass, "a pull request from a branch no task names is blocked when it changes code (unmapped-branches: block)"
		return c
	}
	c.Status, c.Title = StatusWarn, fmt.Sprintf("a pull request from a branch no task names is not blocked (unmapped-branches: %s)", cfg.UnmappedBranches)
	c.Detail = "opening the same code from another branch name ships no feature, so Rule 2 holds nothing back"
	c.Fix = fmt.Sprintf("in %s on %s:\nunmapped-branches: block", pactfile.ConfigPath, f.DefaultBranch)
	return c
}

func configSnippet(roster []string) string {
	var b strings.Builder
	b.WriteString("seats:\n")
	if len(roster) == 0 {
		b.WriteString("  <seat>: [<github-login>]\n")
	}
	for _, s := range roster {
		fmt.Fprintf(&b, "  %s: [<github-login>]\n", s)
	}
	b.WriteString("provenance:\n  mode: require")
	return b.String()
}

// ---- review requests ----

// judgeReviewRequests: with review-requests on, the check job must be
// able to write pull requests, and every seat that reviews must be
// mapped to someone GitHub can ask (an account with access to the
// repository that is no app's, or a team a token that reads teams can
// ask).
func judgeReviewRequests(f Facts, cfg *config.Config) []Check {
	c := Check{ID: "config.review_requests"}
	if cfg.ReviewRequests == config.RequestsOff {
		c.Status, c.Title = StatusPass, "the check asks nobody for reviews (review-requests: off)"
		c.Detail = "reviewers learn that a task waits for them from the check's summary only"
		return []Check{c}
	}
	u, ok := checkStep(f)
	var perms Permissions
	var from string
	var unknown *Unknown
	if ok {
		perms, from, unknown = u.permissions(f)
	}
	switch {
	case f.WorkflowsUnknown != nil || !ok:
		c.Status, c.Title = StatusUnknown, "cannot tell whether the check may request reviews"
		c.Detail = "no check workflow was found to read its permissions"
		if f.WorkflowsUnknown != nil {
			c.Detail, c.Fix = "the workflows cannot be read: "+f.WorkflowsUnknown.Reason, permissionFix(f.WorkflowsUnknown)
		}
	case unknown != nil:
		c.Status, c.Title = StatusUnknown, "cannot tell whether the check job may request reviews"
		c.Detail = "it sets no permissions block, and the repository's default token permissions cannot be read: " + unknown.Reason
		c.Fix = "add this block to the workflow or the job:\npermissions:\n  " + checkPermsSnippet
	case accessRank(perms.Level("pull-requests")) < accessRank(AccessWrite):
		c.Status, c.Title = StatusWarn, fmt.Sprintf("the check job cannot request reviews (pull-requests: %s)", perms.Level("pull-requests"))
		c.Detail = fmt.Sprintf("review-requests is on, but %s, job %s, gets its permissions from %s: nobody is asked for the reviews the pact waits for, and every summary says so (to ask nobody, set review-requests: off in %s)",
			u.wf.Path, u.job.ID, from, pactfile.ConfigPath)
		c.Fix = fmt.Sprintf("in %s, at the top (or under jobs.%s):\npermissions:\n  %s", u.wf.Path, u.job.ID, checkPermsSnippet)
	default:
		c.Status, c.Title = StatusPass, "the check job may request reviews (pull-requests: write)"
		c.Detail = "from " + from + "; a pull request from a fork gets a read-only token, and its summary says no review was requested"
	}
	out := []Check{c}
	if anyMapped(cfg) {
		out = append(out, judgeReviewSeats(f, cfg, u, ok))
	}
	return out
}

func anyMapped(cfg *config.Config) bool {
	for _, logins := range cfg.Seats {
		if len(logins) > 0 {
			return true
		}
	}
	return len(cfg.ReviewTeams) > 0
}

// judgeReviewSeats: every seat that reviews a task (every seat of the
// roster while no task is assigned) must be mapped to someone GitHub can
// ask for a review.
func judgeReviewSeats(f Facts, cfg *config.Config, u usage, haveStep bool) Check {
	c := Check{ID: "config.review_seats"}
	seats, which := f.ReviewerSeats, "every seat that reviews a task"
	if len(seats) == 0 {
		seats, which = f.Roster, "every seat (no task names a reviewer yet)"
	}
	workflowToken := !haveStep || usesWorkflowToken(u.step.With["token"])
	var problems, unknown []string
	var fixSeat string
	for _, seat := range seats {
		if teams := cfg.TeamsOf(seat); len(teams) > 0 {
			if workflowToken {
				problems = append(problems, fmt.Sprintf("seat %s is asked through team %s, which the workflow's GITHUB_TOKEN cannot request", seat, strings.Join(teams, ", ")))
				fixSeat = seat
			}
			continue
		}
		logins := cfg.LoginsOf(seat)
		if len(logins) == 0 {
			continue // seat.<seat> says so
		}
		var why, unread []string
		askable := false
		for _, login := range logins {
			a := f.Accounts[strings.ToLower(login)]
			switch {
			case !checks.Requestable(login):
				why = append(why, login+" is an app's account, which GitHub cannot ask for a review")
			case a.Unreadable != nil:
				unread = append(unread, login)
			case !a.Exists:
				why = append(why, login+" is not a GitHub account")
			case a.Permission == "" || a.Permission == ghapi.PermissionNone:
				why = append(why, login+" has no access to "+f.Repository)
			default:
				askable = true
			}
		}
		switch {
		case askable:
		case len(unread) > 0:
			unknown = append(unknown, unread...)
		default:
			problems = append(problems, fmt.Sprintf("no account of seat %s can be asked for a review: %s", seat, strings.Join(why, "; ")))
			if fixSeat == "" {
				fixSeat = seat
			}
		}
	}
	switch {
	case len(problems) > 0:
		c.Status, c.Title = StatusWarn, "some reviewer seats cannot be asked for a review"
		c.Detail = strings.Join(problems, "; ")
		c.Detail += "; a team can be kept with a GitHub App token with Members: read as the check step's token input"
		c.Fix = fmt.Sprintf("in %s on %s, map seat %s to a person's account with access to the repository:\nseats:\n  %s: [<github-login>]", pactfile.ConfigPath, f.DefaultBranch, fixSeat, fixSeat)
	case len(unknown) > 0:
		c.Status, c.Title = StatusUnknown, "cannot tell whether every reviewer seat can be asked for a review"
		c.Detail = "the access of " + strings.Join(unknown, ", ") + " cannot be read"
	default:
		c.Status, c.Title = StatusPass, which+" can be asked for a review"
	}
	return c
}

// usesWorkflowToken reports whether a token input is the workflow's own
// GITHUB_TOKEN (the input's default when empty), which cannot request a
// team's review.
func usesWorkflowToken(input string) bool {
	return workflowTokenInput.MatchString(strings.TrimSpace(input))
}

var workflowTokenInput = regexp.MustCompile(`(?i)^(|\$\{\{\s*(github\.token|secrets\.github_token)\s*\}\})$`)
