package projection

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"reflect"
	"runtime"
	"testing"
	"time"

	"github.com/pact-action/pact-action/internal/testkit/loggen"
)

const testBuild = "v0.0.0-snapshot-test"

// readForSnapshot is a writer's replay of file, kept for a snapshot.
func readForSnapshot(t testing.TB, file []byte, reserve string) (*Log, *Result) {
	t.Helper()
	log, res, err := Read(bytes.NewReader(file), ReadOptions{Reserve: []string{reserve}, Snapshot: true})
	if err != nil {
		t.Fatal(err)
	}
	return log, res
}

func encodeSnapshot(t testing.TB, log *Log, res *Result) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := EncodeSnapshot(&b, testBuild, log, res); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// randomDraft is a next event for st: any type, by the seat the rules want
// or by another, on a task or feature of the state or a new one, so that
// both accepted and refused lines come up.
func randomDraft(rng *rand.Rand, st *State) Draft {
	seat := func() string {
		if len(st.Seats) == 0 || rng.IntN(8) == 0 {
			return "nobody"
		}
		return st.Seats[rng.IntN(len(st.Seats))].ID
	}
	var task *Task
	if n := len(st.TaskOrder); n > 0 {
		// Mostly recent tasks, which are still open.
		task = st.Tasks[st.TaskOrder[max(0, n-1-rng.IntN(min(n, 40)))]]
	}
	pick := func(rightful string) string {
		if rng.IntN(4) == 0 {
			return seat()
		}
		return rightful
	}
	switch k := rng.IntN(7); {
	case k == 0 || task == nil:
		return NewJoin(seat(), []string{"worker"})
	case k == 1:
		f := task.Feature
		if rng.IntN(3) == 0 {
			f = fmt.Sprintf("F-new-%d", rng.IntN(3))
		}
		return NewAssign(pick("lead"), fmt.Sprintf("T-new-%d", rng.IntN(1000)), f,
			AssignPayload{Owner: seat(), Reviewer: seat(), Branch: "feat/new", Spec: "tasks/x.md"})
	case k == 2:
		return NewCheckpoint(pick(task.Owner), task.ID, task.Feature, "done")
	case k == 3:
		return NewAccept(pick(task.Reviewer), task.ID, task.Feature, AcceptPayload{Commit: "0123456789abcdef0123456789abcdef01234567"})
	case k == 4:
		return NewChangesRequested(pick(task.Reviewer), task.ID, task.Feature, ChangesRequestedPayload{Reason: "again"})
	case k == 5:
		return NewJoin(pick(task.Owner), []string{"worker"})
	}
	return NewMerge(pick("lead"), task.Feature)
}

// TestSnapshotEqualsReplay is the property a snapshot rests on: for
// generated logs, with defects and swapped lines, and after any sequence
// of writes, the log and state a snapshot gives are the replay's (deep
// equality, and the snapshot of each equal byte for byte), STATE.yml
// renders the same bytes, and the next event gets the same verdict. The
// replay of the log is the oracle.
func TestSnapshotEqualsReplay(t *testing.T) {
	t.Parallel()
	configs := []loggen.Config{
		{Lines: 1, Seed: 1},
		{Lines: 400, Seed: 2},
		{Lines: 3000, Seed: 3, Defects: 0.05, Swaps: 0.05},
		{Lines: 3000, Seed: 4, Defects: 0.2},
	}
	for _, cfg := range configs {
		var buf bytes.Buffer
		if _, err := loggen.Write(&buf, cfg); err != nil {
			t.Fatal(err)
		}
		file := buf.Bytes()
		rng := rand.New(rand.NewPCG(cfg.Seed, 7))
		log, res := readForSnapshot(t, file, "")
		snap := encodeSnapshot(t, log, res)
		for step := range 60 {
			id := fmt.Sprintf("%032x", rng.Uint64())
			got, gotRes, err := DecodeSnapshot(string(snap), testBuild, id)
			if err != nil {
				t.Fatalf("%+v, step %d: %v", cfg, step, err)
			}
			want, wantRes := readForSnapshot(t, file, id)
			if !reflect.DeepEqual(gotRes.State, wantRes.State) {
				t.Fatalf("%+v, step %d: the snapshot's state is not the replay's", cfg, step)
			}
			if !bytes.Equal(RenderBytes(gotRes.State), RenderBytes(wantRes.State)) {
				t.Fatalf("%+v, step %d: STATE.yml renders otherwise from the snapshot", cfg, step)
			}
			if got.Lines != want.Lines || !got.LatestTS().Equal(want.LatestTS()) || !reflect.DeepEqual(got.digests, want.digests) {
				t.Fatalf("%+v, step %d: the snapshot's log is %d lines, latest %v; the replay's %d, %v", cfg, step, got.Lines, got.LatestTS(), want.Lines, want.LatestTS())
			}
			d := randomDraft(rng, wantRes.State)
			d.EventID = id
			d.TS = want.LatestTS().Add(time.Duration(rng.IntN(3)) * time.Second)
			if d.TS.IsZero() {
				d.TS = time.Date(2026, 6, 9, 10, 0, 0, 0, time.UTC)
			}
			line, err := Encode(d)
			if err != nil {
				t.Fatal(err)
			}
			gotRej, gotErr := got.propose(gotRes, line)
			wantRej, wantErr := want.propose(wantRes, line)
			if (gotErr != nil) != (wantErr != nil) || !reflect.DeepEqual(gotRej, wantRej) {
				t.Fatalf("%+v, step %d: %s: the snapshot judges %+v, %v; the replay %+v, %v", cfg, step, line, gotRej, gotErr, wantRej, wantErr)
			}
			if gotRej != nil || gotErr != nil {
				continue // refused: the log, and so the snapshot, stay as they were
			}
			file = append(append(file, line...), '\n')
			snap = encodeSnapshot(t, got, gotRes)
			// pactdir reads no snapshot larger than its log (and a little).
			if len(snap) > len(file)+1024 {
				t.Fatalf("%+v, step %d: a snapshot of %d bytes for a log of %d", cfg, step, len(snap), len(file))
			}
			longer, longerRes := readForSnapshot(t, file, "")
			if !bytes.Equal(snap, encodeSnapshot(t, longer, longerRes)) {
				t.Fatalf("%+v, step %d: after %s the snapshot differs from the longer log's", cfg, step, line)
			}
		}
	}
}

