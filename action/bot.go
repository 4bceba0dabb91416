package action

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/pact-action/pact-action/bot"
	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/config"
	"github.com/pact-action/pact-action/ghapi"
	"github.com/pact-action/pact-action/internal/prose"
	"github.com/pact-action/pact-action/pactfile"
	"github.com/pact-action/pact-action/projection"
)

// BotGitHub is what bot mode needs from GitHub beyond check mode.
type BotGitHub interface {
	GitHub
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

// BotOutcome is what a bot-mode run did.
type BotOutcome struct {
	// Ignored says why the event asked nothing of the pact ("" when it did).
	Ignored  string
	Appended []string
	Replies  []string
	// NewHead is the commit the bot wrote (or "" when it wrote nothing);
	// Check is the check run it then posted on it (or on the head, for
	// /pact recheck and for events that change what backs the log).
	NewHead string
	Check   *Outcome
	// Notices are lines for the job log and summary (e.g. why a fork could
	// not be written, or a conflicting event id).
	Notices []string
	// alreadyRecorded counts intents a previous delivery already wrote.
	alreadyRecorded int
}

// readOnlyAssociations can never carry write permission, so they may refuse
// at once without asking the permission endpoint (never grant on their own).
var readOnlyAssociations = map[string]bool{"NONE": true, "FIRST_TIMER": true, "FIRST_TIME_CONTRIBUTOR": true, "MANNEQUIN": true}

// botEvent is a webhook reduced to what the bot does with it.
type botEvent struct {
	req    bot.Request
	kind   ghapi.CommentKind
	number int
	// recheck: the event changes what backs events already in the log (a
	// dismissed review, an edited or deleted comment), so the check is
	// judged again; nothing is recorded.
	recheck bool
	// association is the commenter's author_association, which may only
	// short-cut a refusal.
	association string
}

// Bot turns a review or /pact comment into pact events on the PR's branch,
// replies, and re-posts the check on the new head. Everything it decides on
// is read from GitHub when it runs — the pull request, the review or
// comment, the configuration at the base branch's tip, the log at the
// reviewed commit — never taken from the webhook payload, which a re-run
// replays unchanged.
func Bot(ctx context.Context, gh BotGitHub, ev *Event, eventName string, s BotSettings) (*BotOutcome, error) {
	out := &BotOutcome{}
	be, why := botRequest(ev, eventName, s.BotLogin)
	if why != "" {
		out.Ignored = why
		return out, nil
	}
	pr, err := gh.PullRequest(ctx, be.number)
	if err != nil {
		return nil, fmt.Errorf("read pull request #%d: %w", be.number, err)
	}
	if be.recheck {
		out.Check, err = Check(ctx, gh, Target{HeadSHA: pr.HeadSHA, Known: []ghapi.PR{*pr}}, s.Settings)
		return out, err
	}
	be.req.HeadBranch = pr.HeadRef
	req := be.req
	cfg, err := readConfig(ctx, gh, pr.BaseRef)
	if err != nil {
		if req.Comment != nil {
			out.reply(ctx, gh, pr.Number, bot.ConfigUnusable(pactfile.ConfigPath, pr.BaseRef, err))
		}
		return out, fmt.Errorf("read %s on the base branch %s: %w", pactfile.ConfigPath, pr.BaseRef, err)
	}
	var p *botPlan
	if req.Review != nil {
		p, err = planReview(ctx, gh, req, *pr, cfg, s, out)
	} else {
		p, err = planComment(ctx, gh, be, *pr, cfg, s, out)
	}
	if err != nil || p == nil {
		return out, err
	}
	for _, r := range p.Replies {
		out.reply(ctx, gh, pr.Number, r)
	}
	target := Target{HeadSHA: pr.HeadSHA, Known: []ghapi.PR{*pr}}
	if len(p.Intents) > 0 {
		if pr.Fork {
			out.forkNotice(ctx, gh, *pr, p.Intents, bot.WhyFork)
		} else if err := out.write(ctx, gh, *pr, p, s); err != nil {
			return out, err
		}
	}
	// What follows (the status reply, the check) describes the branch as
	// this run left it.
	if out.NewHead != "" {
		target.HeadSHA = out.NewHead
		target.Known[0].HeadSHA = out.NewHead
	}
	if p.Status {
		j, err := Judge(ctx, gh, target, s.Settings)
		if err != nil {
			return out, err
		}
		out.reply(ctx, gh, pr.Number, bot.StatusReply(j.State, pr.HeadRef, j.Findings))
	}
	if p.Acknowledge && req.Comment != nil {
		// 😕 when every command that asked for an event was refused.
		content := "+1"
		if len(out.Appended) == 0 && out.alreadyRecorded == 0 && len(p.Intents)+p.Refused > 0 {
			content = "confused"
		}
		if err := gh.React(ctx, be.kind, req.Comment.ID, content); err != nil {
			slog.Warn("could not react to the comment", "comment", req.Comment.ID, "err", err)
		}
	}
	if out.NewHead != "" || p.Recheck {
		if out.Check, err = Check(ctx, gh, target, s.Settings); err != nil {
			return out, err
		}
	}
	if len(p.Renew) > 0 {
		out.reply(ctx, gh, pr.Number, renewReply(p, req.Review.ID, out.Check))
	}
	return out, nil
}

// renewReply answers an approval that may renew the coverage of accepted
// tasks: which it renewed, judged on the head, or why it recorded nothing.
func renewReply(p *botPlan, review int64, check *Outcome) string {
	var renewed []string
	for _, id := range p.Renew {
		if check != nil && check.Judgement != nil && check.Renewed[id] == review {
			renewed = append(renewed, id)
		}
	}
	if len(renewed) == 0 {
		return p.NotRenewed
	}
	return bot.RenewedReply(p.login, renewed, p.at)
}

// botPlan is a bot.Plan with the commit it was made against.
type botPlan struct {
	bot.Plan
	// at is the commit the plan was judged on: the reviewed commit, or the
	// head of the branch when the comment was made; login is the account
	// that reviewed or commented, as GitHub has it.
	at, login string
}

// planReview plans a submitted review against the log at the commit it
// reviewed, if it is still its author's standing decision.
func planReview(ctx context.Context, gh BotGitHub, req bot.Request, pr ghapi.PR, cfg *config.Config, s BotSettings, out *BotOutcome) (*botPlan, error) {
	if len(cfg.SeatsOf(req.Login)) == 0 {
		out.Ignored = "the reviewer holds no seat" // people review for many reasons
		return nil, nil
	}
	list, err := gh.Reviews(ctx, pr.Number)
	if err != nil {
		return nil, fmt.Errorf("list the reviews of pull request #%d: %w", pr.Number, err)
	}
	if why := checks.StandingDecision(reviewFacts(list), req.Review.ID); why != "" {
		out.Ignored = why + ", so it records nothing"
		out.Notices = append(out.Notices, out.Ignored)
		return nil, nil
	}
	// GitHub's record, not the payload's: a re-run replays an old payload.
	// (A standing decision is in the list.)
	r := list[slices.IndexFunc(list, func(rv ghapi.Review) bool { return rv.ID == req.Review.ID })]
	req.Login = r.AuthorLogin
	req.Review = &bot.Review{ID: r.ID, State: r.State, Body: r.Body, URL: r.HTMLURL, CommitID: r.CommitID, SubmittedAt: r.SubmittedAt.UTC()}
	req.HeadSHA = r.CommitID
	st, ok, err := stateAt(ctx, gh, r.CommitID, s.Settings)
	if err != nil {
		return nil, err
	}
	if !ok {
		out.Ignored = "the reviewed commit has no " + s.layout().Log()
		return nil, nil
	}
	return &botPlan{Plan: bot.PlanReview(req, cfg, st), at: r.CommitID, login: r.AuthorLogin}, nil
}

// planComment plans the /pact commands of a comment as GitHub has it now,
// against the log at the head of the branch when it was made.
func planComment(ctx context.Context, gh BotGitHub, be botEvent, pr ghapi.PR, cfg *config.Config, s BotSettings, out *BotOutcome) (*botPlan, error) {
	req := be.req
	c, err := gh.GetComment(ctx, be.kind, req.Comment.ID)
	if errors.Is(err, ghapi.ErrNotFound) {
		out.Ignored = "the comment no longer exists"
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read comment %d: %w", req.Comment.ID, err)
	}
	cmds := bot.ParseCommands(c.Body)
	if len(cmds) == 0 {
		out.Ignored = "the comment holds no /pact command"
		return nil, nil
	}
	req.Login = c.AuthorLogin
	req.Comment.Body, req.Comment.CreatedAt, req.Comment.URL = c.Body, c.CreatedAt.UTC(), c.HTMLURL
	if needsWrite(cmds) {
		if req.CanWrite, err = canWrite(ctx, gh, req.Login, be.association); err != nil {
			return nil, err
		}
	}
	recording := req.CanWrite && records(cmds)
	at := pr.HeadSHA
	switch {
	case recording && c.UpdatedAt.After(c.CreatedAt):
		return &botPlan{Plan: bot.Plan{Replies: []string{bot.CommentEdited(req.Login)}}}, nil
	case recording && !pr.Fork:
		head, why, err := headAtComment(ctx, gh, pr, c.CreatedAt)
		if err != nil {
			return nil, err
		}
		if head == "" {
			return &botPlan{Plan: bot.Plan{Replies: []string{bot.HeadUnknown(why)}}}, nil
		}
		at = head
	}
	req.HeadSHA = at
	st, ok, err := stateAt(ctx, gh, at, s.Settings)
	if err != nil {
		return nil, err
	}
	if !ok {
		out.Ignored = "the pull request's head has no " + s.layout().Log()
		return &botPlan{Plan: bot.Plan{Replies: []string{bot.NoPact(s.layout().Log())}}}, nil
	}
	return &botPlan{Plan: bot.PlanComment(req, cfg, st, cmds), at: at}, nil
}

// stateAt replays the log at commit sha; ok is false when it has none.
func stateAt(ctx context.Context, gh FileReader, sha string, s Settings) (*projection.State, bool, error) {
	log, err := readRequired(ctx, apiSource{gh: gh, ref: sha}, s.layout().Log())
	if err != nil || log == nil {
		return nil, false, err
	}
	return projection.ReplayBytes(log).State, true, nil
}

// botRequest reduces a webhook to a bot request, or says why it is ignored.
func botRequest(ev *Event, eventName, botLogin string) (botEvent, string) {
	be := botEvent{req: bot.Request{Repo: ev.Repository.FullName}}
	if isOwnAccount(ev.Sender, botLogin) {
		return be, "the event was caused by the bot's own account"
	}
	switch eventName {
	case "pull_request_review":
		if ev.Review == nil || ev.PullRequest == nil {
			return be, "the review payload has no review"
		}
		be.number = ev.PullRequest.Number
		switch ev.Action {
		case "submitted":
		case "dismissed", "edited":
			be.recheck = true
			return be, ""
		default:
			return be, "review " + ev.Action + " events record nothing"
		}
		r := ev.Review
		be.req.Login = r.User.Login
		be.req.Review = &bot.Review{ID: r.ID}
		return be, ""
	case "issue_comment", "pull_request_review_comment":
		if ev.Comment == nil {
			return be, "the comment payload has no comment"
		}
		if eventName == "issue_comment" {
			if ev.Issue == nil || len(ev.Issue.PullRequest) == 0 || string(ev.Issue.PullRequest) == "null" {
				return be, "the comment is on an issue, not a pull request"
			}
			be.number = ev.Issue.Number
		} else {
			if ev.PullRequest == nil {
				return be, "the review comment payload has no pull request"
			}
			be.number = ev.PullRequest.Number
		}
		if strings.Contains(ev.Comment.Body, bot.ReplyMarker) || isOwnAccount(ev.Comment.User, botLogin) {
			return be, "the comment is the bot's own"
		}
		switch ev.Action {
		case "created":
		case "edited", "deleted":
			// The check re-reads every comment that backs an event.
			be.recheck = true
			return be, ""
		default:
			return be, "comment " + ev.Action + " events record nothing"
		}
		c := ev.Comment
		be.req.Login = c.User.Login
		be.req.Comment = &bot.Comment{ID: c.ID, OnDiff: eventName == "pull_request_review_comment"}
		be.kind = ghapi.IssueComment
		if eventName == "pull_request_review_comment" {
			be.kind = ghapi.ReviewComment
		}
		be.association = c.AuthorAssociation
		return be, ""
	}
	return be, "bot mode does nothing on " + eventName + " events"
}

// isOwnAccount recognises the bot's own accounts — the workflow token's,
// and the bot-login input's (a GitHub App) — whose events must never feed
// back into the bot.
func isOwnAccount(u User, botLogin string) bool {
	return checks.IsBotLogin(u.Login, botLogins(botLogin))
}

// readConfig reads the seat map at the base branch's tip now (one
// request), never the PR head, so a pull request cannot grant itself a
// seat.
func readConfig(ctx context.Context, gh Reader, baseRef string) (*config.Config, error) {
	trees, err := gh.ReadTrees(ctx, ghapi.TreeRead{Branch: baseRef, Files: []string{pactfile.ConfigPath}})
	if err != nil {
		return nil, err
	}
	b, err := treeSource{tree: trees[0]}.read(ctx, pactfile.ConfigPath)
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

func records(cmds []bot.Command) bool {
	for _, c := range cmds {
		if c.Verb == bot.VerbAccept || c.Verb == bot.VerbChanges {
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
	if _, err := gh.Comment(ctx, number, body+"\n\n"+bot.ReplyMarker); err != nil {
		slog.Warn("could not post a reply", "pr", number, "err", err)
		return err
	}
	o.Replies = append(o.Replies, body)
	return nil
}

// forkNotice explains that the PR's branch cannot be written with the
// workflow's token, with the exact pactify commands to run instead. It
// always goes to the job log and summary, and as a reply when it can.
func (o *BotOutcome) forkNotice(ctx context.Context, gh BotGitHub, pr ghapi.PR, intents []bot.Intent, why string) {
	var cmds []string
	for _, in := range intents {
		cmds = append(cmds, bot.PactifyCommand(in))
	}
	notice := bot.ForkNotice(why, pr.HeadRef, cmds)
	o.Notices = append(o.Notices, notice)
	if err := o.post(ctx, gh, pr.Number, notice); err != nil {
		o.Notices = append(o.Notices, fmt.Sprintf("could not post the explanation above as a reply on #%d (%v)", pr.Number, err))
	}
}

// write appends the intents to the branch's log in one commit through the
// Git Data API, re-reading and re-judging on a non-fast-forward rejection.
// Events from a comment are written only while the branch holds the code
// the comment was made on (pact-only commits since are fine), and record
// the commit they are written on.
func (o *BotOutcome) write(ctx context.Context, gh BotGitHub, pr ghapi.PR, p *botPlan, s BotSettings) error {
	attempts := s.MaxAttempts
	if attempts <= 0 {
		attempts = 6
	}
	sleep := s.Sleep
	if sleep == nil {
		sleep = ghapi.SleepContext
	}
	logPath, statePath := s.layout().Log(), s.layout().State()
	// The conflicts the last attempt found go to the job log once: each
	// retry re-reads the log and finds them again.
	var conflicts []string
	defer func() { o.Notices = append(o.Notices, conflicts...) }()
	for attempt := 1; ; attempt++ {
		// The branch's head and its log in one request (which also tells
		// CommitFiles the parent's tree).
		trees, err := gh.ReadTrees(ctx, ghapi.TreeRead{Branch: pr.HeadRef, Files: []string{logPath}})
		if err != nil {
			return fmt.Errorf("read the head of %s: %w", pr.HeadRef, err)
		}
		head := trees[0].Commit
		old, err := readRequired(ctx, treeSource{tree: trees[0]}, logPath)
		if err != nil {
			return err
		}
		log := projection.ParseBytes(old)
		var fresh []bot.Intent
		fresh, o.alreadyRecorded, conflicts = unrecorded(log, old, p.Intents)
		fresh, moved, err := stillCovered(ctx, gh, p, fresh, head, s.Settings)
		if err != nil {
			return err
		}
		j, err := judgeIntents(log, fresh, s.now())
		if err != nil {
			return err
		}
		j.refusals = append(append(conflicts, moved...), j.refusals...)
		if len(j.lines) == 0 {
			o.replyAll(ctx, gh, pr.Number, j.refusals)
			return nil
		}
		content := pactfile.AppendLines(bytes.Clone(old), old, j.lines...)
		msg := "pact: " + strings.Join(j.appended, "; ") + "\n\nRecorded by pact-action from a GitHub review or /pact command."
		newHead, err := gh.CommitFiles(ctx, pr.HeadRef, head, map[string][]byte{logPath: content, statePath: j.state}, msg)
		switch {
		case err == nil:
			o.NewHead, o.Appended = newHead, j.appended
			o.replyAll(ctx, gh, pr.Number, j.refusals)
			return nil
		case errors.Is(err, ghapi.ErrNotFastForward) && attempt < attempts:
			delay := time.Duration(100<<attempt)*time.Millisecond + time.Duration(rand.Int64N(int64(200*time.Millisecond)))
			slog.Info("the branch moved while writing; re-reading and retrying", "branch", pr.HeadRef, "attempt", attempt, "delay", delay)
			if err := sleep(ctx, delay); err != nil {
				return err
			}
		case errors.Is(err, ghapi.ErrForbidden) || errors.Is(err, ghapi.ErrNotFound):
			slog.Warn("the token cannot write the branch", "branch", pr.HeadRef, "err", err)
			o.forkNotice(ctx, gh, pr, fresh, bot.WhyForbidden)
			return nil
		default:
			return fmt.Errorf("commit to %s after %d attempt(s): %w", pr.HeadRef, attempt, err)
		}
	}
}

// stillCovered keeps the intents the head still covers: an event from a
// comment is written only while the branch holds the files outside the pact
// directory that it held when the comment was made (pact-only commits since,
// like another review the bot recorded, are fine); otherwise a reply says
// the branch moved.
func stillCovered(ctx context.Context, gh Reader, p *botPlan, intents []bot.Intent, head string, s Settings) ([]bot.Intent, []string, error) {
	var fromComment []string
	for _, in := range intents {
		if in.FromComment {
			fromComment = append(fromComment, in.What)
		}
	}
	if len(fromComment) == 0 || head == p.at {
		return intents, nil, nil
	}
	files, err := gh.CompareFiles(ctx, p.at, head)
	if err != nil && !errors.Is(err, ghapi.ErrNotFound) {
		return nil, nil, fmt.Errorf("compare %s with %s: %w", prose.ShortSHA(p.at), prose.ShortSHA(head), err)
	}
	if s.sameCode(files, err) {
		return intents, nil, nil
	}
	var keep []bot.Intent
	for _, in := range intents {
		if !in.FromComment {
			keep = append(keep, in)
		}
	}
	return keep, []string{bot.BranchMoved(fromComment, p.at, head)}, nil
}

// unrecorded drops the intents the log already holds. An event id the log
// already holds is a re-delivered webhook only when the line there is byte
// for byte the one the bot would write; with other content it is a
// conflict, said as such and never counted as recorded.
func unrecorded(log *projection.Log, raw []byte, intents []bot.Intent) (fresh []bot.Intent, dups int, conflicts []string) {
	lines := pactfile.SplitLines(raw)
	for _, in := range intents {
		at := lineOf(log, in.Draft.EventID)
		if at == 0 {
			fresh = append(fresh, in)
			continue
		}
		line, err := projection.Encode(in.Draft)
		if err == nil && at <= len(lines) && bytes.Equal(lines[at-1], line) {
			slog.Info("already recorded; nothing to append", "event", in.What, "event_id", in.Draft.EventID)
			dups++
			continue
		}
		conflicts = append(conflicts, bot.IDConflict(in.What, in.Draft.EventID, at))
	}
	return fresh, dups, conflicts
}

func (o *BotOutcome) replyAll(ctx context.Context, gh BotGitHub, number int, replies []string) {
	for _, r := range replies {
		o.reply(ctx, gh, number, r)
	}
}

// intentJudgement is what the engine said of the intents against the
// branch's current log.
type intentJudgement struct {
	lines    [][]byte
	appended []string
	refusals []string
	state    []byte
}

// judgeIntents checks each intent against a replay of the branch's current
// log exactly as pactify would.
func judgeIntents(log *projection.Log, intents []bot.Intent, now time.Time) (intentJudgement, error) {
	var j intentJudgement
	res := projection.Replay(log)
	hint, hinted := "", false
	for _, in := range intents {
		line, err := projection.Encode(in.Draft)
		if err != nil {
			return j, err
		}
		rej, err := projection.Propose(log, res, line)
		if err != nil {
			return j, err
		}
		if rej == nil {
			j.lines = append(j.lines, line)
			j.appended = append(j.appended, in.What)
			continue
		}
		if !hinted {
			// Once: it reads the whole log, and is the same for every refusal.
			if future, latest := bot.FutureLines(log, now); len(future) > 0 {
				hint = bot.FutureHint(future, latest)
			}
			hinted = true
		}
		j.refusals = append(j.refusals, bot.EngineRefusal(in.What, rej.Code, rej.Message, hint))
	}
	j.state = projection.RenderBytes(res.State)
	return j, nil
}

// lineOf is the line of the first event with id (0: none).
func lineOf(log *projection.Log, id string) int {
	for i := range log.Events {
		if log.Events[i].EventID == id {
			return log.Events[i].Line
		}
	}
	return 0
}
