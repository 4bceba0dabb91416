package checks

import (
	"fmt"
	"iter"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/pact-action/pact-action/config"
	"github.com/pact-action/pact-action/ghfacts"
	"github.com/pact-action/pact-action/internal/prose"
	"github.com/pact-action/pact-action/pactfile"
	"github.com/pact-action/pact-action/projection"
)

// Provenance judgement of pull-request mode (docs/semantics.md §5 and the codes
// provenance.unverified and provenance.stale of §6). The facts come from
// GitHub and are gathered by the caller (action/provenance.go) into the
// types of facts.go; this file only weighs them, so every rule can be
// tested without a network.
//
// An event a pull request adds is verified when either
//
//	(a) the commit that added it is the pact bot's and its payload.github
//	    names a review or /pact comment of this pull request, made by an
//	    account holding the event's seat (and not the task owner's seat),
//	    that says what the event says; or
//	(b) the commit that added it is authored (GitHub's account link, not
//	    the free-text git name) by an account holding the event's seat, and,
//	    under require, carries a signature GitHub verified for that same
//	    account (or for GitHub itself, which signs web and API commits only
//	    for the signed-in author).
//
// Anything else is provenance.unverified. An accept the pull request adds
// goes stale (provenance.stale) under the tree policy when files outside the
// pact directory changed between the commit it was given on and the head,
// and under push when any commit came after that one other than the commit
// that recorded the accept.

// webFlowLogin is the account GitHub commits and signs with for commits made
// in its web interface (or through its API) on behalf of the signed-in
// user; such a commit's author is that user.
const webFlowLogin = "web-flow"

// DefaultBotLogin is the account of the workflow token, which the bot
// commits as.
const DefaultBotLogin = "github-actions[bot]"

// ProvenanceInput is everything the provenance judgement weighs.
type ProvenanceInput struct {
	LogPath string
	// ConfigBranch names the branch the configuration was read from: the
	// repository's default branch (docs/semantics.md §5).
	ConfigBranch string
	// Config is .github/pact.yml of that branch (nil: the default).
	Config *config.Config
	// BotLogins are the accounts the pact bot commits as.
	BotLogins []string
	// Branches are the pull request's head branches; PRNumber the pull
	// request the reviews and comments must belong to.
	Branches []string
	PRNumber int
	// State is the replay of the head's log; ShippedAtBase the features
	// on Branches the merge base had shipped (ShippedAtBase), which the
	// pull request does not ship.
	State         *projection.State
	ShippedAtBase map[string]bool
	// Events yields the events the pull request adds, in file order, each
	// once; nothing is kept of one after the next (docs/semantics.md §7).
	Events iter.Seq[AddedEvent]
	// Reviews are the pull request's reviews, keyed by id (every review
	// GitHub lists, so the standing decision of each account can be told);
	// Comments are keyed by the ids the events name. An id absent from a
	// map does not exist on GitHub or was not fetched.
	Reviews  map[int64]ghfacts.Review
	Comments map[int64]ghfacts.Comment
	// CommentCommands are, by comment id, the /pact commands of each
	// comment's current body that record an event, read with the bot's
	// parser (which this package does not import); CommentHeads, the
	// commit the pull request's head branch pointed at when each was made.
	CommentCommands map[int64][]CommentCommand
	CommentHeads    map[int64]ghfacts.HeadAt
	// Awaiting lists, by commit, the tasks awaiting review in the log
	// there, for the commits reviews were given on and the heads when
	// comments were made: a review or comment can only have accepted (or
	// sent back) those, which keeps one approval from being reused for a
	// task checkpointed after it. A commit absent could not be read, and
	// nothing given on it is verified.
	Awaiting map[string][]string
	// Unchanged says, for a pair of commits, whether the files outside the
	// pact directory are the same in both; a pair absent was not compared.
	Unchanged map[Span]bool
	// Now is the time of the judgement: an event more than a day ahead of
	// it and of its commit is provenance.future_ts.
	Now time.Time
	// Stale holds the coverage facts of each accept, by its line: the
	// accepts the pull request adds, and those of the features it ships.
	Stale map[int]StaleFacts
	// HeadCode says which commits hold the head's files outside the pact
	// directory (accept anchors and reviewed commits; a commit absent holds
	// other code or was not asked).
	HeadCode map[string]bool
}

