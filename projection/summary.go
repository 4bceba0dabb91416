package projection

import (
	"fmt"
	"sort"
	"strings"

	"github.com/pact-action/pact-action/projection/internal/ownstate"
)

// What drift is judged on (docs/semantics.md, pact v1 §7.1 (a)): the
// meaning of a STATE.yml, read by ParseStateSummary through one of two
// readers: the fast path for our own render (internal/ownstate), else the
// YAML reading of any shape (summary_yaml.go); and Diff of two meanings.

// Summary is the meaning of a STATE.yml that drift is judged on: project,
// seats, feature statuses and each task's status, owner and reviewer. Render
// details (order, quoting, extra keys) are deliberately left out so a
// STATE.yml written by another implementation compares fairly.
type Summary struct {
	Project  string
	Seats    map[string][]string // seat id → roles (nil when the file gives none)
	Features map[string]string   // feature id → status
	Tasks    map[string]TaskSummary
}

// TaskSummary is what drift compares of one task.
type TaskSummary struct {
	Feature, Status, Owner, Reviewer string
}

// Summarize takes the meaning of a replayed state.
func Summarize(s *State) Summary {
	sum := Summary{Project: s.Project, Seats: map[string][]string{}, Features: map[string]string{}, Tasks: map[string]TaskSummary{}}
	for _, seat := range s.Seats {
		sum.Seats[seat.ID] = nonNil(seat.Roles)
	}
	for _, id := range s.FeatureOrder {
		sum.Features[id] = string(s.FeatureStatus(id))
	}
	for _, id := range s.TaskOrder {
		t := s.Tasks[id]
		sum.Tasks[id] = TaskSummary{Feature: t.Feature, Status: string(t.Status), Owner: t.Owner, Reviewer: t.Reviewer}
	}
	return sum
}

// ParseStateSummary reads the meaning out of a STATE.yml. It accepts our own
// render and the usual shapes of others: sections named seats or agents, and
// lists of objects with an id or maps keyed by id; tasks at the top level or
// nested in their features. Our own render takes the fast path
// (parseOwnSummary), which gives what the YAML reading gives
// (TestOwnSummaryMatchesYAML, FuzzOwnSummary).
func ParseStateSummary(b []byte) (Summary, error) {
	if sum, ok := parseOwnSummary(b); ok {
		return sum, nil
	}
	return parseYAMLSummary(b)
}

// parseOwnSummary is the meaning of a STATE.yml laid out exactly as Render
// lays it out (ownstate.Parse), ok false for any other.
func parseOwnSummary(b []byte) (Summary, bool) {
	sum := Summary{Seats: map[string][]string{}, Features: map[string]string{}, Tasks: map[string]TaskSummary{}}
	project, ok := ownstate.Parse(b, MaxLineBytes, ownstate.Visitor{
		Seat:    func(id string, roles []string) { sum.Seats[id] = roles },
		Feature: func(id, status string) { sum.Features[id] = status },
		Task:    func(id string, t ownstate.Task) { sum.Tasks[id] = TaskSummary(t) },
	})
	if !ok {
		return Summary{}, false
	}
	sum.Project = project
	return sum, true
}

// Diff lists, sorted and one per line, how got (a STATE.yml) differs from
// want (a fresh projection). It is empty when they mean the same. Values
// are quoted cut (quoted), so that the output stays bounded whatever a
// STATE.yml's lines hold (docs/semantics.md §7).
func Diff(want, got Summary) []string {
	var out []string
	if want.Project != got.Project {
		out = append(out, fmt.Sprintf("project: STATE.yml says %q, the log says %q", quoted(got.Project), quoted(want.Project)))
	}
	for id, roles := range want.Seats {
		gr, ok := got.Seats[id]
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("seat %s: missing from STATE.yml", quoted(id)))
		case gr != nil && !sameSet(gr, roles):
			out = append(out, fmt.Sprintf("seat %s roles: STATE.yml says [%s], the log says [%s]", quoted(id), quoted(strings.Join(gr, ", ")), quoted(strings.Join(roles, ", "))))
		}
	}
	for id := range got.Seats {
		if _, ok := want.Seats[id]; !ok {
			out = append(out, fmt.Sprintf("seat %s: in STATE.yml but not declared in the log", quoted(id)))
		}
	}
	for id, st := range want.Features {
		gs, ok := got.Features[id]
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("feature %s: missing from STATE.yml (the log says %s)", quoted(id), st))
		case gs != st:
			out = append(out, fmt.Sprintf("feature %s status: STATE.yml says %s, the log says %s", quoted(id), quoted(orNone(gs)), st))
		}
	}
	for id := range got.Features {
		if _, ok := want.Features[id]; !ok {
			out = append(out, fmt.Sprintf("feature %s: in STATE.yml but has no task in the log", quoted(id)))
		}
	}
	for id, wt := range want.Tasks {
		gt, ok := got.Tasks[id]
		if !ok {
			out = append(out, fmt.Sprintf("task %s: missing from STATE.yml (the log says %s)", quoted(id), wt.Status))
			continue
		}
		fields := []struct{ name, got, want string }{
			{"status", gt.Status, wt.Status}, {"owner", gt.Owner, wt.Owner}, {"reviewer", gt.Reviewer, wt.Reviewer},
		}
		// A render that does not say which feature a task belongs to is
		// not wrong about it.
		if gt.Feature != "" {
			fields = append(fields, struct{ name, got, want string }{"feature", gt.Feature, wt.Feature})
		}
		for _, f := range fields {
			if f.got != f.want {
				out = append(out, fmt.Sprintf("task %s %s: STATE.yml says %s, the log says %s", quoted(id), f.name, quoted(orNone(f.got)), quoted(f.want)))
			}
		}
	}
	for id := range got.Tasks {
		if _, ok := want.Tasks[id]; !ok {
			out = append(out, fmt.Sprintf("task %s: in STATE.yml but never assigned in the log", quoted(id)))
		}
	}
	sort.Strings(out)
	return out
}

func orNone(s string) string {
	if s == "" {
		return "nothing"
	}
	return s
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	count := map[string]int{}
	for _, s := range a {
		count[s]++
	}
	for _, s := range b {
		count[s]--
	}
	for _, n := range count {
		if n != 0 {
			return false
		}
	}
	return true
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
