package action

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/pact-action/pact-action/bot"
	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/config"
	"github.com/pact-action/pact-action/ghapi"
	"github.com/pact-action/pact-action/projection"
	"github.com/pact-action/pact-action/report"
)

// BotGitHub is what bot mode needs from GitHub beyond check mode.
type BotGitHub interface {
	GitHub
	BranchHead(ctx context.Context, branch string) (string, error)
	CommitFiles(ctx context.Context, branch, parentSHA string, files map[string][]byte, message string) (string, error)
	Comment(ctx context.Context, issueNumber int, body string) (int64, error)
	React(ctx context.Context, kind ghapi.CommentKind, commentID int64, content string) error
	Permission(ctx context.Context, login string) (string, error)
}

// BotSettings tune bot mode.
type BotSettings struct {
	Settings
	// MaxAttempts bounds the re-read-and-retry loop on a non-fast-forward
	// ref update; Sleep waits between attempts (tests inject it).
	MaxAttempts int
	Sleep       func(ctx context.Context, d time.Duration) error
}

// replyMarker tags the bot's own comments so it never acts on them.
const replyMarker = "<!-- pact-action -->"

// BotOutcome is what a bot-mode run did.
type BotOutcome struct {
	// Ignored says why the event asked nothing of the pact ("" when it did).
	Ignored  string
	Appended []string
	Replies  []string
	// NewHead is the commit the bot wrote (or "" when it wrote nothing);
	// Check is the check run it then posted on it (or on the head, for
	// /pact recheck).
	NewHead string
	Check   *Outcome
	// Notices are lines for the job log and summary (e.g. why a fork could
	// not be written).
	Notices []string
	// alreadyRecorded counts intents a previous delivery already wrote.
	alreadyRecorded int
}

// botPR is the pull request an event concerns.
type botPR struct {
	number                             int
	headRef, headSHA, baseRef, baseSHA string
	fork                               bool
}

// readOnlyAssociations can never carry write permission, so they may refuse
// at once without asking the permission endpoint (never grant on their own).
var readOnlyAssociations = map[string]bool{"NONE": true, "FIRST_TIMER": true, "FIRST_TIME_CONTRIBUTOR": true, "MANNEQUIN": true}

// Bot turns a review or /pact comment into pact events on the PR's branch,
// replies, and re-posts the check on the new head.
func Bot(ctx context.Context, gh BotGitHub, ev *Event, eventName string, s BotSettings) (*BotOutcome, error) {
	out := &BotOutcome{}
	req, commentKind, why := botRequest(ev, eventName, s.BotLogin)
	if why != "" {
		out.Ignored = why
		return out, nil
	}
	pr, err := resolvePR(ctx, gh, ev)
	if err != nil {
		return nil, err
	}
	req.HeadBranch, req.HeadSHA = pr.headRef, pr.headSHA
	var cmds []bot.Command
	if req.Comment != nil {
		if cmds = bot.ParseCommands(req.Comment.Body); len(cmds) == 0 {
			out.Ignored = "the comment holds no /pact command"
			return out, nil
		}
	}
	cfg, err := readConfig(ctx, gh, pr.baseRef)
	if err != nil {
		if req.Comment != nil {
			out.reply(ctx, gh, pr.number, fmt.Sprintf("⚠️ pact-action cannot use `%s` on `%s`: %s. Nothing was recorded.", ConfigPath, report.Escape(pr.baseRef), report.Escape(err.Error())))
		}
		return out, fmt.Errorf("read %s on the base branch %s: %w", ConfigPath, pr.baseRef, err)
	}
	logPath := s.pactPath("log.jsonl")
	headLog, err := readRequired(ctx, apiSource{gh: gh, ref: pr.headSHA}, logPath)
	if err != nil {
		return nil, err
	}
	if headLog == nil {
		out.Ignored = "the pull request's head has no " + logPath
		if req.Comment != nil {
			out.reply(ctx, gh, pr.number, fmt.Sprintf("ℹ️ This pull request's head has no `%s`, so there is no pact to record in.", logPath))
		}
		return out, nil
	}
	st := projection.Replay(projection.ParseBytes(headLog)).State

	var plan bot.Plan
	if req.Review != nil {
		plan = bot.PlanReview(req, cfg, st)
	} else {
		if needsWrite(cmds) {
			if req.CanWrite, err = canWrite(ctx, gh, req.Login, ev.Comment.AuthorAssociation); err != nil {
				return nil, err
			}
		}
		plan = bot.PlanComment(req, cfg, st, cmds)
	}
	for _, r := range plan.Replies {
		out.reply(ctx, gh, pr.number, r)
	}
	target := Target{HeadSHA: pr.headSHA, Branches: []string{pr.headRef}, BaseRef: pr.baseRef, BaseSHA: pr.baseSHA, PRNumber: pr.number}
	if len(plan.Intents) > 0 {
		if pr.fork {
			out.forkNotice(ctx, gh, pr, plan.Intents, whyFork)
		} else if err := out.write(ctx, gh, pr, plan.Intents, s); err != nil {
			return out, err
		}
	}
	// What follows (the status reply, the check) describes the branch as
	// this run left it.
	if out.NewHead != "" {
		target.HeadSHA = out.NewHead
	}
	if plan.Status {
		j, err := Judge(ctx, gh, target, s.Settings)
		if err != nil {
			return out, err
		}
		out.reply(ctx, gh, pr.number, bot.StatusReply(j.State, pr.headRef, j.Findings))
	}
	if plan.Acknowledge && req.Comment != nil {
		content := "+1"
		if len(out.Appended) == 0 && out.alreadyRecorded == 0 && len(plan.Intents) > 0 {
			content = "confused"
		}
		if err := gh.React(ctx, commentKind, req.Comment.ID, content); err != nil {
			slog.Warn("could not react to the comment", "comment", req.Comment.ID, "err", err)
		}
	}
	if out.NewHead != "" || plan.Recheck {
		if out.Check, err = Check(ctx, gh, target, s.Settings); err != nil {
			return out, err
		}
	}
	return out, nil
}