// provenanceResult is the judgement.
type provenanceResult struct {
	Findings []Finding
	// NotAccepted names the accepted tasks that must count as open for
	// Rule 2 (require only), with the reason.
	NotAccepted map[string]string
	// Evidence says, for the first MaxListed verified lines, what proved
	// each: a line per event would hold more than the log
	// (docs/semantics.md §7).
	Evidence map[int]string
	// Renewed names the accepted tasks whose accepts no longer cover the
	// head but a fresh review does, with that review's id.
	Renewed map[string]int64
}

// IsBotLogin reports whether login is one of the bot accounts (GitHub
// logins compare case-insensitively).
func IsBotLogin(login string, bots []string) bool {
	return login != "" && slices.ContainsFunc(bots, func(b string) bool { return strings.EqualFold(b, login) })
}

// AcceptAnchor is the commit an accept (or changes_requested) was given on:
// payload.commit, else the commit of the review it names, else the parent
// of the commit that introduced its line (introParent; docs/semantics.md §5).
func AcceptAnchor(ev *projection.Event, reviews map[int64]ghfacts.Review, introParent string) string {
	if ev.Payload.Commit != "" {
		return ev.Payload.Commit
	}
	if g := ev.Payload.GitHub; g != nil && g.ReviewID != 0 {
		if r, ok := reviews[g.ReviewID]; ok && r.Found {
			return r.CommitID
		}
	}
	return introParent
}

// FutureSlack is how far an event's ts may be ahead of the commit that
// added it, or of now, before it counts as stamped in the future (clocks
// disagree; a day does not).
const FutureSlack = 24 * time.Hour

// judgeProvenance judges the events a pull request adds under the repository's
// provenance policy.
func judgeProvenance(in ProvenanceInput) provenanceResult {
	res := provenanceResult{NotAccepted: map[string]string{}, Evidence: map[int]string{}, Renewed: map[string]int64{}}
	cfg := in.Config
	if cfg == nil {
		cfg = config.Default()
	}
	mode := cfg.Provenance.Mode
	if mode == config.ModeOff {
		return res
	}
	if len(in.BotLogins) == 0 {
		in.BotLogins = []string{DefaultBotLogin}
	}
	j := judge{in: in, cfg: cfg, require: mode == config.ModeRequire}
	// A repository that maps no account to any seat has not set provenance
	// up: under warn its unverified events make one warning rather than one
	// per line (under require each still fails the check on its line).
	unconfigured := !j.require && !anySeatMapped(cfg)
	var unverifiedLines []int
	var found listing
	// The accepts the pull request adds, by line: the merge base's are
	// judged apart (baseCoverage).
	addedAccepts := map[int]bool{}
	if in.Events == nil {
		in.Events = func(func(AddedEvent) bool) {}
	}
	for ae := range in.Events {
		ev := ae.Event
		if ev == nil {
			continue
		}
		if ev.Type == projection.TypeAccept {
			addedAccepts[ev.Line] = true
		}
		evidence, why := j.verify(ae)
		switch {
		case why == "" && len(res.Evidence) < MaxListed:
			res.Evidence[ev.Line] = evidence
		case why == "":
		case unconfigured:
			unverifiedLines = append(unverifiedLines, ev.Line)
		default:
			found.add(j.finding(CodeProvenanceUnverified, ev, fmt.Sprintf("%s is not proven to come from seat %s: %s.", describeEvent(ev), ev.AgentID, why)))
			if t := j.appliedAccept(ev); t != nil && j.require {
				res.NotAccepted[t.ID] = fmt.Sprintf("its accept on line %d is not proven to come from seat %s", ev.Line, t.Reviewer)
			}
		}
		if f, ok := j.future(ae); ok {
			found.add(f)
		}
		t := j.appliedAccept(ev)
		if t == nil {
			continue
		}
		msg, reason := j.cover(t, &res)
		if msg == "" {
			continue
		}
		f := j.finding(CodeProvenanceStale, ev, fmt.Sprintf("the accept of %s on line %d is stale: %s.", ev.TaskID, ev.Line, msg))
		f.Hint = freshReviewHint(t, j.cfg.LoginsOf(t.Reviewer))
		found.add(f)
		if _, already := res.NotAccepted[t.ID]; j.require && !already {
			res.NotAccepted[t.ID] = reason
		}
	}
	j.baseCoverage(addedAccepts, &res, &found)
	res.Findings = found.fs
	if len(unverifiedLines) > 0 {
		f := newFinding(CodeProvenanceUnverified, in.LogPath, unverifiedLines[0], fmt.Sprintf(
			"none of the %s this pull request adds (%s) can be verified: %s maps no GitHub account to any seat, so no commit, review or comment can be tied to a seat",
			prose.Plural(len(unverifiedLines), "event"), prose.LineSpan(unverifiedLines), j.configWhere()))
		f.Severity = SeverityWarning
		f.Hint = "Map each seat to the GitHub accounts that act for it under seats: in " + pactfile.ConfigPath + " on the default branch, or set provenance.mode: off to stop checking."
		res.Findings = append([]Finding{f}, res.Findings...)
	}
	return res
}

