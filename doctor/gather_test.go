package doctor

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/pact-action/pact-action/ghapi"
	"github.com/pact-action/pact-action/internal/testkit/e2e"
	"github.com/pact-action/pact-action/internal/testkit/fakegithub"
)

const token = "doctor-token"

func client(t *testing.T, s *fakegithub.Server) *ghapi.Client {
	t.Helper()
	c, err := ghapi.New(context.Background(), ghapi.Options{Token: token, APIURL: s.URL, Owner: "o", Repo: "r",
		HTTPClient: s.Client(), Retry: ghapi.RetryPolicy{MaxAttempts: 1}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// initLine is a pact of three seats: lead, dev and rev.
var initLine = e2e.NewLog().Text()

func TestGather(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := fakegithub.New(t)
	s.CommitFiles("o", "r", "trunk", map[string]string{
		"pact/log.jsonl":               e2e.NewLog().Assign("T1", "F", "feat/f", "dev", "rev").Text(),
		".github/workflows/check.yml":  "on: pull_request\njobs:\n  j:\n    steps:\n      - uses: pact-action/pact-action@v1\n        with: {pact-dir: pact}\n",
		".github/workflows/broken.yml": "on: [\n",
		".github/pact.yml":             "seats:\n  lead: [Alice, \"helper[bot]\"]\n  dev: [ghost]\n",
		".gitattributes":               "pact/** text eol=lf\n",
	}, "alice")
	s.SetPermission("alice", fakegithub.Write)
	s.AddUser("helper[bot]")
	s.AddRuleset("o", "r", fakegithub.Ruleset{Name: "trial", Enforcement: "evaluate", Rules: []fakegithub.Rule{
		fakegithub.RequireChecksRule(fakegithub.RequiredCheck{Context: "pact"}),
	}})
	id := s.AddRuleset("o", "r", fakegithub.Ruleset{Name: "guard", Rules: []fakegithub.Rule{fakegithub.BlockForcePushesRule()}})
	s.SetDefaultWorkflowPermissions("o", "r", "write")

	f, err := Gather(ctx, client(t, s), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if f.Repository != "o/r" || f.DefaultBranch != "trunk" || f.CheckName != "pact" || f.Protection != nil || f.ProtectionUnknown != nil {
		t.Errorf("repository facts: %+v", f)
	}
	if want := []rule{{Type: "non_fast_forward", Ruleset: "guard"}}; !reflect.DeepEqual(f.Rules, want) {
		t.Errorf("rules = %+v (ruleset %d), want %+v", f.Rules, id, want)
	}
	if !reflect.DeepEqual(f.InactiveRulesets, []string{"trial"}) {
		t.Errorf("inactive rulesets = %q", f.InactiveRulesets)
	}
	if len(f.Workflows) != 2 || f.Workflows[0].ParseError == "" || f.Workflows[1].File == nil {
		t.Errorf("workflows = %+v", f.Workflows)
	}
	// The check job sets no permissions: the repository default matters.
	if f.DefaultTokenPermission != "write" {
		t.Errorf("default token permission = %q", f.DefaultTokenPermission)
	}
	// The log is read where the check step's pact-dir says.
	if f.PactDir != "pact" || !reflect.DeepEqual(f.Roster, []string{"lead", "dev", "rev"}) || f.LogProblem != "" {
		t.Errorf("pact dir %q roster %q problem %q", f.PactDir, f.Roster, f.LogProblem)
	}
	if !reflect.DeepEqual(f.ReviewerSeats, []string{"rev"}) {
		t.Errorf("reviewer seats %q, want the seat T1 names", f.ReviewerSeats)
	}
	// .gitattributes is read at the root, at the default branch.
	if string(f.GitAttributes) != "pact/** text eol=lf\n" || f.GitAttributesMissing || f.GitAttributesUnknown != nil {
		t.Errorf(".gitattributes = %q, missing %v, unknown %+v", f.GitAttributes, f.GitAttributesMissing, f.GitAttributesUnknown)
	}
	wantAccounts := map[string]account{
		"alice":       {Exists: true, Permission: "write"},
		"helper[bot]": {Exists: true},
		"ghost":       {},
	}
	if !reflect.DeepEqual(f.Accounts, wantAccounts) {
		t.Errorf("accounts = %+v", f.Accounts)
	}
	if n := s.CountRequests("GET", "/repos/o/r/collaborators/helper*"); n != 0 {
		t.Errorf("asked an app's collaborator permission %d times", n)
	}
	if v := s.Violations(); len(v) > 0 {
		t.Errorf("violations: %v", v)
	}
}

func TestGatherUnreadable(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tests := []struct {
		name  string
		setup func(s *fakegithub.Server)
		check func(t *testing.T, f Facts, err error)
	}{
		{"no Administration permission", func(s *fakegithub.Server) { s.DenyAdministration(token) }, func(t *testing.T, f Facts, err error) {
			if err != nil || f.ProtectionUnknown == nil || f.ProtectionUnknown.Permission != "Administration: read" ||
				!strings.Contains(f.ProtectionUnknown.Reason, "403 Resource not accessible by personal access token") {
				t.Errorf("protection unknown = %+v, %v", f.ProtectionUnknown, err)
			}
			if f.DefaultTokenUnknown == nil {
				t.Errorf("the default token permission was read without Administration")
			}
		}},
		{"a 404 that hides protection", func(s *fakegithub.Server) {
			s.Inject(fakegithub.Fault{Path: "/repos/o/r/branches/main/protection", Status: 404, Body: []byte(`{"message":"Not Found","documentation_url":"https://docs.github.com/rest"}`)})
		}, func(t *testing.T, f Facts, err error) {
			if err != nil || f.ProtectionUnknown == nil || !strings.Contains(f.ProtectionUnknown.Reason, "without admin rights") {
				t.Errorf("protection unknown = %+v, %v", f.ProtectionUnknown, err)
			}
		}},
		{"no Actions permission", func(s *fakegithub.Server) {
			s.Inject(fakegithub.Fault{Path: "/repos/o/r/actions/workflows", Status: 403, Body: []byte(`{"message":"Resource not accessible by personal access token"}`)})
		}, func(t *testing.T, f Facts, err error) {
			if err != nil || f.WorkflowsUnknown == nil || f.WorkflowsUnknown.Permission != "Actions: read" {
				t.Errorf("workflows unknown = %+v, %v", f.WorkflowsUnknown, err)
			}
		}},
		{"no .gitattributes", func(*fakegithub.Server) {}, func(t *testing.T, f Facts, err error) {
			if err != nil || !f.GitAttributesMissing || f.GitAttributes != nil {
				t.Errorf(".gitattributes = %q, missing %v, %v", f.GitAttributes, f.GitAttributesMissing, err)
			}
		}},
		{"a server error is an error", func(s *fakegithub.Server) { s.FailNext("GET", "/repos/o/r/rules/branches/main", 500, nil, 1) }, func(t *testing.T, _ Facts, err error) {
			var re *ghapi.RetryError
			if !errors.As(err, &re) || re.LastStatus != http.StatusInternalServerError {
				t.Errorf("err = %v, want the 500", err)
			}
		}},
		{"an unknown repository", func(s *fakegithub.Server) { s.Inject(fakegithub.Fault{Path: "/repos/o/r", Status: 404}) }, func(t *testing.T, _ Facts, err error) {
			if !errors.Is(err, ghapi.ErrNotFound) || !strings.Contains(err.Error(), "check --repo") {
				t.Errorf("err = %v", err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := fakegithub.New(t)
			s.CommitFiles("o", "r", "main", map[string]string{".pact/log.jsonl": initLine,
				".github/workflows/pact.yml": "on: pull_request\njobs:\n  j:\n    steps:\n      - uses: pact-action/pact-action@v1\n"}, "alice")
			s.SetBranchProtection("o", "r", "main", &fakegithub.BranchProtection{})
			tt.setup(s)
			f, err := Gather(ctx, client(t, s), Options{})
			tt.check(t, f, err)
		})
	}
}
