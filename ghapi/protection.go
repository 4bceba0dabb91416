package ghapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// The branch protection and rulesets that apply to a branch, which
// `pact-action doctor` reads (as it reads actions.go's workflows and
// users.go's accounts). They are decoded into this file's own types rather
// than go-github's, whose v60 types lack fields GitHub added since
// (ruleset_id on effective rules, the merge_queue rule; user_view_type for
// users.go).

// GitHubActionsAppID is the id of the GitHub Actions app: a required check
// pinned to it can only be satisfied by a check run a workflow posted.
const GitHubActionsAppID = 15368

// RequiredCheck is a required status check and the app that must post it.
type RequiredCheck struct {
	Context string
	// AppID is the GitHub App that must post the check; 0 means any
	// source (GitHub sends null, or -1 for "any source" set explicitly).
	AppID int64
}

// BranchProtection is the classic branch protection of one branch.
type BranchProtection struct {
	RequiredChecks []RequiredCheck
	// StrictChecks: the branch must be up to date before merging.
	StrictChecks bool
	// RequiresReviews: a pull request with reviews is required.
	RequiresReviews     bool
	DismissStaleReviews bool
	AllowForcePushes    bool
	EnforceAdmins       bool
}

// BranchRule is one rule of an active ruleset that applies to a branch.
type BranchRule struct {
	// Type is GitHub's rule type: required_status_checks, pull_request,
	// non_fast_forward, merge_queue, ...
	Type string
	// RulesetID is the ruleset the rule comes from (0 when GitHub did not
	// say); RulesetSource names its repository or organization and
	// RulesetSourceType is "Repository" or "Organization".
	RulesetID         int64
	RulesetSource     string
	RulesetSourceType string
	// RequiredChecks is set for required_status_checks.
	RequiredChecks []RequiredCheck
	// DismissStaleReviewsOnPush is set for pull_request.
	DismissStaleReviewsOnPush bool
}

// Ruleset is a ruleset of the repository (or of its organization).
type Ruleset struct {
	ID   int64
	Name string
	// Target is branch, tag, push or repository.
	Target string
	// Enforcement is active, evaluate or disabled.
	Enforcement string
	SourceType  string
	Source      string
	// Rules is only filled by Ruleset (the list does not carry them).
	Rules []BranchRule
}

// ErrNotProtected is returned by BranchProtection for a branch without
// classic protection. It wraps ErrNotFound.
var ErrNotProtected = fmt.Errorf("branch not protected: %w", ErrNotFound)

// BranchProtection reads the classic protection of branch. A branch
// without protection yields ErrNotProtected; any other 404 (GitHub hides
// protection from accounts without admin rights that way) stays a plain
// ErrNotFound, and a token without the Administration permission gets
// ErrForbidden.
func (c *Client) BranchProtection(ctx context.Context, branch string) (*BranchProtection, error) {
	var body struct {
		RequiredStatusChecks *struct {
			Strict   bool     `json:"strict"`
			Contexts []string `json:"contexts"`
			Checks   []struct {
				Context string `json:"context"`
				AppID   *int64 `json:"app_id"`
			} `json:"checks"`
		} `json:"required_status_checks"`
		RequiredPullRequestReviews *struct {
			DismissStaleReviews bool `json:"dismiss_stale_reviews"`
		} `json:"required_pull_request_reviews"`
		AllowForcePushes *struct {
			Enabled bool `json:"enabled"`
		} `json:"allow_force_pushes"`
		EnforceAdmins *struct {
			Enabled bool `json:"enabled"`
		} `json:"enforce_admins"`
	}
	op := "read branch protection of " + branch
	err := c.getJSON(ctx, op, c.repoPath()+"/branches/"+url.PathEscape(branch)+"/protection", "", &body)
	if err != nil {
		var ae *APIError
		if errors.As(err, &ae) && ae.StatusCode == http.StatusNotFound && strings.Contains(strings.ToLower(ae.Message), "branch not protected") {
			return nil, fmt.Errorf("%s: %w", op, ErrNotProtected)
		}
		return nil, err
	}
	p := &BranchProtection{}
	if rs := body.RequiredStatusChecks; rs != nil {
		p.StrictChecks = rs.Strict
		for _, ch := range rs.Checks {
			p.RequiredChecks = append(p.RequiredChecks, RequiredCheck{Context: ch.Context, AppID: appID(ch.AppID)})
		}
		if len(rs.Checks) == 0 {
			// Old protections list only contexts: any source.
			for _, ctxName := range rs.Contexts {
				p.RequiredChecks = append(p.RequiredChecks, RequiredCheck{Context: ctxName})
			}
		}
	}
	if r := body.RequiredPullRequestReviews; r != nil {
		p.RequiresReviews = true
		p.DismissStaleReviews = r.DismissStaleReviews
	}
	if f := body.AllowForcePushes; f != nil {
		p.AllowForcePushes = f.Enabled
	}
	if e := body.EnforceAdmins; e != nil {
		p.EnforceAdmins = e.Enabled
	}
	return p, nil
}

