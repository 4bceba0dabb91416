package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"

	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/internal/cmdline"
	"github.com/pact-action/pact-action/internal/pactdir"
	"github.com/pact-action/pact-action/internal/version"
	"github.com/pact-action/pact-action/pactfile"
	"github.com/pact-action/pact-action/report"
)

// localFlags are the flags of `pact-action check --local`.
var localFlags = cmdline.Flags{"local": cmdline.String, "base": cmdline.String, "base-log": cmdline.String,
	"branch": cmdline.String, "pact-dir": cmdline.String, "fail-on": cmdline.String, "format": cmdline.String}

// runLocal previews the check on a local checkout, without GitHub.
func runLocal(ctx context.Context, args []string, stdout io.Writer) error {
	p, err := cmdline.Parse("check", args, localFlags)
	if errors.Is(err, cmdline.ErrHelp) {
		_, err = io.WriteString(stdout, helpText)
		return err
	}
	if err != nil {
		return err
	}
	if len(p.Positional) != 0 {
		return usagef("unexpected argument %q", p.Positional[0])
	}
	opts := map[string]string{"pact-dir": pactfile.DefaultDir, "fail-on": "error", "format": "text"}
	for name := range localFlags {
		if p.Has(name) {
			opts[name] = p.Get(name)
		}
	}
	root := opts["local"]
	if root == "" {
		return usagef("check needs --local DIR (the repository to judge)")
	}
	failOn, err := parseFailOn(opts["fail-on"])
	if err != nil {
		return err
	}
	if f := opts["format"]; f != "text" && f != "json" && f != "sarif" {
		return usagef("--format must be text, json or sarif, not %q", f)
	}
	dir, err := pactdir.At(root, opts["pact-dir"])
	if err != nil {
		return usagef("--pact-dir %q must be a directory inside %s, such as .pact", opts["pact-dir"], root)
	}
	in, err := dir.Load()
	if errors.Is(err, pactdir.ErrNoPact) {
		return fmt.Errorf("there is no pact to judge: %w; point --local at a repository root", err)
	}
	if err != nil {
		return err
	}
	logPath := dir.Display(pactfile.LogFile)
	base, err := localBase(ctx, root, logPath, opts["base"], opts["base-log"])
	if err != nil {
		return err
	}
	var head []byte
	if base != nil { // the head's bytes matter only against a base
		f, _, err := dir.OpenLog() // as Load read it: no link, bounded
		if err != nil {
			return err
		}
		head, err = io.ReadAll(f)
		f.Close()
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
	opts["branch"] = branch
	findings := checks.PullRequest(in, pr)
	conclusion := report.Conclusion(findings)
	switch opts["format"] {
	case "json":
		if err := report.NewCheckJSON(conclusion, "", 0, findings).Write(stdout); err != nil {
			return fmt.Errorf("write the report: %w", err)
		}
	case "sarif":
		if err := report.WriteSARIF(stdout, report.SARIFTool{Name: "pact-action", Version: version.String()}, findings); err != nil {
			return fmt.Errorf("write the report: %w", err)
		}
	default:
		v := report.Verdict{CheckName: "pact", HeadBranch: opts["branch"], Findings: findings, State: in.Replay.State,
			Note: "Local preview: this is what the check run would show."}
		fmt.Fprintf(stdout, "%s: %s [%s]\n\n%s\n", v.CheckName, report.Title(findings), conclusion, report.Summary(v))
		if anns := report.Annotations(findings); len(anns) > 0 {
			fmt.Fprintf(stdout, "Annotations (%d):\n", len(anns))
			for _, a := range anns {
				fmt.Fprintf(stdout, "  %s:%d: %s: %s: %s\n", a.Path, a.Line, a.Level, a.Title, strings.ReplaceAll(a.Message, "\n", " — "))
			}
		}
	}
	return verdictExit(checks.Count(findings), failOn, false)
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
