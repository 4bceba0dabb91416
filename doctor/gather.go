package doctor

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/config"
	"github.com/pact-action/pact-action/ghapi"
	"github.com/pact-action/pact-action/pactfile"
	"github.com/pact-action/pact-action/projection"
)

// GitHub is the read-only part of ghapi.Client that doctor asks.
type GitHub interface {
	Repository(ctx context.Context) (*ghapi.Repository, error)
	BranchProtection(ctx context.Context, branch string) (*ghapi.BranchProtection, error)
	BranchRules(ctx context.Context, branch string) ([]ghapi.BranchRule, error)
	Rulesets(ctx context.Context) ([]ghapi.Ruleset, error)
	Ruleset(ctx context.Context, id int64) (*ghapi.Ruleset, error)
	Workflows(ctx context.Context) ([]ghapi.Workflow, error)
	DefaultWorkflowPermissions(ctx context.Context) (string, error)
	ReadFile(ctx context.Context, path, ref string) ([]byte, error)
	User(ctx context.Context, login string) (*ghapi.User, error)
	Permission(ctx context.Context, login string) (string, error)
}

// Options are doctor's flags.
type Options struct {
	// CheckName is the check run's name to find required; empty means pact.
	CheckName string
	// PactDir overrides the pact directory; empty means the check step's
	// pact-dir input, else .pact.
	PactDir string
}

// The fine-grained token permission each question needs.
const (
	permAdministration = "Administration: read"
	permMetadata       = "Metadata: read"
	permActions        = "Actions: read"
	permContents       = "Contents: read"
)

// Gather reads the facts Judge needs. Answers a read-only token may not
// get (403) become Unknown facts naming the permission to add; any other
// failure to reach GitHub is returned.
func Gather(ctx context.Context, gh GitHub, o Options) (Facts, error) {
	f := Facts{CheckName: o.CheckName}
	if f.CheckName == "" {
		f.CheckName = "pact"
	}
	repo, err := gh.Repository(ctx)
	if err != nil {
		if errors.Is(err, ghapi.ErrNotFound) {
			return f, fmt.Errorf("%w; check --repo and that the token can read the repository", err)
		}
		return f, err
	}
	f.Repository, f.DefaultBranch = repo.FullName, repo.DefaultBranch
	branch := f.DefaultBranch

	switch p, err := gh.BranchProtection(ctx, branch); {
	case errors.Is(err, ghapi.ErrNotProtected):
	case errors.Is(err, ghapi.ErrNotFound):
		// GitHub answers a plain 404 to accounts without admin rights.
		f.ProtectionUnknown = &unknown{Reason: answer(err) + " (GitHub hides branch protection from accounts without admin rights)", Permission: permAdministration}
	case err != nil:
		if f.ProtectionUnknown, err = forbidden(err, permAdministration); err != nil {
			return f, err
		}
	default:
		f.Protection = &protection{RequiresReviews: p.RequiresReviews, DismissStaleReviews: p.DismissStaleReviews, AllowForcePushes: p.AllowForcePushes}
		for _, rc := range p.RequiredChecks {
			f.Protection.RequiredChecks = append(f.Protection.RequiredChecks, requiredCheck(rc))
		}
	}

	if err := gatherRules(ctx, gh, &f); err != nil {
		return f, err
	}
	if err := gatherWorkflows(ctx, gh, &f); err != nil {
		return f, err
	}

	f.PactDir = o.PactDir
	if f.PactDir == "" {
		f.PactDir = checkPactDir(f)
	}
	if f.PactDir == "" {
		f.PactDir = pactfile.DefaultDir
	}
	if err := gatherRoster(ctx, gh, &f); err != nil {
		return f, err
	}
	if err := gatherGitAttributes(ctx, gh, &f); err != nil {
		return f, err
	}
	return f, gatherConfig(ctx, gh, &f)
}

