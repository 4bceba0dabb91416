package projection

import (
	"maps"
	"slices"

	"github.com/pact-action/pact-action/pactfile"
)

// TaskStatus is a state of the task state machine (docs/semantics.md, pact v1 §4.1). The
// changes_requested state is transient: the task goes straight back to
// in_progress and Rounds counts the trip.
type TaskStatus string

// Task states a replay can reach.
const (
	StatusAssigned       TaskStatus = "assigned"
	StatusInProgress     TaskStatus = "in_progress"
	StatusAwaitingReview TaskStatus = "awaiting_review"
	StatusAccepted       TaskStatus = "accepted"
)

// FeatureStatus is a state of the feature state machine (docs/semantics.md, pact v1 §4.2), derived
// from its tasks as docs/semantics.md §2 says.
type FeatureStatus string

// Feature states.
const (
	FeaturePlanned        FeatureStatus = "planned"
	FeatureInProgress     FeatureStatus = "in_progress"
	FeatureAwaitingReview FeatureStatus = "awaiting_review"
	FeatureAccepted       FeatureStatus = "accepted"
	FeatureShipped        FeatureStatus = "shipped"
)

// Task is one task as the replay left it.
type Task struct {
	ID       string
	Feature  string
	Owner    string
	Reviewer string
	Branch   string
	Spec     string
	Status   TaskStatus
	// Rounds counts changes_requested round trips; LastReason is the latest.
	Rounds     int
	LastReason string
	// AssignLine is the log line of the assign event; AcceptLine (0 when not
	// accepted) that of the accept. What else an accept says (its commit,
	// its event_id) is the log's to tell: the checks that ask read it
	// there, and a state of a million tasks does not hold it twice.
	AssignLine int
	AcceptLine int
}

// FrontMatter is the front matter of the task's file, tasks/<id>.md.
func (t *Task) FrontMatter() pactfile.Task {
	return pactfile.Task{ID: t.ID, Feature: t.Feature, Owner: t.Owner, Reviewer: t.Reviewer}
}

// Feature is one feature: the tasks assigned to it, in assign order.
type Feature struct {
	ID        string
	Tasks     []string
	Shipped   bool
	MergeLine int
	// firstOpen is the index in Tasks before which every task is
	// accepted: a task never leaves accepted and new ones come last, so
	// Rule 2 finds the open ones from here (openTasks) in amortised
	// constant time, however many merge lines repeat the question.
	firstOpen int
}

// State is the projection of a log: what a replay of the applied events built.
type State struct {
	Initialized     bool
	InitLine        int
	Project         string
	ProtocolVersion int
	BaseBranch      string
	Seats           []Seat
	// Online marks seats that have joined at least once.
	Online map[string]bool

	Tasks        map[string]*Task
	TaskOrder    []string
	Features     map[string]*Feature
	FeatureOrder []string
	Applied      int

	// taskList holds Tasks[TaskOrder[i]] at i, as Apply appends them.
	taskList []*Task

	// joinQueue holds, per owner, the tasks of TaskOrder[:queued] that were
	// assigned when indexed, so a join touches only its own seat's waiting
	// tasks instead of every task (replay stays linear in a long log).
	joinQueue map[string][]*Task
	queued    int
}

// NewState returns the empty state a replay starts from.
func NewState() *State {
	return &State{
		Online:   map[string]bool{},
		Tasks:    map[string]*Task{},
		Features: map[string]*Feature{},
	}
}

// newStateFor is NewState for a replay that will apply up to tasks assigns:
// the task table and the lists of tasks are sized once instead of grown
// while the events apply (growing them allocates more than they keep), and
// the feature table and list for a few tasks a feature. The replay ends
// with trimUnused.
func newStateFor(tasks int) *State {
	s := NewState()
	s.Tasks = make(map[string]*Task, tasks)
	s.Features = make(map[string]*Feature, tasks/4)
	if tasks > 0 {
		s.TaskOrder, s.taskList = make([]string, 0, tasks), make([]*Task, 0, tasks)
		s.FeatureOrder = make([]string, 0, max(1, tasks/4))
	}
	return s
}

