// Package doctor owns `pact-action doctor`: the judgement of whether a
// repository's settings make the pact check the gate it should be (the
// check required from GitHub Actions, stale approvals dismissed, force
// pushes blocked, a workflow running the action with the triggers and
// permissions it needs, every seat mapped to an account that can write,
// provenance enforced, git kept from converting the pact's line endings,
// review requests able to reach every reviewer seat), its text and JSON
// renderings, and the gathering of those facts through a narrow read-only
// GitHub interface. It also says whether the check can ask for the reviews
// the pact waits for.
//
// Judge is pure: Facts in, one Probe per line out, so every decision is
// tested in-process with tables. Gather is the only part that talks to
// GitHub, and it only reads.
package doctor

import (
	"github.com/pact-action/pact-action/config"
)

// unknown says why a fact could not be read, and what would make it
// readable.
type unknown struct {
	// Reason is what GitHub answered, e.g. "403 Resource not accessible by
	// personal access token".
	Reason string
	// Permission is the fine-grained token permission that reads it, e.g.
	// "Administration: read"; empty when it is not a matter of permission.
	Permission string
}

// requiredCheck is a required status check and the app that must post it
// (0: any source).
type requiredCheck struct {
	Context string
	AppID   int64
}

// protection is the classic branch protection of the default branch.
type protection struct {
	RequiredChecks      []requiredCheck
	RequiresReviews     bool
	DismissStaleReviews bool
	AllowForcePushes    bool
}

// rule is a rule of an active ruleset that applies to the default branch.
type rule struct {
	// Type is GitHub's rule type (required_status_checks, pull_request,
	// non_fast_forward, merge_queue, ...).
	Type string
	// Ruleset names the ruleset it comes from, for the fixes.
	Ruleset string
	// RequiredChecks is set for required_status_checks.
	RequiredChecks []requiredCheck
	// DismissStaleReviewsOnPush is set for pull_request.
	DismissStaleReviewsOnPush bool
}

// workflow is a workflow of the repository, read at the default branch.
type workflow struct {
	Path  string
	Name  string
	State string
	// File is the parsed file; nil when ParseError or Unreadable says
	// why.
	File       *workflowFile
	ParseError string
	// Unreadable is set when the file could not be read.
	Unreadable *unknown
}

// account is what GitHub says about a login named in .github/pact.yml.
type account struct {
	Exists bool
	// Permission is the login's permission on the repository: admin,
	// maintain, write, triage, read or none.
	Permission string
	// Unreadable is set when GitHub could not be asked.
	Unreadable *unknown
}

// Facts is everything doctor judges, read from GitHub by Gather (or
// written by hand in tests). A caller hands them from Gather to Judge and
// reads only who they are about (Repository, DefaultBranch); the rest is
// doctor's own.
type Facts struct {
	// Repository is "owner/name"; DefaultBranch its default branch.
	Repository    string
	DefaultBranch string
	// CheckName is the check run's name to find required (default pact).
	CheckName string
	// PactDir is the pact directory read on the default branch.
	PactDir string

	// Protection is nil when the default branch has no classic protection
	// (or it could not be read: ProtectionUnknown).
	Protection        *protection
	ProtectionUnknown *unknown
	// Rules are the effective rules of active rulesets on the default
	// branch; RulesUnknown when they could not be read.
	Rules        []rule
	RulesUnknown *unknown
	// InactiveRulesets names rulesets in evaluate or disabled mode that
	// would require the check if they were active.
	InactiveRulesets []string

	Workflows        []workflow
	WorkflowsUnknown *unknown
	// DefaultTokenPermission is the repository's default GITHUB_TOKEN
	// permission, "read" or "write"; DefaultTokenUnknown when unreadable.
	DefaultTokenPermission string
	DefaultTokenUnknown    *unknown

	// Roster lists the seats of the pact's init event on the default
	// branch; LogProblem says why there is none (no log, no init).
	Roster []string
	// ReviewerSeats lists the seats that review a task of that log, in
	// roster order (none when no task is assigned yet).
	ReviewerSeats []string
	LogProblem    string
	LogUnknown    *unknown

	// GitAttributes is the root .gitattributes on the default branch: nil
	// with GitAttributesMissing when absent, GitAttributesUnknown when it
	// could not be read.
	GitAttributes        []byte
	GitAttributesMissing bool
	GitAttributesUnknown *unknown

	// Config is .github/pact.yml on the default branch: nil with
	// ConfigMissing when absent, or with ConfigError when unusable.
	Config        *config.Config
	ConfigMissing bool
	ConfigError   string
	ConfigUnknown *unknown
	// Accounts maps each login of the seat map, lower-cased, to what
	// GitHub says about it.
	Accounts map[string]account
}
