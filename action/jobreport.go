package action

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/sethvargo/go-githubactions"

	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/ghevent"
	"github.com/pact-action/pact-action/internal/prose"
	"github.com/pact-action/pact-action/report"
)

// job is how one workflow run reports on its job, in either mode: the job
// summary, the step's outputs, the JSON report, workflow annotations and
// lines on stdout; the check run itself is Check's.
type job struct {
	gha    *githubactions.Action
	in     inputs
	getenv func(string) string
	stdout io.Writer
}

// check reports check mode's run (run): a head it could not judge as an
// error annotation and a section of the job summary, the verdicts of the
// others through finish; err is run's.
func (j *job) check(res *runResult, err error) error {
	if err != nil && len(res.Failed) == 0 {
		// run stopped before it judged any head; an event the action
		// cannot act on is the workflow's mistake, a usage error.
		var unknown *ghevent.UnknownEventError
		var noTarget *noTargetError
		if errors.As(err, &unknown) || errors.As(err, &noTarget) {
			return usagef("%s", err)
		}
		return err
	}
	if len(res.Targets) == 0 {
		fmt.Fprintln(j.stdout, "pact: no open pull request to check")
		j.setOutputs(report.ConclusionSuccess, checks.Counts{})
		return nil
	}
	for _, f := range res.Failed {
		j.gha.Errorf("pact-action could not judge %s: %s", f.HeadSHA, report.PlainText(f.Err.Error()))
		j.gha.AddStepSummary(report.NotJudged(j.in.checkName, f.HeadSHA, stoppedSummary(f.Err)))
	}
	var verdict error
	if len(res.Outcomes) > 0 {
		verdict = j.finish(res.Outcomes, len(res.Failed) > 0)
	}
	if len(res.Failed) == 0 {
		return verdict
	}
	return err
}

// bot reports bot mode's run (run): a review or /pact comment became pact
// events on the PR's branch, then the check was posted on the new head;
// err is run's.
func (j *job) bot(out *botOutcome, err error) error {
	if out != nil {
		for _, n := range out.Notices {
			fmt.Fprintf(j.stdout, "pact: %s\n", n)
			j.gha.AddStepSummary(n)
		}
	}
	if err != nil {
		j.gha.Errorf("pact-action bot mode failed: %s", report.PlainText(err.Error()))
		return err
	}
	switch {
	case out.Ignored != "":
		fmt.Fprintf(j.stdout, "pact: nothing to do: %s\n", out.Ignored)
		return nil
	case len(out.Appended) > 0:
		fmt.Fprintf(j.stdout, "pact: recorded %d event(s) in commit %s\n", len(out.Appended), out.NewHead)
		for _, a := range out.Appended {
			// It names the task as the log does, line breaks and all.
			fmt.Fprintf(j.stdout, "  %s\n", report.Plain(a))
		}
	default:
		fmt.Fprintln(j.stdout, "pact: nothing recorded")
	}
	for _, r := range out.Replies {
		fmt.Fprintf(j.stdout, "pact: replied: %s\n", prose.FirstLine(r))
	}
	if out.Check != nil {
		// The bot's own check carries any block; its job fails only on
		// violations it was asked to fail on.
		return j.finish([]*outcome{out.Check}, false)
	}
	return nil
}

// updateLines says on the job log and summary what the branch updater did
// (update.go), a line per pull request.
func (j *job) updateLines(out *updateOutcome) {
	lines := out.Lines()
	var md strings.Builder
	md.WriteString("### pact: pull requests brought up to date\n\n")
	for _, l := range lines {
		fmt.Fprintln(j.stdout, report.Plain(l))
		fmt.Fprintf(&md, "- %s\n", report.Escape(strings.TrimPrefix(l, "pact: ")))
	}
	j.gha.AddStepSummary(md.String())
}

// update reports a run that only brought pull requests up to date (a
// push to the default branch): the checks it posted on the commits it
// made carry the verdicts; err is run's.
func (j *job) update(out *updateOutcome, err error) error {
	var outcomes []*outcome
	for _, u := range out.Updated {
		if u.Check != nil {
			outcomes = append(outcomes, u.Check)
		}
	}
	var verdict error
	if len(outcomes) > 0 {
		verdict = j.finish(outcomes, err != nil)
	} else {
		j.setOutputs(report.ConclusionSuccess, checks.Counts{})
	}
	if err != nil {
		j.gha.Errorf("pact-action could not bring every pull request up to date: %s", report.PlainText(err.Error()))
		return err
	}
	return verdict
}

