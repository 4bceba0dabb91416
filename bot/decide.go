package bot

import (
	"fmt"
	"slices"
	"strings"

	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/config"
	"github.com/pact-action/pact-action/ghevent"
	"github.com/pact-action/pact-action/ghfacts"
	"github.com/pact-action/pact-action/pactfile"
	"github.com/pact-action/pact-action/projection"
)

// Decide is the bot's whole decision on one webhook: which events are
// ignored and why, which rechecks, the seat test, whether a review is
// still its author's standing decision, the refusals of an edited comment
// and of a comment whose head cannot be told, the events to record, the
// replies and the renewal of an accept's coverage. It is pure: it reads
// only f, and where it needs a fact f does not hold yet it says which
// (Decision.Need), so that the caller asks GitHub exactly what this
// webhook needs, in the order it needs it, and calls Decide again with
// the answer:
//
//	for d := bot.Decide(f); d.Need != bot.NeedNothing; d = bot.Decide(f) {
//		gather(d, &f) // one question to GitHub
//	}
//
// Writing the events is the caller's: the engine judges them again
// against the branch's log at write time.
func Decide(f Facts) Decision {
	s, why := triage(f.EventName, f.Event, f.BotLogins)
	if why != "" {
		return Decision{Ignored: why}
	}
	d := Decision{Subject: s}
	pr := f.PullRequest
	switch {
	case pr == nil:
		return d.need(NeedPullRequest)
	case s.Recheck:
		d.Recheck = true
		return d
	case f.Config == nil:
		return d.need(NeedConfig)
	case f.Config.Err != nil:
		if !s.isReview {
			d.Replies = []string{configUnusable(pactfile.ConfigPath, f.Config.Branch, f.Config.Err)}
		}
		d.Err = fmt.Errorf("read %s on the default branch %s: %w", pactfile.ConfigPath, f.Config.Branch, f.Config.Err)
		return d
	case s.isReview:
		return decideReview(f, d)
	}
	return decideComment(f, d)
}

// Facts are what Decide decides on: the webhook payload as ghevent parsed
// it, which only triage reads, and what GitHub says when the run asks, in
// the vocabulary of ghfacts, gathered as Decide needs it (nil or false:
// not asked yet). Everything but the payload is read from GitHub when the
// job runs, since a re-run replays an old payload.
type Facts struct {
	// EventName is the event's name (pull_request_review, issue_comment,
	// pull_request_review_comment, …); Event its payload.
	EventName string
	Event     *ghevent.Event
	// BotLogins are the bot's own accounts: the workflow token's, and the
	// bot-login input's (a GitHub App). Their events never feed back.
	BotLogins []string
	// LogPath is the log's path in the repository, for replies.
	LogPath string

	// PullRequest is the pull request Subject.Number names.
	PullRequest *ghfacts.PullRequest
	// Config is .github/pact.yml, its seat map, at the tip of the
	// repository's default branch, Config.Branch (docs/semantics.md §5):
	// never the head's nor the pull request's base's, so that a pull
	// request cannot grant itself a seat, not even through a base branch
	// its author created; Config.Err says why it is unusable.
	Config *config.File
	// Reviews are the pull request's reviews by id (for the standing
	// decision), and Review GitHub's record of the review Subject.Review
	// names (nil: not among them).
	Reviews map[int64]ghfacts.Review
	Review  *ghfacts.Review
	// Comment is GitHub's record of the comment Subject.Comment names;
	// CommentGone says it no longer exists.
	Comment     *ghfacts.Comment
	CommentGone bool
	// CanWrite is whether Decision.Login has write permission on the
	// repository (the collaborator-permission endpoint).
	CanWrite *bool
	// HeadAtComment is the head of the branch when the comment was made,
	// from GitHub's push history: SHA, or why it cannot be told.
	HeadAtComment *ghfacts.HeadAt
	// Log is the log at the commit Decision.At names.
	Log *LogAt
}

// LogAt is the log at a commit, replayed; State is nil when the commit has
// no log.
type LogAt struct {
	Commit string
	State  *projection.State
}

// Need names the fact Decide needs next.
type Need int

// The facts Decide may need, in the order it needs them.
const (
	NeedNothing       Need = iota // decided
	NeedPullRequest               // Facts.PullRequest
	NeedConfig                    // Facts.Config
	NeedReviews                   // Facts.Reviews and Review
	NeedComment                   // Facts.Comment or CommentGone
	NeedPermission                // Facts.CanWrite, of Decision.Login
	NeedHeadAtComment             // Facts.HeadAtComment
	NeedLog                       // Facts.Log, at Decision.At
)

func (n Need) String() string {
	names := [...]string{"nothing", "the pull request", "the configuration", "the reviews", "the comment", "the permission", "the head at the comment", "the log"}
	if n < 0 || int(n) >= len(names) {
		return fmt.Sprintf("fact %d", int(n))
	}
	return names[n]
}

