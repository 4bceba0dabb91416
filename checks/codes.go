package checks

import "github.com/pact-action/pact-action/projection"

// CodeInfo is what the code table says about a code: its default severity,
// a one-line title and the fix hint shown with every finding.
type CodeInfo struct {
	Code     projection.Code
	Severity Severity
	Title    string
	// Hint is what to do about a finding of the code: an action with a
	// verb we ship (pactify, pact-action, a review or /pact comment, git
	// where the log must be put back), each tried as written by a test
	// (cmd/pactify's TestHintsWork, action's hint stories). Some findings
	// carry a hint chosen for their situation instead (docs/codes.md
	// lists which); this one stands for them all.
	Hint string
	// Refusal is what to do when a pactify writer refuses an event for
	// this code, so that nothing was recorded ("": Hint serves): the
	// command to run instead, not a repair of the log.
	Refusal string
}

// restoreLog is how a line of the log that pactify never writes is taken
// out: the base branch's log has no such line (the check judges every
// pull request before it merges), so putting its log and STATE.yml back
// removes it, and the branch's own events are recorded again with
// pactify, which refuses what breaks a rule. <base> is the branch the
// work merges into.
const restoreLog = "take the line out with `git checkout <base> -- .pact/log.jsonl .pact/STATE.yml` (<base>, the branch you merge into, lacks it), then record this branch's own events again with pactify"

// putBack is how the log and STATE.yml of the branch the work merges
// into are put back, for lines a branch must not have changed or markers
// it must not have committed; the branch's own events are recorded
// again after.
const putBack = "`git checkout <base> -- .pact/log.jsonl .pact/STATE.yml` puts back the log and STATE.yml of <base>, the branch you merge into; then record this branch's own events again with pactify"

// resolveHint is what to do while git's merge of the pact is stopped.
const resolveHint = "Run `pactify resolve` while the merge, rebase or cherry-pick is stopped: it writes the merged log and STATE.yml from git's versions and stages them. Never edit the markers away by hand."

// startPact is how a pact begins: init on an empty log (or none).
const startPact = "`pactify init --project <name> --seat <id>:<roles>:<entry>` (one --seat for each seat)"

// startAgain is how a pact whose log holds no init pactify can apply is
// begun again: nothing in such a log counts, and init refuses a log with
// lines, so the log goes first.
const startAgain = "start the pact again: `git rm .pact/log.jsonl`, then " + startPact