func gatherGitAttributes(ctx context.Context, gh GitHub, f *Facts) error {
	b, err := gh.ReadFile(ctx, pactfile.GitAttributesFile, f.DefaultBranch)
	switch {
	case errors.Is(err, ghapi.ErrNotFound):
		f.GitAttributesMissing = true
		return nil
	case err != nil:
		f.GitAttributesUnknown, err = forbidden(err, permContents)
		return err
	}
	if b == nil {
		b = []byte{}
	}
	f.GitAttributes = b
	return nil
}

func gatherRules(ctx context.Context, gh GitHub, f *Facts) error {
	rules, err := gh.BranchRules(ctx, f.DefaultBranch)
	if err != nil {
		f.RulesUnknown, err = forbidden(err, permMetadata)
		return err
	}
	names := map[int64]string{}
	for _, r := range rules {
		name, ok := names[r.RulesetID]
		if !ok {
			if name, err = rulesetName(ctx, gh, r.RulesetID); err != nil {
				return err
			}
			names[r.RulesetID] = name
		}
		rule := rule{Type: r.Type, Ruleset: name, DismissStaleReviewsOnPush: r.DismissStaleReviewsOnPush}
		for _, rc := range r.RequiredChecks {
			rule.RequiredChecks = append(rule.RequiredChecks, requiredCheck(rc))
		}
		f.Rules = append(f.Rules, rule)
	}
	if len(requirements(*f)) > 0 {
		return nil
	}
	// Not required: say so more usefully when a ruleset that is not
	// active would require it.
	sets, err := gh.Rulesets(ctx)
	if err != nil {
		_, err = forbidden(err, permMetadata)
		return err
	}
	for _, s := range sets {
		if s.Enforcement == "active" || (s.Target != "" && s.Target != "branch") {
			continue
		}
		full, err := gh.Ruleset(ctx, s.ID)
		if err != nil {
			if _, err = forbidden(err, permMetadata); err != nil && !errors.Is(err, ghapi.ErrNotFound) {
				return err
			}
			continue
		}
		for _, r := range full.Rules {
			for _, rc := range r.RequiredChecks {
				if r.Type == "required_status_checks" && rc.Context == f.CheckName {
					f.InactiveRulesets = appendUnique(f.InactiveRulesets, s.Name)
				}
			}
		}
	}
	return nil
}

// rulesetName names a ruleset for the fixes; a ruleset the token cannot
// read (an organization's) is named by its id.
func rulesetName(ctx context.Context, gh GitHub, id int64) (string, error) {
	fallback := fmt.Sprintf("#%d", id)
	if id == 0 {
		return "(unnamed)", nil
	}
	rs, err := gh.Ruleset(ctx, id)
	switch {
	case err == nil && rs.Name != "":
		return rs.Name, nil
	case err == nil || errors.Is(err, ghapi.ErrNotFound) || errors.Is(err, ghapi.ErrForbidden):
		return fallback, nil
	}
	return "", err
}

func gatherWorkflows(ctx context.Context, gh GitHub, f *Facts) error {
	wfs, err := gh.Workflows(ctx)
	if err != nil {
		f.WorkflowsUnknown, err = forbidden(err, permActions)
		return err
	}
	for _, w := range wfs {
		if !strings.HasPrefix(w.Path, ".github/workflows/") {
			continue // dynamic workflows (code scanning, Pages, ...) have no file
		}
		wf := workflow{Path: w.Path, Name: w.Name, State: w.State}
		b, err := gh.ReadFile(ctx, w.Path, f.DefaultBranch)
		switch {
		case errors.Is(err, ghapi.ErrNotFound):
			continue // a workflow of another branch
		case err != nil:
			if wf.Unreadable, err = forbidden(err, permContents); err != nil {
				return err
			}
		default:
			if wf.File, err = parseWorkflow(b); err != nil {
				wf.ParseError = err.Error()
			}
		}
		f.Workflows = append(f.Workflows, wf)
	}
	needDefault := false
	for _, u := range usages(*f) {
		if !u.job.Permissions.Set && !u.wf.File.Permissions.Set {
			needDefault = true
		}
	}
	if !needDefault {
		return nil
	}
	if f.DefaultTokenPermission, err = gh.DefaultWorkflowPermissions(ctx); err != nil {
		f.DefaultTokenUnknown, err = forbidden(err, permAdministration)
		return err
	}
	return nil
}

