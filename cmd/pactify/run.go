package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/internal/cmdline"
	"github.com/pact-action/pact-action/internal/prose"
	"github.com/pact-action/pact-action/internal/version"
	"github.com/pact-action/pact-action/pactdir"
	"github.com/pact-action/pact-action/pactfile"
	"github.com/pact-action/pact-action/projection"
	"github.com/pact-action/pact-action/report"
)

// cli carries what every verb needs: where the pact is, the streams, the
// environment and the clock.
type cli struct {
	ctx    context.Context
	stdout io.Writer
	stderr io.Writer
	getenv func(string) string
	dir    pactdir.Dir
	now    func() time.Time
	log    *slog.Logger
	// root is the command tree (commands.go); completion scripts are
	// generated from it.
	root *cobra.Command
	// helpErr is a failure to write help, which cobra's help functions
	// cannot return.
	helpErr error
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	_ = stdin // no verb reads standard input
	level := slog.LevelWarn
	if getenv("PACT_DEBUG") != "" {
		level = slog.LevelDebug
	}
	c := &cli{ctx: ctx, stdout: stdout, stderr: stderr, getenv: getenv,
		log: slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))}
	c.root = c.commands()
	err := cmdline.Execute(ctx, c.root, args, stdout, stderr)
	if err == nil {
		err = c.helpErr
	}
	return exitCode(err, stderr)
}

// runVerb runs one verb on its parsed command line: help and completion
// as they are, every other verb on the pact directory it names.
func (c *cli) runVerb(verb string, p cmdline.Args) error {
	switch verb {
	case "help":
		return c.cmdHelp(p)
	case "completion":
		return c.cmdCompletion(p)
	case "install":
		return c.cmdInstall(p)
	case "merge-driver":
		return c.cmdMergeDriver(p)
	}
	if p.Has(pactDirFlag) && strings.TrimSpace(p.Get(pactDirFlag)) == "" {
		return usagef("--pact-dir needs a directory, such as .pact")
	}
	var err error
	if c.dir, err = pactDir(verb, p.Get(pactDirFlag), c.getenv("PACT_DIR")); err != nil {
		return err
	}
	c.now, err = clock(c.getenv("PACT_NOW"))
	if err != nil {
		return err
	}
	verbs := map[string]func(cmdline.Args) error{
		"init": c.cmdInit, "join": c.cmdJoin, "assign": c.cmdAssign, "checkpoint": c.cmdCheckpoint,
		"accept": c.cmdAccept, "changes": c.cmdChanges, "merge": c.cmdMerge, "status": c.cmdStatus,
		"log": c.cmdLog, "validate": c.cmdValidate, "resolve": c.cmdResolve,
	}
	return verbs[verb](p)
}

// cmdHelp prints the reference, or one verb's usage.
func (c *cli) cmdHelp(p cmdline.Args) error {
	text := helpText
	switch len(p.Positional) {
	case 0:
	case 1:
		spec, ok := lookupVerb(p.Positional[0])
		if !ok {
			return cmdline.UnknownVerb(c.root, p.Positional[0])
		}
		text = spec.help()
	default:
		spec, _ := lookupVerb("help")
		return spec.usageError()
	}
	_, err := io.WriteString(c.stdout, text)
	return err
}

// pactDir is the pact directory a verb works on: --pact-dir, else
// PACT_DIR, with either separator, relative to the working directory (the
// repository root, which entry files are relative to) or absolute inside
// it (pactdir.At); else the nearest .pact from the working directory up to
// the repository's root, as git finds its repository (pactdir.Find). init
// refuses to start a second pact inside the one it finds.
func pactDir(verb, flag, env string) (pactdir.Dir, error) {
	root, err := os.Getwd()
	if err != nil {
		return pactdir.Dir{}, fmt.Errorf("find the working directory: %w", err)
	}
	name := flag
	if name == "" && strings.TrimSpace(env) != "" {
		name = env
	}
	if name == "" {
		d, found, err := pactdir.Find(root, pactfile.DefaultDir)
		if err != nil {
			return pactdir.Dir{}, err
		}
		if found && verb == "init" && d.Root != root {
			return pactdir.Dir{}, nestedPact(root, d)
		}
		return d, nil
	}
	d, err := pactdir.At(root, name)
	if err != nil {
		return pactdir.Dir{}, usagef("the pact directory %q must lie inside the repository, the working directory %s, and not be that directory itself; name one such as .pact", name, root)
	}
	// A file there is a mistyped name, not a pact to replace with a
	// directory, nor one to start.
	if fi, err := os.Lstat(d.Path()); err == nil && !fi.IsDir() && fi.Mode()&fs.ModeSymlink == 0 {
		from := "--pact-dir"
		if flag == "" {
			from = "PACT_DIR"
		}
		return pactdir.Dir{}, usagef("%s names %s, which is a file, not the pact's directory; name the directory (such as .pact), or unset it to find the pact as git finds its repository", from, d.Display())
	}
	return d, nil
}