var Table = []CodeInfo{
	{Code: projection.CodeMalformedJSON, Severity: SeverityError, Title: "a line of the log is not a JSON object",
		Hint: "A hand edit or a cut write left a line that is not JSON: " + restoreLog + "."},
	{Code: projection.CodeDuplicateKey, Severity: SeverityError, Title: "a line names the same member twice in one object",
		Hint: "Readers disagree on which value counts, so the line is not applied; pactify never writes one: " + restoreLog + "."},
	{Code: projection.CodeSchemaEnvelope, Severity: SeverityError, Title: "an envelope field is missing, mistyped or out of scope",
		Hint:    "pactify writes the envelope of spec §2.1, never this line: " + restoreLog + ".",
		Refusal: "pactify builds the envelope from its arguments and PACT_AGENT_ID: set PACT_AGENT_ID to a seat of the roster (`pactify status` lists them) and give non-empty ids."},
	{Code: projection.CodeSchemaPayload, Severity: SeverityError, Title: "a required payload field is missing or mistyped",
		Hint: "pactify writes the payload spec §2.4 requires, never this line: " + restoreLog + "."},
	{Code: projection.CodeEventIDMissing, Severity: SeverityError, Title: "an event has no event_id",
		Hint: "pactify gives every event a random event_id, never this line: " + restoreLog + "."},
	{Code: projection.CodeEventIDDuplicate, Severity: SeverityError, Title: "an event_id is used twice",
		Hint: "A text merge or copy of the log repeated an event_id: " + restoreLog + "."},
	{Code: projection.CodeRoleMismatch, Severity: SeverityError, Title: "the role contradicts the event_type",
		Hint: "pactify sets role from event_type (spec §2.3), never this line: " + restoreLog + "."},
	{Code: projection.CodeInitMissing, Severity: SeverityError, Title: "no init event, or an event before it",
		Hint:    "Nothing precedes the init in time order, and pactify never stamps an event before the latest: " + restoreLog + ".",
		Refusal: "Start the pact with " + startPact + "."},
	{Code: projection.CodeInitDuplicate, Severity: SeverityError, Title: "a second init event",
		Hint: "A pact has one init, and pactify never writes a second: " + restoreLog + "."},
	{Code: projection.CodeVersionUnsupported, Severity: SeverityError, Title: "the log needs a newer protocol version",
		Hint: "Upgrade pact-action and pactify to a release that supports this protocol_version (`go install github.com/pact-action/pact-action/cmd/pactify@latest` for pactify); nothing else was checked."},
	{Code: projection.CodeUnknownSeat, Severity: SeverityError, Title: "an agent or assignee is not a declared seat",
		Hint:    "Only a seat of the init's roster acts or is assigned, and v1 adds none (`pactify status` lists them): " + restoreLog + ", by and to declared seats.",
		Refusal: "Use one of the seats declared in the init event (`pactify status` lists them); seats cannot be added after init in v1."},
	{Code: projection.CodeInvalidSeatID, Severity: SeverityError, Title: "a declared seat id is not a slug",
		Hint: "Seat ids must match ^[a-z0-9][a-z0-9-]*$, and an init that declares another is not applied, so nothing after it is: " + startAgain + ", with seat ids of lower-case letters, digits and hyphens."},
	{Code: projection.CodeRoleNotHeld, Severity: SeverityError, Title: "the seat does not hold the role the event needs",
		Hint:    "An event needs a seat holding its role (orchestrator: init, assign, merge; worker: join, checkpoint; reviewer: accept, changes): " + restoreLog + ", each by a seat that holds its role.",
		Refusal: "Have a seat that holds the role act instead (orchestrator: init, assign, merge; worker: join, checkpoint; reviewer: accept, changes; `pactify status` lists the seats' roles)."},
	{Code: projection.CodeTaskUnknown, Severity: SeverityError, Title: "an event names a task that was never assigned",
		Hint:    "An event names a task assigned before it: " + restoreLog + ", assigning each task before its other events.",
		Refusal: "Assign the task first with `pactify assign`, or fix the task_id."},
	{Code: projection.CodeTaskDuplicateID, Severity: SeverityError, Title: "a task id is assigned twice",
		Hint:    "Task ids are unique across features: " + restoreLog + ", giving the second task a new id.",
		Refusal: "Task ids are unique across all features; pick a new id for the second task."},
	{Code: projection.CodeTaskUnsafeID, Severity: SeverityError, Title: "a task id cannot be used as a file name",
		Hint:    "A task id is a file name, without '/', '\\', '..', NUL or a leading '.': " + restoreLog + ", with ids such as T12.",
		Refusal: "Use a task id without '/', '\\', '..', NUL or a leading '.', such as T12."},
	{Code: projection.CodeTaskNotOwner, Severity: SeverityError, Title: "a checkpoint by a seat that does not own the task",
		Hint:    "Only the task's owner checkpoints: " + restoreLog + ", the checkpoint run as the owner (PACT_AGENT_ID set to its seat).",
		Refusal: "Only the task's owner checkpoints; run it with PACT_AGENT_ID set to the owner's seat."},
	{Code: projection.CodeOwnerIsReviewer, Severity: SeverityError, Title: "Rule 1: a task names one seat as owner and reviewer",
		Hint:    "Rule 1 keeps owner and reviewer apart: " + restoreLog + ", with a reviewer other than the owner.",
		Refusal: "Assign a reviewer seat different from the owner."},
	{Code: projection.CodeSelfAccept, Severity: SeverityError, Title: "Rule 1: the owner accepted or reviewed its own task",
		Hint:    "Rule 1: an owner never reviews its own work: " + restoreLog + ", and let the task's reviewer review it.",
		Refusal: "Ask the task's reviewer seat to review it; an owner can never accept or request changes on its own work."},
	{Code: projection.CodeNotReviewer, Severity: SeverityError, Title: "Rule 1: a seat other than the reviewer reviewed the task",
		Hint:    "Only the reviewer named at assign reviews: " + restoreLog + ", and let that seat review it.",
		Refusal: "Only the reviewer named at assign may accept or request changes; ask that seat."},
	{Code: projection.CodeInvalidTransition, Severity: SeverityError, Title: "the event is not allowed from the current state",
		Hint:    "Events follow assign → join → checkpoint → accept (or changes → checkpoint again), and nothing moves after merge: " + restoreLog + ", in that order.",
		Refusal: "Follow the state machine: assign → join → checkpoint → accept (or changes → checkpoint again); nothing moves after merge."},
	{Code: projection.CodeFeatureUnknown, Severity: SeverityError, Title: "a merge of a feature with no tasks",
		Hint:    "Only a feature with tasks merges: " + restoreLog + ", merging only features with tasks.",
		Refusal: "Merge only features that have tasks; check the feature id."},
	{Code: projection.CodeRule2Unaccepted, Severity: SeverityError, Title: "Rule 2: a merge while some task is not accepted",
		Hint:    "Rule 2: a feature merges once all its tasks are accepted: " + restoreLog + ", merging after the accepts.",
		Refusal: "Get every task of the feature accepted by its reviewer before merging."},
	{Code: CodeDrift, Severity: SeverityError, Title: "STATE.yml disagrees with the log",
		Hint: "Rebuild it from the log with `pactify log --replay`, run as any seat, and commit it; never edit STATE.yml by hand."},
	{Code: CodeDriftMissing, Severity: SeverityWarning, Title: "no STATE.yml to compare",
		Hint: "Write it from the log with `pactify log --replay`, run as any seat, and commit it."},
	{Code: CodeTaskfileMismatch, Severity: SeverityWarning, Title: "a task file's frontmatter disagrees with the log",
		Hint: "Write its front matter from the log, keeping its body, with `pactify log --replay --task-files`, run as any seat; the log wins."},
	{Code: CodeTaskfileMissing, Severity: SeverityWarning, Title: "an assigned task has no task file",
		Hint: "Write it from the log with `pactify log --replay --task-files`, run as any seat, and commit it."},
	{Code: CodeProjectHeader, Severity: SeverityWarning, Title: "PROJECT.md lacks its managed block or protocol_version",
		Hint: "Run init again, as any seat, with the pact's own project, seats and base branch (`pactify status` shows them): `pactify init --project <name> --seat <id>:<roles>:<entry>` (one --seat for each seat) rewrites only the managed block and appends nothing."},
	{Code: CodeLogRewritten, Severity: SeverityError, Title: "the PR rewrites lines of the base branch's log",
		Hint: "Put the base branch's lines back: while git's merge is stopped, `git checkout -m .pact/log.jsonl`, then `pactify resolve`; otherwise " + putBack + ". The log is append-only."},
	{Code: CodePRUnaccepted, Severity: SeverityPending, Title: "the PR ships a feature whose tasks are not all accepted",
		Hint: "Do what each task waits for, as its finding says: its owner joins or checkpoints (pactify join, pactify checkpoint), or its reviewer reviews it (an approval of the pull request by the reviewer's account, `/pact accept T`, or pactify accept)."},
	{Code: CodeProvenanceUnverified, Severity: SeverityError, Title: "an event the PR adds is not backed by a matching GitHub identity",
		Hint: "Take the line out (the pull request adds it, so the base lacks it): " + putBack + ", each by its seat's account: a review through the bot (the reviewer's account approves the pull request or comments `/pact accept T`), any other event in a commit by an account .github/pact.yml maps to its seat."},
	{Code: CodeProvenanceStale, Severity: SeverityError, Title: "the accept does not cover the code being merged",
		Hint: "Ask the reviewer's account to approve the pull request's current head on GitHub: a fresh review renews the accept without a new event (a second accept is not allowed). Or give the new work a new task with pactify assign, or revert the changes."},
	{Code: CodePRUnmappedBranch, Severity: SeverityWarning, Title: "the PR's head branch is named by no task, so it ships no feature",
		Hint: "Assign the branch's work to a task, as an orchestrator: `pactify assign <task_id> --feature <feature_id> --branch <branch> --owner <worker_seat> --reviewer <reviewer_seat>`; or open the pull request from the branch its tasks name. A PR that only changes .pact/ is never blocked."},
	{Code: CodeProvenanceFutureTS, Severity: SeverityError, Title: "an event the PR adds is stamped more than a day in the future",
		Hint: "Take the line out (the pull request adds it, so the base lacks it): " + putBack + " (or the bot), which stamp the current time."},
	{Code: CodeConfigInvalid, Severity: SeverityError, Title: ".github/pact.yml cannot be used",
		Hint: "Fix .github/pact.yml on the default branch as the message says: only the keys seats, provenance, unmapped-branches, review-requests and review-teams, and seats of the roster. `pact-action check --local .` judges a checkout under its own copy, to try the fix first."},
	{Code: CodeMergeConflict, Severity: SeverityError, Title: "the log or STATE.yml holds git's conflict markers: a merge of the pact is in progress",
		Hint: resolveHint + " Markers that were committed: " + putBack + "."},
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

// RefusalHint is what to do when a pactify writer refuses an event for
// the code: its Refusal, or its Hint when both are one.
func (c CodeInfo) RefusalHint() string {
	if c.Refusal != "" {
		return c.Refusal
	}
	return c.Hint
}
