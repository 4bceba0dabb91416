package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/pact-action/pact-action/internal/cmdline"
	"github.com/pact-action/pact-action/pactdir"
	"github.com/pact-action/pact-action/pactfile"
	"github.com/pact-action/pact-action/projection"
	"github.com/pact-action/pact-action/report"
)

// parseSeat reads "<id>:<roles>:<entry>" (docs/semantics.md, pact v1 §7.1: exactly three fields,
// roles comma-separated).
func parseSeat(s string) (projection.Seat, error) {
	parts := strings.Split(s, ":")
	if len(parts) != 3 {
		return projection.Seat{}, usagef("--seat %q must have exactly three fields, id:roles:entry (for example claude-opus:reviewer:CLAUDE.md)", s)
	}
	seat := projection.Seat{ID: parts[0], Roles: splitList(parts[1]), Entry: parts[2]}
	if !projection.IsSlug(seat.ID) {
		return seat, usagef("seat id %q must match ^[a-z0-9][a-z0-9-]*$", seat.ID)
	}
	if len(seat.Roles) == 0 {
		return seat, usagef("seat %s needs at least one role (orchestrator, worker, reviewer)", seat.ID)
	}
	for _, r := range seat.Roles {
		if r != projection.RoleOrchestrator && r != projection.RoleWorker && r != projection.RoleReviewer {
			return seat, usagef("seat %s: role %q is not one of orchestrator, worker, reviewer", seat.ID, r)
		}
	}
	if err := safeEntry(seat.Entry); err != nil {
		return seat, err
	}
	return seat, nil
}

// safeEntry keeps entry files inside the repository: a local path on this
// system (on Windows neither rooted, \x, nor a device name such as NUL).
func safeEntry(p string) error {
	clean := filepath.Clean(filepath.FromSlash(p))
	if p == "" || !filepath.IsLocal(clean) || clean == "." {
		return usagef("entry file %q must be a path inside the repository, such as CLAUDE.md", p)
	}
	return nil
}

