package doctor

import (
	"fmt"
	"strings"

	"github.com/pact-action/pact-action/ghapi"
)

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
func settingsUnknown(f Facts) *unknown {
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

func judgeBranch(f Facts) []Probe {
	name, branch := f.CheckName, f.DefaultBranch
	reqs := requirements(f)
	unknown := settingsUnknown(f)
	var out []Probe

	required := Probe{ID: "branch.required_check"}
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

	stale := Probe{ID: "branch.dismiss_stale_reviews"}
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

	force := Probe{ID: "branch.force_push_blocked"}
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

	queue := Probe{ID: "branch.merge_queue", Status: StatusPass}
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

func judgeSource(f Facts, reqs []requirement, unknown *unknown) Probe {
	c := Probe{ID: "branch.check_source"}
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
