package ghapi

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/google/go-github/v60/github"

	"github.com/pact-action/pact-action/internal/prose"
)

// MaxAnnotationsPerRequest is GitHub's limit of annotations in one create or
// update check run request.
const MaxAnnotationsPerRequest = 50

// maxOutputText is GitHub's limit for output.summary and output.text.
const maxOutputText = 65535

// CheckRun describes a check run to create.
type CheckRun struct {
	Name    string
	HeadSHA string
	// Status is "queued" or "in_progress"; empty means "in_progress"
	// (the action is working on it when it creates it).
	Status     string
	ExternalID string
	DetailsURL string
}

// Output is the output of a completed check run.
type Output struct {
	Title string
	// Summary and Text are Markdown; each is truncated to GitHub's 65535
	// limit.
	Summary     string
	Text        string
	Annotations []Annotation
}

// Annotation points at lines of a file.
type Annotation struct {
	Path      string
	StartLine int
	EndLine   int
	// Level is "failure", "warning" or "notice".
	Level      string
	Title      string
	Message    string
	RawDetails string
}

var conclusions = map[string]bool{
	"action_required": true, "cancelled": true, "failure": true, "neutral": true,
	"success": true, "skipped": true, "stale": true, "timed_out": true,
}

// CreatedRun is a check run created: its id, and the GitHub App whose
// token created it (GitHub Actions for a workflow's token), which alone
// may update it.
type CreatedRun struct {
	ID, App int64
}

// CreateCheckRun creates a check run.
func (c *Client) CreateCheckRun(ctx context.Context, cr CheckRun) (CreatedRun, error) {
	op := fmt.Sprintf("create check run %q", cr.Name)
	if cr.Name == "" || cr.HeadSHA == "" {
		return CreatedRun{}, fmt.Errorf("%s: name and head sha are required", op)
	}
	status := cr.Status
	if status == "" {
		status = "in_progress"
	}
	if status != "queued" && status != "in_progress" {
		return CreatedRun{}, fmt.Errorf("%s: status %q is not queued or in_progress", op, status)
	}
	opts := github.CreateCheckRunOptions{
		Name:    cr.Name,
		HeadSHA: cr.HeadSHA,
		Status:  github.String(status),
	}
	if cr.ExternalID != "" {
		opts.ExternalID = github.String(cr.ExternalID)
	}
	if cr.DetailsURL != "" {
		opts.DetailsURL = github.String(cr.DetailsURL)
	}
	if cr.ExternalID == "" {
		run, _, err := c.gh.Checks.CreateCheckRun(ctx, c.owner, c.repo, opts)
		if err != nil {
			return CreatedRun{}, wrapErr(op, err)
		}
		return created(run), nil
	}
	// With an external id, a create whose outcome is unknown (no answer,
	// a cut answer, a 5xx) is looked up before it is repeated: GitHub may
	// have created the run, and a second run would leave the first in
	// progress for ever.
	for attempt := 1; ; attempt++ {
		run, _, err := c.gh.Checks.CreateCheckRun(context.WithValue(ctx, applyOnceKey{}, true), c.owner, c.repo, opts)
		if err == nil {
			return created(run), nil
		}
		err = wrapErr(op, err)
		if !outcomeUnknown(err) {
			return CreatedRun{}, err
		}
		found, ok, ferr := c.findCheckRun(ctx, cr)
		switch {
		case ok:
			c.logger.Warn("the check run was created though its answer was lost", "check_run", found.ID, "external_id", cr.ExternalID, "error", err)
			return found, nil
		case ferr != nil:
			return CreatedRun{}, fmt.Errorf("%w; it may have been created (external id %s), and looking for it failed too: %w", err, cr.ExternalID, ferr)
		case attempt == writeAttempts:
			return CreatedRun{}, err
		}
		delay := c.backoff(attempt)
		c.logger.Warn("github request failed, retrying", "method", http.MethodPost, "path", "check-runs", "attempt", attempt,
			"status", statusOf(err), "delay", delay, "error", err, "note", "the run was not created; creating it again")
		if err := c.sleep(ctx, delay); err != nil {
			return CreatedRun{}, err
		}
	}
}

// created is what GitHub's answer says of a run it created.
func created(run *github.CheckRun) CreatedRun {
	return CreatedRun{ID: run.GetID(), App: run.GetApp().GetID()}
}

// writeAttempts bounds the attempts of a write whose outcome must be
// checked before it is repeated (creating and completing a check run);
// each attempt has its own deadline (RetryPolicy.AttemptTimeout).
const writeAttempts = 3

