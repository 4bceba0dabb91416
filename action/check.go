package action

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"path"

	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/ghapi"
	"github.com/pact-action/pact-action/projection"
	"github.com/pact-action/pact-action/report"
)

// ConfigPath is where a repository keeps its seat map and provenance policy,
// always read from the base branch.
const ConfigPath = ".github/pact.yml"

// Reader is what judging needs from GitHub: files at a commit, the merge
// base, and the facts provenance is judged on.
type Reader interface {
	FileReader
	MergeBase(ctx context.Context, base, head string) (string, error)
	PullCommits(ctx context.Context, number int) ([]ghapi.Commit, error)
	Review(ctx context.Context, number int, reviewID int64) (*ghapi.Review, error)
	CompareFiles(ctx context.Context, base, head string) ([]string, error)
}

// GitHub is what check mode needs from GitHub: reading, and the Checks API.
type GitHub interface {
	Reader
	PullRequest(ctx context.Context, number int) (*ghapi.PR, error)
	OpenPullRequests(ctx context.Context) ([]ghapi.PR, error)
	CreateCheckRun(ctx context.Context, cr ghapi.CheckRun) (int64, error)
	CompleteCheckRun(ctx context.Context, id int64, conclusion string, out ghapi.Output) error
	FailCheckRun(ctx context.Context, id int64, summary string) error
}

// Target is one head to judge.
type Target struct {
	HeadSHA string
	// Branches are the head branches whose features this head ships: the
	// PR's head branch, or every PR of a merge group.
	Branches []string
	// BaseRef is the base branch name (configuration is read from its tip);
	// BaseSHA a commit of it, for the merge base.
	BaseRef string
	BaseSHA string
	// Workspace is a checkout that may hold HeadSHA; "" to always use the API.
	Workspace string
	PRNumber  int
}

// Settings are the action inputs check mode uses.
type Settings struct {
	CheckName  string
	PactDir    string
	DetailsURL string
	// BotLogin is an extra account the bot commits as (the bot-login
	// input), besides github-actions[bot].
	BotLogin string
}

func (s Settings) pactPath(name string) string { return path.Join(s.pactDir(), name) }

func (s Settings) pactDir() string {
	if s.PactDir == "" {
		return ".pact"
	}
	return path.Clean(s.PactDir)
}

// Judgement is the engine's verdict on one head.
type Judgement struct {
	Target   Target
	Findings []checks.Finding
	State    *projection.State
	// Source says where the head files were read from.
	Source string
	// NoPact is set when neither the head nor the merge base has a log.
	NoPact bool
}

// Judge reads the head's pact and the merge-base log, and judges everything
// validate judges plus the pull-request checks of SEMANTICS.md §5.
func Judge(ctx context.Context, gh Reader, t Target, s Settings) (*Judgement, error) {
	logPath := s.pactPath("log.jsonl")
	src := headSource(gh, t.Workspace, t.HeadSHA, logPath)
	j := &Judgement{Target: t, Source: src.describe(), State: projection.NewState()}
	headLog, err := readRequired(ctx, src, logPath)
	if err != nil {
		return nil, err
	}
	var baseLog []byte
	mergeBase := ""
	if t.BaseSHA != "" || t.BaseRef != "" {
		base := t.BaseSHA
		if base == "" {
			base = t.BaseRef
		}
		mb, err := gh.MergeBase(ctx, base, t.HeadSHA)
		if err != nil {
			return nil, fmt.Errorf("find the merge base of %s and %s: %w", short(base), short(t.HeadSHA), err)
		}
		mergeBase = mb
		if baseLog, err = readRequired(ctx, apiSource{gh: gh, ref: mb}, logPath); err != nil {
			return nil, err
		}
	}
	if headLog == nil && baseLog == nil {
		j.NoPact = true
		return j, nil
	}
	log := projection.ParseBytes(headLog)
	res := projection.Replay(log)
	j.State = res.State
	in := checks.Input{Dir: s.pactDir(), Log: log, Replay: res, TaskFiles: map[string][]byte{}}
	var unread map[string]bool
	if res.Unsupported == nil {
		if in.State, err = readRequired(ctx, src, s.pactPath("STATE.yml")); err != nil {
			return nil, err
		}
		if in.Project, err = readRequired(ctx, src, s.pactPath("PROJECT.md")); err != nil {
			return nil, err
		}
		if unread, err = readTaskFiles(ctx, src, s, res.State, in.TaskFiles); err != nil {
			return nil, err
		}
		if in.Config, err = readRequired(ctx, apiSource{gh: gh, ref: t.BaseRef}, ConfigPath); err != nil && t.BaseRef != "" {
			return nil, err
		}
	}
	if headLog == nil {
		headLog = []byte{}
	}
	pr := checks.PullRequestFacts{BaseLog: baseLog, HeadLog: headLog, Branches: t.Branches}
	if res.Unsupported == nil && t.PRNumber != 0 {
		prov, err := judgeProvenance(ctx, gh, provenanceInput{Target: t, LogPath: logPath, MergeBase: mergeBase,
			BaseLog: baseLog, HeadLog: headLog, Log: log, Replay: res, Config: in.Config, BotLogin: s.BotLogin})
		if err != nil {
			return nil, err
		}
		pr.Provenance, pr.NotAccepted = prov.Findings, prov.NotAccepted
	}
	j.Findings = dropUnread(checks.PullRequest(in, pr), unread)
	return j, nil
}

