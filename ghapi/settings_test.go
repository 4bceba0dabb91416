package ghapi_test

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/pact-action/pact-action/ghapi"
	"github.com/pact-action/pact-action/internal/testkit/fakegithub"
)

func TestRepositorySettings(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := fakegithub.New(t)
	seedRepo(t, srv)
	srv.CommitFiles(owner, repo, "main", map[string]string{".github/workflows/pact.yml": "name: pact\non: pull_request\n"}, "alice")
	srv.SetBranchProtection(owner, repo, "main", &fakegithub.BranchProtection{
		RequiredChecks: []fakegithub.RequiredCheck{{Context: "pact", AppID: ghapi.GitHubActionsAppID}, {Context: "ci"}},
		RequireReviews: true, DismissStaleReviews: true, AllowForcePushes: true,
	})
	id := srv.AddRuleset(owner, repo, fakegithub.Ruleset{Name: "protect main", Rules: []fakegithub.Rule{
		fakegithub.RequireChecksRule(fakegithub.RequiredCheck{Context: "pact"}), fakegithub.PullRequestRule(true), fakegithub.MergeQueueRule(),
	}})
	srv.AddRuleset(owner, repo, fakegithub.Ruleset{Name: "trial", Enforcement: "evaluate", Rules: []fakegithub.Rule{fakegithub.BlockForcePushesRule()}})
	srv.SetDefaultWorkflowPermissions(owner, repo, "write")
	srv.SetPermission("octocat", fakegithub.Write)
	c, _ := newClient(t, srv)

	r, err := c.Repository(ctx)
	if err != nil || *r != (ghapi.Repository{FullName: owner + "/" + repo, DefaultBranch: "main"}) {
		t.Errorf("Repository = %+v, %v", r, err)
	}

	p, err := c.BranchProtection(ctx, "main")
	want := &ghapi.BranchProtection{RequiredChecks: []ghapi.RequiredCheck{{Context: "pact", AppID: 15368}, {Context: "ci"}},
		RequiresReviews: true, DismissStaleReviews: true, AllowForcePushes: true}
	if err != nil || !reflect.DeepEqual(p, want) {
		t.Errorf("BranchProtection = %+v, %v; want %+v", p, err, want)
	}
	if _, err := c.BranchProtection(ctx, "topic"); !errors.Is(err, ghapi.ErrNotProtected) || !errors.Is(err, ghapi.ErrNotFound) {
		t.Errorf("unprotected branch: %v, want ErrNotProtected", err)
	}

	rules, err := c.BranchRules(ctx, "main")
	wantRules := []ghapi.BranchRule{
		{Type: "required_status_checks", RulesetID: id, RulesetSource: owner + "/" + repo, RulesetSourceType: "Repository", RequiredChecks: []ghapi.RequiredCheck{{Context: "pact"}}},
		{Type: "pull_request", RulesetID: id, RulesetSource: owner + "/" + repo, RulesetSourceType: "Repository", DismissStaleReviewsOnPush: true},
		{Type: "merge_queue", RulesetID: id, RulesetSource: owner + "/" + repo, RulesetSourceType: "Repository"},
	}
	if err != nil || !reflect.DeepEqual(rules, wantRules) {
		t.Errorf("BranchRules = %+v, %v", rules, err)
	}

	sets, err := c.Rulesets(ctx)
	if err != nil || len(sets) != 2 || sets[0].Name != "protect main" || sets[1].Enforcement != "evaluate" || sets[1].Rules != nil {
		t.Errorf("Rulesets = %+v, %v", sets, err)
	}
	rs, err := c.Ruleset(ctx, id)
	if err != nil || rs.Name != "protect main" || rs.Enforcement != "active" || !reflect.DeepEqual(rs.Rules, wantRules) {
		t.Errorf("Ruleset = %+v, %v", rs, err)
	}
	if _, err := c.Ruleset(ctx, 1); !errors.Is(err, ghapi.ErrNotFound) {
		t.Errorf("missing ruleset: %v", err)
	}

	wfs, err := c.Workflows(ctx)
	if err != nil || len(wfs) != 1 || wfs[0].Path != ".github/workflows/pact.yml" || wfs[0].Name != "pact" || wfs[0].State != "active" {
		t.Errorf("Workflows = %+v, %v", wfs, err)
	}
	if perm, err := c.DefaultWorkflowPermissions(ctx); err != nil || perm != "write" {
		t.Errorf("DefaultWorkflowPermissions = %q, %v", perm, err)
	}
	if u, err := c.User(ctx, "octocat"); err != nil || u.Login != "octocat" || u.Type != "User" {
		t.Errorf("User = %+v, %v", u, err)
	}
	if _, err := c.User(ctx, "nobody-here"); !errors.Is(err, ghapi.ErrNotFound) {
		t.Errorf("unknown user: %v", err)
	}
}

// A fine-grained token without Administration: read cannot see branch
// protection nor the Actions settings; doctor says so instead of guessing.
func TestSettingsWithoutAdministration(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := fakegithub.New(t)
	seedRepo(t, srv)
	srv.SetBranchProtection(owner, repo, "main", &fakegithub.BranchProtection{})
	srv.DenyAdministration("test-token")
	c, _ := newClient(t, srv)
	if _, err := c.BranchProtection(ctx, "main"); !errors.Is(err, ghapi.ErrForbidden) {
		t.Errorf("BranchProtection: %v, want ErrForbidden", err)
	}
	if _, err := c.DefaultWorkflowPermissions(ctx); !errors.Is(err, ghapi.ErrForbidden) {
		t.Errorf("DefaultWorkflowPermissions: %v, want ErrForbidden", err)
	}
}
