package checks

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/pact-action/pact-action/pactfile"
	"github.com/pact-action/pact-action/projection"
)

// The hints that depend on a finding's situation, chosen here, one
// function each: the table's hint (codes.go) stands for them all, and
// docs/codes.md says which codes have them. Each names a command a person
// can run as written, with the pact's own names filled in where the
// judgement knows them.

// initMissingHint is the hint of the init.missing that ends a replay with
// no init applied: an empty log takes pactify init; a log with lines that
// hold no applicable init (a hand-written one, or none) is begun again,
// since init refuses a log that holds lines.
func initMissingHint(scan *projection.Scan) string {
	if scan != nil && scan.Lines == 0 {
		return "The log is empty: start the pact with " + startPact + "."
	}
	return "The log holds no init pactify can apply, so nothing in it counts: " + startAgain + "."
}

// reinitHint is project.header's hint for an initialised pact: the init
// that rewrites PROJECT.md's managed block, with the log's own project,
// seats and base branch, which init must be given exactly.
func reinitHint(projectPath string, st *projection.State) string {
	if st == nil || !st.Initialized {
		return Describe(CodeProjectHeader).Hint
	}
	args := []string{"pactify", "init", "--project", shellWord(st.Project)}
	for _, s := range st.Seats {
		args = append(args, "--seat", shellWord(s.ID+":"+strings.Join(s.Roles, ",")+":"+s.Entry))
	}
	if st.BaseBranch != "main" {
		args = append(args, "--base-branch", shellWord(st.BaseBranch))
	}
	if dir := path.Dir(projectPath); dir != pactfile.DefaultDir {
		args = append(args, "--pact-dir", shellWord(dir))
	}
	return fmt.Sprintf("Run init again with the pact's own project, seats and base branch, as any seat: `%s` rewrites only the managed block and appends nothing.", strings.Join(args, " "))
}

