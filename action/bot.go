package action

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"runtime"
	"strings"
	"time"

	"github.com/pact-action/pact-action/bot"
	"github.com/pact-action/pact-action/ghapi"
	"github.com/pact-action/pact-action/ghevent"
	"github.com/pact-action/pact-action/ghfacts"
	"github.com/pact-action/pact-action/pactfile"
	"github.com/pact-action/pact-action/projection"
)

// botGitHub is what bot mode needs from GitHub beyond check mode: the
// bot's writes and replies, and the branch updater's (update.go).
type botGitHub interface {
	checkGitHub
	CommitFiles(ctx context.Context, branch, parentSHA string, files map[string]ghapi.File, message string) (string, error)
	Comment(ctx context.Context, issueNumber int, body string) (int64, error)
	React(ctx context.Context, kind ghapi.CommentKind, commentID int64, content string) error
	Permission(ctx context.Context, login string) (string, error)
	CheckRunVerdict(ctx context.Context, headSHA, name string) (bool, error)
	OpenPullRequestsMergeable(ctx context.Context) (*ghapi.OpenPRs, error)
	CommitTree(ctx context.Context, branch string, parents []string, baseTree string, changes []ghapi.TreeChange, message string) (string, error)
	HasComment(ctx context.Context, number int, marker string, authors []string) (bool, error)
}

// writeAttempts bounds the bot's re-read-and-retry loop on a
// non-fast-forward ref update; the run's sleep waits between attempts.
const writeAttempts = 6

// botOutcome is what a bot-mode run did.
type botOutcome struct {
	// Ignored says why the event asked nothing of the pact ("" when it did).
	Ignored  string
	Appended []string
	Replies  []string
	// NewHead is the commit the bot wrote (or "" when it wrote nothing);
	// Check is the check run it then posted on it (or on the head, for
	// /pact recheck and for events that change what backs the log).
	NewHead string
	Check   *outcome
	// Notices are lines for the job log and summary (e.g. why a fork could
	// not be written, or a conflicting event id).
	Notices []string
	// alreadyRecorded counts intents a previous delivery already wrote;
	// recordedOn is the head holding them when nothing else was written.
	alreadyRecorded int
	recordedOn      string
}

// botMode turns a review or /pact comment into pact events on the PR's branch,
// replies, and re-posts the check on the new head. bot.Decide makes the
// whole decision; botMode asks GitHub each fact it needs when it needs it —
// the pull request, the configuration on the default branch
// (trustedconfig.go, read once for the decision and the check after it), the
// reviews or the comment, the commenter's permission, the head when the
// comment was made, the log at the reviewed commit — never taking them
// from the webhook payload, which a re-run replays unchanged; then it
// writes, retries and replies.
func botMode(ctx context.Context, gh botGitHub, ev *ghevent.Event, eventName string, r *eventRun) (*botOutcome, error) {
	out := &botOutcome{}
	g := &botFacts{gh: gh, r: r, f: bot.Facts{EventName: eventName, Event: ev, BotLogins: botLogins(r.BotLogin), LogPath: r.layout().Log()}}
	d, err := g.decide(ctx)
	out.Ignored, out.Notices = d.Ignored, append(out.Notices, d.Notices...)
	if err != nil {
		return out, err
	}
	pr := g.pr
	if pr == nil {
		return out, nil // ignored before anything was asked
	}
	out.replyAll(ctx, gh, pr.Number, d.Replies)
	if d.Err != nil {
		return out, d.Err
	}
	target := target{HeadSHA: pr.HeadSHA, Known: []ghfacts.PullRequest{*pr}}
	if len(d.Intents) > 0 {
		if pr.Fork {
			out.forkNotice(ctx, gh, *pr, d.Intents, bot.WhyFork)
		} else {
			if err := out.write(ctx, gh, *pr, d, r); err != nil {
				return out, err
			}
			// The reviews and comments read for the decision are not
			// trusted after the write: committing and retrying take time
			// in which a review may be dismissed or a comment edited.
			r.facts.forget()
			// The branch's log the write held (up to 100 MB) and its
			// replay are garbage now, and the check reads the new log
			// next, in one allocation the collector cannot come before:
			// collected first, they do not stand under it
			// (docs/semantics.md §7).
			runtime.GC()
		}
	}
	// What follows (the status reply, the check) describes the branch as
	// this run left it.
	// A delivery that finds its events already written checks the head
	// holding them when no verdict stands there: the delivery that wrote
	// them may have stopped before its check (killed, or its budget
	// spent), and a commit pushed with the workflow's token starts no
	// workflow, so no other run would.
	if h := cmp.Or(out.NewHead, out.recordedOn); h != "" {
		target.HeadSHA = h
		target.Known[0].HeadSHA = h
	}
	if d.Status {
		j, err := judge(ctx, gh, target, r, ghapi.CreatedRun{})
		if err != nil {
			return out, err
		}
		out.reply(ctx, gh, pr.Number, bot.StatusReply(j.State, pr.HeadRef, j.Findings))
	}
	if d.Acknowledge {
		if err := gh.React(ctx, commentKind(d.Subject), d.Subject.Comment, d.Reaction(len(out.Appended)+out.alreadyRecorded)); err != nil {
			slog.Warn("could not react to the comment", "comment", d.Subject.Comment, "err", err)
		}
	}
	if out.NewHead != "" || out.recordedOn != "" || d.Recheck {
		if out.Check, err = check(ctx, gh, target, r); err != nil {
			return out, err
		}
	}
	if len(d.Renew) > 0 {
		var renewed map[string]int64
		if out.Check != nil && out.Check.judgement != nil {
			renewed = out.Check.Renewed
		}
		out.reply(ctx, gh, pr.Number, d.RenewReply(renewed))
	}
	return out, nil
}