// FindCheckRun looks for the run a failed create may have made, by name
// and external id on its head commit: for a caller whose create the job's
// cancellation cut, to complete the run in a context of its own.
func (c *Client) FindCheckRun(ctx context.Context, cr CheckRun) (int64, bool, error) {
	if cr.ExternalID == "" {
		return 0, false, nil
	}
	found, ok, err := c.findCheckRun(ctx, cr)
	return found.ID, ok, err
}

// findCheckRun looks for the run a failed create may have made, by name and
// external id on its head commit.
func (c *Client) findCheckRun(ctx context.Context, cr CheckRun) (CreatedRun, bool, error) {
	list, _, err := c.gh.Checks.ListCheckRunsForRef(ctx, c.owner, c.repo, cr.HeadSHA, &github.ListCheckRunsOptions{
		CheckName: github.String(cr.Name), Filter: github.String("all"), ListOptions: github.ListOptions{PerPage: 100}})
	if err != nil {
		return CreatedRun{}, false, wrapErr(fmt.Sprintf("look for check run %q by its external id", cr.Name), err)
	}
	for _, run := range list.CheckRuns {
		if run.GetExternalID() == cr.ExternalID {
			return created(run), true, nil
		}
	}
	return CreatedRun{}, false, nil
}

// CheckRunVerdict reports whether the newest check run named name on
// commit headSHA is completed with a verdict: not in progress, and not
// completed by FailCheckRun, which leaves no verdict standing.
func (c *Client) CheckRunVerdict(ctx context.Context, headSHA, name string) (bool, error) {
	list, _, err := c.gh.Checks.ListCheckRunsForRef(ctx, c.owner, c.repo, headSHA, &github.ListCheckRunsOptions{
		CheckName: github.String(name), Filter: github.String("latest")})
	if err != nil {
		return false, wrapErr(fmt.Sprintf("list the %q check runs of %s", name, prose.ShortSHA(headSHA)), err)
	}
	for _, run := range list.CheckRuns {
		if run.GetName() == name && run.GetStatus() == "completed" && run.GetOutput().GetTitle() != failedTitle {
			return true, nil
		}
	}
	return false, nil
}

// checkRunPatch is the body of PATCH /check-runs/{id}. go-github's
// UpdateCheckRunOptions always sends "name" (possibly empty), so the body
// is built here with every field optional.
type checkRunPatch struct {
	Status      string          `json:"status,omitempty"`
	Conclusion  string          `json:"conclusion,omitempty"`
	CompletedAt string          `json:"completed_at,omitempty"`
	Output      *checkRunOutput `json:"output,omitempty"`
}

type checkRunOutput struct {
	Title       string               `json:"title"`
	Summary     string               `json:"summary"`
	Text        string               `json:"text,omitempty"`
	Annotations []checkRunAnnotation `json:"annotations,omitempty"`
}

type checkRunAnnotation struct {
	Path            string `json:"path"`
	StartLine       int    `json:"start_line"`
	EndLine         int    `json:"end_line"`
	AnnotationLevel string `json:"annotation_level"`
	Message         string `json:"message"`
	Title           string `json:"title,omitempty"`
	RawDetails      string `json:"raw_details,omitempty"`
}

// CompleteCheckRun completes check run id with conclusion and output,
// delivering every annotation.
//
// GitHub accepts at most 50 annotations per request and appends the
// annotations of each update to those already stored. So with more than
// 50 annotations the run is updated in batches, in order: every batch but
// the last is sent with the output (title, summary, text) while the run
// stays in its current status; the last batch (or no annotation) goes with
// status "completed" and the conclusion. The run thus only turns completed
// once all annotations are stored, and if a batch fails the run is left
// incomplete (the caller may then FailCheckRun it). A batch is never
// stored twice: one whose outcome is unknown is looked at before it is sent
// again (addAnnotations, finishCheckRun).
func (c *Client) CompleteCheckRun(ctx context.Context, id int64, conclusion string, out Output) error {
	op := fmt.Sprintf("complete check run %d", id)
	if !conclusions[conclusion] {
		return fmt.Errorf("%s: unknown conclusion %q", op, conclusion)
	}
	anns := make([]checkRunAnnotation, 0, len(out.Annotations))
	for i, a := range out.Annotations {
		ca, err := annotationBody(a)
		if err != nil {
			return fmt.Errorf("%s: annotation %d: %w", op, i, err)
		}
		anns = append(anns, ca)
	}
	title := out.Title
	if title == "" {
		title = conclusion
	}
	output := func(batch []checkRunAnnotation) *checkRunOutput {
		return &checkRunOutput{
			Title:       title,
			Summary:     prose.Clip(out.Summary, maxOutputText, truncated),
			Text:        prose.Clip(out.Text, maxOutputText, truncated),
			Annotations: batch,
		}
	}
	var batches [][]checkRunAnnotation
	for len(anns) > MaxAnnotationsPerRequest {
		batches = append(batches, anns[:MaxAnnotationsPerRequest])
		anns = anns[MaxAnnotationsPerRequest:]
	}
	last := anns
	total := len(batches) + 1
	for i, batch := range batches {
		if err := c.addAnnotations(ctx, id, checkRunPatch{Output: output(batch)}, i*MaxAnnotationsPerRequest, len(batch)); err != nil {
			return fmt.Errorf("%s: annotation batch %d of %d: %w", op, i+1, total, err)
		}
	}
	final := checkRunPatch{
		Status:      "completed",
		Conclusion:  conclusion,
		CompletedAt: time.Now().UTC().Format(time.RFC3339),
		Output:      output(last),
	}
	if err := c.finishCheckRun(ctx, id, final); err != nil {
		if total > 1 {
			return fmt.Errorf("%s: final batch %d of %d: %w", op, total, total, err)
		}
		return fmt.Errorf("%s: %w", op, err)
	}
	return nil
}

