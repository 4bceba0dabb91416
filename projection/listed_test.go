package projection

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// floodLog is a log with n of each cheap defect after a valid init: lines
// that are not JSON objects, objects without any field, byte-identical
// copies and rewrites of one event_id, and events before the init.
func floodLog(n int) []byte {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `{"event_id":"early-%d","ts":"2026-06-09T09:00:00Z","agent_id":"w","role":"worker","event_type":"join","task_id":"","feature":"","payload":{"roles":[]}}`+"\n", i)
	}
	b.WriteString(okInit + "\n")
	join := `{"event_id":"j1","ts":"2026-06-09T10:00:01Z","agent_id":"w","role":"worker","event_type":"join","task_id":"","feature":"","payload":{"roles":[]}}`
	b.WriteString(join + "\n")
	for i := range n {
		b.WriteString("1\n{}\n" + join + "\n")
		fmt.Fprintf(&b, `{"event_id":"j1","ts":"2026-06-09T10:00:01Z","agent_id":"w","role":"worker","event_type":"join","task_id":"","feature":"","payload":{"roles":[%d]}}`+"\n", i)
	}
	return []byte(b.String())
}

// TestListedPerCode: past MaxListed lines of one code, a reading lists the
// first MaxListed (lowest lines) and counts the rest exactly, on both
// paths; below it, everything is listed (the boundary is MaxListed, not
// one less or more).
func TestListedPerCode(t *testing.T) {
	t.Parallel()
	for _, n := range []int{MaxListed - 1, MaxListed, MaxListed + 1, 5 * MaxListed} {
		for _, keep := range []bool{true, false} {
			log, res, err := readScan(floodLog(n), keep)
			if err != nil {
				t.Fatal(err)
			}
			listed := min(n, MaxListed)
			if len(log.Malformed) != listed || log.MalformedOmitted[CodeMalformedJSON] != n-listed {
				t.Errorf("n=%d keep=%v: %d malformed listed, %d omitted; want %d, %d", n, keep, len(log.Malformed), log.MalformedOmitted[CodeMalformedJSON], listed, n-listed)
			}
			if len(log.Malformed) > 0 && log.Malformed[0].Line != n+3 {
				t.Errorf("n=%d keep=%v: first malformed listed is line %d, want the first in the file, %d", n, keep, log.Malformed[0].Line, n+3)
			}
			count := map[Omitted]int{}
			for _, r := range res.Rejections {
				count[Omitted{Code: r.Code, Identical: r.Identical}]++
			}
			for _, o := range res.Omitted {
				count[Omitted{Code: o.Code, Identical: o.Identical}] += o.Count
				if listedOf := count[Omitted{Code: o.Code, Identical: o.Identical}] - o.Count; listedOf != MaxListed {
					t.Errorf("n=%d keep=%v: %s listed %d with %d omitted, want %d listed", n, keep, o.Code, listedOf, o.Count, MaxListed)
				}
			}
			// n events before the init; n objects without fields (each
			// missing its event_id too); n identical copies of j1, and n
			// rewrites of it.
			for k, want := range map[Omitted]int{
				{Code: CodeInitMissing}:                       n,
				{Code: CodeSchemaEnvelope}:                    n,
				{Code: CodeEventIDMissing}:                    n,
				{Code: CodeEventIDDuplicate, Identical: true}: n,
				{Code: CodeEventIDDuplicate}:                  n,
			} {
				if count[k] != want {
					t.Errorf("n=%d keep=%v: %+v counted %d, want %d", n, keep, k, count[k], want)
				}
			}
			if len(res.Rejections) > 5*MaxListed {
				t.Errorf("n=%d keep=%v: %d rejections listed, more than %d codes × %d", n, keep, len(res.Rejections), 5, MaxListed)
			}
		}
	}
}

// TestListedPerMalformedCode: malformed lines and lines with a duplicate
// member are capped each by their own code, so a flood of one does not hide
// the other, and both counts stay exact.
func TestListedPerMalformedCode(t *testing.T) {
	t.Parallel()
	const n = MaxListed + 50
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteString("1\n{\"a\":1,\"a\":2}\n")
	}
	for _, keep := range []bool{true, false} {
		log, _, err := readScan([]byte(b.String()), keep)
		if err != nil {
			t.Fatal(err)
		}
		listed := map[Code]int{}
		for _, m := range log.Malformed {
			listed[m.Code]++
		}
		for _, code := range []Code{CodeMalformedJSON, CodeDuplicateKey} {
			if listed[code] != MaxListed || log.MalformedOmitted[code] != n-MaxListed {
				t.Errorf("keep=%v: %s: %d listed, %d omitted; want %d, %d", keep, code, listed[code], log.MalformedOmitted[code], MaxListed, n-MaxListed)
			}
		}
	}
}

// readScan reads file with its events (ReadEvents) or without (Read),
// for what both keep.
func readScan(file []byte, events bool) (*Scan, *Result, error) {
	if events {
		log, res := ReadEvents(file)
		return &log.Scan, res, nil
	}
	log, res, err := Read(bytes.NewReader(file), ReadOptions{})
	if log == nil {
		return nil, res, err
	}
	return &log.Scan, res, err
}
