package checks

import (
	"fmt"

	"github.com/pact-action/pact-action/config"
	"github.com/pact-action/pact-action/pactfile"
	"github.com/pact-action/pact-action/projection"
)

// Input is everything validate judges, read from a .pact/ directory by the
// caller. A nil byte slice means the file does not exist.
type Input struct {
	// Dir is the .pact directory as shown in findings, e.g. ".pact".
	Dir string
	// Scan is what the reading of the log kept besides its events (the
	// lines that are not JSON objects); Replay the replay of its events.
	Scan   *projection.Scan
	Replay *projection.Result
	// State is STATE.yml, Project PROJECT.md, TaskFiles tasks/<id>.md by id.
	State     []byte
	Project   []byte
	TaskFiles map[string][]byte
	// StateMatched says a loader already found STATE.yml to hold exactly
	// what projection.Render writes for Replay.State, and so did not keep
	// it (State is then nil): it cannot drift.
	StateMatched bool
	// TaskFilesMatched holds the tasks whose file a loader already found to
	// begin with exactly the front matter pactify writes for the task
	// (pactfile.TaskMatches), and so did not keep: TaskFiles need not hold
	// them. A loader of a large pact keeps only the files that differ.
	TaskFilesMatched map[string]bool
	// TaskListing, when not nil, names the tasks that have an entry
	// tasks/<id>.md in one listing of the directory (names only): a task
	// it does not name is taskfile.missing, and TaskFiles and
	// TaskFilesMatched hold only the files a loader chose to read for
	// taskfile.mismatch (`pactify validate --task-files` reads them all; a
	// pull request's check, those it adds or changes). When nil, a task
	// has its file when TaskFiles or TaskFilesMatched holds it.
	TaskListing map[string]bool
	// Config is the repository's .github/pact.yml (nil when absent).
	Config []byte
}

// LogPath is the log's path as findings show it.
func (in Input) LogPath() string { return in.layout().Log() }

// layout names the files of the .pact directory as findings show them.
func (in Input) layout() pactfile.Layout { return pactfile.Layout(in.Dir) }

// Run judges a pact the way `pactify validate` does: docs/semantics.md, pact v1 §7.1 checks (a)–(g)
// and every code of docs/semantics.md §6 that needs no pull request. When the log
// fails closed on a newer protocol major, that is the only finding.
func Run(in Input) []Finding {
	return run(in, config.ParseFile(in.Config, "", ""))
}

// run is Run with the configuration already parsed.
func run(in Input, cf config.File) []Finding {
	if u := in.Replay.Unsupported; u != nil {
		return inPactDir([]Finding{fromRejection(in.LogPath(), *u)}, in.layout())
	}
	if f := MergeConflict(in); f != nil {
		return inPactDir([]Finding{*f}, in.layout())
	}
	var out []Finding
	for _, m := range in.Scan.Malformed {
		out = append(out, newFinding(m.Code, in.LogPath(), m.Line, m.Message))
	}
	for _, r := range in.Replay.Rejections {
		f := fromRejection(in.LogPath(), r)
		if r.Code == projection.CodeInitMissing && r.Line == 0 {
			f.Hint = initMissingHint(in.Scan)
		}
		out = append(out, f)
	}
	out = append(out, omittedRejections(in.LogPath(), in.Scan, in.Replay)...)
	if !in.StateMatched {
		out = append(out, drift(in.layout().State(), in.State, in.Replay.State)...)
	}
	out = append(out, taskFiles(in, in.Replay.State)...)
	out = append(out, projectHeader(in.layout().Project(), in.Project, in.Replay.State)...)
	out = append(out, configFindings(pactfile.ConfigPath, cf, in.Replay.State)...)
	return inPactDir(Cap(out), in.layout())
}

// fromRejection turns a replay rejection into a finding on the log.
func fromRejection(logPath string, r projection.Rejection) Finding {
	f := newFinding(r.Code, logPath, r.Line, r.Message)
	f.EventID, f.TaskID, f.Feature = r.EventID, r.TaskID, r.Feature
	if r.Code == projection.CodeEventIDDuplicate && r.Identical {
		f.Severity = SeverityWarning
	}
	return f
}

// MergeConflict is the one finding of a pact whose log or STATE.yml holds
// git's conflict markers (docs/semantics.md §8), nil for one that holds
// none: a merge in progress, which every line after the first marker and
// the drift of STATE.yml only echo, so nothing else is judged.
func MergeConflict(in Input) *Finding {
	path, line := in.LogPath(), 0
	if in.Scan != nil {
		line = in.Scan.ConflictMarker
	}
	if line == 0 && !in.StateMatched {
		path, line = in.layout().State(), pactfile.ConflictMarkerLine(in.State)
	}
	if line == 0 {
		return nil
	}
	f := newFinding(CodeMergeConflict, path, line, fmt.Sprintf("line %d is one of git's conflict markers: a merge of the pact is in progress, or was committed unresolved", line))
	f.Hint = committedMarkersHint // InMerge gives a merge in progress its own
	return &f
}
