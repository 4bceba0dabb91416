package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"slices"
	"strings"

	"github.com/pact-action/pact-action/action"
	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/internal/cmdline"
	"github.com/pact-action/pact-action/internal/version"
	"github.com/pact-action/pact-action/pactdir"
	"github.com/pact-action/pact-action/pactfile"
	"github.com/pact-action/pact-action/report"
)

// localFlags are the flags of `pact-action check --local` (and the global
// --pact-dir).
var localFlags = cmdline.Flags{"local": cmdline.String, "base": cmdline.String, "base-log": cmdline.String,
	"branch": cmdline.String, "fail-on": cmdline.String, "format": cmdline.String, "max-pact-bytes": cmdline.String}

// localFormats are check's --format values: text for a terminal, json and
// sarif for programs, markdown for where it is rendered.
var localFormats = []string{"text", "json", "sarif", "markdown"}

// runLocal previews the check on a local checkout, without GitHub.
func runLocal(ctx context.Context, p cmdline.Args, stdout io.Writer) error {
	if len(p.Positional) != 0 {
		return usagef("unexpected argument %q", p.Positional[0])
	}
	opts := map[string]string{pactDirFlag: pactfile.DefaultDir, "fail-on": "error", "format": "text"}
	for name := range localFlags {
		if p.Has(name) {
			opts[name] = p.Get(name)
		}
	}
	if p.Has(pactDirFlag) {
		opts[pactDirFlag] = p.Get(pactDirFlag)
	}
	root := opts["local"]
	if root == "" {
		return usagef("check needs --local DIR (the repository to judge)")
	}
	failOn, err := parseFailOn(opts["fail-on"])
	if err != nil {
		return err
	}
	if f := opts["format"]; !slices.Contains(localFormats, f) {
		return usagef("--format must be text, json, sarif or markdown, not %q", f)
	}
	maxBytes, err := parseByteSize(opts["max-pact-bytes"])
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
	dir, err := pactdir.At(root, opts[pactDirFlag])
	if err != nil {
		return usagef("--pact-dir %q must be a directory inside %s, such as .pact", opts[pactDirFlag], root)
	}
	budget := newLocalBudget(maxBytes)
	for _, name := range []string{pactfile.LogFile, pactfile.StateFile, pactfile.ProjectFile} {
		if err := budget.takeFile(dir, name); err != nil {
			return err
		}
	}
	in, err := dir.Load()
	if errors.Is(err, pactdir.ErrNoPact) {
		return fmt.Errorf("there is no pact to judge: %w; point --local at a repository root", err)
	}
	if err != nil {
		return err
	}
	logPath := dir.Display(pactfile.LogFile)
	for _, id := range in.Replay.State.TaskOrder {
		if err := budget.takeFile(dir, pactfile.TasksDir, id+".md"); err != nil {
			return err
		}
	}
	base, err := localBase(ctx, root, logPath, opts["base"], opts["base-log"])
	if err != nil {
		return err
	}
	if err := budget.take(logPath+" at the merge base", int64(len(base))); err != nil {
		return err
	}
	var head []byte
	if base != nil { // the head's bytes matter only against a base
		f, _, err := dir.OpenLog() // as Load read it: no link, bounded
		if err != nil {
			return err
		}
		head, err = io.ReadAll(f)
		_ = f.Close() // only read
		if err != nil {
			return fmt.Errorf("read the head log: %w", err)
		}
	}
	branch := opts["branch"]
	if branch == "" {
		branch = gitOutput(ctx, root, "rev-parse", "--abbrev-ref", "HEAD")
	}
	pr := checks.PullRequestFacts{BaseLog: base, HeadLog: head, Config: checks.ParseConfig(in.Config)}
	if branch != "" && branch != "HEAD" {
		pr.Branches = []string{branch}
	}
	findings := checks.PullRequest(in, pr)
	counts := checks.Count(findings)
	verdict := verdictExit(counts, failOn, false)
	v := report.Verdict{CheckName: "pact", HeadBranch: branch, Findings: findings, State: in.Replay.State,
		Note: "Local preview: this is what the check run would show."}
	switch opts["format"] {
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

// localBudget counts what the preview reads of the pact against
// --max-pact-bytes, as the action counts what it reads against its
// max-pact-bytes input: the same default, the same files (the log,
// STATE.yml, PROJECT.md, the task files of the tasks the log assigns, the
// merge base's log) and the same message past it. The first three are
// counted before they are read, the others as soon as they are known.
type localBudget struct{ max, used int64 }

func newLocalBudget(max int64) *localBudget {
	if max <= 0 {
		max = action.DefaultMaxPactBytes
	}
	return &localBudget{max: max}
}

// take counts n bytes of path, or refuses them when they do not fit.
func (b *localBudget) take(path string, n int64) error {
	if n > b.max-b.used {
		return &action.PactTooLargeError{Path: path, Size: n, Left: b.max - b.used, Max: b.max}
	}
	b.used += n
	return nil
}

// takeFile counts a file of the pact directory by its size (nothing when
// it is not there: Load says what is missing).
func (b *localBudget) takeFile(dir pactdir.Dir, elem ...string) error {
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
		cmd := exec.CommandContext(ctx, "git", "show", rev+":"+logPath)
		cmd.Dir = root
		out, err := cmd.Output()
		if err != nil {
			if gitOutput(ctx, root, "rev-parse", "--verify", "-q", rev+"^{commit}") == "" {
				return nil, usagef("--base %q is not a commit git can find in %s", rev, root)
			}
			return []byte{}, nil
		}
		return out, nil
	}
	return nil, nil
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

// failOn is the fail-on input: which findings fail the job.
type failOn string

const (
	failOnError   failOn = "error"
	failOnWarning failOn = "warning"
	failOnNever   failOn = "never"
)

func parseFailOn(s string) (failOn, error) {
	switch f := failOn(strings.ToLower(strings.TrimSpace(s))); f {
	case "":
		return failOnError, nil
	case failOnError, failOnWarning, failOnNever:
		return f, nil
	}
	return "", usagef("fail-on must be error, warning or never, not %q", s)
}

// verdictExit decides the exit code of a verdict. Waiting fails the job only
// when no check run carries the block (checkPosted false): then the job is
// the only thing that can hold the merge.
func verdictExit(c checks.Counts, f failOn, checkPosted bool) error {
	switch {
	case f == failOnNever:
		return nil
	case c.Errors > 0, f == failOnWarning && c.Warnings > 0:
		return &verdictError{exitViolation}
	case c.Pending > 0 && !checkPosted:
		return &verdictError{exitWaiting}
	}
	return nil
}
