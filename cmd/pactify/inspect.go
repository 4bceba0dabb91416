package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/internal/cmdline"
	"github.com/pact-action/pact-action/internal/prose"
	"github.com/pact-action/pact-action/internal/version"
	"github.com/pact-action/pact-action/pactdir"
	"github.com/pact-action/pact-action/pactfile"
	"github.com/pact-action/pact-action/projection"
	"github.com/pact-action/pact-action/report"
)

// The verbs that read the pact (status, log, validate), and log
// --replay, which writes STATE.yml (and --task-files the task files) from
// the log.

func (c *cli) cmdStatus(p cmdline.Args) error {
	if len(p.Positional) != 0 {
		return usageOf("status")
	}
	prog := c.progress()
	defer prog.stop()
	_, res, err := c.loadForRead(prog.Progress)
	if err != nil {
		return err
	}
	c.noteTornTail()
	prog.stop()
	b, err := c.dir.ReadFile(pactfile.StateFile)
	if err != nil {
		return err
	}
	if b == nil {
		fmt.Fprintf(c.stderr, "pactify: %s is missing; showing a fresh projection of the log (run `pactify log --replay` to write it)\n", c.dir.Display(pactfile.StateFile))
		b = projection.RenderBytes(res.State)
	}
	_, err = c.stdout.Write(b)
	return err
}

func (c *cli) cmdLog(p cmdline.Args) error {
	if len(p.Positional) != 0 {
		return usageOf("log")
	}
	if p.Bools["task-files"] && !p.Bools["replay"] {
		return usagef("log --task-files writes the task files from the log, and needs --replay")
	}
	if !p.Bools["replay"] {
		if _, _, err := c.loadForRead(nil); err != nil {
			return err
		}
		c.noteTornTail()
		f, _, err := c.dir.OpenLog()
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = io.Copy(c.stdout, f)
		return err
	}
	if _, err := c.agent(); err != nil {
		return err
	}
	if !c.dir.Exists() {
		return &refusal{fmt.Sprintf("there is no pact here: %s does not exist", c.dir.Display(pactfile.LogFile)), "run `pactify init` first"}
	}
	prog := c.progress()
	defer prog.stop()
	unlock, err := c.lock(prog)
	if err != nil {
		return err
	}
	defer unlock()
	log, res, err := c.loadForRead(prog.Progress)
	if err != nil {
		return err
	}
	if err := c.refuseConflict(log); err != nil {
		return err
	}
	if err := c.interrupted(); err != nil {
		return err
	}
	prog.Start("writing "+c.dir.Display(pactfile.StateFile), 0, "")
	if err := c.dir.WriteState(res.State); err != nil {
		return err
	}
	prog.stop()
	fmt.Fprintf(c.stdout, "%s rebuilt from %d applied event(s)\n", c.dir.Display(pactfile.StateFile), res.State.Applied)
	c.lateInterrupt(c.dir.Display(pactfile.StateFile) + " was being written")
	if p.Bools["task-files"] {
		return c.replayTaskFiles(res.State)
	}
	return nil
}

// replayTaskFiles writes the front matter of every task file that is
// missing or disagrees with the log (what validate --task-files reports
// as taskfile.missing and taskfile.mismatch), keeping the bodies; a file
// that agrees is not touched. The caller holds the pact's lock.
func (c *cli) replayTaskFiles(st *projection.State) error {
	var written []string
	// STATE.yml is written: from here on an interrupt finishes the verb
	// (docs/pactify.md), so it is not asked.
	for _, t := range st.TaskList() {
		b, err := c.dir.ReadTaskFile(t.ID)
		if err != nil {
			return err
		}
		if b != nil {
			if _, bad := checks.TaskFile(c.dir.Display(pactfile.TasksDir, pactfile.TaskFileName(t.ID)), t, b); !bad {
				continue
			}
		}
		if err := c.dir.WriteTaskFile(t); err != nil {
			return err
		}
		written = append(written, t.ID)
	}
	if len(written) == 0 {
		fmt.Fprintf(c.stdout, "every task file agrees with the log\n")
		return nil
	}
	fmt.Fprintf(c.stdout, "wrote the front matter of %d task file(s) from the log: %s\n", len(written), prose.List(written, 10))
	c.lateInterrupt("the task files were being written")
	return nil
}

func (c *cli) cmdValidate(p cmdline.Args) error {
	format := p.Get("format")
	if format == "" {
		format = "text"
	}
	if format != "text" && format != "json" && format != "sarif" {
		return usagef("--format must be text, json or sarif, not %q", format)
	}
	if len(p.Positional) != 0 {
		return usageOf("validate")
	}
	prog := c.progress()
	defer prog.stop()
	files, err := c.dir.LoadWatched(prog.Progress, pactdir.LoadOptions{TaskFiles: p.Bools["task-files"], Prejudge: checks.FastPaths{}})
	in := checks.Input(files)
	if errors.Is(err, pactdir.ErrNoPact) {
		return fmt.Errorf("there is no pact to validate in %s (%s is missing); run pactify in the repository root, or `pactify init` to start one", c.dir.Root, c.dir.Display(pactfile.LogFile))
	}
	if err != nil {
		return err
	}
	c.noteTornTail()
	findings := checks.Run(in)
	if checks.MergeConflict(in) != nil && c.mergeStopped() {
		findings = checks.InMerge(findings)
	}
	prog.stop()
	switch format {
	case "json":
		err = report.WriteJSON(c.stdout, findings)
	case "sarif":
		err = report.WriteSARIF(c.stdout, report.SARIFTool{Name: "pactify", Version: version.String()}, findings)
	default:
		err = report.WriteText(c.stdout, findings)
	}
	if err != nil {
		return fmt.Errorf("write the report: %w", err)
	}
	if in.Replay.Unsupported != nil {
		return unsupported(in.Replay.Unsupported)
	}
	if checks.Count(findings).Errors > 0 {
		return errInvalid
	}
	return nil
}
