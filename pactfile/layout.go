package pactfile

import (
	"path"
	"strings"
)

// The layout of a pact (docs/semantics.md, pact v1 §3): the directory, the names of the files in
// it, and where a repository keeps its configuration. Every package names
// these files through here, whether it reads them from disk, from a Git
// tree or shows them in a finding.
const (
	// DefaultDir is where a pact lives unless told otherwise.
	DefaultDir = ".pact"
	// LogFile is the event log, the authoritative record (docs/semantics.md, pact v1 §2, §3.1).
	LogFile = "log.jsonl"
	// StateFile is the log's projection (docs/semantics.md, pact v1 §3.2).
	StateFile = "STATE.yml"
	// ProjectFile holds the charter and its managed block (docs/semantics.md, pact v1 §3.3).
	ProjectFile = "PROJECT.md"
	// TasksDir holds one file per task, TaskFileName(id) (docs/semantics.md, pact v1 §3.4).
	TasksDir = "tasks"
	// ConfigPath is where a repository keeps its seat map and policies,
	// relative to the repository root (not to the pact directory).
	ConfigPath = ".github/pact.yml"
)

// TaskFileName is the name of task id's file inside TasksDir.
func TaskFileName(id string) string { return id + ".md" }

// Layout is a pact directory as a path relative to the repository root, ""
// meaning DefaultDir. Either separator may be given (docs\pact is
// docs/pact, as a Windows user types it; no directory of a pact has a
// backslash in its name): its methods name the pact's files with "/" only,
// the way findings show them and the GitHub API reads them.
type Layout string

// Dir is the pact directory itself, cleaned and slash-separated.
func (l Layout) Dir() string {
	if l == "" {
		return DefaultDir
	}
	return path.Clean(strings.ReplaceAll(string(l), `\`, "/"))
}

// Log is the path of the event log.
func (l Layout) Log() string { return path.Join(l.Dir(), LogFile) }

// State is the path of STATE.yml.
func (l Layout) State() string { return path.Join(l.Dir(), StateFile) }

// Project is the path of PROJECT.md.
func (l Layout) Project() string { return path.Join(l.Dir(), ProjectFile) }

// Tasks is the path of the directory of task files.
func (l Layout) Tasks() string { return path.Join(l.Dir(), TasksDir) }

// Task is the path of task id's file.
func (l Layout) Task(id string) string { return path.Join(l.Dir(), TasksDir, TaskFileName(id)) }