// maxTaskFiles bounds the task files read through the API per run; a pact
// with more tasks skips the mirror check for the rest rather than spend the
// token's rate limit on it.
const maxTaskFiles = 200

// readTaskFiles reads the task files into into, and returns the ids of the
// tasks whose files it did not read (beyond maxTaskFiles through the API).
func readTaskFiles(ctx context.Context, src fileSource, s Settings, st *projection.State, into map[string][]byte) (map[string]bool, error) {
	_, onDisk := src.(diskSource)
	for i, id := range st.TaskOrder {
		if i >= maxTaskFiles && !onDisk {
			slog.Warn("too many tasks to read every task file through the API; the rest are not mirror-checked", "read", maxTaskFiles, "tasks", len(st.TaskOrder))
			unread := map[string]bool{}
			for _, rest := range st.TaskOrder[i:] {
				unread[rest] = true
			}
			return unread, nil
		}
		b, err := readRequired(ctx, src, s.pactPath("tasks/"+id+".md"))
		if err != nil {
			return nil, err
		}
		into[id] = b
	}
	return nil, nil
}

// dropUnread removes the task-file findings of tasks whose files were not
// read: checks.TaskFiles cannot tell an unread file from a missing one.
func dropUnread(findings []checks.Finding, unread map[string]bool) []checks.Finding {
	if len(unread) == 0 {
		return findings
	}
	out := findings[:0]
	for _, f := range findings {
		if (f.Code == checks.CodeTaskfileMissing || f.Code == checks.CodeTaskfileMismatch) && unread[f.TaskID] {
			continue
		}
		out = append(out, f)
	}
	return out
}

// Outcome is what a check-mode run did.
type Outcome struct {
	*Judgement
	Conclusion string
	Summary    string
	CheckRunID int64
	// Fallback is set when no check run could be created (a read-only
	// token); FallbackReason says why in one line.
	Fallback       bool
	FallbackReason string
}

// Check creates the check run first (so a crash can never leave it stuck in
// progress: it is completed as failed on the way out), judges the target and
// completes the run with the verdict, every finding annotated.
func Check(ctx context.Context, gh GitHub, t Target, s Settings) (out *Outcome, err error) {
	out = &Outcome{}
	id, createErr := gh.CreateCheckRun(ctx, ghapi.CheckRun{Name: s.CheckName, HeadSHA: t.HeadSHA, Status: "in_progress", DetailsURL: s.DetailsURL, ExternalID: newExternalID()})
	switch {
	case createErr == nil:
		out.CheckRunID = id
	case errors.Is(createErr, ghapi.ErrForbidden) || errors.Is(createErr, ghapi.ErrNotFound):
		out.Fallback = true
		out.FallbackReason = "the token cannot create check runs (a pull request from a fork gets a read-only token), so the verdict goes to workflow annotations and the job summary instead"
	default:
		return nil, fmt.Errorf("create the %q check run on %s: %w", s.CheckName, short(t.HeadSHA), createErr)
	}
	// The run id is kept apart from out: every error return sets out to
	// nil before this deferred function reads it.
	runID := out.CheckRunID
	completed := false
	defer func() {
		if runID == 0 || completed {
			return
		}
		msg := "pact-action stopped before it finished judging this commit"
		if err != nil {
			msg += ": " + err.Error()
		}
		if failErr := gh.FailCheckRun(context.WithoutCancel(ctx), runID, msg+"\n\nRe-run the job; if it keeps failing, read the job log."); failErr != nil {
			slog.Error("could not mark the check run as failed", "check_run", runID, "err", failErr)
		}
	}()
	j, err := Judge(ctx, gh, t, s)
	if err != nil {
		return nil, err
	}
	out.Judgement = j
	out.Conclusion = report.Conclusion(j.Findings)
	v := report.Verdict{CheckName: s.CheckName, HeadBranch: firstOr(t.Branches, ""), HeadSHA: t.HeadSHA, Findings: j.Findings, State: j.State}
	if j.NoPact {
		v.Note = "This commit has no " + s.pactPath("log.jsonl") + "; there is nothing to enforce."
	}
	if out.Fallback {
		v.Note = out.FallbackReason
	}
	out.Summary = report.Summary(v)
	if out.Fallback {
		return out, nil
	}
	if err := gh.CompleteCheckRun(ctx, out.CheckRunID, out.Conclusion, ghapi.Output{
		Title: report.Title(j.Findings), Summary: out.Summary, Text: report.Text(j.Findings), Annotations: annotations(j.Findings),
	}); err != nil {
		return nil, fmt.Errorf("post the verdict to check run %d: %w", out.CheckRunID, err)
	}
	completed = true
	return out, nil
}

// newExternalID tags one check run so a create that failed after GitHub
// applied it can be found instead of repeated.
func newExternalID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand never fails on supported platforms
	return "pact-action-" + hex.EncodeToString(b[:])
}

func annotations(findings []checks.Finding) []ghapi.Annotation {
	var out []ghapi.Annotation
	for _, a := range report.Annotations(findings) {
		out = append(out, ghapi.Annotation{Path: a.Path, StartLine: a.Line, EndLine: a.Line, Level: a.Level, Title: a.Title, Message: a.Message})
	}
	return out
}

func firstOr(s []string, def string) string {
	if len(s) > 0 {
		return s[0]
	}
	return def
}