// Subject is what a webhook asks about, once triage has kept it.
type Subject struct {
	// Number is the pull request.
	Number int
	// Review or Comment is the id of the object the event is about (0 for
	// the other); OnDiff says a comment is a review comment on the diff.
	Review, Comment int64
	OnDiff          bool
	// Recheck: the event changes what backs events already in the log (a
	// dismissed or edited review, an edited or deleted comment), so the
	// head is judged again and nothing is recorded.
	Recheck bool
	// isReview: the subject is a review, else a comment; login and
	// association are the payload's author of it, and a comment's
	// author_association.
	isReview           bool
	login, association string
}

// Decision is what Decide decided, or the fact it needs first.
type Decision struct {
	// Need is the fact to gather before Decide can decide (NeedNothing:
	// this is the decision).
	Need Need
	// Subject is what the webhook asks about (zero when ignored at once).
	Subject Subject
	// At is the commit the decision is judged on: the reviewed commit, or
	// the head of the branch when the comment was made (NeedLog reads the
	// log there). Login is the account that reviewed or commented, as
	// GitHub has it.
	At, Login string

	// Ignored says why the event asks nothing of the pact ("" when it
	// does); Notices are lines for the job log and summary.
	Ignored string
	Notices []string
	// Err fails the run, after the replies.
	Err error

	// Intents are the events to record, Replies the replies to post first.
	Intents []Intent
	Replies []string
	// Status, Recheck: the comment asked for the state table or a fresh
	// check (Recheck also: the event changes what backs the log);
	// Acknowledge: it held a command the bot handled (or refused).
	Status, Recheck, Acknowledge bool
	// Refused counts the commands asking for an event that the pact's
	// state refused (the task did not await review).
	Refused int
	// Renew lists the accepted tasks an approval may renew the coverage
	// of (docs/semantics.md §5): no event is written for them; the caller
	// judges the head again and replies RenewReply.
	Renew []string
	// NotRenewed is the reply when the approval renewed no task's coverage.
	NotRenewed string
}

// Intent is an event the request asks to append. It is not another shape
// of an event: it holds the one the bot would write (projection.Draft, the
// writers' shape, which Log.Append judges and Encode writes), with what
// only the bot needs to write it — the name its replies and commit
// message give it, and whether it came from a comment, which may only be
// written while the branch holds the code the comment was made on.
type Intent struct {
	Draft projection.Draft
	// What names the event for commit messages and replies.
	What string
	// FromComment marks an event recorded from a /pact comment: its
	// payload.commit is the head of the branch when the comment was made,
	// and it may only be written on a commit with the same code.
	FromComment bool
}

func (d Decision) need(n Need) Decision {
	d.Need = n
	return d
}

// ignore is the decision to do nothing, for why.
func (d Decision) ignore(why string) Decision {
	d.Ignored = why
	return d
}

// Reaction is the reaction to a comment the bot acknowledges, once its
// events are written: 😕 when every command that asked for an event was
// refused (recorded counts the events written now or by an earlier
// delivery), else 👍.
func (d Decision) Reaction(recorded int) string {
	if recorded == 0 && len(d.Intents)+d.Refused > 0 {
		return "confused"
	}
	return "+1"
}

// RenewReply answers an approval that may renew the coverage of accepted
// tasks (Renew), once the head is judged: renewed maps a task to the
// review whose approval renewed it there.
func (d Decision) RenewReply(renewed map[string]int64) string {
	var tasks []string
	for _, id := range d.Renew {
		if renewed[id] == d.Subject.Review {
			tasks = append(tasks, id)
		}
	}
	if len(tasks) == 0 {
		return d.NotRenewed
	}
	return renewedReply(d.Login, tasks, d.At)
}

// triage reduces a webhook to its subject, or says why it is ignored.
func triage(name string, w *ghevent.Event, botLogins []string) (Subject, string) {
	var s Subject
	if checks.IsBotLogin(w.Sender.Login, botLogins) {
		return s, "the event was caused by the bot's own account"
	}
	switch name {
	case "pull_request_review":
		if w.Review == nil || w.PullRequest == nil {
			return s, "the review payload has no review"
		}
		s.Number = w.PullRequest.Number
		var why string
		if s.Recheck, why = triageAction("review", w.Action, "submitted", "dismissed", "edited"); s.Recheck || why != "" {
			return s, why
		}
		s.isReview, s.Review, s.login = true, w.Review.ID, w.Review.User.Login
		return s, ""
	case "issue_comment", "pull_request_review_comment":
		if w.Comment == nil {
			return s, "the comment payload has no comment"
		}
		if name == "issue_comment" {
			if !w.OnPullRequest() {
				return s, "the comment is on an issue, not a pull request"
			}
			s.Number = w.Issue.Number
		} else {
			if w.PullRequest == nil {
				return s, "the review comment payload has no pull request"
			}
			s.Number = w.PullRequest.Number
		}
		if strings.Contains(w.Comment.Body, ReplyMarker) || checks.IsBotLogin(w.Comment.User.Login, botLogins) {
			return s, "the comment is the bot's own"
		}
		// The check re-reads every comment that backs an event.
		var why string
		if s.Recheck, why = triageAction("comment", w.Action, "created", "edited", "deleted"); s.Recheck || why != "" {
			return s, why
		}
		s.Comment, s.OnDiff = w.Comment.ID, name == "pull_request_review_comment"
		s.login, s.association = w.Comment.User.Login, w.Comment.AuthorAssociation
		return s, ""
	}
	return s, "bot mode does nothing on " + name + " events"
}