func anySeatMapped(cfg *config.Config) bool {
	for _, logins := range cfg.Seats {
		if len(logins) > 0 {
			return true
		}
	}
	return false
}

type judge struct {
	in      ProvenanceInput
	cfg     *config.Config
	require bool
}

func (j judge) finding(code projection.Code, ev *projection.Event, msg string) Finding {
	f := newFinding(code, j.in.LogPath, ev.Line, msg)
	f.EventID, f.TaskID, f.Feature = ev.EventID, ev.TaskID, ev.Feature
	if !j.require {
		f.Severity = SeverityWarning
	}
	return f
}

// appliedAccept returns the task ev accepted, when ev is the accept the
// replay applied.
func (j judge) appliedAccept(ev *projection.Event) *projection.Task {
	if ev.Type != projection.TypeAccept || j.in.State == nil {
		return nil
	}
	t := j.in.State.Tasks[ev.TaskID]
	if t == nil || t.Status != projection.StatusAccepted || t.AcceptLine != ev.Line {
		return nil
	}
	return t
}

// future reports an event stamped more than a day ahead of the commit that
// added it and of the time of the judgement: it would sort after everything
// recorded later at its real time, so every review or comment the bot
// records from then on would replay before it. An event stamped after its
// commit but no longer in the future harms nothing and is not reported.
func (j judge) future(ae AddedEvent) (Finding, bool) {
	ev, c := ae.Event, ae.Commit
	if c == nil || c.CommitterDate.IsZero() || ev.TS.IsZero() {
		return Finding{}, false
	}
	ref := c.CommitterDate
	if j.in.Now.After(ref) {
		ref = j.in.Now
	}
	if ev.TS.Sub(ref) <= FutureSlack {
		return Finding{}, false
	}
	return j.finding(CodeProvenanceFutureTS, ev, fmt.Sprintf("%s is stamped %s, %s ahead of commit %s that added it and of this check (%s): an event carries the time it happened, and one stamped in the future makes every event recorded later at its real time sort before it",
		describeEvent(ev), ev.TSRaw, roundDuration(ev.TS.Sub(ref)), prose.ShortSHA(c.SHA), ref.UTC().Format(time.RFC3339))), true
}

// roundDuration says a long duration in days or hours.
func roundDuration(d time.Duration) string {
	if d >= 48*time.Hour {
		return fmt.Sprintf("%d days", int(d/(24*time.Hour)))
	}
	return fmt.Sprintf("%d hours", int(d/time.Hour))
}

func describeEvent(ev *projection.Event) string {
	if ev.TaskID != "" {
		return fmt.Sprintf("the %s of %s on line %d", ev.Type, ev.TaskID, ev.Line)
	}
	return fmt.Sprintf("the %s on line %d", ev.Type, ev.Line)
}

func isReview(ev *projection.Event) bool {
	return ev.Type == projection.TypeAccept || ev.Type == projection.TypeChangesRequested
}

// verify returns what proves the event, or why nothing does.
func (j judge) verify(ae AddedEvent) (evidence, why string) {
	ev := ae.Event
	if ae.Commit == nil {
		why := ae.Unattributed
		if why == "" {
			why = "the commit that added it could not be found"
		}
		return "", "it could not be traced to a commit of this pull request (" + why + ")"
	}
	var reasons []string
	if g := ev.Payload.GitHub; isReview(ev) && g != nil && (g.ReviewID != 0 || g.CommentID != 0) {
		byBot, whyNot := j.viaBot(ae)
		if whyNot == "" {
			return byBot, ""
		}
		reasons = append(reasons, whyNot)
		if IsBotLogin(ae.Commit.AuthorLogin, j.in.BotLogins) {
			// The bot wrote it, so no seat holder's commit can prove it.
			return "", strings.Join(reasons, "; ")
		}
	}
	evidence, why = j.viaCommit(ae)
	if why == "" {
		return evidence, ""
	}
	reasons = append(reasons, why)
	return "", strings.Join(reasons, "; ")
}

