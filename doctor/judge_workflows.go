package doctor

import (
	"fmt"
	"slices"
	"strings"

	"github.com/pact-action/pact-action/ghevent"
)

// usage is a step that runs this action.
type usage struct {
	wf   *workflow
	job  job
	step step
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
		m, err := ghevent.ModeFor(event)
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
func (u usage) permissions(f Facts) (permissions, string, *unknown) {
	switch {
	case u.job.Permissions.Set:
		return u.job.Permissions, fmt.Sprintf("jobs.%s.permissions", u.job.ID), nil
	case u.wf.File.Permissions.Set:
		return u.wf.File.Permissions, "the workflow's permissions", nil
	case f.DefaultTokenUnknown != nil:
		return permissions{}, "", f.DefaultTokenUnknown
	}
	return defaultTokenPermissions(f.DefaultTokenPermission), fmt.Sprintf("the repository's default token permissions (%s)", defaultTokenWords(f.DefaultTokenPermission)), nil
}

func defaultTokenWords(setting string) string {
	if setting == accessWrite {
		return "read and write"
	}
	return "read repository contents"
}

func usages(f Facts) []usage {
	self := strings.EqualFold(f.Repository, actionRepository)
	var out []usage
	for i := range f.Workflows {
		wf := &f.Workflows[i]
		if wf.File == nil {
			continue
		}
		for _, job := range wf.File.Jobs {
			for _, step := range job.Steps {
				if usesThisAction(step.Uses, self) {
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

// checkPactDir is the pact-dir input of the check step, "" when none.
func checkPactDir(f Facts) string {
	if u, ok := checkStep(f); ok {
		return strings.TrimSpace(u.step.With["pact-dir"])
	}
	return ""
}

// Required trigger types and permissions, as the README's workflows list
// them.
var (
	checkTypes = []string{"opened", "synchronize", "reopened", "edited"}
	checkPerms = []scopeNeed{{"contents", accessRead}, {"checks", accessWrite}, {"pull-requests", accessRead}}
	botPerms   = []scopeNeed{{"contents", accessWrite}, {"pull-requests", accessWrite}, {"checks", accessWrite}}
)

// checkPermsSnippet is the check job's permissions block as the README
// writes it: pull-requests: write lets it request reviews (read is enough
// for the verdict).
const checkPermsSnippet = "contents: read\n  checks: write\n  pull-requests: write"

type scopeNeed struct{ scope, level string }

// CheckWorkflow is the check workflow doctor prints when a repository has
// none; it passes every workflow probe.
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
  check:
    runs-on: ubuntu-latest
    steps:
      - uses: pact-action/pact-action@main
        with:
          mode: check`

func judgeWorkflows(f Facts) []Probe {
	if f.WorkflowsUnknown != nil {
		return []Probe{{ID: "workflow.check", Status: StatusUnknown, Title: "cannot tell which workflows run pact-action",
			Detail: "the workflows cannot be read: " + f.WorkflowsUnknown.Reason, Fix: permissionFix(f.WorkflowsUnknown)}}
	}
	var out []Probe
	u, ok := checkStep(f)
	out = append(out, judgeCheckStep(f, u, ok))
	if ok {
		out = append(out, judgeTypes(f, u), judgeMergeGroup(f, u), judgePermissions(f, u, "workflow.check_permissions", checkPerms, checkPermsSnippet))
	}
	return append(append(out, judgeBot(f)...), judgeJobNames(f))
}

// judgeJobNames: GitHub posts a check run for every job, named after the
// job (its name:, else its id), from the GitHub Actions app like the
// action's own; a job that runs pact-action under the check's name puts a
// second run of that name beside the verdict, which passes when the job
// does. The action makes such a job fail while the verdict is not a pass
// (action/jobreport.go); a name of its own keeps the two apart.
func judgeJobNames(f Facts) Probe {
	c := Probe{ID: "workflow.job_name", Status: StatusPass, Title: "no job that runs pact-action is named like the check"}
	for _, u := range usages(f) {
		name := u.job.Name
		if name == "" {
			name = u.job.ID
		}
		if strings.EqualFold(strings.TrimSpace(name), u.checkName()) {
			c.Status = StatusWarn
			c.Title = fmt.Sprintf("job %s of %s is named like the check, %s", u.job.ID, u.wf.Path, u.checkName())
			c.Detail = "GitHub posts the job's own check run under that name, beside the verdict; pact-action fails such a job while the verdict is not a pass, so a waiting pull request shows a failed job"
			c.Fix = fmt.Sprintf("in %s, rename the job (jobs.%s: as jobs.check:, or give it a name: of its own)", u.wf.Path, u.job.ID)
			return c
		}
	}
	return c
}

func judgeCheckStep(f Facts, u usage, ok bool) Probe {
	c := Probe{ID: "workflow.check"}
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

func nameOr(wf *workflow) string {
	if wf.Name != "" {
		return wf.Name
	}
	return wf.Path
}

func judgeTypes(f Facts, u usage) Probe {
	c := Probe{ID: "workflow.pull_request_types"}
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

func judgeMergeGroup(f Facts, u usage) Probe {
	c := Probe{ID: "workflow.merge_group", Status: StatusPass}
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

func judgePermissions(f Facts, u usage, id string, needs []scopeNeed, snippet string) Probe {
	c := Probe{ID: id}
	perms, from, unknown := u.permissions(f)
	what := "the check job"
	switch id {
	case "workflow.bot_permissions":
		what = "the bot job"
	case "workflow.update_permissions":
		what = "the job that brings pull requests up to date"
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

func judgeBot(f Facts) []Probe {
	var bot *usage
	for _, u := range usages(f) {
		for _, ev := range []string{"pull_request_review", "issue_comment", "pull_request_review_comment"} {
			if _, ok := u.wf.File.On[ev]; ok && u.modeOn(ev) == "bot" && bot == nil {
				bot = &u
			}
		}
	}
	if bot == nil {
		return []Probe{{ID: "workflow.bot", Status: StatusPass, Title: "no bot workflow (optional)",
			Detail: "approvals and /pact commands are not turned into pact events; reviewers record them with pactify"}}
	}
	u := *bot
	c := Probe{ID: "workflow.bot"}
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
	return append([]Probe{c, judgeRejudge(u), judgePermissions(f, u, "workflow.bot_permissions", botPerms, botPermsSnippet)}, judgeUpdater(f, u)...)
}

const botPermsSnippet = "contents: write\n  pull-requests: write\n  checks: write"

// judgeUpdater: the bot brings open pull requests whose pact conflicts
// with the default branch's up to date (docs/bot.md, "Keeping pull
// requests mergeable") only in a workflow that runs the action on a push
// to the default branch, in mode auto or bot (ghevent.UpdatesBranches,
// the run's own test), and only with contents: write, the permission of
// its merge commits (checks: write for the check on them, pull-requests:
// write for its replies). Without the trigger, an update waits for the
// schedule; without the permission, every update is refused.
func judgeUpdater(f Facts, bot usage) []Probe {
	c := Probe{ID: "workflow.update_trigger"}
	var up *usage
	pushed := &ghevent.Event{Ref: "refs/heads/" + f.DefaultBranch}
	for _, u := range usages(f) {
		t, ok := u.wf.File.On["push"]
		if ok && t.RunsFor(f.DefaultBranch) && !t.PathFiltered && ghevent.UpdatesBranches(u.mode(), "push", pushed, f.DefaultBranch) && up == nil {
			up = &u
		}
	}
	if up == nil {
		c.Status, c.Title = StatusWarn, fmt.Sprintf("no workflow runs pact-action on a push to %s, so the bot does not bring pull requests up to date", f.DefaultBranch)
		c.Detail = fmt.Sprintf("after a merge, every pull request whose pact conflicts with %s's (each that writes events does) waits for the bot's schedule or its author to merge %s in; a push trigger with a paths filter, or mode: check, does not count", f.DefaultBranch, f.DefaultBranch)
		c.Fix = fmt.Sprintf("in %s:\non:\n  push:\n    branches: [%s]", bot.wf.Path, f.DefaultBranch)
		return []Probe{c}
	}
	c.Status, c.Title = StatusPass, fmt.Sprintf("%s brings pull requests up to date on a push to %s", up.wf.Path, f.DefaultBranch)
	c.Detail = fmt.Sprintf("job %s, line %d", up.job.ID, up.step.Line)
	return []Probe{c, judgePermissions(f, *up, "workflow.update_permissions", botPerms, botPermsSnippet)}
}

// judgeRejudge: a dismissed review, or an edited or deleted comment, can
// take away what backs an event already in the log; the bot workflow should
// judge the pull request again when they happen, and on a schedule so a
// missed event (or a cancelled run) never leaves a stale verdict.
func judgeRejudge(u usage) Probe {
	c := Probe{ID: "workflow.bot_rejudge"}
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
