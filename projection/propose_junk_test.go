package projection

import (
	"bytes"
	"fmt"
	"reflect"
	"testing"

	"github.com/pact-action/pact-action/internal/testkit/loggen"
)

// TestProposeOnJunk: on a log flooded with each junk shape, Propose on the
// log Read keeps (which judges on reading the events whose findings are
// final, and keeps them not) says what it says on a log that keeps every
// event, for a line that sorts before the junk and one after it, accepted
// or refused, and leaves the replay of the longer log.
func TestProposeOnJunk(t *testing.T) {
	t.Parallel()
	later := evLine("late", "2031-01-01T00:00:00Z", "claude-opus", "", TypeAccept, "T1", "F", "")
	proposals := map[string]string{
		"accept before":            evLine("p1", at(9), "claude-opus", "", TypeAccept, "T1", "F", ""),
		"changes requested before": evLine("p2", at(9), "claude-opus", "", TypeChangesRequested, "T1", "F", `{"reason":"no"}`),
		"join before":              evLine("p3", at(9), "opencode", "", TypeJoin, "", "", `{"roles":["worker"]}`),
		"accept after":             evLine("p4", "2032-01-01T00:00:00Z", "claude-opus", "", TypeAccept, "T1", "F", ""),
		"duplicate id":             evLine("late", at(9), "claude-opus", "", TypeAccept, "T1", "F", ""),
		"junk's string id":         evLine("e40", at(9), "claude-opus", "", TypeAccept, "T1", "F", ""),
		"junk's hex id":            evLine(fmt.Sprintf("%032x", 1), at(9), "claude-opus", "", TypeAccept, "T1", "F", ""),
	}
	for _, shape := range loggen.Junk {
		if len(shape.Line(0)) > 64<<10 {
			continue // the long shapes hold a few lines: nothing to cap
		}
		for _, tail := range []string{"", later + "\n"} {
			file := append(append(review().bytes(), loggen.JunkLog(shape, 8<<10)...), tail...)
			for name, line := range proposals {
				log, res := ReadEvents(file)
				all := parseBytes(file)
				allRes := replay(all)
				got, err := log.propose(res, []byte(line))
				want, wantErr := all.propose(allRes, []byte(line))
				if err != nil || wantErr != nil || !reflect.DeepEqual(got, want) {
					t.Fatalf("%s, later line %v, %s: Propose gives %+v, %v; on every event %+v, %v", shape.Name, tail != "", name, got, err, want, wantErr)
				}
				if msg := sameReplay(&log.Scan, res, &all.Scan, allRes); msg != "" {
					t.Fatalf("%s, later line %v, %s: Propose leaves another replay than on every event: %s", shape.Name, tail != "", name, msg)
				}
				if got != nil {
					continue
				}
				longer := replay(parseBytes(append(append([]byte(nil), file...), line+"\n"...)))
				if !reflect.DeepEqual(verdicts(res), verdicts(longer)) || !bytes.Equal(RenderBytes(res.State), RenderBytes(longer.State)) ||
					!reflect.DeepEqual(res.Omitted, longer.Omitted) {
					t.Fatalf("%s, later line %v, %s: Propose leaves another verdict than a replay of the longer log", shape.Name, tail != "", name)
				}
			}
		}
	}
}