// botRequest reduces a webhook to a bot request, or says why it is ignored.
func botRequest(ev *Event, eventName, botLogin string) (bot.Request, ghapi.CommentKind, string) {
	req := bot.Request{Repo: ev.Repository.FullName}
	if isOwnAccount(ev.Sender, botLogin) {
		return req, 0, "the event was caused by the bot's own account"
	}
	switch eventName {
	case "pull_request_review":
		if ev.Review == nil || ev.PullRequest == nil {
			return req, 0, "the review payload has no review"
		}
		if ev.Action != "submitted" {
			return req, 0, "review " + ev.Action + " events record nothing"
		}
		r := ev.Review
		req.Login = r.User.Login
		req.Review = &bot.Review{ID: r.ID, State: r.State, Body: r.Body, URL: r.HTMLURL, CommitID: r.CommitID, SubmittedAt: parseTime(r.SubmittedAt)}
		return req, 0, ""
	case "issue_comment", "pull_request_review_comment":
		if ev.Comment == nil {
			return req, 0, "the comment payload has no comment"
		}
		if ev.Action != "created" {
			return req, 0, "comment " + ev.Action + " events record nothing"
		}
		if eventName == "issue_comment" && (ev.Issue == nil || len(ev.Issue.PullRequest) == 0 || string(ev.Issue.PullRequest) == "null") {
			return req, 0, "the comment is on an issue, not a pull request"
		}
		if strings.Contains(ev.Comment.Body, replyMarker) || isOwnAccount(ev.Comment.User, botLogin) {
			return req, 0, "the comment is the bot's own"
		}
		c := ev.Comment
		req.Login = c.User.Login
		req.Comment = &bot.Comment{ID: c.ID, Body: c.Body, URL: c.HTMLURL, CreatedAt: parseTime(c.CreatedAt), OnDiff: eventName == "pull_request_review_comment"}
		kind := ghapi.IssueComment
		if eventName == "pull_request_review_comment" {
			kind = ghapi.ReviewComment
		}
		return req, kind, ""
	}
	return req, 0, "bot mode does nothing on " + eventName + " events"
}

// isOwnAccount recognises the bot's own accounts — the workflow token's,
// and the bot-login input's (a GitHub App) — whose events must never feed
// back into the bot.
func isOwnAccount(u User, botLogin string) bool {
	return checks.IsBotLogin(u.Login, []string{checks.DefaultBotLogin, botLogin})
}

func parseTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}
	}
	return t.UTC()
}

