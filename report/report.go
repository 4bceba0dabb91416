// Package report owns every rendering of a judged pact: validate's text,
// JSON and SARIF (text.go, json.go, sarif.go), the action's JSON report
// (json.go), and the check run's verdict, its Markdown summary (also the job
// summary), its annotations and the fallback workflow commands (here). It
// is pure: findings and state in, text out; checks only judges. Every piece
// of user text from the log is escaped here, so a task id or a reason
// cannot inject Markdown, HTML or @-mentions into GitHub.
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

// MaxText is GitHub's limit for a check run's summary and text.
const MaxText = 65535

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

var mdEscaper = strings.NewReplacer(
	"&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;",
	// GitHub links mentions and issue references in rendered text, so an
	// entity is not enough: a zero-width space after @ and # breaks them
	// (and the e-mail addresses GitHub links, whose domain then starts
	// with it).
	"@", "@\u200b", "#", "#\u200b",
	`\`, `\\`, "`", "\\`", "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`, "(", `\(`, ")", `\)`,
	"|", `\|`, "~", `\~`,
)

// lineBreaks become spaces in escaped text (one table cell, one line).
var lineBreaks = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ", "\t", " ")

// Escape makes user text inert in GitHub Markdown: no HTML, no formatting,
// no links, no @-mentions or #-references, and no line breaks (so it stays
// inside a table cell). It is the one way to put text someone else wrote
// (a task id, a branch name, a reason, a message quoting them) into
// Markdown outside a code span.
//
// Escaping characters cannot stop GitHub's autolinker, which links a bare
// www.host, a URL with a scheme, and (on GitHub, not in CommonMark) a
// commit id or a GH-123 reference as text. So a word (a run without
// spaces) holding one of those becomes a code span instead, in which
// GitHub links nothing, less the punctuation around it: it stays readable
// and copies exactly, as a task id or a commit id should. The zero-width
// space after @ and # is invisible but not copied away; ids rarely hold
// those.
func Escape(s string) string {
	s = lineBreaks.Replace(strings.ToValidUTF8(s, "\uFFFD"))
	var b strings.Builder
	for i, word := range strings.Split(s, " ") {
		if i > 0 {
			b.WriteByte(' ')
		}
		if !linkable(word) {
			b.WriteString(mdEscaper.Replace(word))
			continue
		}
		lead := len(word) - len(strings.TrimLeft(word, leadPunct))
		core := strings.TrimRight(word[lead:], trailPunct)
		if core == "" { // all punctuation ("://"): quote it whole
			lead, core = 0, word
		}
		b.WriteString(mdEscaper.Replace(word[:lead]))
		b.WriteString(inertSpan(core))
		b.WriteString(mdEscaper.Replace(word[lead+len(core):]))
	}
	return b.String()
}

// Punctuation around a linkable word that stays outside its code span.
const (
	leadPunct  = `([{'"`
	trailPunct = `.,;:!?)]}'"`
)

// inertSpan is a code span of s that also holds inside a table cell: a
// pipe is escaped there (GFM splits cells before it reads code spans).
func inertSpan(s string) string {
	return Code(strings.ReplaceAll(s, "|", `\|`))
}

