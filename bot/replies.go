package bot

import (
	"crypto/sha256"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/internal/prose"
	"github.com/pact-action/pact-action/projection"
	"github.com/pact-action/pact-action/report"
)

// Every reply the bot posts is written here. Text that someone else wrote
// (a task id, a branch name, a word of a comment, an error from GitHub) is
// quoted only through report.Code (an inert code span), report.Escape or
// report.Fence, so no mention, link, image or HTML in it comes alive; the
// one intended mention is of the commenter, by login.

// ReplyMarker tags the bot's own comments so it never acts on them.
const ReplyMarker = "<!-- pact-action -->"

// HelpText is the reply to /pact help and to anything /pact does not know.
const HelpText = "**/pact commands** (each on a line of its own, as plain text — not in code, quotes or lists):\n\n" +
	"- `/pact accept <task>` — accept a task awaiting review (you must hold its reviewer seat and not its owner seat)\n" +
	"- `/pact changes <task> <reason…>` — request changes on a task awaiting review\n" +
	"- `/pact status` — show the pact's tasks for this pull request\n" +
	"- `/pact recheck` — judge this pull request's head again\n" +
	"- `/pact help` — this text\n\n" +
	"Approving the pull request accepts every task on this branch that awaits your review at the commit you approved; requesting changes does the opposite. " +
	"Seats are mapped to GitHub accounts in `.github/pact.yml` on the base branch."

// What can be wrong with a /pact line (Command.Problem): said first in the
// help reply.
const (
	problemAcceptArgs  = "`/pact accept` takes exactly one task id."
	problemChangesArgs = "`/pact changes` needs a task id and a reason."
)

func problemNoArgs(verb string) string { return "`/pact " + verb + "` takes no arguments." }

// problemUnknownVerb quotes the commenter's word back only as inert code.
func problemUnknownVerb(word string) string {
	return report.Code(prose.Truncate(word, 40)) + " is not a /pact command."
}

func helpReply(problem string) string {
	if problem == "" {
		return HelpText
	}
	return "❓ " + problem + "\n\n" + HelpText
}

func mention(login string) string { return "@" + report.Escape(login) }

func verbFor(typ string) string {
	if typ == projection.TypeAccept {
		return "accept"
	}
	return "request changes on"
}

func ownerRefusal(login string, t *projection.Task, typ string) string {
	return fmt.Sprintf("🚫 **Rule 1 (no self-acceptance):** %s holds seat %s, which owns task %s, so that account can never %s it — even if it also holds the reviewer seat %s. Nothing was recorded. "+
		"Ask an account that holds %s and not %s (see `.github/pact.yml` on the base branch) to review %s.",
		mention(login), report.Code(t.Owner), report.Code(t.ID), verbFor(typ), report.Code(t.Reviewer), report.Code(t.Reviewer), report.Code(t.Owner), report.Code(t.ID))
}

func notReviewerRefusal(login string, held []string, t *projection.Task, what string) string {
	holds := "holds no seat"
	if len(held) > 0 {
		holds = "holds " + codeList(held)
	}
	return fmt.Sprintf("🚫 **Rule 1 (only the reviewer reviews):** task %s is reviewed by seat %s, and %s %s; nothing was recorded. "+
		"Ask an account mapped to %s in `.github/pact.yml` on the base branch to run %s.",
		report.Code(t.ID), report.Code(t.Reviewer), mention(login), holds, report.Code(t.Reviewer), report.Code(what+" "+t.ID))
}

func unknownTaskReply(what, task string, st *projection.State, branch string) string {
	return fmt.Sprintf("❓ %s: there is no task %s in this branch's pact; nothing was recorded. Tasks on this branch:\n\n%s",
		report.Code(what), report.Code(task), strings.Join(orNone(branchTasks(st, branch)), ""))
}

func notAwaitingReply(what string, t *projection.Task, at string) string {
	return fmt.Sprintf("🚫 %s %s: task %s was not awaiting review at commit %s, the head of the branch when you commented (it was %s); nothing was recorded.",
		report.Code(what), report.Code(t.ID), report.Code(t.ID), report.Code(prose.ShortSHA(at)), report.Escape(checks.WaitingFor(t)))
}

func noWrite(login, what string) string {
	return fmt.Sprintf("🚫 %s needs write permission on this repository to use %s; nothing was recorded. Ask a maintainer to run it, or to grant you write access.", mention(login), report.Code(what))
}