// viaBot is path (a): a bot-written event backed by a review or comment.
func (j judge) viaBot(ae AddedEvent) (evidence, why string) {
	ev, c, g := ae.Event, ae.Commit, ae.Event.Payload.GitHub
	source := fmt.Sprintf("review %d", g.ReviewID)
	if g.ReviewID == 0 {
		source = fmt.Sprintf("comment %d", g.CommentID)
	}
	if !IsBotLogin(c.AuthorLogin, j.in.BotLogins) {
		return "", fmt.Sprintf("it names GitHub %s, but commit %s that added it is authored by %s, not by the pact bot (%s), so that record is only a claim",
			source, prose.ShortSHA(c.SHA), provAccount(c.AuthorLogin), strings.Join(j.in.BotLogins, ", "))
	}
	if j.require && (!c.Verified || !IsBotLogin(c.CommitterLogin, j.in.BotLogins) && !strings.EqualFold(c.CommitterLogin, webFlowLogin)) {
		return "", fmt.Sprintf("commit %s claims the pact bot as its author, but GitHub reports no verified signature by the bot on it (provenance mode require asks for one; a git author e-mail alone can be forged)", prose.ShortSHA(c.SHA))
	}
	var login, what string
	if g.ReviewID != 0 {
		r := j.in.Reviews[g.ReviewID]
		if !r.Found {
			return "", fmt.Sprintf("it names review %d, which does not exist on pull request #%d", g.ReviewID, j.in.PRNumber)
		}
		want := ghfacts.ReviewApproved
		if ev.Type == projection.TypeChangesRequested {
			want = ghfacts.ReviewChangesRequested
		}
		state := strings.ToUpper(r.State)
		if state != want && state != ghfacts.ReviewDismissed && isDecision(state) {
			return "", fmt.Sprintf("review %d by %s is %s, not %s as %s needs", g.ReviewID, provAccount(r.AuthorLogin), strings.ToLower(state), strings.ToLower(want), ev.Type)
		}
		if why := StandingDecision(j.in.Reviews, g.ReviewID); why != "" {
			return "", why + ", so it is no longer the reviewer's decision"
		}
		if anchor := ev.Payload.Commit; anchor != "" && anchor != r.CommitID {
			return "", fmt.Sprintf("it says it was given on commit %s, but review %d was given on %s", prose.ShortSHA(anchor), g.ReviewID, prose.ShortSHA(r.CommitID))
		}
		if g.HeadSHA != "" && g.HeadSHA != r.CommitID {
			return "", fmt.Sprintf("its payload.github.head_sha is %s, but review %d was given on %s", prose.ShortSHA(g.HeadSHA), g.ReviewID, prose.ShortSHA(r.CommitID))
		}
		if !ev.TS.Equal(r.SubmittedAt) {
			return "", fmt.Sprintf("its ts %s is not the time review %d was submitted (%s)", ev.TSRaw, g.ReviewID, r.SubmittedAt.UTC().Format(time.RFC3339Nano))
		}
		awaiting, known := j.in.Awaiting[r.CommitID]
		switch {
		case !known:
			return "", fmt.Sprintf("whether %s was awaiting review at commit %s, which review %d was given on, could not be read", ev.TaskID, prose.ShortSHA(r.CommitID), g.ReviewID)
		case !slices.Contains(awaiting, ev.TaskID):
			return "", fmt.Sprintf("%s was not awaiting review in the log at commit %s, which review %d was given on, so that review did not cover it", ev.TaskID, prose.ShortSHA(r.CommitID), g.ReviewID)
		}
		login, what = r.AuthorLogin, fmt.Sprintf("review %d (%s)", g.ReviewID, strings.ToLower(state))
	} else {
		cf, ok := j.in.Comments[g.CommentID]
		if !ok || !cf.Found {
			return "", fmt.Sprintf("it names comment %d, which does not exist in this repository", g.CommentID)
		}
		if j.in.PRNumber != 0 && cf.Number != j.in.PRNumber {
			return "", fmt.Sprintf("comment %d belongs to #%d, not to this pull request #%d", g.CommentID, cf.Number, j.in.PRNumber)
		}
		verb := "accept"
		if ev.Type == projection.TypeChangesRequested {
			verb = "changes"
		}
		parent := c.FirstParent()
		head := j.in.CommentHeads[g.CommentID]
		awaiting, known := j.in.Awaiting[head.SHA]
		switch {
		case cf.Edited():
			return "", fmt.Sprintf("comment %d by %s was edited after it was posted, and anyone with write access can edit a comment, so it is no evidence; a new comment is", g.CommentID, provAccount(cf.AuthorLogin))
		case !slices.Contains(j.in.CommentCommands[g.CommentID], CommentCommand{Type: ev.Type, Task: ev.TaskID}):
			return "", fmt.Sprintf("comment %d by %s holds no /pact %s %s command", g.CommentID, provAccount(cf.AuthorLogin), verb, ev.TaskID)
		case !ev.TS.Equal(cf.CreatedAt):
			return "", fmt.Sprintf("its ts %s is not the time comment %d was made (%s)", ev.TSRaw, g.CommentID, cf.CreatedAt.UTC().Format(time.RFC3339Nano))
		case parent == "":
			return "", fmt.Sprintf("commit %s that added it has no parent, so the commit the comment covered cannot be told", prose.ShortSHA(c.SHA))
		case head.SHA == "":
			return "", fmt.Sprintf("the head of the branch when comment %d was made cannot be told (%s)", g.CommentID, head.Why)
		case ev.Payload.Commit != "" && ev.Payload.Commit != parent && ev.Payload.Commit != head.SHA:
			return "", fmt.Sprintf("its payload.commit is %s, but the line was recorded on commit %s and the branch was at %s when comment %d was made (a comment-backed event is given on one of those, never on a commit its writer chose)",
				prose.ShortSHA(ev.Payload.Commit), prose.ShortSHA(parent), prose.ShortSHA(head.SHA), g.CommentID)
		case g.HeadSHA != "" && g.HeadSHA != head.SHA:
			return "", fmt.Sprintf("its payload.github.head_sha is %s, but the branch was at %s when comment %d was made", prose.ShortSHA(g.HeadSHA), prose.ShortSHA(head.SHA), g.CommentID)
		case head.SHA != parent && !j.in.Unchanged[Span{head.SHA, parent}]:
			return "", fmt.Sprintf("comment %d was made when the branch was at %s, but the line was recorded on %s, whose files outside %s differ, so the comment did not cover that code", g.CommentID, prose.ShortSHA(head.SHA), prose.ShortSHA(parent), j.pactDir())
		case !known:
			return "", fmt.Sprintf("whether %s was awaiting review at commit %s, the head when comment %d was made, could not be read", ev.TaskID, prose.ShortSHA(head.SHA), g.CommentID)
		case !slices.Contains(awaiting, ev.TaskID):
			return "", fmt.Sprintf("%s was not awaiting review at commit %s, the head when comment %d was made, so the comment could not %s it", ev.TaskID, prose.ShortSHA(head.SHA), g.CommentID, verb)
		}
		login, what = cf.AuthorLogin, fmt.Sprintf("comment %d (/pact %s %s)", g.CommentID, verb, ev.TaskID)
	}
	if g.Login != "" && !strings.EqualFold(g.Login, login) {
		return "", fmt.Sprintf("it names account %s, but %s was made by %s", g.Login, what, provAccount(login))
	}
	t := j.task(ev)
	if t == nil {
		if !j.cfg.Holds(login, ev.AgentID) {
			return "", fmt.Sprintf("%s was made by %s, who does not hold seat %s (%s)", what, provAccount(login), ev.AgentID, j.holders(ev.AgentID))
		}
		return "", fmt.Sprintf("task %s is not assigned in this log, so %s cannot be matched to it", ev.TaskID, what)
	}
	if why := j.reviewRight(login, t, ev); why != "" {
		return "", fmt.Sprintf("%s was made by %s, who %s", what, provAccount(login), why)
	}
	if g.ReviewID != 0 && !slices.Contains(j.in.Branches, t.Branch) {
		return "", fmt.Sprintf("task %s is on branch %s, not on this pull request's branch, so a review of this pull request does not cover it", t.ID, t.Branch)
	}
	return fmt.Sprintf("%s by %s, who holds seat %s, recorded by the bot in commit %s", what, provAccount(login), ev.AgentID, prose.ShortSHA(c.SHA)), ""
}