func resolvePR(ctx context.Context, gh BotGitHub, ev *Event) (botPR, error) {
	if p := ev.PullRequest; p != nil {
		return botPR{number: p.Number, headRef: p.Head.Ref, headSHA: p.Head.SHA, baseRef: p.Base.Ref, baseSHA: p.Base.SHA, fork: p.Fork()}, nil
	}
	pr, err := gh.PullRequest(ctx, ev.Issue.Number)
	if err != nil {
		return botPR{}, fmt.Errorf("read pull request #%d: %w", ev.Issue.Number, err)
	}
	return botPR{number: pr.Number, headRef: pr.HeadRef, headSHA: pr.HeadSHA, baseRef: pr.BaseRef, baseSHA: pr.BaseSHA, fork: pr.Fork}, nil
}

// readConfig reads the seat map from the base branch, never the PR head, so
// a pull request cannot grant itself a seat.
func readConfig(ctx context.Context, gh FileReader, baseRef string) (*config.Config, error) {
	b, err := apiSource{gh: gh, ref: baseRef}.read(ctx, ConfigPath)
	if err != nil {
		return nil, err
	}
	if b == nil {
		return config.Default(), nil
	}
	return config.Parse(b)
}

func needsWrite(cmds []bot.Command) bool {
	for _, c := range cmds {
		switch c.Verb {
		case bot.VerbAccept, bot.VerbChanges, bot.VerbRecheck:
			return true
		}
	}
	return false
}

// canWrite asks the collaborator-permission endpoint; author_association
// only short-cuts a refusal.
func canWrite(ctx context.Context, gh BotGitHub, login, association string) (bool, error) {
	if readOnlyAssociations[strings.ToUpper(association)] {
		return false, nil
	}
	perm, err := gh.Permission(ctx, login)
	if err != nil {
		return false, fmt.Errorf("ask GitHub for %s's permission: %w", login, err)
	}
	switch perm {
	case ghapi.PermissionAdmin, ghapi.PermissionMaintain, ghapi.PermissionWrite:
		return true, nil
	}
	return false, nil
}

// reply posts body as a comment; one that cannot be posted goes to the job
// log and summary instead. Replies lists only what was posted.
func (o *BotOutcome) reply(ctx context.Context, gh BotGitHub, number int, body string) {
	if err := o.post(ctx, gh, number, body); err != nil {
		o.Notices = append(o.Notices, fmt.Sprintf("could not reply on #%d (%v); the reply was: %s", number, err, body))
	}
}

func (o *BotOutcome) post(ctx context.Context, gh BotGitHub, number int, body string) error {
	if _, err := gh.Comment(ctx, number, body+"\n\n"+replyMarker); err != nil {
		slog.Warn("could not post a reply", "pr", number, "err", err)
		return err
	}
	o.Replies = append(o.Replies, body)
	return nil
}

// Why forkNotice is needed: the branch lives in a fork, or the token may not
// push to it (no contents: write, or a protected branch).
const (
	whyFork      = "This pull request comes from a fork, and the workflow's token cannot push to a fork's branch"
	whyForbidden = "The workflow's token may not push to this pull request's branch (the job needs `permissions: contents: write`, and the branch must accept its pushes)"
)

// forkNotice explains that the PR's branch cannot be written with the
// workflow's token, with the exact pactify commands to run instead. It
// always goes to the job log and summary, and as a reply when it can.
func (o *BotOutcome) forkNotice(ctx context.Context, gh BotGitHub, pr botPR, intents []bot.Intent, why string) {
	var b strings.Builder
	fmt.Fprintf(&b, "ℹ️ %s, so pact-action recorded nothing. Whoever can push to `%s` (the author, or a maintainer when the fork allows edits by maintainers) can record it by running, in a checkout of the branch — ideally from an account that holds the reviewer seat, so the provenance check can verify the line:\n\n```sh\n", why, report.Escape(pr.headRef))
	for _, in := range intents {
		b.WriteString(bot.PactifyCommand(in) + "\n")
	}
	b.WriteString("git add .pact && git commit -m 'pact: record review' && git push\n```")
	o.Notices = append(o.Notices, b.String())
	if err := o.post(ctx, gh, pr.number, b.String()); err != nil {
		o.Notices = append(o.Notices, fmt.Sprintf("could not post the explanation above as a reply on #%d (%v)", pr.number, err))
	}
}

