package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/sethvargo/go-githubactions"

	"github.com/pact-action/pact-action/action"
	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/ghapi"
	"github.com/pact-action/pact-action/ghevent"
	"github.com/pact-action/pact-action/pactfile"
	"github.com/pact-action/pact-action/report"
)

// inputs are the action's inputs (action.yml), hyphen-case as GitHub passes
// them: INPUT_CHECK-NAME and so on.
type inputs struct {
	mode, token, checkName, pactDir, reportPath, botLogin string
	failOn                                                failOn
	// maxPactBytes is max-pact-bytes (0: the default).
	maxPactBytes int64
}

func readInputs(gha *githubactions.Action, getenv func(string) string) (inputs, error) {
	in := inputs{
		token:     gha.GetInput("token"),
		checkName: gha.GetInput("check-name"), pactDir: gha.GetInput("pact-dir"), reportPath: gha.GetInput("report-path"),
		botLogin: strings.TrimSpace(gha.GetInput("bot-login")),
	}
	var err error
	if in.failOn, err = parseFailOn(gha.GetInput("fail-on")); err != nil {
		return in, err
	}
	if in.maxPactBytes, err = parseByteSize(gha.GetInput("max-pact-bytes")); err != nil {
		return in, usagef("the max-pact-bytes input %s", err)
	}
	if in.mode, err = ghevent.ParseMode(gha.GetInput("mode")); err != nil {
		return in, usagef("%s", err)
	}
	if in.token == "" {
		in.token = getenv("GITHUB_TOKEN")
	}
	if in.checkName == "" {
		in.checkName = "pact"
	}
	if in.pactDir == "" {
		in.pactDir = pactfile.DefaultDir
	}
	if in.reportPath == "" {
		in.reportPath = "pact-report.json"
	}
	return in, nil
}

// runAction is the workflow entry point: runner environment in, check run
// or bot commit out. It reads the inputs and the runner's environment,
// hands the event to action.Run (the one dispatch, action/run.go), and
// reports what it did.
func runAction(ctx context.Context, stdout io.Writer, getenv func(string) string, logger *slog.Logger) error {
	gha := githubactions.New(githubactions.WithWriter(stdout), githubactions.WithGetenv(getenv))
	in, err := readInputs(gha, getenv)
	if err != nil {
		return err
	}
	eventName := getenv("GITHUB_EVENT_NAME")
	if eventName == "" {
		return usagef("GITHUB_EVENT_NAME is not set: run pact-action inside a GitHub workflow, or use `pact-action check --local DIR` to preview")
	}
	payload, err := os.ReadFile(getenv("GITHUB_EVENT_PATH"))
	if err != nil {
		return usagef("cannot read the event payload at GITHUB_EVENT_PATH (%v); run pact-action inside a GitHub workflow", err)
	}
	owner, repo, ok := strings.Cut(getenv("GITHUB_REPOSITORY"), "/")
	if !ok {
		return usagef("GITHUB_REPOSITORY %q is not owner/name", getenv("GITHUB_REPOSITORY"))
	}
	d, err := readDeadlines(getenv)
	if err != nil {
		return err
	}
	gh, err := ghapi.New(ctx, ghapi.Options{Token: in.token, APIURL: getenv("GITHUB_API_URL"), GraphQLURL: getenv("GITHUB_GRAPHQL_URL"),
		Owner: owner, Repo: repo, Logger: logger, Retry: ghapi.RetryPolicy{AttemptTimeout: d.request}})
	if err != nil {
		return err
	}
	timeout := d.judgement
	// Past the budget every request stops; the check run being judged is
	// then completed as failed in a context of its own (action.Check).
	ctx, cancel := context.WithTimeoutCause(ctx, d.run, &action.RunBudgetError{Budget: d.run})
	defer cancel()
	settings := action.Settings{CheckName: in.checkName, PactDir: in.pactDir, DetailsURL: runURL(getenv), BotLogin: in.botLogin, Timeout: timeout,
		MaxPactBytes: in.maxPactBytes}
	res, err := action.Run(ctx, action.Env{EventName: eventName, Payload: payload, Mode: in.mode,
		SHA: getenv("GITHUB_SHA"), Workspace: getenv("GITHUB_WORKSPACE"), Settings: settings}, gh)
	e := &runEnv{gha: gha, in: in, getenv: getenv, stdout: stdout}
	if res.Bot != nil {
		return e.bot(res.Bot, err)
	}
	return e.check(res, err)
}

