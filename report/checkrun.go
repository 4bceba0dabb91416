package report

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/internal/prose"
	"github.com/pact-action/pact-action/projection"
)

// Check run conclusions we use. Waiting is action_required: GitHub's branch
// protection does not count it as passing, and it does not read as an error.
const (
	ConclusionSuccess = "success"
	ConclusionFailure = "failure"
	ConclusionWaiting = "action_required"
)

// maxText is GitHub's limit for a check run's summary and text.
const maxText = 65535

// Verdict is everything a report shows about one judged head.
type Verdict struct {
	CheckName  string
	HeadBranch string // "" outside a pull request
	HeadSHA    string
	Findings   []checks.Finding
	State      *projection.State
	// Note is an optional line under the verdict (e.g. a fallback notice);
	// it is our own text, never the log's.
	Note string
	// Unannotated counts the findings the check run does not annotate
	// (beyond MaxCheckRunAnnotations); the summary says so.
	Unannotated int
	// Requested maps a waiting task to the accounts and teams whose review
	// stands requested on GitHub (names from the base branch's
	// configuration, never from the log); its waiting line names them.
	Requested map[string][]checks.Reviewer
	// RequestNotes say what the pact waits for that no review was
	// requested for, and why (they hold logins and GitHub's answers, so
	// they are escaped like the log's text).
	RequestNotes []string
	// Group is set for a merge queue's commit, which heads no pull
	// request: the summary speaks of the group and the pull requests it
	// holds, never of "this PR" (HeadBranch is then unused).
	Group *Group
}

// Group is a merge queue's group: the pull requests it holds, their head
// branches, and the base branch they merge into.
type Group struct {
	PRs      []int
	Branches []string
	BaseRef  string
}

// describe is the group as the summary's first line names it.
func (g *Group) describe() string {
	prs := make([]string, len(g.PRs))
	for i, n := range g.PRs {
		prs[i] = "#" + strconv.Itoa(n)
	}
	what, branch := "pull request ", "branch "
	if len(prs) != 1 {
		what = "pull requests "
	}
	if len(g.Branches) != 1 {
		branch = "branches "
	}
	branches := make([]string, len(g.Branches))
	for i, b := range g.Branches {
		branches[i] = Escape(b)
	}
	return fmt.Sprintf("the merge group of %s%s into %s (%s%s)", what, strings.Join(prs, ", "), Escape(g.BaseRef), branch, strings.Join(branches, ", "))
}

// Conclusion is success when nothing is wrong or waiting, failure on any
// error finding, and waiting otherwise.
func Conclusion(findings []checks.Finding) string {
	c := checks.Count(findings)
	switch {
	case c.Errors > 0:
		return ConclusionFailure
	case c.Pending > 0:
		return ConclusionWaiting
	}
	return ConclusionSuccess
}

// Title is the one-line verdict shown next to the check's name.
func Title(findings []checks.Finding) string {
	c := checks.Count(findings)
	switch {
	case c.Errors > 0:
		return fmt.Sprintf("%s — merge blocked", prose.Plural(c.Errors, "violation"))
	case c.Pending > 0:
		return fmt.Sprintf("waiting for %s — not yet mergeable", prose.Plural(c.Pending, "task"))
	case c.Warnings > 0:
		return fmt.Sprintf("pact holds (%s)", prose.Plural(c.Warnings, "warning"))
	}
	return "pact holds"
}

// NotJudged is the job summary's section for a commit the run could not
// judge; stopped is what its check run says (Stopped).
func NotJudged(checkName, headSHA, stopped string) string {
	return fmt.Sprintf("## ❌ %s: not judged\n\nOn %s. %s\n", Escape(checkName), Code(prose.ShortSHA(headSHA)), stopped)
}

// Stopped is the summary of a check run completed as failed before it had
// a verdict. why may quote the log or the pull request (a path, a branch),
// so it is escaped; rerun adds the advice to re-run the job, for a failure
// a re-run may not meet again.
func Stopped(why string, rerun bool) string {
	if !rerun {
		return "pact-action did not judge this commit: " + Escape(why) + "."
	}
	return "pact-action stopped before it finished judging this commit: " + Escape(why) + "\n\nRe-run the job; if it keeps failing, read the job log."
}

// Superseded is the title and summary of a check run a job left in
// progress, which check run by, of the same name on the same commit,
// completed with its own conclusion; title is by's.
func Superseded(by int64, title string) (string, string) {
	return fmt.Sprintf("superseded by check run %d: %s", by, title),
		fmt.Sprintf("The job that created this check run stopped before it could complete it (a runner lost, out of memory, or cancelled past its grace), and left it in progress. "+
			"Check run %d, of the same name, has judged this commit since: this run carries its conclusion, so that the commit reads the same whichever of the two is looked at. "+
			"Its summary has the verdict.", by)
}