// write appends the intents to the branch's log in one commit through the
// Git Data API, re-reading and re-judging on a non-fast-forward rejection.
func (o *BotOutcome) write(ctx context.Context, gh BotGitHub, pr botPR, intents []bot.Intent, s BotSettings) error {
	attempts := s.MaxAttempts
	if attempts <= 0 {
		attempts = 6
	}
	sleep := s.Sleep
	if sleep == nil {
		sleep = ghapi.SleepContext
	}
	logPath, statePath := s.pactPath("log.jsonl"), s.pactPath("STATE.yml")
	for attempt := 1; ; attempt++ {
		head, err := gh.BranchHead(ctx, pr.headRef)
		if err != nil {
			return fmt.Errorf("read the head of %s: %w", pr.headRef, err)
		}
		old, err := readRequired(ctx, apiSource{gh: gh, ref: head}, logPath)
		if err != nil {
			return err
		}
		lines, appended, refusals, dups, state, err := judgeIntents(old, intents)
		if err != nil {
			return err
		}
		o.alreadyRecorded = dups
		if len(lines) == 0 {
			o.replyRefusals(ctx, gh, pr.number, refusals)
			return nil
		}
		content := append([]byte(nil), old...)
		if len(content) > 0 && content[len(content)-1] != '\n' {
			content = append(content, '\n')
		}
		content = append(content, bytes.Join(lines, []byte("\n"))...)
		content = append(content, '\n')
		msg := "pact: " + strings.Join(appended, "; ") + "\n\nRecorded by pact-action from a GitHub review or /pact command."
		newHead, err := gh.CommitFiles(ctx, pr.headRef, head, map[string][]byte{logPath: content, statePath: state}, msg)
		switch {
		case err == nil:
			o.NewHead, o.Appended = newHead, appended
			o.replyRefusals(ctx, gh, pr.number, refusals)
			return nil
		case errors.Is(err, ghapi.ErrNotFastForward) && attempt < attempts:
			delay := time.Duration(100<<attempt)*time.Millisecond + time.Duration(rand.Int64N(int64(200*time.Millisecond)))
			slog.Info("the branch moved while writing; re-reading and retrying", "branch", pr.headRef, "attempt", attempt, "delay", delay)
			if err := sleep(ctx, delay); err != nil {
				return err
			}
		case errors.Is(err, ghapi.ErrForbidden) || errors.Is(err, ghapi.ErrNotFound):
			slog.Warn("the token cannot write the branch", "branch", pr.headRef, "err", err)
			o.forkNotice(ctx, gh, pr, intents, whyForbidden)
			return nil
		default:
			return fmt.Errorf("commit to %s after %d attempt(s): %w", pr.headRef, attempt, err)
		}
	}
}

func (o *BotOutcome) replyRefusals(ctx context.Context, gh BotGitHub, number int, refusals []string) {
	for _, r := range refusals {
		o.reply(ctx, gh, number, r)
	}
}

// judgeIntents checks each intent against a replay of the branch's current
// log exactly as pactify would, skipping events already recorded (a
// re-delivered webhook) and refusing what the engine refuses.
func judgeIntents(old []byte, intents []bot.Intent) (lines [][]byte, appended, refusals []string, dups int, state []byte, err error) {
	log := projection.ParseBytes(old)
	res := projection.Replay(log)
	for _, in := range intents {
		line, err := projection.Encode(in.Draft)
		if err != nil {
			return nil, nil, nil, 0, nil, err
		}
		rej, err := projection.Propose(log, res, line)
		if err != nil {
			return nil, nil, nil, 0, nil, err
		}
		switch {
		case rej == nil:
			lines = append(lines, line)
			appended = append(appended, in.What)
		case rej.Code == projection.CodeEventIDDuplicate:
			slog.Info("already recorded; nothing to append", "event", in.What, "event_id", in.Draft.EventID)
			dups++
		default:
			refusals = append(refusals, fmt.Sprintf("🚫 The pact refused `%s`: `%s` — %s. Nothing was recorded for it.",
				report.Escape(in.What), rej.Code, report.Escape(rej.Message)))
		}
	}
	return lines, appended, refusals, dups, projection.RenderBytes(res.State), nil
}
