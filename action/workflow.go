package action

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/sethvargo/go-githubactions"

	"github.com/pact-action/pact-action/ghapi"
	"github.com/pact-action/pact-action/ghevent"
	"github.com/pact-action/pact-action/pactfile"
)

// RunWorkflow is the GitHub Action: the runner's environment (getenv) in,
// a check run or a bot commit out. It reads the inputs and the runner's
// environment, builds the GitHub client, hands the event to run (the one
// dispatch, run.go), and reports what Run did on the job (jobreport.go):
// job summary, outputs, the JSON report, annotations. The error says how
// the job ends: nil, a *VerdictError, a usage error (cmdline.UsageError:
// the workflow is set up wrong) or what stopped the run.
func RunWorkflow(ctx context.Context, getenv func(string) string, stdout io.Writer, logger *slog.Logger) error {
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
	// Past the budget every request stops; the check run being judged is
	// then completed as failed in a context of its own (check).
	ctx, cancel := context.WithTimeoutCause(ctx, d.run, &runBudgetError{Budget: d.run})
	defer cancel()
	settings := settings{CheckName: in.checkName, PactDir: in.pactDir, DetailsURL: runURL(getenv), BotLogin: in.botLogin, Timeout: d.judgement,
		MaxPactBytes: in.maxPactBytes}
	res, err := run(ctx, eventEnv{EventName: eventName, Payload: payload, Mode: in.mode,
		SHA: getenv("GITHUB_SHA"), Workspace: getenv("GITHUB_WORKSPACE"), Settings: settings}, gh)
	j := &job{gha: gha, in: in, getenv: getenv, stdout: stdout}
	if res.Bot != nil {
		return j.bot(res.Bot, err)
	}
	if res.Update != nil {
		j.updateLines(res.Update)
		if !ghevent.Rejudges(eventName) {
			return j.update(res.Update, err)
		}
	}
	return j.check(res, err)
}

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
	// judgement is PACT_TIMEOUT: one judgement (settings.Timeout).
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

func runURL(getenv func(string) string) string {
	server, repo, id := getenv("GITHUB_SERVER_URL"), getenv("GITHUB_REPOSITORY"), getenv("GITHUB_RUN_ID")
	if server == "" || repo == "" || id == "" {
		return ""
	}
	return fmt.Sprintf("%s/%s/actions/runs/%s", strings.TrimRight(server, "/"), repo, id)
}