// where is a finding's place as path:line (path alone for a finding of
// the whole file).
func where(f checks.Finding) string {
	if f.Line > 0 {
		return f.Path + ":" + strconv.Itoa(f.Line)
	}
	return f.Path
}

// Summary renders the check's Markdown summary: a verdict line, the features
// and tasks table, what each waiting task waits for and from whom, and each
// finding's code, message and fix hint. It stays under maxText; when
// something had to be cut it says what.
func Summary(v Verdict) string {
	var head strings.Builder
	c := checks.Count(v.Findings)
	emoji := "✅"
	switch Conclusion(v.Findings) {
	case ConclusionFailure:
		emoji = "❌"
	case ConclusionWaiting:
		emoji = "⏳"
	}
	fmt.Fprintf(&head, "## %s %s: %s\n\n", emoji, Escape(v.CheckName), Title(v.Findings))
	fmt.Fprintf(&head, "%d error(s), %d waiting, %d warning(s)", c.Errors, c.Pending, c.Warnings)
	if v.HeadSHA != "" {
		fmt.Fprintf(&head, " on %s", Code(prose.ShortSHA(v.HeadSHA)))
	}
	switch {
	case v.Group != nil:
		fmt.Fprintf(&head, ", %s", v.Group.describe())
	case v.HeadBranch != "":
		fmt.Fprintf(&head, " (branch %s)", Escape(v.HeadBranch))
	}
	head.WriteString(".\n")
	if v.Note != "" {
		fmt.Fprintf(&head, "\n> %s\n", visible(prose.OneLine(v.Note)))
	}
	// Where every finding can be read, for the notes of what is cut.
	everyFinding, eachTask := "every finding is annotated and in the JSON report", "each one is annotated and in the JSON report"
	if v.Unannotated > 0 {
		fmt.Fprintf(&head, "\n> %d more finding(s) are not annotated (a check run gets the %d most important, errors first); the summary and the JSON report list them.\n",
			v.Unannotated, MaxCheckRunAnnotations)
		everyFinding, eachTask = "the JSON report lists them", "the JSON report lists them"
	}

	var waiting []string
	var waitingFindings []checks.Finding // waiting[i] is of waitingFindings[i], or a note
	for _, f := range v.Findings {
		if f.Severity == checks.SeverityPending {
			waitingFindings = append(waitingFindings, f)
			line := Escape(f.Message)
			if who := v.Requested[f.TaskID]; len(who) > 0 && f.TaskID != "" {
				line += "; review requested from " + reviewers(who)
			}
			waiting = append(waiting, fmt.Sprintf("- %s\n", line))
		}
	}
	for _, n := range v.RequestNotes {
		waiting = append(waiting, fmt.Sprintf("- review request: %s\n", Escape(n)))
	}

	tasks := TaskTable(v.State, v.HeadBranch, v.Findings)
	if v.Group != nil {
		tasks = taskTable(v.State, v.Group.Branches, "in this group", v.Findings)
	}
	footer := "\n<sub>Finding codes are explained in the pact-action README. The log is append-only; fix problems by appending events with `pactify`, never by editing lines.</sub>\n"

	// Assemble within the limit: the verdict always fits and the waiting
	// list takes at most half; the tables give way, findings last, since
	// annotations carry them too. Whatever is cut says so.
	out := head.String()
	if len(waiting) > 0 {
		out += "\n### Waiting\n\n"
		left := func(from int) int {
			return checks.Count(waitingFindings[min(from, len(waitingFindings)):]).Total() + max(0, len(waiting)-max(from, len(waitingFindings)))
		}
		out += fit(len(waiting), func(i int) string { return waiting[i] }, maxText/2-len(out), "\n_…%d more waiting task(s) not listed here to fit GitHub's 65,535-character limit; "+eachTask+"._\n", left)
	}
	budget := maxText - len(out) - len(footer) - 200
	if len(v.Findings) > 0 {
		budget /= 2
	}
	if len(tasks) > budget {
		tasks = cut(tasks, budget, "\n_…the task table was cut to fit GitHub's 65,535-character limit._\n")
	}
	out += tasks
	budget = maxText - len(out) - len(footer) - 200
	if len(v.Findings) > 0 {
		out += findingsHeader
		// Rows are rendered only while they fit: a log can have a million
		// findings.
		out += fit(len(v.Findings), func(i int) string { return findingRow(v.Findings[i]) }, budget-len(findingsHeader), "\n_…%d more finding(s) not shown here to fit GitHub's 65,535-character limit; "+everyFinding+"._\n",
			func(from int) int { return checks.Count(v.Findings[from:]).Total() })
	}
	out += footer
	if len(out) > maxText {
		out = cut(out, maxText, "\n_…cut to fit GitHub's 65,535-character limit._\n")
	}
	return out
}