// trimUnused leaves the lists of a state from newStateFor that nothing was
// appended to nil, as NewState's, so that the two states compare (and
// encode, snapshot.go) equal.
func (s *State) trimUnused() {
	if len(s.TaskOrder) == 0 {
		s.TaskOrder = nil
	}
	if len(s.taskList) == 0 {
		s.taskList = nil
	}
	if len(s.FeatureOrder) == 0 {
		s.FeatureOrder = nil
	}
}

// TaskList returns the tasks in assign order (TaskOrder), without a map
// look-up per task: walks over every task of a large pact are dominated by
// those.
func (s *State) TaskList() []*Task {
	if len(s.taskList) == len(s.TaskOrder) {
		return s.taskList
	}
	out := make([]*Task, len(s.TaskOrder)) // a state built by hand
	for i, id := range s.TaskOrder {
		out[i] = s.Tasks[id]
	}
	return out
}

// FeatureStatus derives a feature's status from its tasks (docs/semantics.md §2).
func (s *State) FeatureStatus(id string) FeatureStatus {
	f := s.Features[id]
	if f == nil {
		return FeaturePlanned
	}
	if f.Shipped {
		return FeatureShipped
	}
	all := func(ok func(TaskStatus) bool) bool {
		for _, t := range f.Tasks {
			if !ok(s.Tasks[t].Status) {
				return false
			}
		}
		return len(f.Tasks) > 0
	}
	switch {
	case all(func(st TaskStatus) bool { return st == StatusAccepted }):
		return FeatureAccepted
	case all(func(st TaskStatus) bool { return st == StatusAccepted || st == StatusAwaitingReview }):
		return FeatureAwaitingReview
	case !all(func(st TaskStatus) bool { return st == StatusAssigned }):
		return FeatureInProgress
	}
	return FeaturePlanned
}

// Unaccepted lists the tasks of a feature that are not accepted, in assign
// order.
func (s *State) Unaccepted(feature string) []*Task {
	f := s.Features[feature]
	if f == nil {
		return nil
	}
	var out []*Task
	for _, id := range f.Tasks {
		if t := s.Tasks[id]; t.Status != StatusAccepted {
			out = append(out, t)
		}
	}
	return out
}

// FeaturesOnBranch lists, in first-assign order, the features with at least
// one task whose assign names branch: what a pull request from that branch
// ships (docs/semantics.md §5).
func (s *State) FeaturesOnBranch(branch string) []string {
	var out []string
	seen := map[string]bool{}
	for _, id := range s.TaskOrder {
		t := s.Tasks[id]
		if t.Branch == branch && !seen[t.Feature] {
			seen[t.Feature] = true
			out = append(out, t.Feature)
		}
	}
	return out
}

// clone is a copy of the state that applying events to changes nothing
// of s: MergeLogs continues one replay of the common ancestor's log with
// each side's lines. Its tasks and features are copies; lists are clipped
// so that an append to one never writes into the other's. The join queue
// is an index (takeJoinQueue) and is rebuilt from the tasks by the first
// join.
func (s *State) clone() *State {
	c := *s
	c.Seats = slices.Clip(s.Seats)
	c.Online = maps.Clone(s.Online)
	c.TaskOrder = slices.Clip(s.TaskOrder)
	c.FeatureOrder = slices.Clip(s.FeatureOrder)
	c.joinQueue, c.queued = nil, 0
	c.Tasks = make(map[string]*Task, len(s.Tasks))
	tasks := make([]Task, len(s.TaskOrder))
	c.taskList = make([]*Task, len(s.TaskOrder))
	for i, t := range s.TaskList() {
		tasks[i] = *t
		c.taskList[i] = &tasks[i]
		c.Tasks[t.ID] = &tasks[i]
	}
	c.Features = make(map[string]*Feature, len(s.Features))
	features := make([]Feature, len(s.FeatureOrder))
	for i, id := range s.FeatureOrder {
		features[i] = *s.Features[id]
		features[i].Tasks = slices.Clip(features[i].Tasks)
		c.Features[id] = &features[i]
	}
	return &c
}