// TestSnapshotDuplicateID: a new line whose event_id the log holds is not
// judged from a snapshot (only the log says where the id was used), and
// one whose id the log holds not is judged from it.
func TestSnapshotDuplicateID(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	if _, err := loggen.Write(&buf, loggen.Config{Lines: 500, Seed: 5, Defects: 0.05}); err != nil {
		t.Fatal(err)
	}
	full := parseBytes(buf.Bytes())
	log, res := readForSnapshot(t, buf.Bytes(), "")
	snap := encodeSnapshot(t, log, res)
	var ids []string
	for i := range full.Events {
		if id := full.Events[i].EventID; id != "" {
			ids = append(ids, id)
		}
	}
	ids = append(ids, "e-text-id") // a form of its own, not in the log
	for _, id := range ids {
		_, _, err := DecodeSnapshot(string(snap), testBuild, id)
		inLog := full.LineOf(id) != 0
		if inLog != (err != nil) {
			t.Fatalf("event_id %q (in the log: %v): decode gives %v", id, inLog, err)
		}
		if err != nil && !errors.Is(err, errSnapshot) {
			t.Fatalf("event_id %q: %v is not errSnapshot", id, err)
		}
	}
}

// TestSnapshotRefusesDoubt: a snapshot of another format or build, or any
// change to its bytes, cut short or longer, is not read.
func TestSnapshotRefusesDoubt(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	if _, err := loggen.Write(&buf, loggen.Config{Lines: 200, Seed: 6}); err != nil {
		t.Fatal(err)
	}
	log, res := readForSnapshot(t, buf.Bytes(), "")
	snap := encodeSnapshot(t, log, res)
	if _, _, err := DecodeSnapshot(string(snap), testBuild, "x"); err != nil {
		t.Fatalf("the snapshot as written: %v", err)
	}
	other := bytes.Clone(snap)
	other[len(snapshotMagic)]++
	cases := map[string]struct {
		b     []byte
		build string
	}{
		"another build":  {snap, testBuild + "+dirty"},
		"another format": {other, testBuild},
		"empty":          {nil, testBuild},
		"cut short":      {snap[:len(snap)-1], testBuild},
		"a byte more":    {append(bytes.Clone(snap), 0), testBuild},
		"header only":    {snap[:len(snapshotMagic)+4], testBuild},
	}
	for i := len(snapshotMagic); i < len(snap); i += 1 + len(snap)/50 {
		b := bytes.Clone(snap)
		b[i] ^= 0x20
		cases[fmt.Sprintf("byte %d flipped", i)] = struct {
			b     []byte
			build string
		}{b, testBuild}
	}
	for name, c := range cases {
		if _, _, err := DecodeSnapshot(string(c.b), c.build, "x"); !errors.Is(err, errSnapshot) {
			t.Errorf("%s: decode gives %v, want errSnapshot", name, err)
		}
	}
}

