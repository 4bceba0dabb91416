package action

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"slices"
	"strings"

	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/config"
	"github.com/pact-action/pact-action/internal/version"
	"github.com/pact-action/pact-action/pactdir"
	"github.com/pact-action/pact-action/pactfile"
	"github.com/pact-action/pact-action/report"
)

// LocalOptions are the flags of `pact-action check --local`, as given.
type LocalOptions struct {
	// Root is --local, the repository to judge; PactDir --pact-dir, the
	// pact directory inside it.
	Root, PactDir string
	// Base is --base, the pull request's base: the log is judged against
	// the merge base of it and HEAD; BaseLog --base-log, a file holding
	// the merge base's log.
	Base, BaseLog string
	// Branch is --branch ("": the checked-out branch).
	Branch string
	// FailOn, Format and MaxPactBytes are the flags of the same names.
	FailOn, Format, MaxPactBytes string
}

// LocalDefaults are the options of a preview given only --local.
func LocalDefaults() LocalOptions {
	return LocalOptions{PactDir: pactfile.DefaultDir, FailOn: string(failOnError), Format: "text"}
}

// LocalFormats are check's --format values: text for a terminal, json and
// sarif for programs, markdown for where it is rendered.
var LocalFormats = []string{"text", "json", "sarif", "markdown"}

// Local previews the check on a local checkout, without GitHub: it judges
// the pact at o.Root as the check would (checks.PullRequest), within the
// same byte budget, and writes the verdict in o.Format. The error is a
// *VerdictError when the verdict fails, a usage error for options that
// cannot run as given.
func Local(ctx context.Context, o LocalOptions, stdout io.Writer, logger *slog.Logger) error {
	root := o.Root
	if root == "" {
		return usagef("check needs --local DIR (the repository to judge)")
	}
	failOn, err := parseFailOn(o.FailOn)
	if err != nil {
		return err
	}
	if !slices.Contains(LocalFormats, o.Format) {
		return usagef("--format must be text, json, sarif or markdown, not %q", o.Format)
	}
	maxBytes, err := parseByteSize(o.MaxPactBytes)
	if err != nil {
		return usagef("--max-pact-bytes %s", err)
	}
	switch fi, err := os.Stat(root); {
	case errors.Is(err, fs.ErrNotExist):
		return usagef("--local %s does not exist; point --local at a repository root", root)
	case err != nil:
		return fmt.Errorf("read --local %s: %w", root, err)
	case !fi.IsDir():
		return usagef("--local %s is not a directory; point --local at a repository root", root)
	}
	dir, err := pactdir.At(root, o.PactDir)
	if err != nil {
		return usagef("--pact-dir %q must be a directory inside %s, such as .pact", o.PactDir, root)
	}
	// The same budget as the action's (budget.go), over the same files:
	// the log, STATE.yml and PROJECT.md counted before they are read, the
	// task files and the merge base's log as soon as they are known.
	budget := newReadBudget(maxBytes)
	for _, name := range []string{pactfile.LogFile, pactfile.StateFile, pactfile.ProjectFile} {
		if err := takeFile(budget, dir, name); err != nil {
			return err
		}
	}
	files, err := dir.Load(pactdir.LoadOptions{Prejudge: checks.FastPaths{}})
	in := checks.Input(files)
	if errors.Is(err, pactdir.ErrNoPact) {
		return fmt.Errorf("there is no pact to judge: %w; point --local at a repository root", err)
	}
	if err != nil {
		return err
	}
	if note := dir.TornTail(); note != "" {
		logger.Warn(note)
	}
	logPath := dir.Display(pactfile.LogFile)
	for _, id := range in.Replay.State.TaskOrder {
		if err := takeFile(budget, dir, pactfile.TasksDir, id+".md"); err != nil {
			return err
		}
	}
	base, err := localBase(ctx, root, logPath, o.Base, o.BaseLog)
	if err != nil {
		return err
	}
	if err := budget.take(logPath+" at the merge base", int64(len(base))); err != nil {
		return err
	}
	var head []byte
	if base != nil { // the head's bytes matter only against a base
		f, size, err := dir.OpenLog() // as Load read it: no link, bounded
		if err != nil {
			return err
		}
		// Read into a buffer of the log's size: io.ReadAll grows by
		// doubling, which holds up to twice the log (docs/semantics.md §7).
		head = make([]byte, size)
		n, err := io.ReadFull(f, head)
		_ = f.Close() // only read
		if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
			return fmt.Errorf("read the head log: %w", err)
		}
		head = head[:n]
		base = asPrefixOf(head, base)
	}
	branch := o.Branch
	if branch == "" {
		branch = gitOutput(ctx, root, "rev-parse", "--abbrev-ref", "HEAD")
	}
	pr := checks.PullRequestFacts{BaseLog: base, HeadLog: head, Config: config.ParseFile(in.Config, "", "")}
	if branch != "" && branch != "HEAD" {
		pr.Branches = []string{branch}
	}
	findings := checks.PullRequest(in, pr)
	if stoppedMerge(ctx, root, findings) {
		findings = checks.InMerge(findings)
	}
	counts := checks.Count(findings)
	verdict := verdictExit(counts, failOn, false)
	v := report.Verdict{CheckName: "pact", HeadBranch: branch, Findings: findings, State: in.Replay.State,
		Note: "Local preview: this is what the check run would show."}
	switch o.Format {
	case "json":
		err = report.NewCheckJSON(report.Conclusion(findings), "", 0, findings).Write(stdout)
	case "sarif":
		err = report.WriteSARIF(stdout, report.SARIFTool{Name: "pact-action", Version: version.String()}, findings)
	case "markdown":
		_, err = io.WriteString(stdout, report.Summary(v))
	default:
		err = report.WriteCheckText(stdout, v)
		if line := exitLine(verdict, counts); line != "" && err == nil {
			_, err = fmt.Fprintln(stdout, line)
		}
	}
	if err != nil {
		return fmt.Errorf("write the report: %w", err)
	}
	return verdict
}

