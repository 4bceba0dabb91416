package main

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/internal/cmdline"
	"github.com/pact-action/pact-action/pactdir"
	"github.com/pact-action/pact-action/pactfile"
	"github.com/pact-action/pact-action/projection"
)

// The verbs that append an event (join, assign, checkpoint, accept,
// changes, merge), each through emit, the one path of a writer.

// newEventID is 128 bits of randomness in hex (docs/semantics.md, pact v1 §2.1).
func newEventID() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("generate an event_id: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
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