// TestSnapshotNeedsIDs: only a log read for a snapshot (every event_id
// digested) and a replay that did not fail closed are encoded.
func TestSnapshotNeedsIDs(t *testing.T) {
	t.Parallel()
	file := []byte(evLine("e1", at(1), "lead", "", TypeInit, "", "", `{"project":"p","protocol_version":1,"seats":[{"id":"lead","roles":["lead"],"entry":"A.md"}]}`) + "\n")
	for name, opts := range map[string]ReadOptions{"without ids": {}, "reserved, without ids": {Reserve: []string{"e2"}}} {
		log, res, err := Read(bytes.NewReader(file), opts)
		if err != nil {
			t.Fatal(err)
		}
		if err := EncodeSnapshot(&bytes.Buffer{}, testBuild, log, res); !errors.Is(err, errSnapshot) {
			t.Errorf("%s: encode gives %v, want errSnapshot", name, err)
		}
	}
	newer := []byte(evLine("e1", at(1), "lead", "", TypeInit, "", "", `{"project":"p","protocol_version":2,"seats":[]}`) + "\n")
	log, res := readForSnapshot(t, newer, "")
	if res.Unsupported == nil {
		t.Fatal("a newer major is supported")
	}
	if err := EncodeSnapshot(&bytes.Buffer{}, testBuild, log, res); !errors.Is(err, errSnapshot) {
		t.Errorf("a log that fails closed: encode gives %v, want errSnapshot", err)
	}
}

// FuzzDecodeSnapshot: the decoder reads bytes from disk. Whatever they
// are, it never panics, allocates at most a bounded multiple of their
// size, and what it accepts renders, judges a line and encodes again to
// the same bytes. The payload is fuzzed behind a valid header too, so
// the checksum does not hide the decoder.
func FuzzDecodeSnapshot(f *testing.F) {
	for _, cfg := range []loggen.Config{{Lines: 1, Seed: 1}, {Lines: 30, Seed: 2}, {Lines: 120, Seed: 3, Defects: 0.1}} {
		var buf bytes.Buffer
		if _, err := loggen.Write(&buf, cfg); err != nil {
			f.Fatal(err)
		}
		log, res := readForSnapshot(f, buf.Bytes(), "")
		snap := encodeSnapshot(f, log, res)
		f.Add(snap, false)
		f.Add(snap[snapshotHeader(testBuild):len(snap)-12], true)
	}
	f.Fuzz(func(t *testing.T, b []byte, wrap bool) {
		if wrap {
			b = wrapPayload(testBuild, b)
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		log, res, err := DecodeSnapshot(string(b), testBuild, "fedcba9876543210fedcba9876543210")
		runtime.ReadMemStats(&after)
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 128*uint64(len(b))+1<<20 {
			t.Fatalf("decoding %d bytes allocated %d", len(b), grew)
		}
		if err != nil {
			if !errors.Is(err, errSnapshot) {
				t.Fatalf("%v is not errSnapshot", err)
			}
			return
		}
		RenderBytes(res.State)
		var again bytes.Buffer
		if err := EncodeSnapshot(&again, testBuild, log, res); err != nil {
			t.Fatalf("a decoded snapshot does not encode: %v", err)
		}
		if !bytes.Equal(again.Bytes(), b) {
			t.Fatalf("a decoded snapshot encodes to other bytes")
		}
		line := evLine("fedcba9876543210fedcba9876543210", formatTS(log.LatestTS().Add(time.Second)), "lead", "", TypeMerge, "", "F1", "")
		if _, err := log.propose(res, []byte(line)); err != nil && log.LatestTS().Year() < 9999 {
			t.Fatalf("Propose on a decoded snapshot: %v", err)
		}
	})
}

// What surrounds a snapshot's payload, as internal/snapshot writes it
// (the fuzz target's seeds hold the two together): the magic, the format
// and the build before it, its size and CRC-32C after.
const snapshotMagic = "PACTSNAP"

func snapshotHead(build string) []byte {
	b := binary.LittleEndian.AppendUint32([]byte(snapshotMagic), SnapshotFormat)
	b = binary.AppendUvarint(b, uint64(len(build)))
	return append(b, build...)
}

// wrapPayload is a snapshot of build around payload, as EncodeSnapshot
// writes one (for the fuzz target).
func wrapPayload(build string, payload []byte) []byte {
	b := append(snapshotHead(build), payload...)
	b = binary.LittleEndian.AppendUint64(b, uint64(len(payload)))
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(payload, crc32.MakeTable(crc32.Castagnoli)))
}

// snapshotHeader is the size of what precedes the payload.
func snapshotHeader(build string) int { return len(snapshotHead(build)) }