// triageAction says what the action of an event about an object of kind
// asks: to record (the record action), a recheck (one of recheck), or
// nothing, and why.
func triageAction(kind, action, record string, recheck ...string) (bool, string) {
	switch {
	case action == record:
		return false, ""
	case slices.Contains(recheck, action):
		return true, ""
	}
	return false, kind + " " + action + " events record nothing"
}

// decideReview decides on a submitted review, if it is still its author's
// standing decision, against the log at the commit it reviewed.
func decideReview(f Facts, d Decision) Decision {
	// The seat test, on the reviewer as GitHub has them once the reviews
	// are read (a re-run replays an old payload), as the payload has them
	// before, so that people reviewing for other reasons cost no request.
	d.Login = d.Subject.login
	if f.Review != nil {
		d.Login = f.Review.AuthorLogin
	}
	if len(f.Config.Config.SeatsOf(d.Login)) == 0 {
		return d.ignore("the reviewer holds no seat")
	}
	if f.Reviews == nil {
		return d.need(NeedReviews)
	}
	r := f.Review
	why := checks.StandingDecision(f.Reviews, d.Subject.Review)
	if why == "" && (r == nil || r.ID != d.Subject.Review) {
		why = checks.StandingDecision(nil, d.Subject.Review) // not listed
	}
	if why != "" {
		d = d.ignore(why + ", so it records nothing")
		d.Notices = append(d.Notices, d.Ignored)
		return d
	}
	d.At = r.CommitID
	if f.Log == nil || f.Log.Commit != d.At {
		return d.need(NeedLog)
	}
	if f.Log.State == nil {
		return d.ignore("the reviewed commit has no " + f.LogPath)
	}
	req := request{Repo: f.Event.Repository.FullName, Login: d.Login, HeadBranch: f.PullRequest.HeadRef, HeadSHA: r.CommitID, Review: r}
	return planReview(d, req, f.Config.Config, f.Log.State)
}

// readOnlyAssociations can never carry write permission, so they may refuse
// at once without asking the permission endpoint (never grant on their own).
var readOnlyAssociations = map[string]bool{"NONE": true, "FIRST_TIMER": true, "FIRST_TIME_CONTRIBUTOR": true, "MANNEQUIN": true}

// decideComment decides on the /pact commands of a comment as GitHub has
// it now, against the log at the head of the branch when it was made.
func decideComment(f Facts, d Decision) Decision {
	switch {
	case f.CommentGone:
		return d.ignore("the comment no longer exists")
	case f.Comment == nil:
		return d.need(NeedComment)
	}
	c := *f.Comment
	c.OnDiff = d.Subject.OnDiff
	cmds := ParseCommands(c.Body)
	if len(cmds) == 0 {
		return d.ignore("the comment holds no /pact command")
	}
	d.Login = c.AuthorLogin
	canWrite := false
	if needsWrite(cmds) && !readOnlyAssociations[strings.ToUpper(d.Subject.association)] {
		if f.CanWrite == nil {
			return d.need(NeedPermission)
		}
		canWrite = *f.CanWrite
	}
	recording := canWrite && records(cmds)
	pr := f.PullRequest
	at := pr.HeadSHA
	switch {
	case recording && c.Edited():
		d.Replies = []string{commentEdited(d.Login)}
		return d
	case recording && !pr.Fork:
		switch {
		case f.HeadAtComment == nil:
			return d.need(NeedHeadAtComment)
		case f.HeadAtComment.SHA == "":
			d.Replies = []string{headUnknown(f.HeadAtComment.Why)}
			return d
		}
		at = f.HeadAtComment.SHA
	}
	d.At = at
	if f.Log == nil || f.Log.Commit != d.At {
		return d.need(NeedLog)
	}
	if f.Log.State == nil {
		d = d.ignore("the pull request's head has no " + f.LogPath)
		d.Replies = []string{noPact(f.LogPath)}
		return d
	}
	req := request{Repo: f.Event.Repository.FullName, Login: d.Login, HeadBranch: pr.HeadRef, HeadSHA: d.At, Comment: &c, CanWrite: canWrite}
	return planComment(d, req, f.Config.Config, f.Log.State, cmds)
}

func needsWrite(cmds []Command) bool {
	for _, c := range cmds {
		switch c.Verb {
		case VerbAccept, VerbChanges, verbRecheck:
			return true
		}
	}
	return false
}

func records(cmds []Command) bool {
	for _, c := range cmds {
		if c.Verb == VerbAccept || c.Verb == VerbChanges {
			return true
		}
	}
	return false
}
