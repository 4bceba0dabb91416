package main

import (
	"context"
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

	"github.com/pact-action/pact-action/internal/cmdline"
	"github.com/pact-action/pact-action/pactdir"
	"github.com/pact-action/pact-action/pactfile"
	"github.com/pact-action/pact-action/projection"
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

// noteTornTail tells a reader, on stderr, of the part of a line a killed
// writer left at the log's end, which it read the log without. A command
// holding the lock has none to tell of: taking it cut that part back.
func (c *cli) noteTornTail() {
	if note := c.dir.TornTail(); note != "" {
		fmt.Fprintf(c.stderr, "pactify: %s\n", note)
	}
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