// nestedPact is init's refusal in a subdirectory of an existing pact:
// a second .pact there would split the log the check reads.
func nestedPact(wd string, d pactdir.Dir) error {
	where := d.Path()
	if rel, err := filepath.Rel(wd, where); err == nil {
		where = filepath.ToSlash(rel)
	}
	return &refusal{fmt.Sprintf("this directory already belongs to the pact at %s (in %s)", where, d.Root),
		"run pactify init in " + d.Root + " to refresh that pact, or give --pact-dir to start a separate one here"}
}

// clock returns the wall clock, or the fixed instant PACT_NOW names so tests
// and reproducible scripts get deterministic timestamps.
func clock(fixed string) (func() time.Time, error) {
	if fixed == "" {
		return func() time.Time { return time.Now().UTC() }, nil
	}
	t, err := time.Parse(time.RFC3339Nano, fixed)
	if err != nil {
		return nil, usagef("PACT_NOW %q is not an RFC 3339 time; unset it to use the clock", fixed)
	}
	return func() time.Time { return t.UTC() }, nil
}

// newEventID is 128 bits of randomness in hex (docs/semantics.md, pact v1 §2.1).
func newEventID() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("generate an event_id: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}

func (c *cli) agent() (string, error) {
	id := c.getenv("PACT_AGENT_ID")
	if strings.TrimSpace(id) == "" {
		return "", &refusal{"PACT_AGENT_ID is not set, so pactify cannot tell which seat is acting",
			"export PACT_AGENT_ID=<your seat id> (your entry file's pact block names it) and run the command again"}
	}
	return id, nil
}

func unsupported(r *projection.Rejection) error {
	return &unsupportedError{r.Message}
}

// loadForRead replays the log for a verb that needs its state only,
// reporting on p (nil: nowhere).
func (c *cli) loadForRead(p *pactdir.Progress) (*projection.Log, *projection.Result, error) {
	log, res, err := c.dir.LoadReplay(p)
	if errors.Is(err, pactdir.ErrNoPact) {
		return nil, nil, fmt.Errorf("there is no pact in %s (%s is missing); run `pactify init` first", c.dir.Root, c.dir.Display(pactfile.LogFile))
	}
	if err != nil {
		return nil, nil, err
	}
	if res.Unsupported != nil {
		return nil, nil, unsupported(res.Unsupported)
	}
	return log, res, nil
}

// emit is the one path every event-writing verb takes: refuse without a
// seat, take the pact to write (pactdir.Dir.BeginWrite: the lock, the log
// and its replay), and write the event by the one routine every writer
// shares (projection.Log.Append: stamped, judged exactly as a replay would
// judge it, appended, STATE.yml regenerated), through the disk's edge
// (pactdir.Writer.Record: STATE.yml and, for an assign, the task file
// taskFile names, with the line). A refusal, or a failure before the line
// is appended, touches no file.
func (c *cli) emit(build func(agent string, st *projection.State) (projection.Draft, error), taskFile func(st *projection.State) *projection.Task) error {
	agent, err := c.agent()
	if err != nil {
		return err
	}
	if !c.dir.Exists() {
		return &refusal{fmt.Sprintf("there is no pact here: %s does not exist", c.dir.Display(pactfile.LogFile)),
			"run `pactify init --project NAME --seat id:roles:entry` in the repository root first"}
	}
	id, err := newEventID()
	if err != nil {
		return err
	}
	prog := c.progress()
	defer prog.stop()
	w, err := c.dir.BeginWrite(c.ctx, id, pactdir.WriteOptions{Waiting: c.waiting(prog), Progress: prog.Progress, Debug: c.log})
	if err != nil {
		if c.ctx.Err() != nil && errors.Is(err, c.ctx.Err()) {
			return errInterrupted
		}
		return err
	}
	defer w.Close()
	log, res := w.Log, w.Res
	if res.Unsupported != nil {
		return unsupported(res.Unsupported)
	}
	if err := c.refuseConflict(log); err != nil {
		return err
	}
	draft, err := build(agent, res.State)
	if err != nil {
		return err
	}
	a, err := log.Append(res, w.End, func(d *projection.Draft, latest time.Time) { c.stamp(d, id, latest) }, draft)
	if err != nil {
		return err
	}
	if rej := a.Refused[0]; rej != nil {
		return refuse(rej)
	}
	draft = a.Drafts[0]
	var task *projection.Task
	if taskFile != nil {
		task = taskFile(a.State)
	}
	if err := c.interrupted(); err != nil {
		return err
	}
	prog.Start("writing "+c.dir.Display(pactfile.StateFile), 0, "")
	if appended, err := w.Record(a, task); err != nil {
		if !appended {
			return err
		}
		if errors.Is(err, pactdir.ErrStateStale) {
			return fmt.Errorf("event %s is appended to %s, but %w; run `pactify log --replay` to write %s again",
				draft.EventID, c.dir.Display(pactfile.LogFile), err, c.dir.Display(pactfile.StateFile))
		}
		return fmt.Errorf("event %s is appended to %s, but %w", draft.EventID, c.dir.Display(pactfile.LogFile), err)
	}
	prog.stop()
	target := draft.TaskID
	switch {
	case draft.Type == projection.TypeJoin:
		target = draft.AgentID
	case target == "":
		target = draft.Feature
	}
	fmt.Fprintf(c.stdout, "%s %s: appended event %s on line %d of %s\n", draft.Type, target, draft.EventID, log.Lines, c.dir.Display(pactfile.LogFile))
	c.lateInterrupt("event " + draft.EventID + " was being recorded")
	return nil
}

// lock takes the pact's lock for a writer that writes no event (log
// --replay, resolve, init), waiting as c.waiting says; an interrupt
// (Ctrl-C) ends the wait with nothing held.
func (c *cli) lock(prog *progressLine) (func(), error) {
	unlock, err := c.dir.LockWaiting(c.ctx, c.waiting(prog))
	if err != nil && c.ctx.Err() != nil {
		return nil, errInterrupted
	}
	return unlock, err
}

// waiting says that a writer waits for another writer to finish, on the
// progress line and in a debug line.
func (c *cli) waiting(prog *progressLine) func() {
	return func() {
		what := "waiting for another writer to finish with " + c.dir.Display(pactfile.LogFile)
		c.log.Debug(what)
		prog.Start(what, 0, "")
	}
}

// interrupted is errInterrupted once the user interrupted the verb
// (Ctrl-C). A writer asks it at each step before its first write (after
// taking the lock and after replaying the log, which take long on a large
// pact) and stops there with nothing written; from its first write on, it
// finishes, since a write is made whole or cut back (docs/pactify.md,
// "When a write fails"), and says so (lateInterrupt).
func (c *cli) interrupted() error {
	if c.ctx.Err() != nil {
		return errInterrupted
	}
	return nil
}

// lateInterrupt says, after a writer wrote, that an interrupt came once
// what was being written could no longer be stopped, and that it is whole.
func (c *cli) lateInterrupt(what string) {
	if c.ctx.Err() != nil {
		fmt.Fprintf(c.stderr, "pactify: interrupted once %s: it was finished, not cut off\n", what)
	}
}

// refuseConflict refuses to write a pact whose log, as read (log), or
// STATE.yml holds git's conflict markers: a merge in progress
// (docs/semantics.md §8), which appending to or rewriting from would seal
// into the pact. A log from the writers' snapshot holds none: no writer
// keeps a snapshot of a log with markers, and a merge changes the log the
// snapshot was taken of.
func (c *cli) refuseConflict(log *projection.Log) error {
	file, line := pactfile.LogFile, log.ConflictMarker
	if line == 0 {
		var err error
		if line, err = c.dir.ConflictMarker(pactfile.StateFile); err != nil {
			return err
		}
		file = pactfile.StateFile
	}
	if line == 0 {
		return nil
	}
	return conflictRefusal(c.dir.Display(file), line)
}

// conflictRefusal is a writer's refusal of a file of the pact (display)
// whose line is one of git's conflict markers.
func conflictRefusal(display string, line int) error {
	return &refusal{fmt.Sprintf("%s holds git's conflict markers (line %d): a merge of the pact is in progress, and nothing was recorded", display, line),
		"run `pactify resolve` to finish the merge (it writes the merged log and STATE.yml from git's versions and stages them), then run the command again"}
}

// stamp gives a draft its event_id and ts. The ts is never before the
// log's latest, so the new line replays last even when this machine's
// clock is behind another writer's.
func (c *cli) stamp(d *projection.Draft, id string, latest time.Time) {
	d.EventID = id
	d.TS = c.now()
	if d.TS.Before(latest) {
		d.TS = latest
	}
}

func refuse(r *projection.Rejection) error {
	return &refusal{fmt.Sprintf("%s: %s", r.Code, r.Message), checks.Describe(r.Code).RefusalHint()}
}

func (c *cli) cmdJoin(p cmdline.Args) error {
	if len(p.Positional) != 1 || !p.Has("roles") {
		return usageOf("join")
	}
	seat := p.Positional[0]
	return c.emit(func(agent string, _ *projection.State) (projection.Draft, error) {
		if seat != agent {
			return projection.Draft{}, &refusal{fmt.Sprintf("join names seat %s but PACT_AGENT_ID is %s; a seat can only join for itself", seat, agent),
				fmt.Sprintf("run it as `PACT_AGENT_ID=%s pactify join %s --roles %s`", seat, seat, p.Get("roles"))}
		}
		return projection.NewJoin(agent, splitList(p.Get("roles"))), nil
	}, nil)
}

func splitList(s string) []string {
	out := []string{}
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}

func (c *cli) cmdAssign(p cmdline.Args) error {
	if len(p.Positional) != 1 || !p.Has("feature") || !p.Has("branch") || !p.Has("owner") || !p.Has("reviewer") {
		return usageOf("assign")
	}
	// The seat comes first, as for every writing verb (docs/semantics.md, pact v1 §6.5).
	if _, err := c.agent(); err != nil {
		return err
	}
	task := p.Positional[0]
	if why := projection.UnsafeTaskID(task); why != "" || task == "" {
		if task == "" {
			why = "it is empty"
		}
		return &refusal{fmt.Sprintf("%s: task id %q cannot be a file name under tasks/: %s", projection.CodeTaskUnsafeID, task, why),
			checks.Describe(projection.CodeTaskUnsafeID).RefusalHint()}
	}
	spec := p.Get("spec")
	if spec == "" {
		spec = c.dir.Display(pactfile.TasksDir, pactfile.TaskFileName(task))
	}
	return c.emit(func(agent string, _ *projection.State) (projection.Draft, error) {
		return projection.NewAssign(agent, task, p.Get("feature"),
			projection.AssignPayload{Owner: p.Get("owner"), Reviewer: p.Get("reviewer"), Branch: p.Get("branch"), Spec: spec}), nil
	}, func(st *projection.State) *projection.Task {
		return st.Tasks[task]
	})
}

func (c *cli) cmdCheckpoint(p cmdline.Args) error {
	if len(p.Positional) != 1 || !p.Has("evidence") {
		return usageOf("checkpoint")
	}
	evidence := p.Get("evidence")
	return c.taskEvent(p.Positional[0], func(agent, task, feature string) projection.Draft {
		return projection.NewCheckpoint(agent, task, feature, evidence)
	})
}

func (c *cli) cmdAccept(p cmdline.Args) error {
	if len(p.Positional) != 1 {
		return usageOf("accept")
	}
	commit := p.Get("commit")
	if commit == "" {
		commit = c.gitHead()
	}
	return c.taskEvent(p.Positional[0], func(agent, task, feature string) projection.Draft {
		return projection.NewAccept(agent, task, feature, projection.AcceptPayload{Commit: commit})
	})
}

// gitHead records which commit an accept was given on, when pactify runs in
// a git work tree; provenance checks use it to notice later code changes.
func (c *cli) gitHead() string {
	head, err := gitLine(c.ctx, c.dir.Root, "rev-parse", "--verify", "-q", "HEAD")
	if err != nil {
		c.log.Debug("no git HEAD to record on accept", "err", err)
		return ""
	}
	return head
}

func (c *cli) cmdChanges(p cmdline.Args) error {
	if len(p.Positional) != 1 || !p.Has("reason") {
		return usageOf("changes")
	}
	reason := p.Get("reason")
	return c.taskEvent(p.Positional[0], func(agent, task, feature string) projection.Draft {
		return projection.NewChangesRequested(agent, task, feature, projection.ChangesRequestedPayload{Reason: reason})
	})
}

// taskEvent emits checkpoint, accept or changes_requested (the event
// build makes) on an existing task, carrying the task's feature so the
// line reads on its own.
func (c *cli) taskEvent(task string, build func(agent, task, feature string) projection.Draft) error {
	return c.emit(func(agent string, st *projection.State) (projection.Draft, error) {
		feature := ""
		if t := st.Tasks[task]; t != nil {
			feature = t.Feature
		}
		return build(agent, task, feature), nil
	}, nil)
}

func (c *cli) cmdMerge(p cmdline.Args) error {
	if len(p.Positional) != 1 || p.Positional[0] == "" {
		return usageOf("merge")
	}
	return c.emit(func(agent string, _ *projection.State) (projection.Draft, error) {
		return projection.NewMerge(agent, p.Positional[0]), nil
	}, nil)
}

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