// byteUnits are the suffixes max-pact-bytes takes (binary multiples).
var byteUnits = []struct {
	suffix string
	shift  uint
}{{"GiB", 30}, {"MiB", 20}, {"KiB", 10}, {"B", 0}}

// parseByteSize reads a size in bytes: a positive whole number, optionally
// followed by B, KiB, MiB or GiB ("512MiB", "1 GiB", "1048576"). "" is 0,
// the default.
func parseByteSize(v string) (int64, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, nil
	}
	num, shift := v, uint(0)
	for _, u := range byteUnits {
		if rest, ok := strings.CutSuffix(v, u.suffix); ok {
			num, shift = strings.TrimSpace(rest), u.shift
			break
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n <= 0 || n > math.MaxInt64>>shift {
		return 0, fmt.Errorf("%q is not a size such as 268435456, 512MiB or 1GiB", v)
	}
	return n << shift, nil
}

// defaultRunBudget bounds a whole run (PACT_RUN_TIMEOUT unset): far above
// a judgement's own bound, far below the job's (six hours by default).
const defaultRunBudget = 30 * time.Minute

// deadlines are the run's time bounds, each from its environment
// variable (docs/check.md, "Where it runs"); zero means the default.
type deadlines struct {
	// judgement is PACT_TIMEOUT: one judgement (action.Settings.Timeout).
	judgement time.Duration
	// request is PACT_REQUEST_TIMEOUT: one attempt of one GitHub request
	// (ghapi.RetryPolicy.AttemptTimeout).
	request time.Duration
	// run is PACT_RUN_TIMEOUT: the whole run (never zero).
	run time.Duration
}

func readDeadlines(getenv func(string) string) (deadlines, error) {
	var d deadlines
	for _, v := range []struct {
		name string
		to   *time.Duration
	}{{"PACT_TIMEOUT", &d.judgement}, {"PACT_REQUEST_TIMEOUT", &d.request}, {"PACT_RUN_TIMEOUT", &d.run}} {
		s := strings.TrimSpace(getenv(v.name))
		if s == "" {
			continue
		}
		dur, err := time.ParseDuration(s)
		if err != nil || dur <= 0 {
			return d, usagef("%s %q is not a positive duration such as 90s or 5m", v.name, s)
		}
		*v.to = dur
	}
	if d.run == 0 {
		d.run = defaultRunBudget
	}
	return d, nil
}

// runEnv is how one workflow run reports, in either mode.
type runEnv struct {
	gha    *githubactions.Action
	in     inputs
	getenv func(string) string
	stdout io.Writer
}

func runURL(getenv func(string) string) string {
	server, repo, id := getenv("GITHUB_SERVER_URL"), getenv("GITHUB_REPOSITORY"), getenv("GITHUB_RUN_ID")
	if server == "" || repo == "" || id == "" {
		return ""
	}
	return fmt.Sprintf("%s/%s/actions/runs/%s", strings.TrimRight(server, "/"), repo, id)
}

// check reports check mode's run (action.Run): a head it could not judge
// as an error annotation and a section of the job summary, the verdicts of
// the others through finish; err is Run's.
func (e *runEnv) check(res *action.RunResult, err error) error {
	if err != nil && len(res.Failed) == 0 {
		// Run stopped before it judged any head; an event the action
		// cannot act on is the workflow's mistake, a usage error.
		var unknown *ghevent.UnknownEventError
		var noTarget *action.NoTargetError
		if errors.As(err, &unknown) || errors.As(err, &noTarget) {
			return usagef("%s", err)
		}
		return err
	}
	if len(res.Targets) == 0 {
		fmt.Fprintln(e.stdout, "pact: no open pull request to check")
		e.setOutputs(report.ConclusionSuccess, checks.Counts{})
		return nil
	}
	for _, f := range res.Failed {
		e.gha.Errorf("pact-action could not judge %s: %v", f.HeadSHA, f.Err)
		e.gha.AddStepSummary(report.NotJudged(e.in.checkName, f.HeadSHA, action.StoppedSummary(f.Err)))
	}
	var verdict error
	if len(res.Outcomes) > 0 {
		verdict = e.finish(res.Outcomes, len(res.Failed) > 0)
	}
	if len(res.Failed) == 0 {
		return verdict
	}
	return err
}

// finish writes the job summary, outputs and report, falls back to workflow
// annotations where no check run was possible, and decides the exit code;
// unjudged says some head could not be judged, which makes the conclusion
// a failure.
func (e *runEnv) finish(outcomes []*action.Outcome, unjudged bool) error {
	var all, unposted []checks.Finding
	conclusion, posted := report.ConclusionSuccess, true
	if unjudged {
		conclusion = report.ConclusionFailure
	}
	for _, out := range outcomes {
		all = append(all, out.Findings...)
		e.gha.AddStepSummary(out.Summary)
		if out.Fallback {
			if posted {
				fmt.Fprintf(e.stdout, "pact: %s.\n", out.FallbackReason)
			}
			posted = false
			unposted = append(unposted, out.Findings...)
		}
		conclusion = worse(conclusion, out.Conclusion)
		if out.NoPullRequest {
			fmt.Fprintf(e.stdout, "pact: no check run on %s: it heads no open pull request (%s)\n", out.Target.HeadSHA, report.Title(out.Findings))
			continue
		}
		fmt.Fprintf(e.stdout, "pact: %s on %s: %s\n", out.Conclusion, out.Target.HeadSHA, report.Title(out.Findings))
	}
	// Once for the whole step: GitHub shows 10 annotations per step, not
	// per judged head (a manual run judges every open PR).
	if !posted {
		e.annotate(unposted)
	}
	counts := checks.Count(all)
	e.setOutputs(conclusion, counts)
	if err := e.writeReport(conclusion, outcomes); err != nil {
		return err
	}
	return verdictExit(counts, e.in.failOn, posted)
}

func worse(a, b string) string {
	rank := map[string]int{report.ConclusionSuccess: 0, report.ConclusionWaiting: 1, report.ConclusionFailure: 2}
	if rank[b] > rank[a] {
		return b
	}
	return a
}

// annotate is the fallback for a token that cannot create check runs: the
// most important findings as workflow annotations, the rest summarised.
func (e *runEnv) annotate(findings []checks.Finding) {
	anns, more := report.WorkflowAnnotations(findings)
	for _, a := range anns {
		w := e.gha.WithFieldsMap(map[string]string{"file": a.Path, "line": fmt.Sprint(a.Line), "title": a.Title})
		switch a.Level {
		case report.LevelFailure:
			w.Errorf("%s", a.Message)
		case report.LevelNotice:
			w.Noticef("%s", a.Message)
		default:
			w.Warningf("%s", a.Message)
		}
	}
	if more != "" {
		e.gha.Errorf("%s", more)
	}
}

func (e *runEnv) setOutputs(conclusion string, c checks.Counts) {
	e.gha.SetOutput("conclusion", conclusion)
	e.gha.SetOutput("errors", fmt.Sprint(c.Errors))
	e.gha.SetOutput("warnings", fmt.Sprint(c.Warnings))
	e.gha.SetOutput("pending", fmt.Sprint(c.Pending))
	e.gha.SetOutput("report", e.in.reportPath)
}

// writeReport writes the JSON report, relative to the workspace so later
// steps find it at the path the report output names.
func (e *runEnv) writeReport(conclusion string, outcomes []*action.Outcome) error {
	doc := report.NewActionJSON(conclusion)
	for _, o := range outcomes {
		doc.Runs = append(doc.Runs, report.RunJSON{PullRequest: firstPR(o.PRs), CheckJSON: report.NewCheckJSON(o.Conclusion, o.Target.HeadSHA, o.CheckRunID, o.Findings)})
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return fmt.Errorf("encode the report: %w", err)
	}
	p := e.in.reportPath
	if !filepath.IsAbs(p) {
		p = filepath.Join(e.getenv("GITHUB_WORKSPACE"), p)
	}
	// report-path may name a directory the checkout does not have.
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("write the JSON report to %s: %w", p, err)
	}
	if err := os.WriteFile(p, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("write the JSON report to %s: %w", p, err)
	}
	return nil
}

func firstPR(prs []int) int {
	if len(prs) > 0 {
		return prs[0]
	}
	return 0
}
