package bot

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/config"
	"github.com/pact-action/pact-action/projection"
	"github.com/pact-action/pact-action/report"
)

// Review is a submitted pull-request review, as the webhook gives it.
type Review struct {
	ID          int64
	State       string // approved, changes_requested, commented, dismissed; any case
	Body        string
	URL         string
	CommitID    string // the head commit that was reviewed
	SubmittedAt time.Time
}

// Comment is a PR comment that may hold /pact commands.
type Comment struct {
	// OnDiff is set for a review comment on the diff; those and
	// conversation comments have separate id spaces on GitHub.
	OnDiff    bool
	ID        int64
	Body      string
	URL       string
	CreatedAt time.Time
}

// Request is one GitHub event, reduced to what the pact needs.
type Request struct {
	Repo       string // owner/name: part of every derived event_id
	Login      string // who reviewed or commented
	HeadBranch string
	HeadSHA    string
	Review     *Review
	Comment    *Comment
	// CanWrite is whether Login has write permission on the repository
	// (asked of the collaborator-permission endpoint by the caller).
	CanWrite bool
}

// Intent is an event the request asks to append.
type Intent struct {
	Draft projection.Draft
	// What names the event for commit messages and replies.
	What string
}

// Plan is what the bot will do for a request.
type Plan struct {
	Intents []Intent
	Replies []string
	// Status, Recheck: the comment asked for the state table or a fresh
	// check; Acknowledge: it held a command the bot handled.
	Status, Recheck, Acknowledge bool
}

// EventID derives a deterministic 128-bit event_id from the GitHub object
// and the task, so a re-delivered webhook or a re-run job appends nothing
// twice.
func EventID(repo, kind string, id int64, task string) string {
	sum := sha256.Sum256([]byte(fmt.Sprintf("pact-action\x00%s\x00%s\x00%d\x00%s", strings.ToLower(repo), kind, id, task)))
	return hex.EncodeToString(sum[:16])
}

// GitHubPayload is the provenance the bot adds to every event it writes.
type GitHubPayload struct {
	ReviewID  int64  `json:"review_id,omitempty"`
	CommentID int64  `json:"comment_id,omitempty"`
	URL       string `json:"url"`
	Login     string `json:"login"`
	HeadSHA   string `json:"head_sha"`
}

type acceptPayload struct {
	Commit string        `json:"commit,omitempty"`
	GitHub GitHubPayload `json:"github"`
}

type changesPayload struct {
	Reason string        `json:"reason"`
	Commit string        `json:"commit,omitempty"`
	GitHub GitHubPayload `json:"github"`
}

func mention(login string) string { return "@" + report.Escape(login) }

// PlanReview maps a submitted review to events: approved → accept and
// changes_requested → changes_requested, for every task on the head branch
// that awaits review by a seat the reviewer holds.
func PlanReview(req Request, cfg *config.Config, st *projection.State) Plan {
	r := req.Review
	var typ string
	switch strings.ToLower(r.State) {
	case "approved":
		typ = projection.TypeAccept
	case "changes_requested":
		typ = projection.TypeChangesRequested
	default:
		return Plan{} // commented, dismissed: nothing to record
	}
	seats := cfg.SeatsOf(req.Login)
	if len(seats) == 0 {
		return Plan{} // people review for many reasons; no seat, no event
	}
	var plan Plan
	var refused []string
	for _, id := range st.TaskOrder {
		t := st.Tasks[id]
		if t.Branch != req.HeadBranch || t.Status != projection.StatusAwaitingReview || !cfg.Holds(req.Login, t.Reviewer) {
			if t.Branch == req.HeadBranch && t.Status == projection.StatusAwaitingReview && cfg.Holds(req.Login, t.Owner) {
				refused = append(refused, ownerRefusal(req.Login, t, typ))
			}
			continue
		}
		if cfg.Holds(req.Login, t.Owner) {
			refused = append(refused, ownerRefusal(req.Login, t, typ))
			continue
		}
		plan.Intents = append(plan.Intents, reviewIntent(req, t, typ))
	}
	plan.Replies = append(plan.Replies, refused...)
	if len(plan.Intents) == 0 && len(refused) == 0 {
		plan.Replies = append(plan.Replies, nothingToReview(req, seats, st))
	}
	return plan
}

