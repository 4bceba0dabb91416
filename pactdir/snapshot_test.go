package pactdir

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pact-action/pact-action/internal/testkit/e2e"
	"github.com/pact-action/pact-action/pactfile"
	"github.com/pact-action/pact-action/projection"
)

const testBuild = "test-build"

// TestTrust is the decision table of trusting a snapshot file: every
// field of the log's identity changed alone drops it, and so does a log
// not strictly older than the snapshot (racily clean).
func TestTrust(t *testing.T) {
	t.Parallel()
	base := logIdentity{pact: "/r/.pact", size: 1000, modNanos: 5e18, dev: 7, ino: 9, hasIno: true, ctime: 6e18, hasCtime: true, tail: [32]byte{1}}
	file := string(base.encode()) + "SNAPSHOT"
	later := time.Unix(0, base.modNanos+1)
	change := func(f func(*logIdentity)) logIdentity { id := base; f(&id); return id }
	cases := []struct {
		name  string
		now   logIdentity
		file  string
		taken time.Time
		trust bool
	}{
		{"the same log, older than the snapshot", base, file, later, true},
		{"the same log, a second older", base, file, time.Unix(0, base.modNanos+1e9), true},
		{"another pact directory", change(func(id *logIdentity) { id.pact = "/s/.pact" }), file, later, false},
		{"a byte longer", change(func(id *logIdentity) { id.size++ }), file, later, false},
		{"modified a nanosecond later", change(func(id *logIdentity) { id.modNanos++ }), file, time.Unix(0, base.modNanos+2), false},
		{"modified earlier", change(func(id *logIdentity) { id.modNanos-- }), file, later, false},
		{"another device", change(func(id *logIdentity) { id.dev++ }), file, later, false},
		{"another inode", change(func(id *logIdentity) { id.ino++ }), file, later, false},
		{"no inode now", change(func(id *logIdentity) { id.hasIno, id.dev, id.ino = false, 0, 0 }), file, later, false},
		{"changed later", change(func(id *logIdentity) { id.ctime++ }), file, later, false},
		{"no change time now", change(func(id *logIdentity) { id.hasCtime, id.ctime = false, 0 }), file, later, false},
		{"other last bytes", change(func(id *logIdentity) { id.tail[31] = 1 }), file, later, false},
		{"racily clean: the same tick", base, file, time.Unix(0, base.modNanos), false},
		{"racily clean: the log is newer", base, file, time.Unix(0, base.modNanos-1), false},
		{"not a snapshot file", base, "PACT" + file, later, false},
		{"cut inside the identity", base, file[:len(file)-len("SNAPSHOT")-1], later, false},
	}
	for _, c := range cases {
		snap, why := trust(c.file, c.taken, c.now)
		if (why == "") != c.trust {
			t.Errorf("%s: trusted %v (%q), want %v", c.name, why == "", why, c.trust)
		}
		if c.trust && snap != "SNAPSHOT" {
			t.Errorf("%s: the snapshot after the identity is %q", c.name, snap)
		}
	}
}