// failedTitle is the title of a run FailCheckRun completed.
const failedTitle = "pact-action failed"

// FailCheckRun completes check run id with conclusion "failure" and summary
// as output, e.g. when the action crashed after creating the run. A run
// already completed is left as it is: the verdict whose answer was lost
// (the job cancelled while GitHub applied it) stands, and is not replaced
// by a failure that says the commit was not judged.
func (c *Client) FailCheckRun(ctx context.Context, id int64, summary string) error {
	if status, err := c.checkRunStatus(context.WithValue(ctx, oneAttemptKey{}, true), id); err == nil && status == "completed" {
		c.logger.Warn("the check run is completed already; leaving its verdict", "check_run", id)
		return nil
	}
	if err := c.finishCheckRun(ctx, id, checkRunPatch{
		Status:      "completed",
		Conclusion:  "failure",
		CompletedAt: time.Now().UTC().Format(time.RFC3339),
		Output: &checkRunOutput{
			Title:   failedTitle,
			Summary: prose.Clip(summary, maxOutputText, truncated),
		},
	}); err != nil {
		return fmt.Errorf("fail check run %d: %w", id, err)
	}
	return nil
}

// SupersedeCheckRun completes run id, a run another one superseded, with
// conclusion, completedAt and out's title and summary (no annotations),
// in one attempt: it is not the verdict, so whatever GitHub answers, the
// caller goes on, and a failure is the next run's to mend.
func (c *Client) SupersedeCheckRun(ctx context.Context, id int64, conclusion string, completedAt time.Time, out Output) error {
	if !conclusions[conclusion] {
		return fmt.Errorf("complete superseded check run %d: unknown conclusion %q", id, conclusion)
	}
	ctx = context.WithValue(context.WithValue(ctx, oneAttemptKey{}, true), applyOnceKey{}, true)
	if err := c.patchCheckRun(ctx, id, checkRunPatch{
		Status:      "completed",
		Conclusion:  conclusion,
		CompletedAt: completedAt.UTC().Format(time.RFC3339),
		Output: &checkRunOutput{
			Title:   out.Title,
			Summary: prose.Clip(out.Summary, maxOutputText, truncated),
		},
	}); err != nil {
		return fmt.Errorf("complete superseded check run %d: %w", id, err)
	}
	return nil
}

// finishCheckRun sends the patch that completes run id. A patch whose
// outcome is unknown (no answer within its deadline, a dropped or cut
// answer, a 5xx) is not repeated blindly, which would add its annotations
// twice: the run is read first, and the patch is sent again, with a fresh
// deadline, only if the run is not completed. It gives up after
// writeAttempts patches, or at once on a refusal (4xx).
func (c *Client) finishCheckRun(ctx context.Context, id int64, body checkRunPatch) error {
	for attempt := 1; ; attempt++ {
		err := c.patchCheckRun(context.WithValue(ctx, applyOnceKey{}, true), id, body)
		if err == nil {
			return nil
		}
		if !outcomeUnknown(err) || ctx.Err() != nil {
			return err
		}
		if status, serr := c.checkRunStatus(context.WithValue(ctx, oneAttemptKey{}, true), id); serr == nil && status == "completed" {
			c.logger.Warn("the check run was completed though the answer was lost", "check_run", id, "error", err)
			return nil
		}
		if attempt == writeAttempts {
			return fmt.Errorf("%w (%d attempts)", err, attempt)
		}
		delay := c.backoff(attempt)
		c.logger.Warn("github request failed, retrying", "method", http.MethodPatch, "path", "check-runs", "check_run", id,
			"attempt", attempt, "status", statusOf(err), "delay", delay, "error", err, "note", "the run is not completed; completing it again")
		if err := c.sleep(ctx, delay); err != nil {
			return fmt.Errorf("%w (%d attempts)", err, attempt)
		}
	}
}