func reviewIntent(req Request, t *projection.Task, typ string) Intent {
	r := req.Review
	gh := GitHubPayload{ReviewID: r.ID, URL: r.URL, Login: req.Login, HeadSHA: r.CommitID}
	d := projection.Draft{EventID: EventID(req.Repo, "review", r.ID, t.ID), TS: r.SubmittedAt, AgentID: t.Reviewer,
		Type: typ, TaskID: t.ID, Feature: t.Feature}
	what := fmt.Sprintf("%s %s (review %d by @%s)", typ, t.ID, r.ID, req.Login)
	if typ == projection.TypeAccept {
		d.Payload = acceptPayload{Commit: r.CommitID, GitHub: gh}
	} else {
		reason := strings.TrimSpace(r.Body)
		if reason == "" {
			reason = fmt.Sprintf("changes requested in review %s", r.URL)
		}
		d.Payload = changesPayload{Reason: reason, Commit: r.CommitID, GitHub: gh}
	}
	return Intent{Draft: d, What: what}
}

func verbFor(typ string) string {
	if typ == projection.TypeAccept {
		return "accept"
	}
	return "request changes on"
}

func ownerRefusal(login string, t *projection.Task, typ string) string {
	return fmt.Sprintf("🚫 **Rule 1 (no self-acceptance):** %s holds seat `%s`, which owns task `%s`, so that account can never %s it — even if it also holds the reviewer seat `%s`. Nothing was recorded. "+
		"Ask an account that holds `%s` and not `%s` (see `.github/pact.yml` on the base branch) to review `%s`.",
		mention(login), t.Owner, report.Escape(t.ID), verbFor(typ), t.Reviewer, t.Reviewer, t.Owner, report.Escape(t.ID))
}

// nothingToReview answers a seat holder whose review concerns no task: which
// tasks this branch has and what each waits for.
func nothingToReview(req Request, seats []string, st *projection.State) string {
	var b strings.Builder
	fmt.Fprintf(&b, "ℹ️ %s holds seat(s) %s, but no task on branch `%s` is awaiting review by them, so this review recorded nothing.",
		mention(req.Login), codeList(seats), report.Escape(req.HeadBranch))
	lines := branchTasks(st, req.HeadBranch)
	if len(lines) == 0 {
		b.WriteString(" This branch has no pact tasks.")
		return b.String()
	}
	b.WriteString(" Tasks on this branch:\n\n")
	for _, l := range lines {
		b.WriteString(l)
	}
	return b.String()
}

func branchTasks(st *projection.State, branch string) []string {
	var out []string
	for _, id := range st.TaskOrder {
		t := st.Tasks[id]
		if t.Branch == branch {
			out = append(out, fmt.Sprintf("- `%s` (%s): %s\n", report.Escape(t.ID), report.Escape(t.Feature), report.Escape(checks.WaitingFor(t))))
		}
	}
	return out
}

func codeList(items []string) string {
	s := append([]string(nil), items...)
	sort.Strings(s)
	for i := range s {
		s[i] = "`" + s[i] + "`"
	}
	return strings.Join(s, ", ")
}

// PlanComment runs the /pact commands of a comment in order.
func PlanComment(req Request, cfg *config.Config, st *projection.State, cmds []Command) Plan {
	var plan Plan
	for i, cmd := range cmds {
		switch cmd.Verb {
		case VerbHelp:
			reply := HelpText
			if cmd.Problem != "" {
				reply = "❓ " + cmd.Problem + "\n\n" + HelpText
			}
			plan.Replies = append(plan.Replies, reply)
			plan.Acknowledge = true
		case VerbStatus:
			plan.Status, plan.Acknowledge = true, true
		case VerbRecheck:
			if !req.CanWrite {
				plan.Replies = append(plan.Replies, noWrite(req.Login, "/pact recheck"))
				continue
			}
			plan.Recheck, plan.Acknowledge = true, true
		case VerbAccept, VerbChanges:
			intent, refusal := planTaskCommand(req, cfg, st, cmd, i)
			if refusal != "" {
				plan.Replies = append(plan.Replies, refusal)
				continue
			}
			plan.Intents = append(plan.Intents, intent)
			plan.Acknowledge = true
		}
	}
	return plan
}

