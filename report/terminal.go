package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/internal/prose"
	"github.com/pact-action/pact-action/projection"
)

// Plain makes text someone else wrote inert on a terminal, as Escape does
// for GitHub's Markdown: line breaks fold into spaces (so it cannot forge
// lines of output), and every hidden character (controls, which could
// move the cursor, rewrite what is shown, set the window title or the
// clipboard; bidirectional controls, which could reorder it; zero-width
// characters) is written out as an escape (\x1b, \u202e) by visible, the
// one list every rendering uses. Invalid UTF-8 becomes U+FFFD. Text with
// none of these is returned as it is.
func Plain(s string) string {
	if !hasHidden(s) && !strings.ContainsRune(s, '\n') {
		return s
	}
	return visible(prose.OneLine(strings.ToValidUTF8(s, "\uFFFD")))
}

// maxTerminalTasks is how many tasks the preview lists before it counts
// the rest: a pact can have thousands, and the branch's are the ones the
// check judges.
const maxTerminalTasks = 50

// WriteCheckText writes what a check run would show as plain text for a
// terminal: `pact-action check --local`'s output. Each finding is written
// as validate writes it (`path:line: code: message`, then its severity and
// hint), then the tasks of the branch, then the verdict last. Nothing in it
// is Markdown; user text goes through Plain.
func WriteCheckText(w io.Writer, v Verdict) error {
	b := bufio.NewWriterSize(w, 64<<10)
	writeFindings(b, v.Findings)
	writeTasks(b, v.State, v.HeadBranch)
	c := checks.Count(v.Findings)
	fmt.Fprintf(b, "%s: %s [%s]\n", Plain(v.CheckName), Title(v.Findings), Conclusion(v.Findings))
	fmt.Fprintf(b, "%s, %d waiting, %s", prose.Plural(c.Errors, "error"), c.Pending, prose.Plural(c.Warnings, "warning"))
	if v.HeadSHA != "" {
		fmt.Fprintf(b, " on %s", Plain(prose.ShortSHA(v.HeadSHA)))
	}
	if v.HeadBranch != "" {
		fmt.Fprintf(b, " (branch %s)", Plain(v.HeadBranch))
	}
	b.WriteString(".\n")
	if v.Note != "" {
		fmt.Fprintf(b, "%s\n", Plain(v.Note))
	}
	return b.Flush()
}

// writeTasks lists the tasks of branch (every task when branch is ""), at
// most maxTerminalTasks, in columns, and counts the others.
func writeTasks(b *bufio.Writer, st *projection.State, branch string) {
	if st == nil || len(st.TaskOrder) == 0 {
		return
	}
	var rows [][]string
	others := 0
	for _, fid := range st.FeatureOrder {
		fs := string(st.FeatureStatus(fid)) // once per feature: it looks at each task
		for _, tid := range st.Features[fid].Tasks {
			t := st.Tasks[tid]
			if branch != "" && t.Branch != branch {
				others++
				continue
			}
			status := string(t.Status)
			if t.Rounds > 0 {
				status += " (" + prose.Plural(t.Rounds, "change round") + ")"
			}
			rows = append(rows, []string{Plain(fid), fs, Plain(tid), status, Plain(t.Owner), Plain(t.Reviewer), Plain(t.Branch)})
		}
	}
	switch {
	case branch == "":
		b.WriteString("tasks:\n")
	case len(rows) == 0:
		fmt.Fprintf(b, "no task is on branch %s.\n", Plain(branch))
	default:
		fmt.Fprintf(b, "tasks on branch %s:\n", Plain(branch))
	}
	if len(rows) > 0 {
		tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  feature\tfeature status\ttask\ttask status\towner\treviewer\tbranch")
		for i, r := range rows {
			if i == maxTerminalTasks {
				break
			}
			fmt.Fprintln(tw, "  "+strings.Join(r, "\t"))
		}
		_ = tw.Flush() // its error stays in b, whose Flush the caller returns
	}
	if more := len(rows) - maxTerminalTasks; more > 0 {
		fmt.Fprintf(b, "  …and %d more on this branch.\n", more)
	}
	if others > 0 {
		fmt.Fprintf(b, "%s on other branches; `pactify status` lists every task.\n", prose.Plural(others, "more task"))
	}
	b.WriteString("\n")
}