// viaCommit is path (b): the commit's author holds the event's seat.
func (j judge) viaCommit(ae AddedEvent) (evidence, why string) {
	ev, c := ae.Event, ae.Commit
	login := c.AuthorLogin
	switch {
	case login == "":
		return "", fmt.Sprintf("commit %s that added it has an author e-mail GitHub links to no account, so nothing ties it to a seat holder", prose.ShortSHA(c.SHA))
	case IsBotLogin(login, j.in.BotLogins):
		return "", fmt.Sprintf("commit %s that added it is the pact bot's, and the bot only records accept and changes_requested events backed by a review or /pact comment", prose.ShortSHA(c.SHA))
	case isReview(ev) && j.task(ev) != nil:
		if why := j.reviewRight(login, j.task(ev), ev); why != "" {
			return "", fmt.Sprintf("commit %s that added it is authored by %s, who %s", prose.ShortSHA(c.SHA), provAccount(login), why)
		}
	case !j.cfg.Holds(login, ev.AgentID):
		return "", fmt.Sprintf("commit %s that added it is authored by %s, who does not hold seat %s (%s)", prose.ShortSHA(c.SHA), provAccount(login), ev.AgentID, j.holders(ev.AgentID))
	}
	if j.require {
		if !c.Verified {
			return "", fmt.Sprintf("commit %s that added it is authored by %s, who holds seat %s, but carries no signature GitHub verified (provenance mode require asks for one, because a git author e-mail alone can be forged)", prose.ShortSHA(c.SHA), provAccount(login), ev.AgentID)
		}
		if !strings.EqualFold(c.CommitterLogin, login) && !strings.EqualFold(c.CommitterLogin, webFlowLogin) {
			return "", fmt.Sprintf("commit %s that added it names %s as author, but its verified signature is that of its committer %s, which does not vouch for the author", prose.ShortSHA(c.SHA), provAccount(login), provAccount(c.CommitterLogin))
		}
		return fmt.Sprintf("commit %s authored and signed by %s, who holds seat %s", prose.ShortSHA(c.SHA), provAccount(login), ev.AgentID), ""
	}
	return fmt.Sprintf("commit %s authored by %s, who holds seat %s", prose.ShortSHA(c.SHA), provAccount(login), ev.AgentID), ""
}