func (c *cli) cmdInit(p cmdline.Args) error {
	if len(p.Positional) != 0 || p.Get("project") == "" || !p.Has("seat") {
		return usageOf("init")
	}
	var seats []projection.Seat
	for _, s := range p.Values["seat"] {
		seat, err := parseSeat(s)
		if err != nil {
			return err
		}
		if slices.ContainsFunc(seats, func(o projection.Seat) bool { return o.ID == seat.ID }) {
			return usagef("seat %s is declared twice", seat.ID)
		}
		seats = append(seats, seat)
	}
	base := p.Get("base-branch")
	if base == "" {
		base = "main"
	}
	project := p.Get("project")
	agent, err := c.agent()
	if err != nil {
		return err
	}
	targets, err := c.dir.EntryTargets(seats)
	var entryErr *pactdir.EntryError
	if errors.As(err, &entryErr) {
		return usagef("%s", entryErr.Msg)
	}
	if err != nil {
		return err
	}
	charter := pactdir.Charter{Project: project, BaseBranch: base, Seats: seats, Targets: targets}
	if c.dir.Started() {
		return c.reinit(charter)
	}
	draft := projection.NewInit(agent, project, base, seats)
	id, err := newEventID()
	if err != nil {
		return err
	}
	empty, res, err := projection.Read(strings.NewReader(""), projection.ReadOptions{Reserve: []string{id}})
	if err != nil {
		return err
	}
	// Written by the routine every writer shares, on a log that is empty.
	a, err := empty.Append(res, nil, func(d *projection.Draft, latest time.Time) { c.stamp(d, id, latest) }, draft)
	if err != nil {
		return err
	}
	if rej := a.Refused[0]; rej != nil {
		return refuse(rej)
	}
	draft = a.Drafts[0]
	if err := c.interrupted(); err != nil {
		return err
	}
	err = c.dir.Create(a.Lines[0], a.State, charter)
	if errors.Is(err, pactdir.ErrExists) {
		return &refusal{"another pactify init created the log at the same time", "run `pactify status` to see the pact that won"}
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(c.stdout, "init %s: appended event %s on line 1 of %s; seats: %s\n", project, draft.EventID, c.dir.Display(pactfile.LogFile), seatList(seats))
	c.lateInterrupt("event " + draft.EventID + " was being recorded")
	c.installLocalDriver()
	return nil
}

func seatList(seats []projection.Seat) string {
	ids := make([]string, len(seats))
	for i, s := range seats {
		ids[i] = s.ID
	}
	return strings.Join(ids, ", ")
}

// reinit makes init idempotent: with the same project and roster it rewrites
// the managed blocks and appends nothing; anything else is refused, since v1
// has exactly one init and no way to change seats.
func (c *cli) reinit(charter pactdir.Charter) error {
	project, base, seats := charter.Project, charter.BaseBranch, charter.Seats
	// Under the lock, as every writer: a writer removes the temporary
	// files it finds, which must not be this init's.
	prog := c.progress()
	defer prog.stop()
	unlock, err := c.lock(prog)
	if err != nil {
		return err
	}
	defer unlock()
	log, res, err := c.loadForRead(nil)
	if err != nil {
		return err
	}
	prog.stop()
	// The log only: init rewrites a STATE.yml that is there no more than
	// it reads it.
	if log.ConflictMarker > 0 {
		return conflictRefusal(c.dir.Display(pactfile.LogFile), log.ConflictMarker)
	}
	st := res.State
	if !st.Initialized {
		return &refusal{fmt.Sprintf("%s exists but holds no valid init event", c.dir.Display(pactfile.LogFile)),
			"run `pactify validate` to see what is wrong with the log"}
	}
	same := st.Project == project && st.BaseBranch == base && len(st.Seats) == len(seats)
	for i := 0; same && i < len(seats); i++ {
		same = st.Seats[i].ID == seats[i].ID && st.Seats[i].Entry == seats[i].Entry && slices.Equal(st.Seats[i].Roles, seats[i].Roles)
	}
	if !same {
		return &refusal{"the pact is already initialised with a different project or roster, and v1 cannot change seats after init",
			fmt.Sprintf("run init again with exactly the project %q and seats of the log (`pactify status` shows them), or start a new pact", st.Project)}
	}
	if err := c.interrupted(); err != nil {
		return err
	}
	// An init that stopped after its line left no STATE.yml: running init
	// again finishes it. One that is there is log --replay's to rewrite.
	if _, err := os.Lstat(c.dir.Path(pactfile.StateFile)); errors.Is(err, fs.ErrNotExist) {
		if err := c.dir.WriteState(st); err != nil {
			return err
		}
	}
	if err := c.dir.WriteBlocks(charter); err != nil {
		return err
	}
	fmt.Fprintf(c.stdout, "init %s: already initialised; managed blocks refreshed, nothing appended\n", project)
	c.lateInterrupt("the managed blocks were being written")
	c.installLocalDriver()
	return nil
}

// installLocalDriver sets up git's merge driver of the pact in the
// repository's own configuration, which init's .gitattributes lines name
// (docs/semantics.md §8). The pact is written whatever happens here: a
// directory that is no git repository, or a git that refuses, gets a note
// on stderr and `pactify install` later.
func (c *cli) installLocalDriver() {
	// After init's write, an interrupt stops nothing (installDriver): an
	// interrupted context would fail git here, and read as "no
	// repository".
	if _, err := gitDirOf(context.WithoutCancel(c.ctx), c.dir.Root); err != nil {
		c.log.Debug("no git repository: git's merge driver is not configured", "err", err)
		return
	}
	if err := c.installDriver(c.dir.Root, "--local"); err != nil {
		fmt.Fprintf(c.stderr, "pactify: %s; run `pactify install` to set up git's merge driver of the pact\n", report.Plain(err.Error()))
		return
	}
	fmt.Fprintf(c.stdout, "git's merge driver %q is set in this repository's configuration (pactify install sets it in yours)\n", pactfile.MergeDriver)
}