func noWrite(login, what string) string {
	return fmt.Sprintf("🚫 %s needs write permission on this repository to use `%s`; nothing was recorded. Ask a maintainer to run it, or to grant you write access.", mention(login), what)
}

func planTaskCommand(req Request, cfg *config.Config, st *projection.State, cmd Command, index int) (Intent, string) {
	typ := projection.TypeAccept
	if cmd.Verb == VerbChanges {
		typ = projection.TypeChangesRequested
	}
	what := "/pact " + cmd.Verb
	if !req.CanWrite {
		return Intent{}, noWrite(req.Login, what)
	}
	t := st.Tasks[cmd.Task]
	if t == nil {
		return Intent{}, fmt.Sprintf("❓ `%s`: there is no task `%s` in this branch's pact; nothing was recorded. Tasks on this branch:\n\n%s",
			what, report.Escape(cmd.Task), strings.Join(orNone(branchTasks(st, req.HeadBranch)), ""))
	}
	if cfg.Holds(req.Login, t.Owner) {
		return Intent{}, ownerRefusal(req.Login, t, typ)
	}
	if !cfg.Holds(req.Login, t.Reviewer) {
		held := cfg.SeatsOf(req.Login)
		holds := "holds no seat"
		if len(held) > 0 {
			holds = "holds " + codeList(held)
		}
		return Intent{}, fmt.Sprintf("🚫 **Rule 1 (only the reviewer reviews):** task `%s` is reviewed by seat `%s`, and %s %s; nothing was recorded. "+
			"Ask an account mapped to `%s` in `.github/pact.yml` on the base branch to run `%s %s`.",
			report.Escape(t.ID), t.Reviewer, mention(req.Login), holds, t.Reviewer, what, report.Escape(t.ID))
	}
	c := req.Comment
	gh := GitHubPayload{CommentID: c.ID, URL: c.URL, Login: req.Login, HeadSHA: req.HeadSHA}
	// Several commands in one comment get distinct, still deterministic ids
	// and timestamps one nanosecond apart, so they replay in comment order.
	d := projection.Draft{EventID: EventID(req.Repo, commentKind(c, index), c.ID, t.ID), TS: c.CreatedAt.Add(time.Duration(index)),
		AgentID: t.Reviewer, Type: typ, TaskID: t.ID, Feature: t.Feature}
	if typ == projection.TypeAccept {
		d.Payload = acceptPayload{Commit: req.HeadSHA, GitHub: gh}
	} else {
		d.Payload = changesPayload{Reason: cmd.Reason, Commit: req.HeadSHA, GitHub: gh}
	}
	return Intent{Draft: d, What: fmt.Sprintf("%s %s (comment %d by @%s)", typ, t.ID, c.ID, req.Login)}, ""
}

// commentKind names the GitHub object an event comes from, for its
// event_id: the comment's id space and the command's place in the comment.
func commentKind(c *Comment, index int) string {
	if c.OnDiff {
		return fmt.Sprintf("review_comment#%d", index)
	}
	return fmt.Sprintf("issue_comment#%d", index)
}

func orNone(lines []string) []string {
	if len(lines) == 0 {
		return []string{"_(none)_\n"}
	}
	return lines
}

// StatusReply is the answer to /pact status: the state table for this PR.
func StatusReply(st *projection.State, branch string, findings []checks.Finding) string {
	var b strings.Builder
	fmt.Fprintf(&b, "### pact status for `%s`\n\n**%s**\n", report.Escape(branch), report.Title(findings))
	for _, f := range findings {
		if f.Severity == checks.SeverityPending {
			fmt.Fprintf(&b, "- %s\n", report.Escape(f.Message))
		}
	}
	b.WriteString(report.TaskTable(st, branch))
	return b.String()
}

// PactifyCommand is the pactify command line that records the same event
// by hand, for branches the bot cannot write (forks).
func PactifyCommand(in Intent) string {
	d := in.Draft
	if p, ok := d.Payload.(changesPayload); ok {
		return fmt.Sprintf("PACT_AGENT_ID=%s pactify changes %s --reason %s", d.AgentID, shellQuote(d.TaskID), shellQuote(p.Reason))
	}
	return fmt.Sprintf("PACT_AGENT_ID=%s pactify accept %s", d.AgentID, shellQuote(d.TaskID))
}

func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