// cachedPact is a pact in a git repository whose writer appended a join
// and saved its snapshot, dated a second after the log (so that no clock
// makes it racily clean); it returns the snapshot's path.
func cachedPact(t *testing.T) (Dir, string) {
	t.Helper()
	d := newDir(t)
	if err := os.Mkdir(filepath.Join(d.Root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	base := e2e.NewLog().Assign("T1", "F", "b", "dev", "rev").Assign("T2", "F", "b", "dev", "rev")
	if err := os.WriteFile(d.Path(pactfile.LogFile), []byte(base.Text()), 0o644); err != nil {
		t.Fatal(err)
	}
	cached, why := appendJoin(t, d, testBuild)
	if cached {
		t.Fatal("a snapshot was used before one was written")
	}
	if why == "" {
		t.Fatal("no reason given for replaying")
	}
	_, dir, name, ok := d.snapshotPlace()
	if !ok {
		t.Fatal("a pact in a git repository has no place for a snapshot")
	}
	path := filepath.Join(dir, name)
	settle(t, d, path)
	return d, path
}

// settle dates the snapshot a second after the log.
func settle(t *testing.T, d Dir, path string) {
	t.Helper()
	fi, err := os.Stat(d.Path(pactfile.LogFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, time.Time{}, fi.ModTime().Add(time.Second)); err != nil {
		t.Fatal(err)
	}
}

// appendJoin is a writer's append of a join of dev under the lock, with
// the snapshot saved after it; it reports whether the snapshot was used,
// and checks that what was loaded is the replay's.
func appendJoin(t *testing.T, d Dir, build string) (cached bool, why string) {
	t.Helper()
	unlock, err := d.Lock()
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	id := newID()
	l, err := d.loadCached(build, id, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, want, _, err := loadLog(d, nil, projection.ReadOptions{Reserve: []string{id}}) // the replay, no snapshot
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(l.Res.State, want.State) {
		t.Fatalf("the state loaded (from the snapshot: %v) is not the replay's", l.FromSnapshot)
	}
	a := appendJoinTo(t, d, l, id)
	if err := d.saveSnapshot(build, l, a.Tail, a.after); err != nil {
		t.Fatal(err)
	}
	return l.FromSnapshot, l.Why
}

// newID is a fresh event_id of the hex form.
func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails
	return hex.EncodeToString(b[:])
}

// TestSnapshotOnDisk: the snapshot a writer saves is used by the next
// writer, and dropped for a replay of the log when anything about the log
// or the snapshot is in doubt, each alone.
func TestSnapshotOnDisk(t *testing.T) {
	t.Parallel()
	restoreTime := func(t *testing.T, path string, fi os.FileInfo) {
		t.Helper()
		if err := os.Chtimes(path, time.Time{}, fi.ModTime()); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name  string
		doubt func(t *testing.T, d Dir, snap string) string // the build to load with
		trust bool
	}{
		{"nothing changed", func(*testing.T, Dir, string) string { return testBuild }, true},
		{"the log's time changed", func(t *testing.T, d Dir, snap string) string {
			log := d.Path(pactfile.LogFile)
			fi := stat(t, log)
			if err := os.Chtimes(log, time.Time{}, fi.ModTime().Add(-time.Second)); err != nil {
				t.Fatal(err)
			}
			return testBuild
		}, false},
		{"the log's last bytes changed, size and time kept", func(t *testing.T, d Dir, snap string) string {
			log := d.Path(pactfile.LogFile)
			fi := stat(t, log)
			b, _ := os.ReadFile(log)
			// Another branch's log of the same size: the last line's event_id.
			i := bytes.LastIndex(b, []byte(`"event_id":"`)) + len(`"event_id":"`)
			if b[i] == '0' {
				b[i] = '1'
			} else {
				b[i] = '0'
			}
			if err := os.WriteFile(log, b, 0o644); err != nil {
				t.Fatal(err)
			}
			restoreTime(t, log, fi)
			return testBuild
		}, false},
		{"the log is another file, same bytes and time", func(t *testing.T, d Dir, snap string) string {
			log := d.Path(pactfile.LogFile)
			fi := stat(t, log)
			b, _ := os.ReadFile(log)
			// Written beside it and renamed over it, as git checks out a file.
			if err := os.WriteFile(log+".new", b, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(log+".new", log); err != nil {
				t.Fatal(err)
			}
			restoreTime(t, log, fi)
			if _, _, ok := fileID(fi); !ok {
				return "" // no file identity here: the case does not apply
			}
			return testBuild
		}, false},
		{"racily clean", func(t *testing.T, d Dir, snap string) string {
			restoreTime(t, snap, stat(t, d.Path(pactfile.LogFile)))
			return testBuild
		}, false},
		{"another build", func(*testing.T, Dir, string) string { return testBuild + "2" }, false},
		{"a byte of the snapshot flipped", func(t *testing.T, d Dir, snap string) string {
			b, _ := os.ReadFile(snap)
			b[len(b)-20] ^= 1
			if err := os.WriteFile(snap, b, 0o644); err != nil {
				t.Fatal(err)
			}
			settle(t, d, snap)
			return testBuild
		}, false},
		{"the snapshot cut short", func(t *testing.T, d Dir, snap string) string {
			if err := os.Truncate(snap, stat(t, snap).Size()-1); err != nil {
				t.Fatal(err)
			}
			settle(t, d, snap)
			return testBuild
		}, false},
		{"the snapshot empty", func(t *testing.T, d Dir, snap string) string {
			if err := os.Truncate(snap, 0); err != nil {
				t.Fatal(err)
			}
			settle(t, d, snap)
			return testBuild
		}, false},
		{"the snapshot gone", func(t *testing.T, d Dir, snap string) string {
			if err := os.Remove(snap); err != nil {
				t.Fatal(err)
			}
			return testBuild
		}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			d, snap := cachedPact(t)
			build := c.doubt(t, d, snap)
			if build == "" {
				t.Skip("no file identity on this system")
			}
			cached, why := appendJoin(t, d, build)
			if cached != c.trust {
				t.Fatalf("snapshot used: %v (%s), want %v", cached, why, c.trust)
			}
			// Either way the next writer finds a snapshot of the longer log.
			settle(t, d, snap)
			if cached, why := appendJoin(t, d, build); !cached {
				t.Fatalf("the snapshot saved after it is not used: %s", why)
			}
		})
	}
}

// TestSnapshotMiddleEdited: a log edited in place before its last 64 KiB,
// keeping its size and its modification time (touch -d), is another log:
// the change time, which nothing sets back, drops the snapshot where the
// system has one.
func TestSnapshotMiddleEdited(t *testing.T) {
	t.Parallel()
	d, snap := longCachedPact(t)
	log := d.Path(pactfile.LogFile)
	if cached, why := appendJoin(t, d, testBuild); !cached {
		t.Fatalf("the snapshot of the long log is not used: %s", why)
	}
	settle(t, d, snap)
	fi := stat(t, log)
	if _, ok := changeNanos(fi); !ok {
		t.Skip("no change time on this system")
	}
	editFarFromTheEnd(t, log)
	if err := os.Chtimes(log, time.Time{}, fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	if now := stat(t, log); now.Size() != fi.Size() || !now.ModTime().Equal(fi.ModTime()) {
		t.Fatal("the edit did not keep the size and time")
	}
	if cached, _ := appendJoin(t, d, testBuild); cached {
		t.Fatal("the snapshot was used for a log edited in place")
	}
}

// TestSnapshotTailEditedInPlace: a byte of the log's last tailBytes
// edited in place, keeping the size and the modification time, makes
// another log, whatever byte it is, though the system tells no change
// time nor file identity (Windows, where only the last bytes' digest can
// notice it). Each log identity is taken from the file on disk, as a
// writer takes it, then seen as Windows sees it: no change time, no
// inode. On Linux TestSnapshotOnDisk's edit is also noticed by the change
// time, so that test alone would not tell a digest that misses it.
func TestSnapshotTailEditedInPlace(t *testing.T) {
	t.Parallel()
	windows := func(id logIdentity) logIdentity {
		id.dev, id.ino, id.hasIno, id.ctime, id.hasCtime = 0, 0, false, 0, false
		return id
	}
	for _, size := range []int{200, tailBytes + 1000} { // shorter than the bytes hashed, and longer
		hashed := min(size, tailBytes)
		for _, at := range []struct {
			name string
			off  int // from the start of the log
		}{
			{"the last byte", size - 1},
			{"the last byte but 64", size - 65},
			{"a hundred bytes from the end", size - 100},
			{"in the middle of the bytes hashed", size - hashed/2},
			{"the first byte hashed", size - hashed},
		} {
			t.Run(fmt.Sprintf("%d bytes, %s", size, at.name), func(t *testing.T) {
				t.Parallel()
				d := newDir(t)
				log := d.Path(pactfile.LogFile)
				b := make([]byte, size)
				for i := range b {
					b[i] = "0123456789abcdef\n"[i%17]
				}
				if err := os.WriteFile(log, b, 0o644); err != nil {
					t.Fatal(err)
				}
				fi := stat(t, log)
				was, _, err := d.logIdentity(d.Path())
				if err != nil {
					t.Fatal(err)
				}
				f, err := os.OpenFile(log, os.O_WRONLY, 0)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := f.WriteAt([]byte{b[at.off] ^ 1}, int64(at.off)); err != nil {
					t.Fatal(err)
				}
				if err := f.Close(); err != nil {
					t.Fatal(err)
				}
				if err := os.Chtimes(log, time.Time{}, fi.ModTime()); err != nil {
					t.Fatal(err)
				}
				now, _, err := d.logIdentity(d.Path())
				if err != nil {
					t.Fatal(err)
				}
				if now.size != was.size || now.modNanos != was.modNanos {
					t.Fatal("the edit did not keep the size and time")
				}
				file := string(windows(was).encode()) + "SNAPSHOT"
				taken := time.Unix(0, was.modNanos+1e9)
				if _, why := trust(file, taken, windows(was)); why != "" {
					t.Fatalf("the snapshot of the log as it was is not trusted: %s", why)
				}
				if _, why := trust(file, taken, windows(now)); why == "" {
					t.Fatalf("a log whose byte %d of %d (%s) was edited in place, size and time kept, is trusted as the log the snapshot describes where the system gives no change time", at.off, size, at.name)
				}
			})
		}
	}
}

// TestSnapshotPlace: the snapshot lives in the git directory, the one a
// .git file names in a worktree, and nowhere outside a repository.
func TestSnapshotPlace(t *testing.T) {
	t.Parallel()
	d := newDir(t)
	if _, _, _, ok := d.snapshotPlace(); ok {
		t.Error("a pact in no git repository has a place for a snapshot")
	}
	if err := os.WriteFile(d.Path(pactfile.LogFile), []byte(e2e.NewLog().Text()), 0o644); err != nil {
		t.Fatal(err)
	}
	if cached, _ := appendJoin(t, d, testBuild); cached {
		t.Error("a snapshot was used outside a repository")
	}
	if entries, _ := os.ReadDir(d.Root); len(entries) != 1 {
		t.Errorf("the repository holds %d entries, want .pact alone", len(entries))
	}

	gitdir := filepath.Join(t.TempDir(), "main.git", "worktrees", "wt")
	if err := os.MkdirAll(gitdir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d.Root, ".git"), []byte("gitdir: "+gitdir+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, dir, _, ok := d.snapshotPlace()
	if !ok || dir != filepath.Join(gitdir, snapshotDir) {
		t.Errorf("in a worktree the snapshot lives in %q (%v), want %q", dir, ok, filepath.Join(gitdir, snapshotDir))
	}
	if err := os.WriteFile(filepath.Join(d.Root, ".git"), []byte("gitdir: wt.git\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(d.Root, "wt.git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, dir, _, ok := d.snapshotPlace(); !ok || dir != filepath.Join(d.Root, "wt.git", snapshotDir) {
		t.Errorf("a relative gitdir: the snapshot lives in %q (%v)", dir, ok)
	}
	if err := os.WriteFile(filepath.Join(d.Root, ".git"), []byte("not a gitdir line\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, _, ok := d.snapshotPlace(); ok {
		t.Error("a .git file that names no git directory has a place for a snapshot")
	}
}

// fullDisk fails every write once limit bytes are written.
type fullDisk struct {
	w     io.Writer
	limit int
}

func (f *fullDisk) Write(p []byte) (int, error) {
	if len(p) > f.limit {
		n, _ := f.w.Write(p[:f.limit])
		f.limit = 0
		return n, syscall.ENOSPC
	}
	f.limit -= len(p)
	return f.w.Write(p)
}

// TestSnapshotFullDisk: a snapshot that cannot be written whole (a full
// disk) leaves no snapshot and no temporary file, and the next writer
// replays the log.
func TestSnapshotFullDisk(t *testing.T) { // not parallel: it swaps snapshotOut
	d, snap := cachedPact(t)
	for i := range 3 {
		// Full at once, after 10 bytes, 10 bytes before the end.
		limit := []int{0, 10, int(stat(t, snap).Size()) - 10}[i]
		snapshotOut = func(f *os.File) io.Writer { return &fullDisk{f, limit} }
		l, a, unlock := lockedJoin(t, d)
		err := d.saveSnapshot(testBuild, l, a.Tail, a.after)
		unlock()
		snapshotOut = func(f *os.File) io.Writer { return f }
		if !errors.Is(err, syscall.ENOSPC) {
			t.Fatalf("limit %d: saving on a full disk gives %v", limit, err)
		}
		if entries, _ := os.ReadDir(filepath.Dir(snap)); len(entries) != 0 {
			t.Fatalf("limit %d: a full disk left %d files in the snapshot directory", limit, len(entries))
		}
		if cached, why := appendJoin(t, d, testBuild); cached {
			t.Fatalf("limit %d: the writer after a full disk used a snapshot (%s)", limit, why)
		}
		settle(t, d, snap)
	}
}

// TestSnapshotLineAppendedWhileLoading: a line another program appends
// without the lock (echo >> log.jsonl) after a writer read the log and
// before its own line is no part of what the writer replayed: its
// snapshot would describe the log on disk without that line, and every
// writer after it would start from a state that never had it.
func TestSnapshotLineAppendedWhileLoading(t *testing.T) {
	t.Parallel()
	for _, fromSnapshot := range []bool{true, false} {
		t.Run(map[bool]string{true: "from the snapshot", false: "replayed"}[fromSnapshot], func(t *testing.T) {
			t.Parallel()
			d, snap := cachedPact(t)
			build := testBuild
			if !fromSnapshot {
				build += "-other"
			}
			unlock, err := d.Lock()
			if err != nil {
				t.Fatal(err)
			}
			id := newID()
			l, err := d.loadCached(build, id, nil)
			if err != nil || l.FromSnapshot != fromSnapshot {
				t.Fatalf("load: %+v, %v", l, err)
			}
			// Another program's line: T3 assigned, which the writer never read.
			other := e2e.NewLog().Assign("T1", "F", "b", "dev", "rev").Assign("T2", "F", "b", "dev", "rev").Assign("T3", "F", "b", "dev", "rev").Text()
			f, err := os.OpenFile(d.Path(pactfile.LogFile), os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.WriteString(other[strings.LastIndex(strings.TrimSuffix(other, "\n"), "\n")+1:]); err != nil {
				t.Fatal(err)
			}
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
			a := appendJoinTo(t, d, l, id)
			_ = d.saveSnapshot(build, l, a.Tail, a.after) // may refuse: that is the point
			unlock()
			if _, err := os.Stat(snap); err == nil {
				settle(t, d, snap)
			}
			if cached, _ := appendJoin(t, d, build); cached {
				t.Fatal("the snapshot of a log missing a line another program appended was used")
			}
		})
	}
}

// TestSnapshotLastLineCutWhileLoading: a log whose last line another
// program cuts in place (truncate -s back to the line before) after a
// writer read it and before its own line is shorter than what the writer
// replayed: a snapshot of it would hold an event the log no longer has,
// and every writer after it would start from that state. The log is then
// not what was read and the line appended, whether shorter or longer, and
// no snapshot is kept.
func TestSnapshotLastLineCutWhileLoading(t *testing.T) {
	t.Parallel()
	for _, fromSnapshot := range []bool{true, false} {
		t.Run(map[bool]string{true: "from the snapshot", false: "replayed"}[fromSnapshot], func(t *testing.T) {
			t.Parallel()
			d, snap := cachedPact(t)
			// The line to be cut: T3 assigned, by a writer whose snapshot
			// (of the log ending in it) is the one the next writer loads.
			l, a, unlock := lockedAppend(t, d, projection.NewAssign("lead", "T3", "F", projection.AssignPayload{Owner: "dev", Reviewer: "rev", Branch: "b", Spec: ".pact/tasks/T3.md"}))
			if err := d.saveSnapshot(testBuild, l, a.Tail, a.after); err != nil {
				t.Fatal(err)
			}
			unlock()
			settle(t, d, snap)
			cut := int64(len(a.Tail))

			build := testBuild
			if !fromSnapshot {
				build += "-other"
			}
			unlock, err := d.Lock()
			if err != nil {
				t.Fatal(err)
			}
			id := newID()
			l, err = d.loadCached(build, id, nil)
			if err != nil || l.FromSnapshot != fromSnapshot || l.Res.State.Tasks["T3"] == nil {
				t.Fatalf("load: from the snapshot %v, T3 %v, %v", l != nil && l.FromSnapshot, l != nil && l.Res.State.Tasks["T3"] != nil, err)
			}
			log := d.Path(pactfile.LogFile)
			if err := os.Truncate(log, stat(t, log).Size()-cut); err != nil {
				t.Fatal(err)
			}
			a = appendJoinTo(t, d, l, id)
			_ = d.saveSnapshot(build, l, a.Tail, a.after) // may refuse: that is the point
			unlock()
			if _, err := os.Stat(snap); err == nil {
				settle(t, d, snap)
			}

			unlock, err = d.Lock()
			if err != nil {
				t.Fatal(err)
			}
			defer unlock()
			next, err := d.loadCached(build, newID(), nil)
			if err != nil {
				t.Fatal(err)
			}
			if next.FromSnapshot {
				t.Fatalf("the snapshot saved over a log whose last line was cut while it was loading was used (T3 in its state: %v; the log has no T3)", next.Res.State.Tasks["T3"] != nil)
			}
			if next.Res.State.Tasks["T3"] != nil {
				t.Fatal("T3, whose line was cut, is in the replay of the log")
			}
		})
	}
}

// appendJoinTo appends a seat's join with event id id to the log d holds,
// judged against what l loaded as a writer would, and returns what was appended.
func appendJoinTo(t *testing.T, d Dir, l *cachedLoad, id string) appendedLine {
	t.Helper()
	return appendTo(t, d, l, id, projection.NewJoin("dev", []string{"dev"}))
}

// appendedLine is what appendTo appended, and the log's stat right after
// (appendLineAs), as a writer hands them to saveSnapshot.
type appendedLine struct {
	*projection.Appended
	after fs.FileInfo
}

// lockedJoin is lockedAppend of a join of dev.
func lockedJoin(t *testing.T, d Dir) (*cachedLoad, appendedLine, func()) {
	t.Helper()
	return lockedAppend(t, d, projection.NewJoin("dev", []string{"dev"}))
}

// lockedAppend is a writer of testBuild that took the lock, loaded the
// log (from the snapshot where trusted) and appended draft, before it
// saves its snapshot: what it loaded, what it appended and its unlock.
func lockedAppend(t *testing.T, d Dir, draft projection.Draft) (*cachedLoad, appendedLine, func()) {
	t.Helper()
	unlock, err := d.Lock()
	if err != nil {
		t.Fatal(err)
	}
	id := newID()
	l, err := d.loadCached(testBuild, id, nil)
	if err != nil {
		unlock()
		t.Fatal(err)
	}
	return l, appendTo(t, d, l, id, draft), unlock
}

// appendTo is appendJoinTo for any event.
func appendTo(t *testing.T, d Dir, l *cachedLoad, id string, draft projection.Draft) appendedLine {
	t.Helper()
	end, err := d.readLogEnd()
	if err != nil {
		t.Fatal(err)
	}
	a, err := l.Log.Append(l.Res, end, func(dr *projection.Draft, latest time.Time) {
		dr.EventID, dr.TS = id, latest.Add(time.Second)
	}, draft)
	if err != nil || a.Refused[0] != nil {
		t.Fatalf("append: %v %+v", err, a.Refused)
	}
	after, err := d.appendLineAs(a.Lines[0])
	if err != nil {
		t.Fatal(err)
	}
	return appendedLine{a, after}
}

// TestBuildIdentityOf: two executables of one version, size and time (a
// store that sets every file's time alike, as Nix does) are two builds
// unless they are one file.
func TestBuildIdentityOf(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a", "pactify"), filepath.Join(dir, "b", "pactify")
	when := time.Unix(1, 0)
	for _, exe := range []string{a, b} {
		if err := os.MkdirAll(filepath.Dir(exe), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(exe, []byte("same size"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(exe, when, when); err != nil {
			t.Fatal(err)
		}
	}
	first := buildIdentityOf("v1", a)
	if first == buildIdentityOf("v1", b) {
		t.Error("two executables in two places are one build")
	}
	if again := buildIdentityOf("v1", a); again != first {
		t.Error("one executable is two builds")
	}
	if first == buildIdentityOf("v2", a) {
		t.Error("two versions are one build")
	}
}

// TestLaterThan: a snapshot file whose time is not after the log's is
// written again, its bytes as they were and its time never earlier; one
// already later is left alone. Whether the time then moves past the log's
// is the file system's to say (it does where it keeps finer times than
// its clock's tick, as Linux's multigrain timestamps do), so that is only
// logged.
func TestLaterThan(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		shift time.Duration // the log's time, from the file's
		again bool
	}{
		{"the log's time is the file's", 0, true},
		{"the log is newer", time.Second, true},
		{"the log is older", -time.Second, false},
	} {
		path := filepath.Join(t.TempDir(), "s.snap")
		if err := os.WriteFile(path, []byte("snapshot bytes"), 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := os.OpenFile(path, os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		before, err := f.Stat()
		if err != nil {
			t.Fatal(err)
		}
		log := before.ModTime().Add(c.shift).UnixNano()
		if err := laterThan(f, log); err != nil {
			t.Fatal(err)
		}
		after, err := f.Stat()
		_ = f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(path); string(b) != "snapshot bytes" {
			t.Errorf("%s: the bytes are now %q", c.name, b)
		}
		if after.ModTime().Before(before.ModTime()) {
			t.Errorf("%s: the time went back from %v to %v", c.name, before.ModTime(), after.ModTime())
		}
		if !c.again && !after.ModTime().Equal(before.ModTime()) {
			t.Errorf("%s: written again: %v, was %v", c.name, after.ModTime(), before.ModTime())
		}
		if c.again {
			t.Logf("%s: the time moved past the log's: %v", c.name, after.ModTime().UnixNano() > log)
		}
	}
}

// TestSnapshotEditedBeforeSave: another program that edits the log in
// place between a writer's append and its snapshot's save, keeping the
// size and the last bytes, leaves no snapshot: the save would take the
// edited log's identity for that of the log the writer read, and the next
// writer would trust the snapshot of the log before the edit (sameAsAfter
// says why not). The edit comes a while after the append, past any
// file system clock's tick: within one tick nothing can tell it (git's
// racy-clean case).
func TestSnapshotEditedBeforeSave(t *testing.T) {
	t.Parallel()
	d, snap := longCachedPact(t)
	log := d.Path(pactfile.LogFile)
	l, a, unlock := lockedJoin(t, d)
	time.Sleep(50 * time.Millisecond)
	editFarFromTheEnd(t, log)
	err := d.saveSnapshot(testBuild, l, a.Tail, a.after)
	unlock()
	if err == nil || !strings.Contains(err.Error(), "changed after the line was appended") {
		t.Fatalf("saveSnapshot after an edit = %v, want a refusal", err)
	}
	if _, err := os.Stat(snap); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a snapshot is left: %v", err)
	}
	if cached, _ := appendJoin(t, d, testBuild); cached {
		t.Fatal("the next writer used a snapshot of the log before the edit")
	}
}

// editFarFromTheEnd edits the log in place as another program might,
// keeping its size and its last tailBytes: a digit of the first line's
// event_id changed.
func editFarFromTheEnd(t *testing.T, log string) {
	t.Helper()
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(b, []byte(`"event_id"`)) + len(`"event_id"`)
	i += bytes.IndexByte(b[i:], '"') + 1
	if i >= len(b)-tailBytes {
		t.Fatal("the edit is not before the last bytes")
	}
	f, err := os.OpenFile(log, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte{b[i] ^ 1}, int64(i)); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// longCachedPact is cachedPact with a log longer than tailBytes, so that
// an edit can lie before the bytes the snapshot's identity hashes.
func longCachedPact(t *testing.T) (Dir, string) {
	t.Helper()
	d, snap := cachedPact(t)
	for stat(t, d.Path(pactfile.LogFile)).Size() <= tailBytes+4096 {
		appendJoin(t, d, testBuild)
		settle(t, d, snap)
	}
	return d, snap
}