// reviewers names the accounts and teams a review is requested from, inert
// (an @ that mentions nobody): @login, team slug.
func reviewers(rs []checks.Reviewer) string {
	names := make([]string, 0, len(rs))
	for _, r := range rs {
		if r.Team != "" {
			names = append(names, "team "+Escape(r.Team))
		} else {
			names = append(names, Escape("@"+r.Login))
		}
	}
	return strings.Join(names, ", ")
}

// fit joins as many entries as fit in budget bytes and, when some do not,
// appends note (a format taking the number left out: left of the first
// entry not shown, since an entry may stand for many).
func fit(n int, entry func(i int) string, budget int, note string, left func(from int) int) string {
	var b strings.Builder
	shown := 0
	for ; shown < n; shown++ {
		e := entry(shown)
		if len(e) > budget {
			break
		}
		b.WriteString(e)
		budget -= len(e)
	}
	if shown < n {
		fmt.Fprintf(&b, note, left(shown))
	}
	return b.String()
}

func cut(s string, n int, note string) string {
	if len(s) <= n {
		return s
	}
	n = max(n-len(note), 0)
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	if i := strings.LastIndexByte(s[:n], '\n'); i > 0 {
		n = i + 1
	}
	return s[:n] + note
}

// TaskTable renders the features and tasks table, marking the tasks of
// branch. An accepted task that a pending finding still holds back (its
// accept does not cover the head) reads as waiting, not as accepted.
func TaskTable(st *projection.State, branch string, findings []checks.Finding) string {
	var branches []string
	if branch != "" {
		branches = []string{branch}
	}
	return taskTable(st, branches, "this PR", findings)
}

// taskTable is TaskTable marking the tasks of every branch of branches
// with mark.
func taskTable(st *projection.State, branches []string, mark string, findings []checks.Finding) string {
	if st == nil || len(st.TaskOrder) == 0 {
		return ""
	}
	waiting := map[string]bool{}
	for _, f := range findings {
		if f.Severity == checks.SeverityPending && f.TaskID != "" {
			waiting[f.TaskID] = true
		}
	}
	var b strings.Builder
	b.WriteString("\n### Features and tasks\n\n| feature | feature status | task | status | owner | reviewer | branch |\n|---|---|---|---|---|---|---|\n")
	for _, fid := range st.FeatureOrder {
		// Once per feature: it looks at each of its tasks, so asked per
		// row it is quadratic in a feature's tasks.
		fs, fe := st.FeatureStatus(fid), Escape(fid)
		for _, tid := range st.Features[fid].Tasks {
			t := st.Tasks[tid]
			br := Escape(t.Branch)
			if t.Branch != "" && slices.Contains(branches, t.Branch) {
				br = "**" + br + "** (" + mark + ")"
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s |\n", fe, fs, Escape(tid), statusCell(t, waiting[tid]), Escape(t.Owner), Escape(t.Reviewer), br)
		}
	}
	return b.String()
}

func statusCell(t *projection.Task, waiting bool) string {
	s := string(t.Status)
	switch {
	case t.Status == projection.StatusAccepted && waiting:
		s = "⏳ accepted, not for this code"
	case t.Status == projection.StatusAccepted:
		s = "✅ accepted"
	}
	if t.Rounds > 0 {
		s += fmt.Sprintf(" (%d change round(s))", t.Rounds)
	}
	return s
}

const findingsHeader = "\n### Findings\n\n| | code | where | what happened | how to fix |\n|---|---|---|---|---|\n"

func findingRow(f checks.Finding) string {
	return fmt.Sprintf("| %s | %s | %s | %s | %s |\n", words(f.Severity).icon, Code(string(f.Code)), inertSpan(where(f)), Escape(f.Message), Escape(f.Hint))
}

// Text is the check run's details text: one plain block per finding, under
// maxText.
func Text(findings []checks.Finding) string {
	var b strings.Builder
	for i, f := range findings {
		entry := fmt.Sprintf("%s %s %s\n%s\nHint: %s\n\n", Code(string(f.Severity)), Code(string(f.Code)), Code(where(f)), Escape(f.Message), Escape(f.Hint))
		if b.Len()+len(entry) > maxText-200 {
			fmt.Fprintf(&b, "_…%d more finding(s) cut to fit GitHub's limit; the JSON report lists them._\n", checks.Count(findings[i:]).Total())
			break
		}
		b.WriteString(entry)
	}
	return b.String()
}