// addAnnotations sends a batch of n annotations to run id, which holds
// stored before it. GitHub appends the annotations of every update, so a
// batch whose outcome is unknown is not repeated blindly: the run's count
// of annotations is read, and the batch sent again (writeAttempts in all)
// only while the count is still stored.
func (c *Client) addAnnotations(ctx context.Context, id int64, body checkRunPatch, stored, n int) error {
	for attempt := 1; ; attempt++ {
		err := c.patchCheckRun(context.WithValue(ctx, applyOnceKey{}, true), id, body)
		if err == nil {
			return nil
		}
		if !outcomeUnknown(err) || ctx.Err() != nil {
			return err
		}
		run, rerr := c.readCheckRun(context.WithValue(ctx, oneAttemptKey{}, true), id)
		switch {
		case rerr != nil:
			return fmt.Errorf("%w; the batch may have been stored, and reading the run failed too: %w", err, rerr)
		case run.Output.Annotations == stored+n:
			c.logger.Warn("the annotations were stored though the answer was lost", "check_run", id, "error", err)
			return nil
		case run.Output.Annotations != stored:
			return fmt.Errorf("%w; the run holds %d annotations, neither the %d before this batch nor the %d after", err, run.Output.Annotations, stored, stored+n)
		case attempt == writeAttempts:
			return fmt.Errorf("%w (%d attempts)", err, attempt)
		}
		delay := c.backoff(attempt)
		c.logger.Warn("github request failed, retrying", "method", http.MethodPatch, "path", "check-runs", "check_run", id,
			"attempt", attempt, "status", statusOf(err), "delay", delay, "error", err, "note", "the annotations were not stored; sending them again")
		if err := c.sleep(ctx, delay); err != nil {
			return fmt.Errorf("%w (%d attempts)", err, attempt)
		}
	}
}

// storedRun is what a read of a check run tells about earlier writes.
type storedRun struct {
	// Status is queued, in_progress or completed.
	Status string `json:"status"`
	Output struct {
		Annotations int `json:"annotations_count"`
	} `json:"output"`
}

// readCheckRun reads run id.
func (c *Client) readCheckRun(ctx context.Context, id int64) (storedRun, error) {
	var run storedRun
	err := c.getJSON(ctx, fmt.Sprintf("read check run %d", id), c.repoPath()+"/check-runs/"+strconv.FormatInt(id, 10), "", &run)
	return run, err
}

// checkRunStatus reads the status of run id: queued, in_progress or
// completed.
func (c *Client) checkRunStatus(ctx context.Context, id int64) (string, error) {
	run, err := c.readCheckRun(ctx, id)
	return run.Status, err
}

func (c *Client) patchCheckRun(ctx context.Context, id int64, body checkRunPatch) error {
	u := c.repoPath() + "/check-runs/" + strconv.FormatInt(id, 10)
	req, err := c.gh.NewRequest(http.MethodPatch, u, body)
	if err != nil {
		return err
	}
	if _, err := c.gh.Do(ctx, req, nil); err != nil {
		return wrapErr("update check run", err)
	}
	return nil
}

func annotationBody(a Annotation) (checkRunAnnotation, error) {
	switch a.Level {
	case "failure", "warning", "notice":
	default:
		return checkRunAnnotation{}, fmt.Errorf("level %q is not failure, warning or notice", a.Level)
	}
	if a.Path == "" {
		return checkRunAnnotation{}, fmt.Errorf("empty path")
	}
	if a.Message == "" {
		return checkRunAnnotation{}, fmt.Errorf("empty message")
	}
	start, end := a.StartLine, a.EndLine
	if start < 1 {
		start = 1
	}
	if end < start {
		end = start
	}
	return checkRunAnnotation{
		Path:            a.Path,
		StartLine:       start,
		EndLine:         end,
		AnnotationLevel: a.Level,
		Message:         prose.Clip(a.Message, maxOutputText, truncated),
		Title:           a.Title,
		RawDetails:      prose.Clip(a.RawDetails, maxOutputText, truncated),
	}, nil
}

// truncated ends a text cut to fit GitHub's limit (prose.Clip).
const truncated = "\n…(truncated)"