// appID maps GitHub's app_id / integration_id to RequiredCheck.AppID: null
// and -1 both mean any source.
func appID(id *int64) int64 {
	if id == nil || *id < 0 {
		return 0
	}
	return *id
}

// ruleJSON is a rule as GitHub sends it, in effective rules and rulesets.
type ruleJSON struct {
	Type              string `json:"type"`
	RulesetID         int64  `json:"ruleset_id"`
	RulesetSource     string `json:"ruleset_source"`
	RulesetSourceType string `json:"ruleset_source_type"`
	Parameters        struct {
		RequiredStatusChecks []struct {
			Context       string `json:"context"`
			IntegrationID *int64 `json:"integration_id"`
		} `json:"required_status_checks"`
		DismissStaleReviewsOnPush bool `json:"dismiss_stale_reviews_on_push"`
	} `json:"parameters"`
}

func (r ruleJSON) rule() BranchRule {
	out := BranchRule{Type: r.Type, RulesetID: r.RulesetID, RulesetSource: r.RulesetSource, RulesetSourceType: r.RulesetSourceType,
		DismissStaleReviewsOnPush: r.Parameters.DismissStaleReviewsOnPush}
	for _, ch := range r.Parameters.RequiredStatusChecks {
		out.RequiredChecks = append(out.RequiredChecks, RequiredCheck{Context: ch.Context, AppID: appID(ch.IntegrationID)})
	}
	return out
}

// BranchRules lists the rules of active rulesets (of the repository and
// its organization) that apply to branch. GitHub leaves out rulesets in
// evaluate or disabled mode.
func (c *Client) BranchRules(ctx context.Context, branch string) ([]BranchRule, error) {
	var out []BranchRule
	err := getPagesOf(ctx, c, "read the rules of branch "+branch, c.repoPath()+"/rules/branches/"+escapeSegments(branch), "", func(page *[]ruleJSON) {
		for _, r := range *page {
			out = append(out, r.rule())
		}
	})
	return out, err
}

// rulesetJSON is a ruleset as GitHub sends it.
type rulesetJSON struct {
	ID          int64      `json:"id"`
	Name        string     `json:"name"`
	Target      string     `json:"target"`
	Enforcement string     `json:"enforcement"`
	SourceType  string     `json:"source_type"`
	Source      string     `json:"source"`
	Rules       []ruleJSON `json:"rules"`
}

func (r rulesetJSON) ruleset() Ruleset {
	out := Ruleset{ID: r.ID, Name: r.Name, Target: r.Target, Enforcement: r.Enforcement, SourceType: r.SourceType, Source: r.Source}
	for _, rule := range r.Rules {
		br := rule.rule()
		br.RulesetID, br.RulesetSource, br.RulesetSourceType = r.ID, r.Source, r.SourceType
		out.Rules = append(out.Rules, br)
	}
	return out
}

// Rulesets lists the rulesets that apply to the repository, its
// organization's included, whatever their enforcement. The list carries no
// rules: read one with Ruleset.
func (c *Client) Rulesets(ctx context.Context) ([]Ruleset, error) {
	var out []Ruleset
	err := getPagesOf(ctx, c, "list rulesets", c.repoPath()+"/rulesets", "includes_parents=true", func(page *[]rulesetJSON) {
		for _, r := range *page {
			out = append(out, r.ruleset())
		}
	})
	return out, err
}

// Ruleset reads ruleset id with its rules.
func (c *Client) Ruleset(ctx context.Context, id int64) (*Ruleset, error) {
	var body rulesetJSON
	if err := c.getJSON(ctx, fmt.Sprintf("read ruleset %d", id), c.repoPath()+"/rulesets/"+strconv.FormatInt(id, 10), "includes_parents=true", &body); err != nil {
		return nil, err
	}
	rs := body.ruleset()
	return &rs, nil
}