// linkable reports a word GitHub would turn (partly) into a link however
// its characters are escaped: a URL with a scheme (://), a www. host, a
// word of 7 or more hexadecimal digits (a commit id), or GH-<digits> (an
// issue or pull request). A word ending in www counts too: the text after
// it (a full stop) would make it one.
func linkable(word string) bool {
	lower := strings.ToLower(word)
	if strings.Contains(lower, "://") || strings.Contains(lower, "www.") || strings.HasSuffix(lower, "www") {
		return true
	}
	isWord := func(c byte) bool { return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' }
	isHex := func(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' }
	for i := 0; i < len(lower); {
		if !isWord(lower[i]) {
			i++
			continue
		}
		j := i
		hex := true
		for j < len(lower) && isWord(lower[j]) {
			hex = hex && isHex(lower[j])
			j++
		}
		if hex && j-i >= 7 {
			return true
		}
		if strings.HasPrefix(lower[i:], "gh-") && j-i == 2 && j+1 < len(lower) && lower[j+1] >= '0' && lower[j+1] <= '9' {
			return true
		}
		i = j
	}
	return false
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

// Code renders s as an inline code span that stays inert whatever s holds,
// so it is the one way to quote text someone else wrote (a task id, a
// branch name, a word of a comment) inside backticks. GitHub renders no
// mention, link, image or HTML inside a code span; only a backtick could
// end the span early, so it becomes ', and line breaks become spaces.
func Code(s string) string {
	s = codeSpanText.Replace(strings.ToValidUTF8(s, "\uFFFD"))
	if strings.TrimSpace(s) == "" {
		s = "\u00a0" + s // an empty span is not a span: show it as one
	}
	return "`" + s + "`"
}

// codeSpanText makes text safe inside one code span (Code).
var codeSpanText = strings.NewReplacer("`", "'", "\r\n", " ", "\n", " ", "\r", " ")

// Fence renders body as a fenced code block of the given info string that
// body cannot close: the fence is one backtick longer than the longest run
// of backticks inside it.
func Fence(info, body string) string {
	longest, run := 0, 0
	for _, c := range body {
		if c == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", max(3, longest+1))
	return fence + info + "\n" + strings.TrimSuffix(strings.ToValidUTF8(body, "\uFFFD"), "\n") + "\n" + fence
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
// finding's code, message and fix hint. It stays under MaxText; when
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
	if v.HeadBranch != "" {
		fmt.Fprintf(&head, " (branch %s)", Escape(v.HeadBranch))
	}
	head.WriteString(".\n")
	if v.Note != "" {
		fmt.Fprintf(&head, "\n> %s\n", prose.OneLine(v.Note))
	}
	// Where every finding can be read, for the notes of what is cut.
	everyFinding, eachTask := "every finding is annotated and in the JSON report", "each one is annotated and in the JSON report"
	if v.Unannotated > 0 {
		fmt.Fprintf(&head, "\n> %d more finding(s) are not annotated (a check run gets the %d most important, errors first); the summary and the JSON report list them all.\n",
			v.Unannotated, MaxCheckRunAnnotations)
		everyFinding, eachTask = "the JSON report lists every finding", "the JSON report lists each one"
	}

	var waiting []string
	for _, f := range v.Findings {
		if f.Severity == checks.SeverityPending {
			line := Escape(f.Message)
			if who := v.Requested[f.TaskID]; len(who) > 0 && f.TaskID != "" {
				line += "; review requested from " + Reviewers(who)
			}
			waiting = append(waiting, fmt.Sprintf("- %s\n", line))
		}
	}
	for _, n := range v.RequestNotes {
		waiting = append(waiting, fmt.Sprintf("- review request: %s\n", Escape(n)))
	}

	tasks := TaskTable(v.State, v.HeadBranch, v.Findings)
	footer := "\n<sub>Finding codes are explained in the pact-action README. The log is append-only; fix problems by appending events with `pactify`, never by editing lines.</sub>\n"

	// Assemble within the limit: the verdict always fits and the waiting
	// list takes at most half; the tables give way, findings last, since
	// annotations carry them too. Whatever is cut says so.
	out := head.String()
	if len(waiting) > 0 {
		out += "\n### Waiting\n\n"
		out += fit(len(waiting), func(i int) string { return waiting[i] }, MaxText/2-len(out), "\n_…%d more waiting task(s) not listed here to fit GitHub's 65,535-character limit; "+eachTask+"._\n")
	}
	budget := MaxText - len(out) - len(footer) - 200
	if len(v.Findings) > 0 {
		budget /= 2
	}
	if len(tasks) > budget {
		tasks = cut(tasks, budget, "\n_…the task table was cut to fit GitHub's 65,535-character limit._\n")
	}
	out += tasks
	budget = MaxText - len(out) - len(footer) - 200
	if len(v.Findings) > 0 {
		out += findingsHeader
		// Rows are rendered only while they fit: a log can have a million
		// findings.
		out += fit(len(v.Findings), func(i int) string { return findingRow(v.Findings[i]) }, budget-len(findingsHeader), "\n_…%d more finding(s) not shown here to fit GitHub's 65,535-character limit; "+everyFinding+"._\n")
	}
	out += footer
	if len(out) > MaxText {
		out = cut(out, MaxText, "\n_…cut to fit GitHub's 65,535-character limit._\n")
	}
	return out
}

// Reviewers names the accounts and teams a review is requested from, inert
// (an @ that mentions nobody): @login, team slug.
func Reviewers(rs []checks.Reviewer) string {
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
// appends note (a format taking the number left out).
func fit(n int, entry func(i int) string, budget int, note string) string {
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
		fmt.Fprintf(&b, note, n-shown)
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
		for _, tid := range st.Features[fid].Tasks {
			t := st.Tasks[tid]
			br := Escape(t.Branch)
			if branch != "" && t.Branch == branch {
				br = "**" + br + "** (this PR)"
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s |\n", Escape(fid), st.FeatureStatus(fid), Escape(tid), statusCell(t, waiting[tid]), Escape(t.Owner), Escape(t.Reviewer), br)
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
// MaxText.
func Text(findings []checks.Finding) string {
	var b strings.Builder
	for i, f := range findings {
		entry := fmt.Sprintf("%s %s %s\n%s\nHint: %s\n\n", Code(string(f.Severity)), Code(string(f.Code)), Code(where(f)), Escape(f.Message), Escape(f.Hint))
		if b.Len()+len(entry) > MaxText-200 {
			fmt.Fprintf(&b, "_…%d more finding(s) cut to fit GitHub's limit; the JSON report lists them all._\n", len(findings)-i)
			break
		}
		b.WriteString(entry)
	}
	return b.String()
}

// Annotation is one line annotation, in the check run's terms.
type Annotation struct {
	Path    string
	Line    int
	Level   string // LevelFailure, LevelWarning or LevelNotice
	Title   string
	Message string
}

// Annotations turns every finding into an annotation, on its
// AnnotatedLine since GitHub needs a line.
func Annotations(findings []checks.Finding) []Annotation {
	out := make([]Annotation, 0, len(findings))
	for _, f := range findings {
		out = append(out, Annotation{Path: f.Path, Line: f.AnnotatedLine(), Level: words(f.Severity).annotation,
			Title: fmt.Sprintf("%s (%s)", f.Code, f.Severity), Message: prose.OneLine(f.Message) + "\nHint: " + f.Hint})
	}
	return out
}

// ByImportance orders findings for places that show only a few: errors,
// then waiting, then warnings, each in file order.
func ByImportance(findings []checks.Finding) []checks.Finding {
	rank := map[checks.Severity]int{checks.SeverityError: 0, checks.SeverityPending: 1, checks.SeverityWarning: 2}
	out := append([]checks.Finding(nil), findings...)
	slices.SortStableFunc(out, func(a, b checks.Finding) int { return rank[a.Severity] - rank[b.Severity] })
	return out
}

// MaxCheckRunAnnotations is how many findings a check run annotates: three
// requests of the 50 annotations GitHub takes per request. GitHub's Checks
// API reference gives no number it displays per check run (only 50 per
// request, and 10 warning and 10 error annotations per step for workflow
// commands), so a few requests bound what a run costs; the summary counts
// the rest and the JSON report lists them.
const MaxCheckRunAnnotations = 150

// CheckRunAnnotations are the annotations a check run carries: the most
// important findings (ByImportance), at most MaxCheckRunAnnotations;
// left is how many findings are not annotated.
func CheckRunAnnotations(findings []checks.Finding) (anns []Annotation, left int) {
	ordered := ByImportance(findings)
	if len(ordered) > MaxCheckRunAnnotations {
		left = len(ordered) - MaxCheckRunAnnotations
		ordered = ordered[:MaxCheckRunAnnotations]
	}
	return Annotations(ordered), left
}

// MaxWorkflowAnnotations is how many error, warning and notice commands
// GitHub shows per step; the fallback summarises the rest in one line.
const MaxWorkflowAnnotations = 10

// WorkflowAnnotations are the workflow commands a step without a check run
// (a read-only token) writes: the most important findings, errors first,
// one fewer than GitHub shows when some must be left out, so the last line
// (more, "" when none are left out) can say how many.
func WorkflowAnnotations(findings []checks.Finding) (anns []Annotation, more string) {
	ordered := ByImportance(findings)
	if len(ordered) > MaxWorkflowAnnotations {
		keep := MaxWorkflowAnnotations - 1
		more = fmt.Sprintf("pact: %d more finding(s) are not annotated (GitHub shows %d per step); the job summary and the JSON report list them all", len(ordered)-keep, MaxWorkflowAnnotations)
		ordered = ordered[:keep]
	}
	return Annotations(ordered), more
}
