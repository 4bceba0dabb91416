package pactdir

import (
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/pact-action/pact-action/pactfile"
	"github.com/pact-action/pact-action/projection"
)

// What a verb writes, each one change as far as any failure can tell: an
// event (Record: its line appended, append.go, between STATE.yml and its
// task file prepared and renamed into place, replace.go), STATE.yml alone
// (WriteState) and the log of a finished merge (ReplaceLog).

// WriteState regenerates STATE.yml from a replayed state, streaming the
// render: it compares it with the file and writes it only when it differs.
func (d Dir) WriteState(st *projection.State) error {
	pact, err := d.openPact(false)
	if err != nil {
		return err
	}
	defer pact.Close()
	if err := replace(pact, pactfile.StateFile, d.Display(pactfile.StateFile), func(w io.Writer) error { return projection.Render(w, st) }); err != nil {
		return noted(err, d.Display(pactfile.StateFile)+" is as it was")
	}
	return nil
}

// CheckWritable refuses, before anything is written, a file of the pact
// directory that a verb is about to replace when it is not absent or a
// regular file (a link, a FIFO): a writer checks STATE.yml before it
// appends, so that a refusal leaves every file as it was.
func (d Dir) CheckWritable(name string) error {
	pact, err := d.openPact(false)
	if err != nil {
		return err
	}
	defer pact.Close()
	fi, err := pact.Lstat(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return openError("write", d.Display(name), err)
	case !fi.Mode().IsRegular():
		return notRegular("write", d.Display(name), fi.Mode())
	}
	return nil
}

// Record writes one event a verb has judged, as one change as far as any
// failure can tell: the new STATE.yml (rendered from st, the state with the
// line applied) and, for task, its task file (WriteTaskFile) are first
// written beside the files they replace and synced, then the line is
// appended (AppendLine), and only then are they renamed into place. When
// anything fails before the line is in the log, every file is as it was
// (appended is false; the error says nothing was recorded). When a rename
// fails after it (the platform refused to replace a file), the line stays
// recorded and the error names the file left as it was. The caller holds
// the lock.
func (d Dir) Record(line []byte, st *projection.State, task *projection.Task) (appended bool, err error) {
	pact, err := d.openPact(task != nil)
	if err != nil {
		return false, err
	}
	defer pact.Close()
	state, err := prepare(pact, pactfile.StateFile, d.Display(pactfile.StateFile), func(w io.Writer) error { return projection.Render(w, st) })
	if err != nil {
		return false, noted(err, nothingRecorded)
	}
	defer state.abort() // after its commit, nothing
	var taskFile preparedTask
	if task != nil {
		if taskFile, err = d.prepareTaskFile(pact, task); err != nil {
			return false, noted(err, nothingRecorded)
		}
		defer taskFile.close()
		defer taskFile.abort()
	}
	if err := d.AppendLine(line); err != nil {
		return false, err
	}
	if err := state.commit(); err != nil {
		return true, fmt.Errorf("%w: %w", ErrStateStale, err)
	}
	if task != nil {
		if err := taskFile.commit(); err != nil {
			return true, fmt.Errorf("%w (validate warns of it; the log holds what the task file would say)", err)
		}
	}
	return true, nil
}

// ErrStateStale is a STATE.yml left as it was after the log changed:
// `pactify log --replay` writes it again.
var ErrStateStale = errors.New("STATE.yml is stale")

// ReplaceLog makes the log hold exactly what log writes and STATE.yml the
// render of st, the state that log replays to: what `pactify resolve` writes when it
// finishes a merge of the pact (docs/semantics.md §8). Both are written
// beside the files they replace and synced first, then renamed into place,
// the log first, so that a failure before the renames leaves both as they
// were and one after the log's leaves STATE.yml stale (ErrStateStale),
// never the log half written. The caller holds the lock (Lock): a writer
// waiting for it takes it again on the new log (lockLog).
func (d Dir) ReplaceLog(log func(io.Writer) error, st *projection.State) error {
	pact, err := d.openPact(false)
	if err != nil {
		return err
	}
	defer pact.Close()
	newLog, err := prepare(pact, pactfile.LogFile, d.Display(pactfile.LogFile), log)
	if err != nil {
		return noted(err, "the log and "+d.Display(pactfile.StateFile)+" are as they were")
	}
	defer newLog.abort() // after its commit, nothing
	state, err := prepare(pact, pactfile.StateFile, d.Display(pactfile.StateFile), func(w io.Writer) error { return projection.Render(w, st) })
	if err != nil {
		return noted(err, "the log and "+d.Display(pactfile.StateFile)+" are as they were")
	}
	defer state.abort()
	if err := newLog.commit(); err != nil {
		return noted(err, "the log and "+d.Display(pactfile.StateFile)+" are as they were")
	}
	if err := state.commit(); err != nil {
		return fmt.Errorf("%w: %w", ErrStateStale, err)
	}
	return nil
}