// botFacts answers the facts bot.Decide needs, one at a time: the pull
// request, reviews and comment from the run's one source (facts.go), which
// the check after the decision asks too.
type botFacts struct {
	gh botGitHub
	r  *eventRun
	f  bot.Facts
	// pr is the pull request as GitHub has it (nil until asked).
	pr *ghfacts.PullRequest
}

// decide asks bot.Decide until it has decided, gathering each fact it
// needs in turn. Decide never asks for a fact twice: each answer fills
// the fact it asked for, so there are at most as many rounds as facts.
func (g *botFacts) decide(ctx context.Context) (bot.Decision, error) {
	for range bot.NeedLog + 1 {
		d := bot.Decide(g.f)
		if d.Need == bot.NeedNothing {
			return d, nil
		}
		if err := g.gather(ctx, d); err != nil {
			return bot.Decision{}, err
		}
	}
	return bot.Decision{}, errors.New("internal error: bot.Decide asked for more facts than there are")
}

// gather asks GitHub the fact d needs.
func (g *botFacts) gather(ctx context.Context, d bot.Decision) error {
	f, gh := &g.f, g.gh
	switch d.Need {
	case bot.NeedPullRequest:
		pr, err := g.r.facts.PR(ctx, gh, d.Subject.Number)
		if err != nil {
			return fmt.Errorf("read pull request #%d: %w", d.Subject.Number, err)
		}
		g.pr, f.PullRequest = pr, pr
	case bot.NeedConfig:
		cfg, err := g.r.trustedConfig(ctx, gh)
		if err != nil {
			return err
		}
		f.Config = cfg
	case bot.NeedReviews:
		var err error
		if f.Reviews, err = g.r.facts.Reviews(ctx, gh, g.pr.Number); err != nil {
			return err
		}
		if r, ok := f.Reviews[d.Subject.Review]; ok {
			f.Review = &r
		}
	case bot.NeedComment:
		c, err := g.r.facts.Comment(ctx, gh, d.Subject.Comment, commentKind(d.Subject))
		if err != nil {
			return err
		}
		if !c.Found {
			f.CommentGone = true
			return nil
		}
		f.Comment = &c
	case bot.NeedPermission:
		perm, err := gh.Permission(ctx, d.Login)
		if err != nil {
			return fmt.Errorf("ask GitHub for %s's permission: %w", d.Login, err)
		}
		can := perm == ghapi.PermissionAdmin || perm == ghapi.PermissionMaintain || perm == ghapi.PermissionWrite
		f.CanWrite = &can
	case bot.NeedHeadAtComment:
		head, err := headAtComment(ctx, gh, *g.pr, f.Comment.CreatedAt)
		if err != nil {
			return err
		}
		f.HeadAtComment = &head
	case bot.NeedLog:
		st, ok, err := stateAt(ctx, gh, d.At, g.r.settings)
		if err != nil {
			return err
		}
		f.Log = &bot.LogAt{Commit: d.At}
		if ok {
			f.Log.State = st
		}
	default:
		return fmt.Errorf("internal error: bot.Decide needs %s, which bot mode cannot gather", d.Need)
	}
	return nil
}

