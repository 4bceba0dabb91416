package pactdir

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/pact-action/pact-action/internal/version"
	"github.com/pact-action/pact-action/pactfile"
	"github.com/pact-action/pact-action/projection"
)

// The writers' snapshot of the replay (projection's EncodeSnapshot), so
// that an append does not replay what the last one already knew. It is a
// cache kept out of git, in the git directory of the repository that
// holds the pact (<gitdir>/pactify/, the gitdir a .git file names in a
// worktree or submodule); a pact in no git repository has none. It is
// trusted the way git's index trusts stat data, and dropped on any doubt
// for a replay of the log: it must name the log's identity as the log is
// now (logIdentity), and the log must be strictly older than the snapshot
// (git's racy-clean rule: a log changed in the same tick of the file
// system's clock as the snapshot was written could keep every field of its
// identity). Only writers holding the pact's lock read and write it;
// validate, log --replay and the action never use it.

// snapshotDir is the directory of the snapshots in the git directory.
const snapshotDir = "pactify"

// snapshotMagic opens a snapshot file, before the log's identity.
const snapshotMagic = "PACTIFY-SNAPSHOT-2\n"

// tailBytes is how much of the log's end its identity hashes: at least
// its last line, whatever the last write changed.
const tailBytes = 64 << 10

// logIdentity is what a snapshot knows of the log it describes.
type logIdentity struct {
	pact     string // the pact directory's absolute path
	size     int64
	modNanos int64
	// dev and ino are the file's identity where the system gives one
	// (hasIno); elsewhere the other fields must do.
	dev, ino uint64
	hasIno   bool
	// ctime is the file's change time where the system gives one
	// (hasCtime): an edit in place that keeps the size, the last bytes
	// and a modification time set back (touch -d) still moves it, as
	// git's index notices.
	ctime    int64
	hasCtime bool
	tail     [sha256.Size]byte // of the last tailBytes (the whole log when shorter)
}

// encode is the identity as a snapshot file holds it: equal identities,
// equal bytes.
func (id logIdentity) encode() []byte {
	b := []byte(snapshotMagic)
	b = binary.AppendUvarint(b, uint64(len(id.pact)))
	b = append(b, id.pact...)
	b = binary.AppendVarint(b, id.size)
	b = binary.AppendVarint(b, id.modNanos)
	if id.hasIno {
		b = append(b, 1)
		b = binary.AppendUvarint(b, id.dev)
		b = binary.AppendUvarint(b, id.ino)
	} else {
		b = append(b, 0)
	}
	if id.hasCtime {
		b = append(b, 1)
		b = binary.AppendVarint(b, id.ctime)
	} else {
		b = append(b, 0)
	}
	return append(b, id.tail[:]...)
}

// identify reads the identity of the open log f (fi its Stat).
func identify(pact string, f *os.File, fi fs.FileInfo) (logIdentity, []byte, error) {
	id := statIdentity(pact, fi)
	tail := make([]byte, min(fi.Size(), tailBytes))
	if _, err := f.ReadAt(tail, fi.Size()-int64(len(tail))); err != nil {
		return id, nil, err
	}
	id.tail = sha256.Sum256(tail)
	return id, tail, nil
}

// statIdentity is the identity of the log of stat fi in pact but its
// last bytes.
func statIdentity(pact string, fi fs.FileInfo) logIdentity {
	id := logIdentity{pact: pact, size: fi.Size(), modNanos: fi.ModTime().UnixNano()}
	id.dev, id.ino, id.hasIno = fileID(fi)
	id.ctime, id.hasCtime = changeNanos(fi)
	return id
}

// trust says why a snapshot file (file, written at taken by the file
// system's clock) may not be used for the log of identity now; "" when it
// may, with the projection's snapshot that follows the identity.
func trust(file string, taken time.Time, now logIdentity) (snapshot string, why string) {
	want := now.encode()
	switch {
	case !strings.HasPrefix(file, snapshotMagic):
		return "", "not a snapshot of this format"
	case !strings.HasPrefix(file, string(want)):
		return "", "it describes another log (size, time, file, change time, last bytes or place)"
	case now.modNanos >= taken.UnixNano():
		return "", "the log is not older than the snapshot (racily clean)"
	}
	return file[len(want):], ""
}