// nothingToReview answers a seat holder whose review concerns no task: which
// tasks this branch has and what each waits for.
func nothingToReview(login string, seats []string, branch, commit string, st *projection.State) string {
	var b strings.Builder
	fmt.Fprintf(&b, "ℹ️ %s holds seat(s) %s, but no task on branch %s was awaiting review by them at commit %s, which this review was given on, so this review recorded nothing.",
		mention(login), codeList(seats), report.Code(branch), report.Code(prose.ShortSHA(commit)))
	lines := branchTasks(st, branch)
	if len(lines) == 0 {
		b.WriteString(" This branch has no pact tasks.")
		return b.String()
	}
	b.WriteString(" Tasks on this branch at that commit:\n\n")
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
			out = append(out, fmt.Sprintf("- %s (%s): %s\n", report.Code(t.ID), report.Escape(t.Feature), report.Escape(checks.WaitingFor(t))))
		}
	}
	return out
}

func orNone(lines []string) []string {
	if len(lines) == 0 {
		return []string{"_(none)_\n"}
	}
	return lines
}

func codeList(items []string) string {
	s := append([]string(nil), items...)
	sort.Strings(s)
	for i := range s {
		s[i] = report.Code(s[i])
	}
	return strings.Join(s, ", ")
}

// StatusReply is the answer to /pact status: the state table for this PR.
func StatusReply(st *projection.State, branch string, findings []checks.Finding) string {
	var b strings.Builder
	fmt.Fprintf(&b, "### pact status for %s\n\n**%s**\n", report.Code(branch), report.Title(findings))
	for _, f := range findings {
		if f.Severity == checks.SeverityPending {
			fmt.Fprintf(&b, "- %s\n", report.Escape(f.Message))
		}
	}
	b.WriteString(report.TaskTable(st, branch, findings))
	return b.String()
}

// renewedReply tells a reviewer that their approval renewed the coverage of
// accepted tasks whose accepts no longer covered the head: no event was
// written, since a second accept is not part of the protocol.
func renewedReply(login string, tasks []string, commit string) string {
	what := "the accept of " + quotedList(tasks) + " now covers"
	if len(tasks) > 1 {
		what = "the accepts of " + quotedList(tasks) + " now cover"
	}
	return fmt.Sprintf("✅ %s approved %s, which holds this pull request's code: %s the new code (a fresh review; no event was recorded, the task stays accepted).",
		mention(login), report.Code(prose.ShortSHA(commit)), what)
}

// configUnusable says the base branch's configuration cannot be used.
func configUnusable(path, baseRef string, err error) string {
	return fmt.Sprintf("⚠️ pact-action cannot use %s on %s: %s. Nothing was recorded.", report.Code(path), report.Code(baseRef), report.Escape(err.Error()))
}

// noPact says the pull request's head has no log to record in.
func noPact(logPath string) string {
	return fmt.Sprintf("ℹ️ This pull request's head has no %s, so there is no pact to record in.", report.Code(logPath))
}

// commentEdited refuses a comment whose body changed before the bot read it.
func commentEdited(login string) string {
	return fmt.Sprintf("🚫 %s, your comment was edited before pact-action read it, and anyone with write access can edit a comment, so an edited comment records nothing. Post the command in a new comment.", mention(login))
}

// headUnknown refuses a comment whose commit cannot be told.
func headUnknown(why string) string {
	return fmt.Sprintf("🚫 pact-action cannot tell which commit was the head of this pull request when you commented (%s), so the command recorded nothing. Approve the pull request instead (a review records the commit it was given on), or comment again.", report.Escape(why))
}

// BranchMoved refuses comment commands when the branch no longer holds
// the code it held when the comment was made: code pushed since, or a
// force-push to other code (an older commit included).
func BranchMoved(what []string, at, now string) string {
	return fmt.Sprintf("🚫 The branch moved after your comment: it was at %s, and its head %s holds other code outside the pact directory, so %s would cover code you may not have seen. Nothing was recorded. Review the code at the head and approve the pull request with a review (a review records the commit it was given on), or comment again.",
		report.Code(prose.ShortSHA(at)), report.Code(prose.ShortSHA(now)), quotedList(what))
}

// EngineRefusal says the engine refused an intended event.
func EngineRefusal(what string, code projection.Code, message, hint string) string {
	r := fmt.Sprintf("🚫 The pact refused %s: %s — %s. Nothing was recorded for it.", report.Code(what), report.Code(string(code)), report.Escape(message))
	if hint != "" {
		r += " " + report.Escape(hint)
	}
	return r
}