// commentKind is the id space of the comment s names.
func commentKind(s bot.Subject) ghapi.CommentKind {
	if s.OnDiff {
		return ghapi.ReviewComment
	}
	return ghapi.IssueComment
}

// stateAt replays the log at commit sha as it comes, holding none of it
// (docs/semantics.md §7); ok is false when it has none.
func stateAt(ctx context.Context, gh fileReader, sha string, s settings) (*projection.State, bool, error) {
	var res *projection.Result
	found, err := apiSource{gh: gh, ref: sha}.stream(ctx, s.layout().Log(), func(r io.Reader) error {
		var err error
		_, res, err = projection.Read(r, projection.ReadOptions{})
		return err
	})
	if err != nil || !found {
		return nil, false, err
	}
	return res.State, true, nil
}

// reply posts body as a comment; one that cannot be posted goes to the job
// log and summary instead. Replies lists only what was posted.
func (o *botOutcome) reply(ctx context.Context, gh botGitHub, number int, body string) {
	if err := o.post(ctx, gh, number, body); err != nil {
		o.Notices = append(o.Notices, fmt.Sprintf("could not reply on #%d (%v); the reply was: %s", number, err, body))
	}
}

func (o *botOutcome) post(ctx context.Context, gh botGitHub, number int, body string) error {
	if err := postReply(ctx, gh, number, body); err != nil {
		return err
	}
	o.Replies = append(o.Replies, body)
	return nil
}

// postReply posts body as the bot's comment on number, marked as the
// bot's own so that it never acts on it.
func postReply(ctx context.Context, gh botGitHub, number int, body string) error {
	if _, err := gh.Comment(ctx, number, body+"\n\n"+bot.ReplyMarker); err != nil {
		slog.Warn("could not post a reply", "pr", number, "err", err)
		return err
	}
	return nil
}

