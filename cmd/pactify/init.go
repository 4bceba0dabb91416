package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pact-action/pact-action/internal/cmdline"
	"github.com/pact-action/pact-action/internal/pactdir"
	"github.com/pact-action/pact-action/pactfile"
	"github.com/pact-action/pact-action/projection"
)

// parseSeat reads "<id>:<roles>:<entry>" (spec §7.1: exactly three fields,
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

// safeEntry keeps entry files inside the repository.
func safeEntry(p string) error {
	clean := filepath.Clean(filepath.FromSlash(p))
	if p == "" || filepath.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) || clean == "." {
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
	targets, err := c.entryTargets(seats)
	if err != nil {
		return err
	}
	if c.dir.Exists() {
		return c.reinit(project, base, seats, targets)
	}
	payload := map[string]any{"project": project, "protocol_version": projection.SupportedProtocolVersion, "seats": seats, "base_branch": base}
	draft := projection.Draft{AgentID: agent, Type: projection.TypeInit, Payload: payload}
	id, err := newEventID()
	if err != nil {
		return err
	}
	empty, res, err := projection.ParseReplayAppend(strings.NewReader(""), id)
	if err != nil {
		return err
	}
	line, err := c.stamp(&draft, id, empty)
	if err != nil {
		return err
	}
	rej, err := empty.Propose(res, line)
	if err != nil {
		return err
	}
	if rej != nil {
		return refuse(rej)
	}
	if err := os.MkdirAll(c.dir.Path(pactfile.TasksDir), 0o755); err != nil {
		return fmt.Errorf("create %s: %w", c.dir.Display(), err)
	}
	unlock, err := c.dir.Lock()
	if err != nil {
		return err
	}
	defer unlock()
	if c.dir.Exists() {
		return &refusal{"another pactify init created the log at the same time", "run `pactify status` to see the pact that won"}
	}
	if err := c.dir.AppendLine(line); err != nil {
		return err
	}
	if err := c.dir.WriteState(res.State); err != nil {
		return err
	}
	if err := c.writeBlocks(project, base, seats, targets); err != nil {
		return err
	}
	fmt.Fprintf(c.stdout, "init %s: appended event %s on line 1 of %s; seats: %s\n", project, draft.EventID, c.dir.Display(pactfile.LogFile), seatList(seats))
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
func (c *cli) reinit(project, base string, seats []projection.Seat, targets map[string]string) error {
	_, res, err := c.loadForRead(nil)
	if err != nil {
		return err
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
	if err := c.writeBlocks(project, base, seats, targets); err != nil {
		return err
	}
	fmt.Fprintf(c.stdout, "init %s: already initialised; managed blocks refreshed, nothing appended\n", project)
	return nil
}

// writeBlocks bakes PROJECT.md and each seat's entry file. Only the text
// between the pact markers is ever rewritten. Seats whose entries are the
// same file (also through a symlink) share one block.
func (c *cli) writeBlocks(project, base string, seats []projection.Seat, targets map[string]string) error {
	charter := pactfile.Charter{Project: project, ProtocolVersion: projection.SupportedProtocolVersion, BaseBranch: base, Log: c.dir.Display(pactfile.LogFile)}
	for _, s := range seats {
		charter.Seats = append(charter.Seats, pactfile.Seat{ID: s.ID, Roles: s.Roles, Entry: s.Entry})
	}
	if err := updateBlockFile(c.dir.Path(pactfile.ProjectFile), pactfile.FormatCharter(charter), pactfile.NewProjectTail); err != nil {
		return err
	}
	byEntry := map[string][]projection.Seat{}
	var entries []string
	for _, s := range seats {
		target := targets[s.Entry]
		if byEntry[target] == nil {
			entries = append(entries, target)
		}
		byEntry[target] = append(byEntry[target], s)
	}
	for _, entry := range entries {
		var e strings.Builder
		e.WriteString("## Pact seat\n\nThis repository coordinates agents with the Pact protocol v1. Before any pact command, take your seat:\n")
		for _, s := range byEntry[entry] {
			fmt.Fprintf(&e, "\n### Seat %s (%s)\n\n```sh\nexport PACT_AGENT_ID=%s\npactify join %s --roles %s\n```\n",
				s.ID, strings.Join(s.Roles, ", "), s.ID, s.ID, strings.Join(s.Roles, ","))
		}
		if c.dir.Name != pactfile.DefaultDir {
			// The seat's pactify must find the pact where init put it.
			fmt.Fprintf(&e, "\nThis pact lives in `%s`: `export PACT_DIR=%s` before any pactify command.\n", c.dir.Display(), c.dir.Display())
		}
		fmt.Fprintf(&e, "\nThen read `%s` for your tasks. Never edit `%s` by hand.\n", c.dir.Display(pactfile.StateFile), c.dir.Display(pactfile.LogFile))
		if err := updateBlockFile(entry, e.String(), ""); err != nil {
			return err
		}
	}
	return nil
}

// entryTargets maps each seat's entry to the file init will write, before
// anything is written, so a bad entry is refused with the pact untouched.
// A symlinked entry (CLAUDE.md -> AGENTS.md is common) is written through,
// not replaced, but only when its target stays inside the repository; no
// entry may be, or point into, the .pact directory.
func (c *cli) entryTargets(seats []projection.Seat) (map[string]string, error) {
	root, err := realPath(c.dir.Root)
	if err != nil {
		return nil, err
	}
	pact, err := realPath(c.dir.Path())
	if err != nil {
		return nil, err
	}
	targets := map[string]string{}
	for _, s := range seats {
		target, err := realPath(filepath.Join(c.dir.Root, filepath.FromSlash(s.Entry)))
		if err != nil {
			return nil, usagef("entry file %s of seat %s cannot be used: %v", s.Entry, s.ID, err)
		}
		if !within(root, target) {
			return nil, usagef("entry file %s of seat %s resolves to %s, outside the repository; init writes only inside it", s.Entry, s.ID, target)
		}
		if target == pact || within(pact, target) {
			return nil, usagef("entry file %s of seat %s is inside %s, which holds the pact's own files; use a file such as CLAUDE.md or AGENTS.md", s.Entry, s.ID, c.dir.Display())
		}
		if fi, err := os.Stat(target); err == nil && !fi.Mode().IsRegular() {
			return nil, usagef("entry file %s of seat %s is not a regular file", s.Entry, s.ID)
		}
		targets[s.Entry] = target
	}
	return targets, nil
}

// realPath resolves the symlinks of p, which need not exist yet: the part
// that exists is resolved and the rest joined on. A dangling symlink is an
// error.
func realPath(p string) (string, error) {
	p, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	rest := []string{}
	cur := p
	for {
		if _, err := os.Lstat(cur); err == nil {
			break
		} else if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			break
		}
		rest = append([]string{filepath.Base(cur)}, rest...)
		cur = parent
	}
	real, err := filepath.EvalSymlinks(cur)
	if err != nil {
		return "", err
	}
	return filepath.Join(append([]string{real}, rest...)...), nil
}

// within reports whether p lies strictly inside dir (both real paths).
func within(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

func updateBlockFile(path, block, newFileTail string) error {
	old, err := pactdir.ReadOptional(path)
	if err != nil {
		return err
	}
	text := pactfile.ReplaceBlock(string(old), block)
	if old == nil {
		text += newFileTail
	}
	return pactdir.WriteFileAtomic(path, []byte(text))
}

// writeTaskFile creates tasks/<id>.md with front matter mirroring the assign
// event (pactfile.TaskFile). An existing file keeps its body; only its front
// matter is replaced.
func writeTaskFile(path string, t *projection.Task) error {
	old, err := pactdir.ReadOptional(path)
	if err != nil {
		return err
	}
	fm := pactfile.Task{ID: t.ID, Feature: t.Feature, Owner: t.Owner, Reviewer: t.Reviewer}
	return pactdir.WriteFileAtomic(path, pactfile.TaskFile(fm, old))
}