// takeFile counts a file of the pact directory by its size (nothing when
// it is not there: Load says what is missing).
func takeFile(b *readBudget, dir pactdir.Dir, elem ...string) error {
	// A missing file or one that is not regular is Load's to report.
	if fi, err := os.Lstat(dir.Path(elem...)); err == nil && fi.Mode().IsRegular() {
		return b.take(dir.Display(elem...), fi.Size())
	}
	return nil
}

// localBase reads the merge-base log for a local preview: from a file, or
// from git at a revision (a revision whose tree has no log is an empty
// base). nil means no base was asked for.
func localBase(ctx context.Context, root, logPath, rev, file string) ([]byte, error) {
	switch {
	case file != "":
		b, err := os.ReadFile(file)
		if err != nil {
			return nil, fmt.Errorf("read --base-log: %w", err)
		}
		if b == nil {
			b = []byte{}
		}
		return b, nil
	case rev != "":
		// The check judges a pull request against the merge base of its
		// base and head (docs/semantics.md §5), never the base's tip: a
		// branch that is only behind main lacks main's newest lines
		// without having rewritten anything. --base names the base, as
		// `git diff main...` does.
		if strings.HasPrefix(rev, "-") || gitOutput(ctx, root, "rev-parse", "--verify", "-q", "--end-of-options", rev+"^{commit}") == "" {
			return nil, usagef("--base %q is not a commit git can find in %s", rev, root)
		}
		// A merge that git has stopped is judged as the commit it will
		// make: its merge base with rev is that of rev and a merge of HEAD
		// and MERGE_HEAD, which git merge-base computes from the three.
		heads := []string{"HEAD"}
		if mh := gitOutput(ctx, root, "rev-parse", "-q", "--verify", "MERGE_HEAD"); mh != "" {
			heads = append(heads, mh)
		}
		mergeBase := gitOutput(ctx, root, append([]string{"merge-base", "--end-of-options", rev}, heads...)...)
		if mergeBase == "" {
			return nil, usagef("--base %s and HEAD share no history in %s, so there is no merge base to judge the log against", rev, root)
		}
		cmd := exec.CommandContext(ctx, "git", "show", mergeBase+":"+logPath)
		cmd.Dir = root
		out, err := cmd.Output()
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			// git show refuses a path the commit does not have: a merge
			// base without a log is an empty base.
			return []byte{}, nil
		}
		if err != nil {
			return nil, fmt.Errorf("read the log at the merge base %s: %w", mergeBase, err)
		}
		return out, nil
	}
	return nil, nil
}

// stoppedMerge says that git has a merge, rebase, cherry-pick or revert
// stopped in root (the pseudo-refs it keeps until it is finished), asked
// only when findings hold one whose hint depends on it.
func stoppedMerge(ctx context.Context, root string, findings []checks.Finding) bool {
	if !slices.ContainsFunc(findings, func(f checks.Finding) bool {
		return f.Code == checks.CodeLogRewritten || f.Code == checks.CodeMergeConflict
	}) {
		return false
	}
	for _, ref := range []string{"MERGE_HEAD", "REBASE_HEAD", "CHERRY_PICK_HEAD", "REVERT_HEAD"} {
		if gitOutput(ctx, root, "rev-parse", "-q", "--verify", ref) != "" {
			return true
		}
	}
	return false
}

func gitOutput(ctx context.Context, dir string, args ...string) string {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}
