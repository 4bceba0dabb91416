package checks

import (
	"fmt"
	"path"
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
