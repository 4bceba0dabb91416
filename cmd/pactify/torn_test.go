package main

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// TestCommittedAppendRecord: a record of an append at .pact's
// .log.jsonl.tmp-append that a commit carries (git add -f, a pull) is no
// writer's. The check reads the log from git objects, where the record is
// a file like any other: validate reads every byte of the log the check
// does, and a refused writer leaves the log and the record as they were.
// Were the record honoured, it would hide the log's last event from
// validate (passing a Rule 2 break the check fails, failing a pact the
// check passes), and the next writer would cut that event from the log.
func TestCommittedAppendRecord(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		agent string
		args  []string
	}{
		{"a checkpoint the check counts", "w", []string{"checkpoint", "W1", "--evidence", "done"}},
		{"a merge that breaks Rule 2", "orch", []string{"merge", "F"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			p := faultProject(t)
			if err := os.Mkdir(p.path(".git"), 0o755); err != nil { // a pact in a repository, as a pull leaves it
				t.Fatal(err)
			}
			p.succeed("orch", "assign", "W1", "--feature", "F", "--branch", "b", "--owner", "w", "--reviewer", "rev")
			p.succeed("w", "join", "w", "--roles", "worker")
			before := p.read(".pact/log.jsonl")
			if c.args[0] == "merge" {
				// pactify refuses it: the line is written as a hand would.
				p.write(".pact/log.jsonl", before+`{"event_id":"0000000000000000000000000000b4d0","ts":"2026-01-01T00:00:00Z","agent_id":"orch","role":"orchestrator","event_type":"merge","task_id":"","feature":"F","payload":{}}`+"\n")
			} else {
				p.succeed(c.agent, c.args...)
			}
			full := p.read(".pact/log.jsonl")
			line := full[len(before):]
			want, _ := p.validate() // the pact as the check reads it: no record there
			// The commit: the last line without its line break, and a
			// record saying it was being appended.
			p.write(".pact/log.jsonl", strings.TrimSuffix(full, "\n"))
			record := fmt.Sprintf("pactify append 1\n%d %d\n%s", len(before), len(line), line)
			p.write(".pact/.log.jsonl.tmp-append", record)
			got, r := p.validate()
			if got.Valid != want.Valid || len(got.Findings) != len(want.Findings) {
				t.Errorf("validate with a committed record: valid %v, %d finding(s); without it (the check's view): valid %v, %d\n%s",
					got.Valid, len(got.Findings), want.Valid, len(want.Findings), r)
			}
			if r := p.run("rev", "accept", "W1"); r.code == 0 {
				t.Fatalf("accept after a log without its last line break succeeded\n%s", r)
			}
			if got := p.read(".pact/log.jsonl"); got != strings.TrimSuffix(full, "\n") {
				t.Errorf("a refused writer left the log %d bytes, want %d as committed", len(got), len(full)-1)
			}
			if got := p.read(".pact/.log.jsonl.tmp-append"); got != record {
				t.Errorf("a refused writer changed the committed record: %q", got)
			}
		})
	}
}
