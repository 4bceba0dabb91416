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

// Unknown says why a fact could not be read, and what would make it
// readable.
type Unknown struct {
	// Reason is what GitHub answered, e.g. "403 Resource not accessible by
	// personal access token".
	Reason string
	// Permission is the fine-grained token permission that reads it, e.g.
	// "Administration: read"; empty when it is not a matter of permission.
	Permission string
}

// RequiredCheck is a required status check and the app that must post it
// (0: any source).
type RequiredCheck struct {
	Context string
	AppID   int64
}

// Protection is the classic branch protection of the default branch.
type Protection struct {
	RequiredChecks      []RequiredCheck
	RequiresReviews     bool
	DismissStaleReviews bool
	AllowForcePushes    bool
}

// Rule is a rule of an active ruleset that applies to the default branch.
type Rule struct {
	// Type is GitHub's rule type (required_status_checks, pull_request,
	// non_fast_forward, merge_queue, ...).
	Type string
	// Ruleset names the ruleset it comes from, for the fixes.
	Ruleset string
	// RequiredChecks is set for required_status_checks.
	RequiredChecks []RequiredCheck
	// DismissStaleReviewsOnPush is set for pull_request.
	DismissStaleReviewsOnPush bool
}

// Workflow is a workflow of the repository, read at the default branch.
type Workflow struct {
	Path  string
	Name  string
	State string
	// File is the parsed file; nil when ParseError or Unreadable says
	// why.
	File       *WorkflowFile
	ParseError string
	// Unreadable is set when the file could not be read.
	Unreadable *Unknown
}

// Account is what GitHub says about a login named in .github/pact.yml.
type Account struct {
	Exists bool
	// Permission is the login's permission on the repository: admin,
	// maintain, write, triage, read or none.
	Permission string
	// Unreadable is set when GitHub could not be asked.
	Unreadable *Unknown
}

// Facts is everything doctor judges, read from GitHub by Gather (or
// written by hand in tests).
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
	Protection        *Protection
	ProtectionUnknown *Unknown
	// Rules are the effective rules of active rulesets on the default
	// branch; RulesUnknown when they could not be read.
	Rules        []Rule
	RulesUnknown *Unknown
	// InactiveRulesets names rulesets in evaluate or disabled mode that
	// would require the check if they were active.
	InactiveRulesets []string

	Workflows        []Workflow
	WorkflowsUnknown *Unknown
	// DefaultTokenPermission is the repository's default GITHUB_TOKEN
	// permission, "read" or "write"; DefaultTokenUnknown when unreadable.
	DefaultTokenPermission string
	DefaultTokenUnknown    *Unknown

	// Roster lists the seats of the pact's init event on the default
	// branch; LogProblem says why there is none (no log, no init).
	Roster []string
	// ReviewerSeats lists the seats that review a task of that log, in
	// roster order (none when no task is assigned yet).
	ReviewerSeats []string
	LogProblem    string
	LogUnknown    *Unknown

	// GitAttributes is the root .gitattributes on the default branch: nil
	// with GitAttributesMissing when absent, GitAttributesUnknown when it
	// could not be read.
	GitAttributes        []byte
	GitAttributesMissing bool
	GitAttributesUnknown *Unknown

	// Config is .github/pact.yml on the default branch: nil with
	// ConfigMissing when absent, or with ConfigError when unusable.
	Config        *config.Config
	ConfigMissing bool
	ConfigError   string
	ConfigUnknown *Unknown
	// Accounts maps each login of the seat map, lower-cased, to what
	// GitHub says about it.
	Accounts map[string]Account
}
