package checks

import "github.com/pact-action/pact-action/projection"

// CodeInfo is what the code table says about a code: its default severity,
// a one-line title and the fix hint shown with every finding.
type CodeInfo struct {
	Code     projection.Code
	Severity Severity
	Title    string
	Hint     string
}

// Table lists every code in a stable order (docs/semantics.md §6); SARIF rules and
// docs/codes.md's table are generated from it.
var Table = []CodeInfo{
	{projection.CodeMalformedJSON, SeverityError, "a line of the log is not a JSON object",
		"Restore the line from git history (`git log -p .pact/log.jsonl`); the log is append-only and must never be edited by hand."},
	{projection.CodeDuplicateKey, SeverityError, "a line names the same member twice in one object",
		"Readers disagree on which of the two values counts, so the line is not applied: restore it from git history (`git log -p .pact/log.jsonl`); pactify and the bot never write such a line."},
	{projection.CodeSchemaEnvelope, SeverityError, "an envelope field is missing, mistyped or out of scope",
		"Write events only through pactify or the bot; they emit the eight envelope fields of spec §2.1 with the right scope."},
	{projection.CodeSchemaPayload, SeverityError, "a required payload field is missing or mistyped",
		"Re-emit the event with the payload fields spec §2.4 requires for its event_type."},
	{projection.CodeEventIDMissing, SeverityError, "an event has no event_id",
		"Emit events with pactify, which writes a random 128-bit event_id; hand-written lines need one too."},
	{projection.CodeEventIDDuplicate, SeverityError, "an event_id is used twice",
		"Remove the duplicated line if it is a bad merge; otherwise give each event its own random event_id."},
	{projection.CodeRoleMismatch, SeverityError, "the role contradicts the event_type",
		"Set role to the one spec §2.3 derives from event_type (pactify does this for you)."},
	{projection.CodeInitMissing, SeverityError, "no init event, or an event before it",
		"Start the pact with `pactify init --project NAME --seat id:roles:entry`; nothing may precede the init in time order."},
	{projection.CodeInitDuplicate, SeverityError, "a second init event",
		"A project has exactly one init; drop the second one and keep the roster of the first."},
	{projection.CodeVersionUnsupported, SeverityError, "the log needs a newer protocol version",
		"Upgrade pact-action and pactify to a release that supports this protocol_version; nothing else was checked."},
	{projection.CodeUnknownSeat, SeverityError, "an agent or assignee is not a declared seat",
		"Use one of the seats declared in the init event; seats cannot be added after init in v1."},
	{projection.CodeInvalidSeatID, SeverityError, "a declared seat id is not a slug",
		"Seat ids must match ^[a-z0-9][a-z0-9-]*$ (lower-case letters, digits, hyphens)."},
	{projection.CodeRoleNotHeld, SeverityError, "the seat does not hold the role the event needs",
		"Have a seat that holds the role act instead (orchestrator: init, assign, merge; worker: join, checkpoint; reviewer: accept, changes)."},
	{projection.CodeTaskUnknown, SeverityError, "an event names a task that was never assigned",
		"Assign the task first with `pactify assign`, or fix the task_id."},
	{projection.CodeTaskDuplicateID, SeverityError, "a task id is assigned twice",
		"Task ids are unique across all features; pick a new id for the second task."},
	{projection.CodeTaskUnsafeID, SeverityError, "a task id cannot be used as a file name",
		"Use a task id without '/', '\\', '..', NUL or a leading '.', such as T12."},
	{projection.CodeTaskNotOwner, SeverityError, "a checkpoint by a seat that does not own the task",
		"Only the task's owner checkpoints; run it with PACT_AGENT_ID set to the owner's seat."},
	{projection.CodeOwnerIsReviewer, SeverityError, "Rule 1: a task names one seat as owner and reviewer",
		"Assign a reviewer seat different from the owner."},
	{projection.CodeSelfAccept, SeverityError, "Rule 1: the owner accepted or reviewed its own task",
		"Ask the task's reviewer seat to review it; an owner can never accept or request changes on its own work."},
	{projection.CodeNotReviewer, SeverityError, "Rule 1: a seat other than the reviewer reviewed the task",
		"Only the reviewer named at assign may accept or request changes; ask that seat."},
	{projection.CodeInvalidTransition, SeverityError, "the event is not allowed from the current state",
		"Follow the state machine: assign → join → checkpoint → accept (or changes → checkpoint again); nothing moves after merge."},
	{projection.CodeFeatureUnknown, SeverityError, "a merge of a feature with no tasks",
		"Merge only features that have tasks; check the feature id."},
	{projection.CodeRule2Unaccepted, SeverityError, "Rule 2: a merge while some task is not accepted",
		"Get every task of the feature accepted by its reviewer before merging."},
	{CodeDrift, SeverityError, "STATE.yml disagrees with the log",
		"Regenerate it with `pactify log --replay` and commit the result; never edit STATE.yml by hand."},
	{CodeDriftMissing, SeverityWarning, "no STATE.yml to compare",
		"Generate it with `pactify log --replay` and commit it."},
	{CodeTaskfileMismatch, SeverityWarning, "a task file's frontmatter disagrees with the log",
		"Fix the frontmatter of tasks/<id>.md to mirror the assign event; the log wins."},
	{CodeTaskfileMissing, SeverityWarning, "an assigned task has no task file",
		"Create tasks/<id>.md with id, feature, owner and reviewer frontmatter (pactify assign writes it)."},
	{CodeProjectHeader, SeverityWarning, "PROJECT.md lacks its managed block or protocol_version",
		"Re-run `pactify init` with the same project and seats; it rewrites only the managed block."},
	{CodeLogRewritten, SeverityError, "the PR rewrites lines of the base branch's log",
		"Restore .pact/log.jsonl from the base branch and append your events after its last line: the log is append-only."},
	{CodePRUnaccepted, SeverityPending, "the PR ships a feature whose tasks are not all accepted",
		"Wait for each task's reviewer to accept it (a PR approval by the reviewer's account, `/pact accept T`, or `pactify accept`)."},
	{CodeProvenanceUnverified, SeverityError, "an event the PR adds is not backed by a matching GitHub identity",
		"Let the bot record reviews (approve the PR as the reviewer), or commit the event from an account mapped to its seat in .github/pact.yml."},
	{CodeProvenanceStale, SeverityError, "the accept does not cover the code being merged",
		"Ask the reviewer to approve the pull request's current head on GitHub: a fresh review renews the accept (a second accept event is not allowed). Or give the new work a new task with `pactify assign`, or revert the changes."},
	{CodePRUnmappedBranch, SeverityWarning, "the PR's head branch is named by no task, so it ships no feature",
		"Open the pull request from the branch its tasks name (`pactify assign --branch`), or assign the work to this branch first; a PR that only changes .pact/ is never blocked."},
	{CodeProvenanceFutureTS, SeverityError, "an event the PR adds is stamped more than a day in the future",
		"Remove the line from the pull request's commits (the base branch does not have it yet, so the PR may rewrite it) and record the event again with pactify or the bot, which stamp the current time."},
	{CodeConfigInvalid, SeverityError, ".github/pact.yml cannot be used",
		"Fix .github/pact.yml on the default branch: only the keys seats, provenance, unmapped-branches, review-requests and review-teams, and seats that exist in the roster."},
	{CodeMergeConflict, SeverityError, "the log or STATE.yml holds git's conflict markers: a merge of the pact is in progress",
		"Run `pactify resolve` while the merge, rebase or cherry-pick is stopped: it writes the merged log and STATE.yml from git's versions and stages them. Never edit the markers away by hand."},
}

var byCode = func() map[projection.Code]CodeInfo {
	m := make(map[projection.Code]CodeInfo, len(Table))
	for _, c := range Table {
		m[c.Code] = c
	}
	return m
}()

// Describe returns the table entry of a code; an unknown code is an error.
func Describe(code projection.Code) CodeInfo {
	if info, ok := byCode[code]; ok {
		return info
	}
	return CodeInfo{Code: code, Severity: SeverityError, Title: string(code)}
}
