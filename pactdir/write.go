package pactdir

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"

	"github.com/pact-action/pact-action/pactfile"
	"github.com/pact-action/pact-action/projection"
)

// What a verb writes, each one change as far as any failure can tell: an
// event (Writer.Record, under the lock and from the writers' snapshot
// where one is trusted: its line appended, append.go, between STATE.yml
// and its task file prepared and renamed into place, replace.go),
// STATE.yml alone (WriteState) and the log of a finished merge
// (ReplaceLog).

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

// checkWritable refuses, before anything is written, a file of the pact
// directory that a verb is about to replace when it is not absent or a
// regular file (a link, a FIFO): a writer checks STATE.yml before it
// appends, so that a refusal leaves every file as it was.
func (d Dir) checkWritable(name string) error {
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

// recordAs writes one event a verb has judged, as one change as far as any
// failure can tell: the new STATE.yml (rendered from st, the state with the
// line applied) and, for task, its task file (WriteTaskFile) are first
// written beside the files they replace and synced, then the line is
// appended (appendLine), and only then are they renamed into place. When
// anything fails before the line is in the log, every file is as it was
// (appended is false; the error says nothing was recorded). When a rename
// fails after it (the platform refused to replace a file), the line stays
// recorded and the error names the file left as it was. The caller holds
// the lock.
//
// after is the log's stat right after the line was synced (appendLineAs),
// nil when it was not appended or could not be read.
func (d Dir) recordAs(line []byte, st *projection.State, task *projection.Task) (appended bool, after fs.FileInfo, err error) {
	pact, err := d.openPact(task != nil)
	if err != nil {
		return false, nil, err
	}
	defer pact.Close()
	state, err := prepare(pact, pactfile.StateFile, d.Display(pactfile.StateFile), func(w io.Writer) error { return projection.Render(w, st) })
	if err != nil {
		return false, nil, noted(err, nothingRecorded)
	}
	defer state.abort() // after its commit, nothing
	var taskFile preparedTask
	if task != nil {
		if taskFile, err = d.prepareTaskFile(pact, task); err != nil {
			return false, nil, noted(err, nothingRecorded)
		}
		defer taskFile.close()
		defer taskFile.abort()
	}
	if after, err = d.appendLineAs(line); err != nil {
		return false, nil, err
	}
	if err := state.commit(); err != nil {
		return true, after, fmt.Errorf("%w: %w", ErrStateStale, err)
	}
	if task != nil {
		if err := taskFile.commit(); err != nil {
			return true, after, fmt.Errorf("%w (validate warns of it; the log holds what the task file would say)", err)
		}
	}
	return true, after, nil
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

// Writer is a writer's hold on the pact while it writes one event
// (BeginWrite): the pact's lock, the end of the log, and the log and its
// replay to judge the event against, from the writers' snapshot when one
// is trusted.
type Writer struct {
	// Log and Res are the log and its replay; End is the end of the log as
	// pactfile.AppendLines takes it (projection.Log.Append).
	Log *projection.Log
	Res *projection.Result
	End []byte

	d      Dir
	loaded *cachedLoad
	build  string
	debug  *slog.Logger
	unlock func()
}

// WriteOptions say how BeginWrite waits and reports.
type WriteOptions struct {
	// Waiting, unless nil, is told once when another writer holds the
	// lock; the wait ends when it is granted or when BeginWrite's ctx ends.
	Waiting func()
	// Progress counts the reading and replay of the log (nil: nowhere).
	Progress *Progress
	// Debug receives why the snapshot was not used or not kept (nil:
	// nowhere).
	Debug *slog.Logger
}

// BeginWrite takes the pact's lock (LockWaiting: an ended ctx is its
// error, with nothing held) for a writer that will append one line with
// the given event_id, then refuses, while a refusal still leaves every
// file as it was, a log cut off in the middle of a line (errUnterminated)
// and a link or FIFO at STATE.yml, and loads the log and its replay: from
// the writers' snapshot when it is trusted for this build of pactify and
// this log, else by replaying the log. Close lets go of the lock.
func (d Dir) BeginWrite(ctx context.Context, eventID string, o WriteOptions) (w *Writer, err error) {
	debug := o.Debug
	if debug == nil {
		debug = slog.New(slog.DiscardHandler)
	}
	unlock, err := d.LockWaiting(ctx, o.Waiting)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			unlock()
		}
	}()
	end, err := d.readLogEnd()
	if err != nil {
		return nil, err
	}
	if err := d.checkWritable(pactfile.StateFile); err != nil {
		return nil, err
	}
	build := buildIdentity()
	loaded, err := d.loadCached(build, eventID, o.Progress)
	if err != nil {
		return nil, err
	}
	if !loaded.FromSnapshot {
		debug.Debug("replaying the log: no snapshot used", "why", loaded.Why)
	}
	return &Writer{Log: loaded.Log, Res: loaded.Res, End: end, d: d, loaded: loaded, build: build, debug: debug, unlock: unlock}, nil
}

// Record writes the event a, judged and stamped by projection.Log.Append
// on w.Log and w.Res, as one change (recordAs: STATE.yml rendered from
// a.State and, for task, its task file, with the line), then keeps the
// replay with the line for the next writer (the writers' snapshot). When
// anything fails before the line is in the log, every file is as it was
// (appended is false); a rename that fails after it leaves the line
// recorded and the error naming the file left as it was (ErrStateStale
// for STATE.yml). The snapshot is a cache: failing to keep it fails
// nothing.
func (w *Writer) Record(a *projection.Appended, task *projection.Task) (appended bool, err error) {
	appended, after, err := w.d.recordAs(a.Lines[0], a.State, task)
	if err != nil {
		return appended, err
	}
	if err := w.d.saveSnapshot(w.build, w.loaded, a.Tail, after); err != nil {
		w.debug.Debug("no snapshot written; the next writer replays the log", "err", err)
	}
	return true, nil
}

// Close lets go of the pact's lock.
func (w *Writer) Close() { w.unlock() }
