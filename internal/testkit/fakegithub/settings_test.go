package fakegithub

import (
	"encoding/json"
	"reflect"
	"testing"
)

// seedSettings makes o/settings with every kind of setting the settings
// operations serve, for TestEveryOperationAnswersValidly, and returns the
// id of a ruleset.
func seedSettings(s *Server) int64 {
	s.CommitFiles("o", "settings", "main", map[string]string{".github/workflows/pact.yml": "name: pact\non: pull_request\n", "a": "1"}, "alice")
	s.CommitFiles("o", "settings", "topic", map[string]string{"b": "2"}, "alice")
	s.SetBranchProtection("o", "settings", "main", &BranchProtection{
		RequiredChecks: []RequiredCheck{{Context: "pact", AppID: GitHubActionsAppID}, {Context: "ci"}},
		RequireReviews: true, DismissStaleReviews: true,
	})
	id := s.AddRuleset("o", "settings", Ruleset{Name: "protect main", Rules: []Rule{
		RequireChecksRule(RequiredCheck{Context: "pact", AppID: GitHubActionsAppID}, RequiredCheck{Context: "ci"}),
		PullRequestRule(true), BlockForcePushesRule(), MergeQueueRule(),
	}})
	s.AddRuleset("o", "settings", Ruleset{Name: "trial", Enforcement: "evaluate", Include: []string{"~ALL"}, Exclude: []string{"refs/heads/topic"}})
	s.SetDefaultWorkflowPermissions("o", "settings", "write")
	s.DenyAdministration("no-admin")
	return id
}

// The effective rules of a branch come from active rulesets whose ref
// conditions match it, each labelled with its ruleset.
func TestBranchRulesFollowConditionsAndEnforcement(t *testing.T) {
	t.Parallel()
	s := New(t)
	s.CommitFiles("o", "r", "main", map[string]string{"a": "1"}, "alice")
	active := s.AddRuleset("o", "r", Ruleset{Name: "default branch", Rules: []Rule{BlockForcePushesRule()}})
	s.AddRuleset("o", "r", Ruleset{Name: "evaluating", Enforcement: "evaluate", Rules: []Rule{MergeQueueRule()}})
	releases := s.AddRuleset("o", "r", Ruleset{Name: "releases", Include: []string{"refs/heads/release/*"}, Rules: []Rule{PullRequestRule(false)}})
	s.AddRuleset("o", "r", Ruleset{Name: "all but main", Include: []string{"~ALL"}, Exclude: []string{"refs/heads/main"}, Rules: []Rule{BlockForcePushesRule()}})
	type rule struct {
		Type      string `json:"type"`
		RulesetID int64  `json:"ruleset_id"`
	}
	tests := []struct {
		branch string
		want   []rule
	}{
		{"main", []rule{{"non_fast_forward", active}}},
		{"release/1", []rule{{"pull_request", releases}, {"non_fast_forward", releases + 1}}},
	}
	for _, tt := range tests {
		status, body, _ := do(t, s, "GET", "/repos/o/r/rules/branches/"+tt.branch, nil)
		var got []rule
		if err := json.Unmarshal(body, &got); status != 200 || err != nil {
			t.Fatalf("%s: status %d, %v: %s", tt.branch, status, err, body)
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("rules of %s = %+v, want %+v", tt.branch, got, tt.want)
		}
	}
}