// FutureHint explains a refusal caused by events stamped in the future.
func FutureHint(lines []int, latest string) string {
	return fmt.Sprintf("The log holds events stamped in the future (%s, up to %s), which every event recorded at its real time sorts before: remove those lines from the pull request's commits (the base branch does not have them yet) and record them again with pactify, then review again.",
		prose.Lines(lines), latest)
}

// TooLargeToReorder refuses events that sort before later events of a log
// over limit bytes (size): judging them there means replaying the whole log
// with every event held, which the bot does only for a smaller log. A
// review or comment made again is recorded at its own time, after those
// events, unless they are stamped in the future (hint: FutureHint).
func TooLargeToReorder(what []string, size, limit int64, hint string) string {
	r := fmt.Sprintf("🚫 Nothing was recorded for %s: the review or comment is dated before later events of the log, and judging it there means replaying the whole log with every event held, which pact-action does only for a log of at most %s (this one is %s). Review again (or comment again): that is recorded at its own time, after those events.",
		quotedList(what), prose.Bytes(limit), prose.Bytes(size))
	if hint != "" {
		r += " " + report.Escape(hint)
	}
	return r
}

// IDConflict says a line with the bot's event id, but other content, is
// already in the log: the bot never calls that recorded.
func IDConflict(what, eventID string, line int) string {
	return fmt.Sprintf("⚠️ Conflict: line %d of the log already holds event id %s with different content than %s, so pact-action recorded nothing for it. Someone wrote that line before the bot could; remove it from the pull request's commits and run %s (or review again).",
		line, report.Code(eventID), report.Code(what), report.Code("/pact recheck"))
}

// LogCutOff refuses to append to a branch's log whose last line has no
// line break (pactfile.Unterminated): appending would seal the fragment
// into a line of its own, as pactify refuses to (docs/pactify.md, "When a
// write fails").
func LogCutOff(logPath, headRef string, what []string) string {
	return fmt.Sprintf("🚫 The last line of %s on %s has no line break: it is cut off, as a write that stopped half-way leaves it, and appending after it would seal the fragment into the log for ever. Nothing was recorded for %s. "+
		"Look at the end of the log on the branch: if it is the start of a line a failed write cut off, that line was never recorded, so cut the file back to just after its last line break and change nothing else; if it is a whole event a hand edit left without its line break, add the line break. Push that, then review again (or comment again).",
		report.Code(logPath), report.Code(headRef), quotedList(what))
}

// ForkNotice explains that the branch cannot be written with the
// workflow's token and gives the pactify commands to run instead.
func ForkNotice(why, headRef string, commands []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "ℹ️ %s, so pact-action recorded nothing. Whoever can push to %s (the author, or a maintainer when the fork allows edits by maintainers) can record it by running, in a checkout of the branch — ideally from an account that holds the reviewer seat, so the provenance check can verify the line:\n\n",
		why, report.Code(headRef))
	b.WriteString(report.Fence("sh", strings.Join(commands, "\n")+"\ngit add .pact && git commit -m 'pact: record review' && git push"))
	return b.String()
}

// Why ForkNotice is needed: the branch lives in a fork, or the token may
// not push to it (no contents: write, or a protected branch).
const (
	WhyFork      = "This pull request comes from a fork, and the workflow's token cannot push to a fork's branch"
	WhyForbidden = "The workflow's token may not push to this pull request's branch (the job needs `permissions: contents: write`, and the branch must accept its pushes)"
)

func quotedList(items []string) string {
	q := make([]string, len(items))
	for i, s := range items {
		q[i] = report.Code(s)
	}
	return strings.Join(q, ", ")
}

// FutureLines lists the events of a log (its bytes) stamped more than
// checks.FutureSlack after now, decoding one line at a time: only a
// refusal asks, and a log may be hundreds of MB (docs/semantics.md §7).
// An event with a defect is never applied, so it is not listed.
func FutureLines(log []byte, now time.Time) (lines []int, latest string) {
	var max time.Time
	projection.EachEvent(log, func(ev *projection.Event) {
		if ev.Problem == nil && ev.TS.Sub(now) > checks.FutureSlack {
			lines = append(lines, ev.Line)
			if ev.TS.After(max) {
				max, latest = ev.TS, ev.TSRaw
			}
		}
	})
	return lines, latest
}