// snapshotName is the file of this pact's snapshot in the snapshot
// directory: one per pact directory, so two pacts of a repository do not
// take each other's.
func snapshotName(pact string) string { return "state-" + pactKey(pact) + ".snap" }

// pactKey names the pact directory pact (its absolute path) among the
// files the snapshot directory keeps for each pact: its snapshot, and the
// record of an append under way (torn.go).
func pactKey(pact string) string {
	sum := sha256.Sum256([]byte(pact))
	return hex.EncodeToString(sum[:8])
}

// openSnapshotDir opens dir, the snapshot directory, making it when
// create says to and it is missing.
func openSnapshotDir(dir string, create bool) (*os.Root, error) {
	if create {
		if err := os.Mkdir(dir, 0o777); err != nil && !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
	}
	return os.OpenRoot(dir)
}

// gitDir is the git directory of the repository that holds dir: the
// nearest .git of dir and its parents, a directory or a file naming one
// ("gitdir: <path>"). ok is false outside a repository.
func gitDir(dir string) (string, bool) {
	for dir = filepath.Clean(dir); ; {
		dotGit := filepath.Join(dir, ".git")
		switch fi, err := os.Lstat(dotGit); {
		case err == nil && fi.IsDir():
			return dotGit, true
		case err == nil && fi.Mode().IsRegular() && fi.Size() < 4096:
			b, err := os.ReadFile(dotGit)
			if err != nil {
				return "", false
			}
			line, _, _ := strings.Cut(string(b), "\n")
			rest, ok := strings.CutPrefix(strings.TrimSpace(line), "gitdir:")
			if !ok || strings.TrimSpace(rest) == "" {
				return "", false
			}
			p := filepath.FromSlash(strings.TrimSpace(rest))
			if !filepath.IsAbs(p) {
				p = filepath.Join(dir, p)
			}
			if fi, err := os.Stat(p); err != nil || !fi.IsDir() {
				return "", false
			}
			return p, true
		case err == nil || !errors.Is(err, fs.ErrNotExist):
			return "", false // something else named .git: no cache
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

// snapshotPlace is where the pact's snapshot lives: the directory (in the
// git directory) and the file's name; ok is false when it has none.
func (d Dir) snapshotPlace() (pact, dir, name string, ok bool) {
	pact, err := filepath.Abs(d.Path())
	if err != nil {
		return "", "", "", false
	}
	git, ok := gitDir(pact)
	if !ok {
		return "", "", "", false
	}
	return pact, filepath.Join(git, snapshotDir), snapshotName(pact), true
}

// cachedLoad is what a writer loaded to append to: the log and its replay,
// whether they came from the snapshot (and, for a debug line, why not),
// and how many bytes of the log they describe, which saveSnapshot holds
// the log to.
type cachedLoad struct {
	Log          *projection.Log
	Res          *projection.Result
	FromSnapshot bool
	Why          string
	// bytes: saveSnapshot keeps a snapshot only when the log is these
	// bytes and the line appended. A line another program appended
	// without the lock in between is in the log, not in the state, and a
	// snapshot would hide it from every writer after.
	bytes int64
}

// loadCached loads the log for a writer that will append one line with
// the given event_id (projection.ReadOptions.Reserve: no events are kept,
// yet Log.Append judges that line exactly), starting from the pact's
// snapshot when one is there and trusted (FromSnapshot), and otherwise
// replaying the log keeping what a snapshot needs (saveSnapshot). A snapshot
// is used only when written by the same build, and never when the new
// event_id might be the log's (projection.DecodeSnapshot). The caller
// holds the lock.
func (d Dir) loadCached(build, eventID string, p *Progress) (*cachedLoad, error) {
	log, res, size, why := d.loadSnapshot(build, eventID)
	if why == "" {
		return &cachedLoad{Log: log, Res: res, FromSnapshot: true, bytes: size}, nil
	}
	_, _, _, kept := d.snapshotPlace() // no place: nothing to keep for it
	log, res, read, err := loadLog(d, p, projection.ReadOptions{Reserve: []string{eventID}, Snapshot: kept})
	if err != nil {
		return nil, err
	}
	return &cachedLoad{Log: log, Res: res, Why: why, bytes: read}, nil
}

// loadSnapshot is the log and replay the snapshot describes, and the size
// of the log it was trusted for, or why it is not used.
func (d Dir) loadSnapshot(build, eventID string) (*projection.Log, *projection.Result, int64, string) {
	pact, dir, name, ok := d.snapshotPlace()
	if !ok {
		return nil, nil, 0, "the pact is in no git repository"
	}
	now, _, err := d.logIdentity(pact)
	if err != nil {
		return nil, nil, 0, err.Error()
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, nil, 0, "no snapshot: " + err.Error()
	}
	defer root.Close()
	f, fi, err := openRegular(root, name, name, false)
	if err != nil {
		return nil, nil, 0, "no snapshot: " + err.Error()
	}
	defer f.Close()
	// What a snapshot holds comes from the log's lines, in fewer bytes:
	// one larger than the log is not read.
	if fi.Size() > now.size+64<<10 {
		return nil, nil, 0, "the snapshot is larger than the log"
	}
	// Read into a string, not copied again: the state's texts are its
	// substrings (projection.DecodeSnapshot).
	var file strings.Builder
	file.Grow(int(fi.Size()))
	if _, err := io.Copy(&file, io.LimitReader(f, fi.Size())); err != nil {
		return nil, nil, 0, "read the snapshot: " + err.Error()
	}
	snap, why := trust(file.String(), fi.ModTime(), now)
	if why != "" {
		return nil, nil, 0, why
	}
	log, res, err := projection.DecodeSnapshot(snap, build, eventID)
	if err != nil {
		return nil, nil, 0, err.Error()
	}
	return log, res, now.size, ""
}

// logIdentity is the identity of the log as it is now, with its last bytes.
func (d Dir) logIdentity(pact string) (logIdentity, []byte, error) {
	root, err := d.openPact(false)
	if err != nil {
		return logIdentity{}, nil, err
	}
	defer root.Close()
	f, fi, err := openRegular(root, pactfile.LogFile, d.Display(pactfile.LogFile), false)
	if err != nil {
		return logIdentity{}, nil, err
	}
	defer f.Close()
	if lk, locked := held.Load(d.Path(pactfile.LogFile)); locked {
		// The log locked is the one judged; one put in its place since is not.
		if lfi, err := lk.(*os.File).Stat(); err != nil || !os.SameFile(lfi, fi) {
			return logIdentity{}, nil, errReplaced
		}
	}
	id, tail, err := identify(pact, f, fi)
	if err != nil {
		return id, nil, fmt.Errorf("read the end of %s: %w", d.Display(pactfile.LogFile), err)
	}
	return id, tail, nil
}

// snapshotOut is where saveSnapshot writes the temporary file; tests make
// it fail (a full disk).
var snapshotOut = func(f *os.File) io.Writer { return f }

// saveSnapshot writes the pact's snapshot of log and res (read by
// loadCached, then appended to) once appended, the bytes the
// writer added, ends the log: a log that ends otherwise is not the one
// they describe, and then the snapshot is removed instead. It is written
// whole through a temporary file and a rename, so a reader finds the old
// snapshot or the new one; it is not synced: a snapshot cut short by a
// crash fails its checksum and is dropped. On any failure the old snapshot
// is removed, so none is left that could describe a log not on disk. The
// caller holds the lock, and a failure must not fail its verb.
func (d Dir) saveSnapshot(build string, l *cachedLoad, appended []byte, after fs.FileInfo) (err error) {
	pact, dir, name, ok := d.snapshotPlace()
	if !ok {
		return nil
	}
	defer func() {
		if err != nil {
			_ = os.Remove(filepath.Join(dir, name)) // best effort: a stale one is never trusted anyway
		}
	}()
	if !l.Log.Snapshotable(l.Res) {
		return errors.New("the log was not read for a snapshot")
	}
	id, tail, err := d.logIdentity(pact)
	if err != nil {
		return err
	}
	if !bytes.HasSuffix(tail, appended) || len(appended) > len(tail) {
		return errors.New("the log does not end in the line just appended")
	}
	if l.bytes+int64(len(appended)) != id.size {
		return errors.New("the log is not what was read and the line just appended (another program wrote to it)")
	}
	if after == nil || !sameAsAfter(id, after) {
		return errors.New("the log changed after the line was appended (another program wrote to it)")
	}
	root, err := openSnapshotDir(dir, true)
	if err != nil {
		return err
	}
	defer root.Close()
	removeTemporariesOf(root, name) // a killed writer's; only this pact's writers, under its lock, make them
	tmp, tmpName, err := createTemp(root, name)
	if err != nil {
		return err
	}
	defer func() { _ = root.Remove(tmpName) }() // after the rename, nothing
	w := bufio.NewWriterSize(snapshotOut(tmp), 1<<20)
	_, err = w.Write(id.encode())
	if err == nil {
		err = projection.EncodeSnapshot(w, build, l.Log, l.Res)
	}
	if err == nil {
		err = w.Flush()
	}
	if err == nil {
		err = laterThan(tmp, id.modNanos)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return root.Rename(tmpName, name)
}

// sameAsAfter reports whether the log's identity now, id, is still the
// one it had right after the writer's line was synced (after, its stat
// then). The identity is taken again at the save, so an edit in place in
// between that keeps the size and the last bytes (another program's)
// would otherwise be the identity a snapshot of the log before that edit
// carries, and be trusted. An edit within the same tick of a coarse clock
// as the append keeps every field, as git's racy-clean case does.
func sameAsAfter(id logIdentity, after fs.FileInfo) bool {
	was := statIdentity(id.pact, after)
	was.tail = id.tail // read once, at the save
	return was == id
}

// laterThan makes the modification time of the snapshot being written in
// f, which trust compares with the log's, later than the log's modNanos
// where the file system can tell them apart. A file written in the same
// tick of the file system's clock as the log can carry the very time the
// log does (Linux's multigrain timestamps hand the last fine-grained time
// out again until the clock moves on), and would then never be trusted.
// Written again once its time has been looked at, it gets a time of its
// own where the system keeps finer ones; where it does not, it keeps the
// log's time and stays untrusted, as the racy-clean rule wants.
func laterThan(f *os.File, modNanos int64) error {
	fi, err := f.Stat()
	if err != nil || fi.ModTime().UnixNano() > modNanos || fi.Size() == 0 {
		return err
	}
	var last [1]byte
	if _, err := f.ReadAt(last[:], fi.Size()-1); err != nil {
		return err
	}
	_, err = f.WriteAt(last[:], fi.Size()-1)
	return err
}

// buildIdentity names this build of pactify for its snapshots
// (buildIdentityOf).
func buildIdentity() string {
	exe, err := os.Executable()
	if err != nil {
		exe = ""
	}
	return buildIdentityOf(version.String(), exe)
}

// buildIdentityOf names the build of version ver at exe: the version, and
// the executable's place, size and time, so that a snapshot is read only
// by the binary that wrote it (two development builds share a version,
// and a store that gives every file one time, as Nix does, leaves two
// builds apart only by their place).
func buildIdentityOf(ver, exe string) string {
	b := ver
	if exe == "" {
		return b
	}
	if fi, err := os.Stat(exe); err == nil {
		b += fmt.Sprintf(" %q %d %d", exe, fi.Size(), fi.ModTime().UnixNano())
	}
	return b
}
