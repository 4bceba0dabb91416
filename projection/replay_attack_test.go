package projection

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/pact-action/pact-action/projection/internal/compact"
	"github.com/pact-action/pact-action/projection/internal/lean"
)

// attackLog is a log a worker who writes any bytes into log.jsonl could
// craft against the eventless replay's tables: event_ids of every form
// repeated far apart (across chunk ends and the id tables' growth, with
// the first use in one chunk and the repeat many later), assigns and hex
// commits filling several blocks, tasks reassigned and accepted long after
// the block of their first assign was let go, duplicate and rejected
// assigns, and events displaced in ts order across blocks.
func attackLog(n int, seed uint64) []byte {
	rng := rand.New(rand.NewPCG(seed, 24))
	var b bytes.Buffer
	b.WriteString(initLine("i0", "2026-06-09T10:00:00Z") + "\n")
	b.WriteString(evLine("j0", "2026-06-09T10:00:01Z", "opencode", "", TypeJoin, "", "", `{"roles":["worker"]}`) + "\n")
	base := time.Date(2026, 6, 9, 11, 0, 0, 0, time.UTC)
	var ids []string
	id := func(k int) string {
		switch k % 5 {
		case 0:
			return fmt.Sprintf("%032x", k+1)
		case 1:
			return fmt.Sprintf("%032X", k+1) // upper case: another form
		case 2:
			return fmt.Sprintf("123e4567-e89b-12d3-a456-%012x", k+1)
		case 3:
			return fmt.Sprintf("odd-%d", k) // no compact form: strIDs
		}
		return fmt.Sprintf("%036x", k+1) // hex, but not 32 digits
	}
	line := func(k int, agent, typ, task, payload string) {
		ts := base.Add(time.Duration(k) * time.Millisecond)
		switch {
		case k%97 == 0:
			ts = ts.Add(-time.Duration(rng.IntN(60)) * time.Second)
		case k%101 == 0:
			ts = ts.Add(time.Duration(rng.IntN(60)) * time.Second)
		}
		e := id(k)
		if len(ids) > 0 && rng.IntN(40) == 0 {
			e = ids[rng.IntN(len(ids))] // a repeat, near or far
		} else {
			ids = append(ids, e)
		}
		feature := fmt.Sprintf("F%d", len(task)%3)
		if task == "" {
			feature = ""
		}
		if rng.IntN(100) == 0 {
			feature = "Fx" // a feature that contradicts the task's
		}
		fmt.Fprintf(&b, `{"event_id":%q,"ts":%q,"agent_id":%q,"role":%q,"event_type":%q,"task_id":%q,"feature":%q,"payload":%s}`+"\n",
			e, ts.Format(time.RFC3339Nano), agent, RoleFor(typ), typ, task, feature, payload)
		if rng.IntN(200) == 0 {
			last := b.Bytes()[bytes.LastIndexByte(b.Bytes()[:b.Len()-1], '\n')+1:]
			b.Write(bytes.Clone(last)) // a byte-identical copy
		}
	}
	tasks := n / 3
	for k := 0; k < n; k++ {
		task := fmt.Sprintf("T%d", rng.IntN(tasks))
		switch r := rng.IntN(12); {
		case r < 4:
			spec := fmt.Sprintf(".pact/tasks/%s.md", task)
			if r == 3 {
				spec = fmt.Sprintf("elsewhere/%d.md", k) // a spec kept in texts
			}
			owner := "opencode"
			if rng.IntN(15) == 0 {
				owner = "nobody" // a rejected assign
			}
			line(k, "lead", TypeAssign, task, fmt.Sprintf(`{"owner":%q,"reviewer":"gpt","branch":"feat/%d","spec":%q}`, owner, k%7, spec))
		case r < 7:
			line(k, "gpt", TypeAccept, task, fmt.Sprintf(`{"commit":"%040x"}`, k))
		case r < 8:
			line(k, "gpt", TypeAccept, task, fmt.Sprintf(`{"commit":"%040X"}`, k)) // not lower-case hex: texts
		case r < 9:
			line(k, "gpt", TypeChangesRequested, task, `{"reason":"again"}`)
		case r < 10:
			line(k, "opencode", TypeJoin, "", `{"roles":["worker"]}`) // starts the owner's assigned tasks
		default:
			line(k, "opencode", TypeCheckpoint, task, `{"evidence":"tests pass"}`)
		}
	}
	return b.Bytes()
}

// readSized is Read of file with a size hint, in chunks of the given size.
func readSized(file []byte, size int64, workers, chunk int) (*Scan, *Result, error) {
	lr, err := lean.Read(bytes.NewReader(file), leanDecoder, lean.Options{Workers: workers, Chunk: chunk, Size: size})
	if err != nil {
		return nil, nil, err
	}
	return &lr.Scan, replayLean(lr), nil
}

// TestSizeHintNeverChangesTheReplay: whatever size the caller claims for
// the log (none, 1, a fraction of it, itself, more, a sparse terabyte),
// the eventless replay of a crafted log in small chunks equals the
// canonical replay: the hint sizes the id table, which then grows (or
// stays larger) while duplicates are still found across chunks.
func TestSizeHintNeverChangesTheReplay(t *testing.T) {
	t.Parallel()
	files := map[string][]byte{
		"small":                attackLog(600, 1),
		"across growth":        attackLog(5000, 2),
		"across blocks":        attackLog(2*compact.BlockSize+500, 3),
		"flood":                floodLog(3000),
		"tricky":               []byte(strings.Join(trickyLines(), "\n")),
		"generated, 3% defect": generatedLog(t, 6000, 4, 0.03),
	}
	for name, file := range files {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			want := parseBytes(file)
			wantRes := replay(want)
			n := int64(len(file))
			// Sizes past the cap (reservedEvents) reserve one 64 MiB table
			// each: TestSizeHintIsCapped reads those.
			sizes := []int64{0, 1, 223, 224 * 513, n / 8, n, 4 * n}
			if name == "across blocks" {
				sizes = []int64{0, n / 8, n} // its blocks, not its sizes, are the point: a few reads of 33k events
			}
			for _, size := range sizes {
				for _, c := range []struct{ workers, chunk int }{{1, 997}, {2, 4096}} {
					got, res, err := readSized(file, size, c.workers, c.chunk)
					if err != nil {
						t.Fatalf("size %d, %+v: %v", size, c, err)
					}
					if msg := sameReplay(got, res, &want.Scan, wantRes); msg != "" {
						t.Fatalf("size %d, %+v: %s", size, c, msg)
					}
				}
			}
		})
	}
}

// TestSizeHintIsCapped: the size a caller gives is the file system's word
// (a sparse file says a terabyte): the table it reserves is capped
// (internal/lean's TestReservedEventsAreCapped), and a small log read
// under any size is replayed as without one.
func TestSizeHintIsCapped(t *testing.T) {
	t.Parallel()
	text := initLine("i", "2026-01-01T00:00:00Z") + "\n"
	_, want, err := Read(strings.NewReader(text), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, size := range []int64{1, 1 << 30, 1 << 40, math.MaxInt64} {
		_, got, err := Read(strings.NewReader(text), ReadOptions{Size: size})
		if err != nil {
			t.Fatalf("size %d: %v", size, err)
		}
		if got.State.Applied != want.State.Applied || len(got.Rejections) != len(want.Rejections) {
			t.Errorf("size %d: %d applied, %d rejected; without a size %d, %d", size, got.State.Applied, len(got.Rejections), want.State.Applied, len(want.Rejections))
		}
	}
}