// updateMarker is the hidden mark of a reply about bringing a branch up
// to date: the head it was about and the base it was to come from (by a
// hash of the name, which its author chose and which could end the HTML
// comment). The bot looks for it before saying the same again.
func updateMarker(headSHA, baseRef string) string {
	sum := sha256.Sum256([]byte(baseRef))
	hex := strings.Map(func(r rune) rune {
		if strings.ContainsRune("0123456789abcdef", r) {
			return r
		}
		return -1
	}, headSHA)
	return fmt.Sprintf("<!-- pact-action update %s %x -->", hex, sum[:8])
}

// updateCommands is what the author runs to bring the branch up to date
// by hand, from remote (the one that points at this repository), the
// names quoted for the shell.
func updateCommands(remote, baseRef, headRef string) string {
	return report.Fence("sh", fmt.Sprintf("git fetch %s\ngit switch %s\ngit merge %s\n# resolve each file both branches changed; for the pact's files run: pactify resolve\ngit push",
		remote, shellQuote(headRef), shellQuote(remote+"/"+baseRef)))
}

// updateConflict says the branch conflicts with its base in paths the bot
// never resolves (more is how many paths were left unnamed), so it is not
// brought up to date; pact says the pact's own files conflict too.
func updateConflict(baseRef, headRef string, paths []string, more int, pact bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "⚠️ This pull request conflicts with %s in %s, which both branches changed", report.Code(baseRef), quotedList(paths))
	if more > 0 {
		fmt.Fprintf(&b, " (and %d more)", more)
	}
	b.WriteString(". pact-action brings a branch up to date only when the pact's log and `STATE.yml` are all that conflict, and never chooses between two changes of one file, so it left this one as it is")
	if pact {
		b.WriteString(" (the pact's files conflict too)")
	}
	fmt.Fprintf(&b, ". To bring it up to date:\n\n%s", updateCommands("origin", baseRef, headRef))
	return b.String()
}

// updatePactConflict says the pact's logs of the base and the branch do
// not merge (projection.MergeConflict, explained).
func updatePactConflict(baseRef, headRef, logPath, why string) string {
	return fmt.Sprintf("⚠️ This pull request's pact conflicts with %s's for real, so pact-action did not bring it up to date: %s. Two logs merge only when each grows at its end and holds each event once (docs/semantics.md §8): mend %s on this branch, then:\n\n%s",
		report.Code(baseRef), report.Escape(why), report.Code(logPath), updateCommands("origin", baseRef, headRef))
}

// UpdateCannot says why the bot could not bring the branch up to date
// with its base (why: one clause, the bot's own words), and how to do it
// by hand.
func UpdateCannot(baseRef, headRef, why string) string {
	return fmt.Sprintf("ℹ️ This pull request conflicts with %s, and pact-action cannot bring it up to date: %s. To do it by hand:\n\n%s",
		report.Code(baseRef), why, updateCommands("origin", baseRef, headRef))
}

// updateFork says a fork's branch is never written by the bot, and how
// its author brings it up to date from this repository.
func updateFork(baseRef, headRef string) string {
	return fmt.Sprintf("ℹ️ This pull request conflicts with %s, and pact-action cannot bring it up to date: it comes from a fork, and the workflow's token cannot push to a fork's branch. "+
		"To do it by hand, in your clone of the fork, with `upstream` the remote of this repository (`git remote add upstream <its URL>` if you have none):\n\n%s",
		report.Code(baseRef), updateCommands("upstream", baseRef, headRef))
}

// Why the bot cannot bring a branch up to date, for UpdateCannot.
const (
	UpdateWhyWorkflows = "the merge brings in changes of `.github/workflows/` from the base, and GitHub lets no workflow's `GITHUB_TOKEN`, nor a GitHub App without *Workflows: write*, push those"
	UpdateWhyForbidden = "the workflow's token may not push to this branch (the bot job needs `permissions: contents: write`, and the branch must accept its pushes)"
	updateWhyTooLarge  = "one side's changes are too large to compare (more paths or deeper directories than one update reads)"
	updateWhyNoLog     = "the pact's log is missing on one side, so there is no log to merge"
	updateWhyVersion   = "the merged log declares a newer protocol version, which this version of pact-action does not judge"
	UpdateWhyBudget    = "the logs it would merge (at the merge base, the base and this branch) come to more than the bot reads (the max-pact-bytes input)"
)

// updateWhyUnreadable says the logs could not be read to merge them.
func updateWhyUnreadable(err error) string {
	return "its log cannot be read to merge (" + report.Escape(err.Error()) + ")"
}