// reviewRight explains why login may not review t as seat ev.AgentID
// ("" when it may): Rule 1 on GitHub identities (config.ReviewRight).
func (j judge) reviewRight(login string, t *projection.Task, ev *projection.Event) string {
	switch j.cfg.ReviewRight(login, t.Owner, ev.AgentID) {
	case config.OwnsTheTask:
		if j.cfg.Holds(login, ev.AgentID) {
			return fmt.Sprintf("also holds seat %s, the owner of %s (Rule 1: an account may not review its own task)", t.Owner, t.ID)
		}
		return fmt.Sprintf("does not hold seat %s (%s) but seat %s, the owner of %s (Rule 1: an account may not review its own task)", ev.AgentID, j.holders(ev.AgentID), t.Owner, t.ID)
	case config.NotTheReviewer:
		return fmt.Sprintf("does not hold seat %s (%s)", ev.AgentID, j.holders(ev.AgentID))
	}
	return ""
}

func (j judge) pactDir() string { return pactDirOf(j.in.LogPath) }

// pactDirOf is the pact directory of a log path as findings name it, with
// a trailing slash: ".pact/".
func pactDirOf(logPath string) string { return path.Dir(logPath) + "/" }

func (j judge) task(ev *projection.Event) *projection.Task {
	if j.in.State == nil || ev.TaskID == "" {
		return nil
	}
	return j.in.State.Tasks[ev.TaskID]
}

// configWhere names the seat map a verdict was judged by: the file, on the
// default branch when known.
func (j judge) configWhere() string {
	if j.in.ConfigBranch != "" {
		return pactfile.ConfigPath + " on " + j.in.ConfigBranch
	}
	return pactfile.ConfigPath
}

// holders says which accounts hold seat, and where that is configured.
func (j judge) holders(seat string) string {
	where := j.configWhere()
	logins := j.cfg.LoginsOf(seat)
	if len(logins) == 0 {
		return "no GitHub account is mapped to it in " + where
	}
	return fmt.Sprintf("%s maps it to %s", where, strings.Join(logins, ", "))
}

func provAccount(login string) string {
	if login == "" {
		return "no GitHub account"
	}
	return "account " + login
}

// provList lists up to n items (commit SHAs shortened) and how many more.
func provList(items []string, n int) string {
	short := make([]string, len(items))
	for i, s := range items {
		if len(s) == 40 && provIsHex(s) {
			s = prose.ShortSHA(s)
		}
		short[i] = s
	}
	return prose.List(short, n)
}

func provIsHex(s string) bool {
	for _, c := range s {
		if !strings.ContainsRune("0123456789abcdef", c) {
			return false
		}
	}
	return true
}