// finish writes the job summary, outputs and report, falls back to workflow
// annotations where no check run was possible, and decides the exit code;
// unjudged says some head could not be judged, which makes the conclusion
// a failure.
func (j *job) finish(outcomes []*outcome, unjudged bool) error {
	var all, unposted []checks.Finding
	conclusion, posted := report.ConclusionSuccess, true
	if unjudged {
		conclusion = report.ConclusionFailure
	}
	for _, out := range outcomes {
		all = append(all, out.Findings...)
		j.gha.AddStepSummary(out.Summary)
		if out.Fallback {
			if posted {
				fmt.Fprintf(j.stdout, "pact: %s.\n", out.FallbackReason)
			}
			posted = false
			unposted = append(unposted, out.Findings...)
		}
		conclusion = worse(conclusion, out.Conclusion)
		if out.NoPullRequest {
			fmt.Fprintf(j.stdout, "pact: no check run on %s: it heads no open pull request (%s)\n", out.Target.HeadSHA, report.Title(out.Findings))
			continue
		}
		fmt.Fprintf(j.stdout, "pact: %s on %s: %s\n", out.Conclusion, out.Target.HeadSHA, report.Title(out.Findings))
	}
	// Once for the whole step: GitHub shows 10 annotations per step, not
	// per judged head (a manual run judges every open PR).
	if !posted {
		j.annotate(unposted)
	}
	counts := checks.Count(all)
	j.setOutputs(conclusion, counts)
	if err := j.writeReport(conclusion, outcomes); err != nil {
		return err
	}
	if why := j.sharesTheCheckName(outcomes); why != "" && conclusion != report.ConclusionSuccess {
		// GitHub posts a check run for every job, named after it; a job
		// named like the check would put a passing run of that name, from
		// the same app, beside a verdict that is not one, and which of the
		// two branch protection reads is not documented. The job then fails
		// whatever fail-on says, so both runs of the name block.
		j.gha.Warningf("%s", report.PlainText(why))
		if conclusion == report.ConclusionWaiting {
			return &VerdictError{ExitWaiting}
		}
		return &VerdictError{ExitViolation}
	}
	return verdictExit(counts, j.in.failOn, posted)
}

// sharesTheCheckName says why GitHub's own check run of this job carries
// the check run's name too ("" when it does not): the job's id is that
// name, or a run of that name and app that this action did not create was
// in progress on a judged head (the job's own, when its name: is the
// check's, which GITHUB_JOB does not say).
func (j *job) sharesTheCheckName(outcomes []*outcome) string {
	if id := strings.TrimSpace(j.getenv("GITHUB_JOB")); strings.EqualFold(id, j.in.checkName) {
		return jobNamedLikeTheCheck(id, j.in.checkName)
	}
	for _, out := range outcomes {
		if out.judgement != nil && out.Namesake != 0 {
			return fmt.Sprintf("check run %d, named %q like the check run pact-action posts, from the same app, is in progress on %s, and pact-action did not create it: it is this job's own when the job's name: is %q, which would pass while the verdict does not (or another workflow posted it), so this job fails until the pull request may merge; rename the job (jobs.<id>.name in the workflow) or set check-name to another name",
				out.Namesake, j.in.checkName, out.Target.HeadSHA, j.in.checkName)
		}
	}
	return ""
}

// jobNamedLikeTheCheck says why a job named like the check fails while the
// verdict is not a pass.
func jobNamedLikeTheCheck(job, check string) string {
	return fmt.Sprintf("this job's id is %q, the name of the check run pact-action posts (check-name %q): GitHub also posts the job's own check run under that name, which would pass while the verdict does not, so this job fails until the pull request may merge; rename the job (jobs.<id> in the workflow, as the README's workflow names it check) or set check-name to another name", job, check)
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
func (j *job) annotate(findings []checks.Finding) {
	anns, more := report.WorkflowAnnotations(findings)
	for _, a := range anns {
		w := j.gha.WithFieldsMap(map[string]string{"file": a.Path, "line": fmt.Sprint(a.Line), "title": a.Title})
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
		j.gha.Errorf("%s", more)
	}
}

func (j *job) setOutputs(conclusion string, c checks.Counts) {
	j.gha.SetOutput("conclusion", conclusion)
	j.gha.SetOutput("errors", fmt.Sprint(c.Errors))
	j.gha.SetOutput("warnings", fmt.Sprint(c.Warnings))
	j.gha.SetOutput("pending", fmt.Sprint(c.Pending))
	j.gha.SetOutput("report", j.in.reportPath)
}

// writeReport writes the JSON report, relative to the workspace so later
// steps find it at the path the report output names.
func (j *job) writeReport(conclusion string, outcomes []*outcome) error {
	doc := report.NewActionJSON(conclusion)
	for _, o := range outcomes {
		doc.Runs = append(doc.Runs, report.RunJSON{PullRequest: firstPR(o.PRs), CheckJSON: report.NewCheckJSON(o.Conclusion, o.Target.HeadSHA, o.CheckRunID, o.Findings)})
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return fmt.Errorf("encode the report: %w", err)
	}
	p := j.in.reportPath
	if !filepath.IsAbs(p) {
		p = filepath.Join(j.getenv("GITHUB_WORKSPACE"), p)
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