// forkNotice explains that the PR's branch cannot be written with the
// workflow's token, with the exact pactify commands to run instead. It
// always goes to the job log and summary, and as a reply when it can.
func (o *botOutcome) forkNotice(ctx context.Context, gh botGitHub, pr ghfacts.PullRequest, intents []bot.Intent, why string) {
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
func (o *botOutcome) write(ctx context.Context, gh botGitHub, pr ghfacts.PullRequest, p bot.Decision, r *eventRun) error {
	logPath, statePath := r.layout().Log(), r.layout().State()
	cfg, err := r.trustedConfig(ctx, gh)
	if err != nil {
		return err
	}
	code := newSameness(gh, r.settings, cfg.Config.Provenance.Stale, cfg.Commit) // config.ParseFile gives the default's to a file it cannot use
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
		// Read without its events, the lines to write reserved
		// (docs/semantics.md §7): they are judged exactly so while they
		// sort after every event; one dated before later events is judged
		// by replaying the longer log, every event held, which only a log
		// of at most maxReorderBytes may ask.
		log, res := projection.ReadBytes(old, projection.ReadOptions{Reserve: eventIDs(p.Intents)})
		var fresh []bot.Intent
		fresh, o.alreadyRecorded, conflicts = unrecorded(log, old, p.Intents)
		fresh, moved, err := stillCovered(ctx, code, p, fresh, head)
		if err != nil {
			return err
		}
		var j appendedIntents
		switch {
		case !sortsBefore(fresh, log.LatestTS()):
			j, err = appendIntents(log, res, old, fresh, r.now())
		case !reorderable(int64(len(old))):
			hint := ""
			if future, latest := bot.FutureLines(old, r.now()); len(future) > 0 {
				hint = bot.FutureHint(future, latest)
			}
			j.refusals = []string{bot.TooLargeToReorder(intentNames(fresh), int64(len(old)), maxReorderBytes, hint)}
		default:
			events, res := projection.ReadEvents(old)
			j, err = appendIntents(events, res, old, fresh, r.now())
		}
		if errors.Is(err, projection.ErrUnterminated) {
			// A fragment a cut-off write left: appending would seal it
			// into an event line; refuse as pactify does.
			o.alreadyRecorded, conflicts = 0, nil
			o.reply(ctx, gh, pr.Number, bot.LogCutOff(logPath, pr.HeadRef, intentNames(p.Intents)))
			return nil
		}
		if err != nil {
			return err
		}
		j.refusals = append(append(conflicts, moved...), j.refusals...)
		if len(j.appended) == 0 {
			if o.alreadyRecorded > 0 {
				done, err := gh.CheckRunVerdict(ctx, head, r.CheckName)
				if err != nil {
					return err
				}
				if !done {
					o.recordedOn = head
				}
			}
			o.replyAll(ctx, gh, pr.Number, j.refusals)
			return nil
		}
		msg := "pact: " + strings.Join(j.appended, "; ") + "\n\nRecorded by pact-action from a GitHub review or /pact command."
		newHead, err := gh.CommitFiles(ctx, pr.HeadRef, head, map[string]ghapi.File{logPath: j.log, statePath: {j.state}}, msg)
		switch {
		case err == nil:
			o.NewHead, o.Appended = newHead, j.appended
			o.replyAll(ctx, gh, pr.Number, j.refusals)
			return nil
		case errors.Is(err, ghapi.ErrNotFastForward) && attempt < writeAttempts:
			delay := time.Duration(100<<attempt)*time.Millisecond + time.Duration(rand.Int64N(int64(200*time.Millisecond)))
			slog.Info("the branch moved while writing; re-reading and retrying", "branch", pr.HeadRef, "attempt", attempt, "delay", delay)
			if err := r.sleep(ctx, delay); err != nil {
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

// maxReorderBytes bounds the log the bot replays with every event held, to
// judge an event dated before later ones (projection.EventLog.Append
// replays the longer log, listing every rejection): that holds several
// times the log's size, where a log read without its events holds a small
// part of it (docs/semantics.md §7; docs/performance.md has the figures).
// A review or comment on a larger log is refused; made again, it is
// recorded at its own time.
const maxReorderBytes = 16 << 20

// reorderable reports whether the bot replays a log of size bytes with its
// events to judge an event dated before later ones.
func reorderable(size int64) bool { return size <= maxReorderBytes }

// eventIDs are the intents' event ids.
func eventIDs(intents []bot.Intent) []string {
	ids := make([]string, len(intents))
	for i, in := range intents {
		ids[i] = in.Draft.EventID
	}
	return ids
}

// sortsBefore reports whether an intent, written in order after the log's
// events (the latest dated latest), is dated before one of them.
func sortsBefore(intents []bot.Intent, latest time.Time) bool {
	for _, in := range intents {
		if in.Draft.TS.Before(latest) {
			return true
		}
		latest = in.Draft.TS
	}
	return false
}

// intentNames is what each intent records, as replies name it.
func intentNames(intents []bot.Intent) []string {
	names := make([]string, len(intents))
	for i, in := range intents {
		names[i] = in.What
	}
	return names
}

// stillCovered keeps the intents the head still covers: an event from a
// comment is written only while the branch holds the code it held when the
// comment was made (codeIdentity: pact-only commits since, like another
// review the bot recorded, are fine; a force-push back to an older commit
// is not); otherwise a reply says the branch moved.
func stillCovered(ctx context.Context, code *codeIdentity, p bot.Decision, intents []bot.Intent, head string) ([]bot.Intent, []string, error) {
	var fromComment []string
	for _, in := range intents {
		if in.FromComment {
			fromComment = append(fromComment, in.What)
		}
	}
	if len(fromComment) == 0 {
		return intents, nil, nil
	}
	same, err := code.same(ctx, p.At, head)
	if err != nil {
		return nil, nil, err
	}
	if same {
		return intents, nil, nil
	}
	var keep []bot.Intent
	for _, in := range intents {
		if !in.FromComment {
			keep = append(keep, in)
		}
	}
	return keep, []string{bot.BranchMoved(fromComment, p.At, head)}, nil
}

// unrecorded drops the intents the log already holds. An event id the log
// already holds is a re-delivered webhook only when the line there is byte
// for byte the one the bot would write; with other content it is a
// conflict, said as such and never counted as recorded.
func unrecorded(log *projection.Log, raw []byte, intents []bot.Intent) (fresh []bot.Intent, dups int, conflicts []string) {
	for _, in := range intents {
		at := log.LineOf(in.Draft.EventID)
		if at == 0 {
			fresh = append(fresh, in)
			continue
		}
		line, err := projection.Encode(in.Draft)
		if got, ok := pactfile.Line(raw, at); err == nil && ok && bytes.Equal(got, line) {
			slog.Info("already recorded; nothing to append", "event", in.What, "event_id", in.Draft.EventID)
			dups++
			continue
		}
		conflicts = append(conflicts, bot.IDConflict(in.What, in.Draft.EventID, at))
	}
	return fresh, dups, conflicts
}

func (o *botOutcome) replyAll(ctx context.Context, gh botGitHub, number int, replies []string) {
	for _, r := range replies {
		o.reply(ctx, gh, number, r)
	}
}

// appendedIntents is what the engine said of the intents against the
// branch's current log: the new log (the old one and the lines after it,
// never joined: ghapi.File) and STATE.yml to commit when it accepted any
// (appended names them), and a reply for each it refused.
type appendedIntents struct {
	appended []string
	refusals []string
	log      ghapi.File
	state    []byte
}

// appender is a log the bot appends to: read without its events, the
// intents' event_ids reserved (projection.Log), or with them
// (projection.EventLog), to judge an intent dated before later events.
type appender interface {
	Append(res *projection.Result, end []byte, stamp func(*projection.Draft, time.Time), drafts ...projection.Draft) (*projection.Appended, error)
}

// appendIntents writes the intents to the branch's log old (replayed as log
// and res) by the routine pactify writes by (projection.Log.Append: judged
// exactly as pactify would judge them; a log whose last line is cut off is
// ErrUnterminated), as the bytes of one commit.
func appendIntents(log appender, res *projection.Result, old []byte, intents []bot.Intent, now time.Time) (appendedIntents, error) {
	var j appendedIntents
	drafts := make([]projection.Draft, len(intents))
	for i, in := range intents {
		drafts[i] = in.Draft
	}
	a, err := log.Append(res, old, nil, drafts...)
	if err != nil {
		return j, err
	}
	hint, hinted := "", false
	for i, in := range intents {
		rej := a.Refused[i]
		if rej == nil {
			j.appended = append(j.appended, in.What)
			continue
		}
		if !hinted {
			// Once: it reads the whole log, and is the same for every
			// refusal (the events written before it are the bot's own,
			// dated when they were given).
			if future, latest := bot.FutureLines(old, now); len(future) > 0 {
				hint = bot.FutureHint(future, latest)
			}
			hinted = true
		}
		j.refusals = append(j.refusals, bot.EngineRefusal(in.What, rej.Code, rej.Message, hint))
	}
	if len(a.Lines) > 0 {
		j.log = ghapi.File{old, a.Tail}
		j.state = projection.RenderBytes(a.State)
	}
	return j, nil
}