func gatherRoster(ctx context.Context, gh GitHub, f *Facts) error {
	logPath := checks.Input{Dir: f.PactDir}.LogPath()
	b, err := gh.ReadFile(ctx, logPath, f.DefaultBranch)
	switch {
	case errors.Is(err, ghapi.ErrNotFound):
		f.LogProblem = fmt.Sprintf("%s does not exist on %s", logPath, f.DefaultBranch)
		return nil
	case err != nil:
		f.LogUnknown, err = forbidden(err, permContents)
		return err
	}
	_, res := projection.ReadBytes(b, projection.ReadOptions{})
	switch {
	case res.Unsupported != nil:
		f.LogProblem = fmt.Sprintf("%s needs a newer pact-action: %s", logPath, res.Unsupported.Message)
	case !res.State.Initialized:
		f.LogProblem = fmt.Sprintf("%s on %s holds no valid init event", logPath, f.DefaultBranch)
	}
	reviews := map[string]bool{}
	for _, id := range res.State.TaskOrder {
		reviews[res.State.Tasks[id].Reviewer] = true
	}
	for _, s := range res.State.Seats {
		f.Roster = append(f.Roster, s.ID)
		if reviews[s.ID] {
			f.ReviewerSeats = append(f.ReviewerSeats, s.ID)
		}
	}
	return nil
}

func gatherConfig(ctx context.Context, gh GitHub, f *Facts) error {
	b, err := gh.ReadFile(ctx, pactfile.ConfigPath, f.DefaultBranch)
	switch {
	case errors.Is(err, ghapi.ErrNotFound):
		f.ConfigMissing = true
		return nil
	case err != nil:
		f.ConfigUnknown, err = forbidden(err, permContents)
		return err
	}
	cfg, err := config.Parse(b)
	if err != nil {
		f.ConfigError = err.Error()
		return nil //nolint:nilerr // a broken config is a fact doctor judges, not a failure to gather
	}
	f.Config = cfg
	f.Accounts = map[string]account{}
	for _, seat := range sortedSeats(cfg) {
		for _, login := range cfg.LoginsOf(seat) {
			key := strings.ToLower(login)
			if _, done := f.Accounts[key]; done {
				continue
			}
			a, err := readAccount(ctx, gh, login)
			if err != nil {
				return err
			}
			f.Accounts[key] = a
		}
	}
	return nil
}

func readAccount(ctx context.Context, gh GitHub, login string) (account, error) {
	var a account
	_, err := gh.User(ctx, login)
	switch {
	case errors.Is(err, ghapi.ErrNotFound):
		return a, nil
	case err != nil:
		a.Unreadable, err = forbidden(err, "")
		return a, err
	}
	a.Exists = true
	if strings.HasSuffix(login, "[bot]") {
		return a, nil // apps are no collaborators: GitHub cannot say
	}
	if a.Permission, err = gh.Permission(ctx, login); err != nil {
		a.Unreadable, err = forbidden(err, permMetadata)
	}
	return a, err
}

// forbidden turns a 403 into an Unknown fact that names the permission to
// add; any other error is returned as it is.
func forbidden(err error, permission string) (*unknown, error) {
	if !errors.Is(err, ghapi.ErrForbidden) {
		return nil, err
	}
	return &unknown{Reason: answer(err), Permission: permission}, nil
}

// answer is what GitHub said, for a reader: "GitHub answered 403 Resource
// not accessible by personal access token".
func answer(err error) string {
	var ae *ghapi.APIError
	if errors.As(err, &ae) {
		msg := ae.Message
		if msg == "" {
			msg = http.StatusText(ae.StatusCode)
		}
		return fmt.Sprintf("GitHub answered %d %s", ae.StatusCode, msg)
	}
	return err.Error()
}
