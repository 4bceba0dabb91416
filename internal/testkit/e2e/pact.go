package e2e

import (
	"fmt"
	"strings"
	"time"

	"github.com/pact-action/pact-action/projection"
)

// Log builds a pact log line by line, the way pactify would write it, with
// deterministic ids and one minute between events.
type Log struct {
	Lines []string
	at    time.Time
	n     int
	// ns keeps the ids of one branch's events apart from another's
	// (Branch): "" for the log's own.
	ns string
}

// NewLog starts a log with an init: lead (orchestrator, reviewer), dev
// (worker), rev (reviewer).
func NewLog() *Log {
	l := &Log{at: time.Date(2026, 6, 9, 10, 0, 0, 0, time.UTC)}
	return l.Draft(projection.NewInit("lead", "demo", "main", []projection.Seat{
		{ID: "lead", Roles: []string{"orchestrator", "reviewer"}, Entry: "CLAUDE.md"},
		{ID: "dev", Roles: []string{"worker"}, Entry: "AGENTS.md"},
		{ID: "rev", Roles: []string{"reviewer"}, Entry: "REVIEW.md"},
	}))
}

// Add appends one event, a minute after the previous one.
func (l *Log) Add(agent, typ, task, feature string, payload any) *Log {
	return l.AddAt(l.at.Add(time.Duration(l.n+1)*time.Minute), agent, typ, task, feature, payload)
}

// AddAt appends one event stamped at ts (the time of a review or comment
// the event records).
func (l *Log) AddAt(ts time.Time, agent, typ, task, feature string, payload any) *Log {
	return l.DraftAt(ts, projection.Draft{AgentID: agent, Type: typ, TaskID: task, Feature: feature, Payload: payload})
}

// Draft appends an event built by one of projection's constructors, a
// minute after the previous one.
func (l *Log) Draft(d projection.Draft) *Log {
	return l.DraftAt(l.at.Add(time.Duration(l.n+1)*time.Minute), d)
}

// DraftAt appends an event stamped at ts.
func (l *Log) DraftAt(ts time.Time, d projection.Draft) *Log {
	l.n++
	d.EventID, d.TS = fmt.Sprintf("%032x", l.n), ts
	if l.ns != "" {
		d.EventID = l.ns + "-" + d.EventID
	}
	line, err := projection.Encode(d)
	if err != nil {
		panic(err)
	}
	l.Lines = append(l.Lines, string(line))
	return l
}

// Raw appends a line as written.
func (l *Log) Raw(line string) *Log {
	l.Lines = append(l.Lines, line)
	return l
}

// Assign, Join, Checkpoint and Accept are the usual steps.
func (l *Log) Assign(task, feature, branch, owner, reviewer string) *Log {
	return l.Draft(projection.NewAssign("lead", task, feature, projection.AssignPayload{Owner: owner, Reviewer: reviewer, Branch: branch, Spec: ".pact/tasks/" + task + ".md"}))
}

func (l *Log) Join(seat string) *Log {
	return l.Draft(projection.NewJoin(seat, []string{"worker"}))
}

func (l *Log) Checkpoint(seat, task, feature string) *Log {
	return l.Draft(projection.NewCheckpoint(seat, task, feature, "tests pass"))
}

func (l *Log) Accept(seat, task, feature string) *Log {
	return l.Draft(projection.NewAccept(seat, task, feature, projection.AcceptPayload{}))
}

// Copy forks the log, as a branch does.
func (l *Log) Copy() *Log {
	return &Log{Lines: append([]string(nil), l.Lines...), at: l.at, n: l.n, ns: l.ns}
}

// Branch forks the log for a branch named name whose events other
// branches' logs will meet in a merge: its new events' ids carry the name,
// so two branches never write two events under one id (which a merge of
// their logs refuses, docs/semantics.md §8).
func (l *Log) Branch(name string) *Log {
	c := l.Copy()
	c.ns = name
	return c
}

// Text is the log file's content.
func (l *Log) Text() string { return strings.Join(l.Lines, "\n") + "\n" }

// Files is a consistent .pact directory for the log: the log, a fresh
// STATE.yml, PROJECT.md and a task file per task.
func (l *Log) Files() map[string]string {
	_, res := projection.ReadEvents([]byte(l.Text()))
	files := map[string]string{
		".pact/log.jsonl":  l.Text(),
		".pact/STATE.yml":  string(projection.RenderBytes(res.State)),
		".pact/PROJECT.md": "<!-- pact:begin -->\n# demo — Pact Charter (protocol_version: 1)\n<!-- pact:end -->\n",
	}
	for _, id := range res.State.TaskOrder {
		t := res.State.Tasks[id]
		files[".pact/tasks/"+id+".md"] = fmt.Sprintf("---\nid: %s\nfeature: %s\nowner: %s\nreviewer: %s\n---\n## Spec\n", t.ID, t.Feature, t.Owner, t.Reviewer)
	}
	return files
}