// shellWord writes s as one word a POSIX shell reads back as s: as it is
// when it holds only characters no shell treats specially, else in
// double quotes with the few characters special there escaped.
func shellWord(s string) string {
	plain := func(r rune) bool {
		return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._/:,=@+-%", r)
	}
	if s != "" && strings.IndexFunc(s, func(r rune) bool { return !plain(r) }) < 0 {
		return s
	}
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		if strings.ContainsRune("\"\\$`", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	b.WriteByte('"')
	return b.String()
}

// waitingHint is pr.unaccepted_feature's hint for task t of st: what ends
// its wait, by whom. logins are the accounts the repository's
// configuration maps to the task's reviewer seat.
func waitingHint(st *projection.State, t *projection.Task, logins []string) string {
	id := shellWord(t.ID)
	switch t.Status {
	case projection.StatusAssigned:
		return fmt.Sprintf("Seat %s joins, which starts the task: `PACT_AGENT_ID=%s pactify join %s --roles %s`.", t.Owner, t.Owner, t.Owner, strings.Join(rolesOf(st, t.Owner), ","))
	case projection.StatusInProgress:
		first := "checkpoints it when it is ready for review"
		if t.Rounds > 0 {
			first = fmt.Sprintf("makes the changes %s asked for, then checkpoints it again", t.Reviewer)
		}
		return fmt.Sprintf("Seat %s %s: `PACT_AGENT_ID=%s pactify checkpoint %s --evidence \"<evidence>\"`.", t.Owner, first, t.Owner, id)
	case projection.StatusAccepted:
		return freshReviewHint(t, logins)
	}
	return fmt.Sprintf("Seat %s reviews it: %s approves this pull request or comments `/pact accept %s`, or seat %s runs `PACT_AGENT_ID=%s pactify accept %s`.",
		t.Reviewer, accountsOf(t.Reviewer, logins), id, t.Reviewer, t.Reviewer, id)
}

// freshReviewHint is the fix for a task whose accept no longer covers the
// head: the two ways out the frozen protocol leaves.
func freshReviewHint(t *projection.Task, logins []string) string {
	return fmt.Sprintf("Ask %s to approve the pull request's current head on GitHub: a fresh review renews the accept of %s without a new event (a second accept is not allowed). Or give the new work a new task with pactify assign, or revert the changes.", accountsOf(t.Reviewer, logins), t.ID)
}

// accountsOf names the GitHub accounts of a seat for a sentence.
func accountsOf(seat string, logins []string) string {
	if len(logins) == 0 {
		return "an account that holds seat " + seat
	}
	return strings.Join(logins, " or ")
}

// rolesOf are the roles of seat in st's roster (worker, which a join
// needs, when the roster does not name it).
func rolesOf(st *projection.State, seat string) []string {
	for _, s := range st.Seats {
		if s.ID == seat && len(s.Roles) > 0 {
			return s.Roles
		}
	}
	return []string{projection.RoleWorker}
}

// rewrittenHint is log.rewritten's hint where no merge is stopped (the
// check of a pull request; a committed merge that lost lines too): put
// the base branch's lines back and record the branch's events again.
const rewrittenHint = "Put the lines of the base branch back: " + putBack + "; the log is append-only."

// committedMarkersHint is merge.conflict_markers' hint where no merge is
// stopped: the markers were committed.
const committedMarkersHint = "git's conflict markers were committed, and pactify resolve only finishes a merge that is stopped: " + putBack + "."

// InMerge gives the findings of a pact read while git has a merge,
// rebase, cherry-pick or revert stopped in its work tree (the caller asks
// git) the hints for that situation: pactify resolve finishes what git
// stopped on, and a log resolved by hand goes back to git's conflict
// first (git checkout -m, which the index's record of the conflict
// allows until the merge is committed).
func InMerge(findings []Finding) []Finding {
	for i, f := range findings {
		switch f.Code {
		case CodeMergeConflict:
			findings[i].Hint = resolveHint
		case CodeLogRewritten:
			findings[i].Hint = fmt.Sprintf("git's merge is stopped and %s lost lines of the base branch: `git checkout -m %s` takes it back to git's conflict, then `pactify resolve` merges it, the base branch's lines first, and stages it with STATE.yml.", f.Path, f.Path)
		}
	}
	return findings
}

// unmappedHint is pr.unmapped_branch's hint: the assign that makes the
// pull request's branch ship a feature, by the roster's first
// orchestrator.
func unmappedHint(st *projection.State, branch string) string {
	orch := "<orchestrator_seat>"
	for _, s := range st.Seats {
		if slices.Contains(s.Roles, projection.RoleOrchestrator) {
			orch = s.ID
			break
		}
	}
	return fmt.Sprintf("Assign the branch's work to a task: `PACT_AGENT_ID=%s pactify assign <task_id> --feature <feature_id> --branch %s --owner <worker_seat> --reviewer <reviewer_seat>`; or open the pull request from the branch its tasks name. A PR that only changes .pact/ is never blocked.", orch, shellWord(branch))
}

// defaultDirPath is the pact directory's path as the table's hints write
// it, where a word starts: ".pact/log.jsonl", "`.pact/".
var defaultDirPath = regexp.MustCompile("(^|[\\s`(])" + regexp.QuoteMeta(pactfile.DefaultDir+"/"))

// inPactDir puts the pact directory of layout in place of the default
// one in the findings' hints, so that the paths they name (git checkout
// of the log, a pull request that only changes the pact) are the pact's
// own under --pact-dir or the action's pact-dir. A path already under
// another directory is left as it is, so applying it twice changes
// nothing.
func inPactDir(findings []Finding, layout pactfile.Layout) []Finding {
	dir := layout.Dir()
	if dir == pactfile.DefaultDir {
		return findings
	}
	for i := range findings {
		findings[i].Hint = defaultDirPath.ReplaceAllString(findings[i].Hint, "${1}"+dir+"/")
	}
	return findings
}
