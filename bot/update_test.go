package bot

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/ghfacts"
	"github.com/pact-action/pact-action/projection"
)

// The branch update's decision, row by row: what each side changed since
// the merge base, and whether the bot asks for more, writes the merge, says
// once why not, or leaves the pull request alone.

const (
	logP   = ".pact/log.jsonl"
	stateP = ".pact/STATE.yml"
)

// file is a regular file's entry with an object id made from s.
func file(s string) string {
	return checks.Entry(0o100644, "blob", fmt.Sprintf("%040x", len(s)*7919+int(s[0])))
}

// change is a path's change from the merge base's entry to after ("":
// deleted).
func change(before, after string) checks.PathChange {
	return checks.PathChange{Before: before, After: after}
}

// initLine and assignOn are lines of the logs below: the init, and an
// assign of task on branch, the n-th minute after it (its id u<n>).
var initLine = func() string {
	d := projection.NewInit("lead", "p", "main", []projection.Seat{
		{ID: "lead", Roles: []string{"orchestrator", "reviewer"}, Entry: "A.md"},
		{ID: "dev", Roles: []string{"worker"}, Entry: "B.md"},
	})
	d.EventID, d.TS = "u0", submitted
	b, err := projection.Encode(d)
	if err != nil {
		panic(err)
	}
	return string(b) + "\n"
}()

func assignOn(n int, task, branch string) string {
	d := projection.NewAssign("lead", task, "F"+task, projection.AssignPayload{Owner: "dev", Reviewer: "lead", Branch: branch, Spec: "s"})
	d.EventID, d.TS = fmt.Sprintf("u%d", n), submitted.Add(time.Duration(n)*time.Minute)
	b, err := projection.Encode(d)
	if err != nil {
		panic(err)
	}
	return string(b) + "\n"
}

func updatePR() ghfacts.PullRequest {
	return ghfacts.PullRequest{Number: 7, HeadRef: "feat/x", HeadSHA: "1111111111111111111111111111111111111111", BaseRef: "main", BaseSHA: "2222222222222222222222222222222222222222"}
}

func TestDecideUpdate(t *testing.T) {
	t.Parallel()
	base := initLine + assignOn(1, "T0", "feat/0")
	main := base + assignOn(2, "T1", "feat/1")
	head := base + assignOn(3, "T2", "feat/x")
	logs := &UpdateLogs{MergeBase: []byte(base), Base: []byte(main), Head: []byte(head)}
	pactBoth := checks.Change{logP: change(file("o"), file("main log")), stateP: change(file("os"), file("main state"))}
	pactHead := checks.Change{logP: change(file("o"), file("head log")), stateP: change(file("os"), file("head state")),
		".pact/tasks/T2.md": change("", file("t2")), "src/x.go": change(file("x0"), file("x1")), "bin/old": change(file("b"), "")}
	with := func(c checks.Change, more checks.Change) checks.Change {
		out := checks.Change{}
		for _, m := range []checks.Change{c, more} {
			for k, v := range m {
				out[k] = v
			}
		}
		return out
	}
	for _, tc := range []struct {
		name string
		f    UpdateFacts
		need UpdateNeed
		// reply is a word the reply says ("" for none); skip likewise.
		reply, skip string
		take        []string
	}{
		{name: "a fork is never written", f: UpdateFacts{PR: func() ghfacts.PullRequest { p := updatePR(); p.Fork = true; return p }()}, reply: "fork"},
		{name: "the default branch is never written", f: UpdateFacts{PR: func() ghfacts.PullRequest { p := updatePR(); p.HeadRef = "main"; p.BaseRef = "release"; return p }()},
			skip: "default branch"},
		// A worker opens a pull request from a teammate's branch into a
		// decoy base of theirs whose pact conflicts: merging it would write
		// the decoy's code onto the teammate's branch under the bot's name.
		{name: "a base other than the default branch is never merged", f: UpdateFacts{PR: func() ghfacts.PullRequest { p := updatePR(); p.BaseRef = "scratch"; return p }(),
			Base: pactBoth, Head: pactHead, Logs: logs}, skip: "not the default branch"},
		{name: "nor a decoy named like it", f: UpdateFacts{PR: func() ghfacts.PullRequest { p := updatePR(); p.BaseRef = "MAIN"; return p }(),
			Base: pactBoth, Head: pactHead, Logs: logs}, skip: "not the default branch"},
		{name: "first the changes", f: UpdateFacts{}, need: UpdateNeedChanges},
		{name: "too large to compare", f: UpdateFacts{DiffTooLarge: true}, reply: "too large"},
		{name: "a code path both changed", f: UpdateFacts{Base: with(pactBoth, checks.Change{"src/x.go": change(file("x0"), file("x main"))}), Head: pactHead},
			reply: "`src/x.go`, which both branches changed"},
		{name: "a task file both changed", f: UpdateFacts{Base: with(pactBoth, checks.Change{".pact/tasks/T2.md": change("", file("t2 main"))}), Head: pactHead},
			reply: "`.pact/tasks/T2.md`"},
		{name: "a path one deleted and the other changed", f: UpdateFacts{Base: with(pactBoth, checks.Change{"bin/old": change(file("b"), file("b2"))}), Head: pactHead},
			reply: "`bin/old`"},
		{name: "a file where the other side needs a directory", f: UpdateFacts{Base: with(pactBoth, checks.Change{"src": change("", file("now a file"))}), Head: pactHead},
			reply: "`src`, which"},
		{name: "a path both changed alike is no conflict", f: UpdateFacts{Base: with(pactBoth, checks.Change{"src/x.go": change(file("x0"), file("x1"))}), Head: pactHead},
			need: UpdateNeedLogs},
		{name: "nothing both changed: not the pact's conflict", f: UpdateFacts{Base: checks.Change{"docs/a.md": change("", file("a"))}, Head: pactHead},
			skip: "not the pact's"},
		{name: "both changed only STATE.yml", f: UpdateFacts{Base: checks.Change{stateP: change(file("os"), file("main state"))}, Head: pactHead},
			need: UpdateNeedLogs},
		{name: "the log deleted by one side", f: UpdateFacts{Base: checks.Change{logP: change(file("o"), ""), stateP: change(file("os"), file("ms"))}, Head: pactHead},
			reply: "`.pact/log.jsonl`, which both"},
		{name: "the log a link on one side", f: UpdateFacts{Base: checks.Change{logP: change(file("o"), checks.Entry(0o120000, "blob", strings.Repeat("a", 40)))}, Head: pactHead},
			reply: "`.pact/log.jsonl`, which both"},
		{name: "then the logs", f: UpdateFacts{Base: pactBoth, Head: pactHead}, need: UpdateNeedLogs},
		{name: "a log missing on one side", f: UpdateFacts{Base: checks.Change{stateP: change(file("os"), file("ms"))}, Head: pactHead,
			Logs: &UpdateLogs{MergeBase: nil, Base: nil, Head: []byte(head)}}, reply: "missing on one side"},
		{name: "the same task assigned on both sides", f: UpdateFacts{Base: pactBoth, Head: pactHead,
			Logs: &UpdateLogs{MergeBase: []byte(base), Base: []byte(main), Head: []byte(base + assignOn(4, "T1", "feat/x"))}}, reply: "task.duplicate"},
		{name: "a side that rewrites the ancestor's log", f: UpdateFacts{Base: pactBoth, Head: pactHead,
			Logs: &UpdateLogs{MergeBase: []byte(base), Base: []byte(main), Head: []byte(initLine + assignOn(3, "T2", "feat/x"))}}, reply: "drops, edits or reorders"},
		{name: "merged", f: UpdateFacts{Base: pactBoth, Head: pactHead, Logs: logs}, take: []string{".pact/tasks/T2.md", "bin/old", "src/x.go"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := tc.f
			if f.PR.Number == 0 {
				f.PR = updatePR()
			}
			f.PactDir, f.DefaultBranch = ".pact", "main"
			d := DecideUpdate(f)
			if d.Need != tc.need {
				t.Fatalf("need %d, want %d (%+v)", d.Need, tc.need, d)
			}
			if (d.Reply == "") != (tc.reply == "") || !strings.Contains(d.Reply, tc.reply) {
				t.Errorf("reply %q, want one saying %q", d.Reply, tc.reply)
			}
			if (d.Skip == "") != (tc.skip == "") || !strings.Contains(d.Skip, tc.skip) {
				t.Errorf("skip %q, want %q", d.Skip, tc.skip)
			}
			if d.Marker != updateMarker(f.PR.HeadSHA, f.PR.BaseRef) || !strings.HasPrefix(d.Marker, "<!-- ") {
				t.Errorf("marker %q", d.Marker)
			}
			if tc.take == nil {
				if d.Log != nil || len(d.TakeHead) != 0 {
					t.Errorf("writes %d bytes of log and %v without deciding to", len(bytes.Join(d.Log, nil)), d.TakeHead)
				}
				return
			}
			if !slices.Equal(d.TakeHead, tc.take) {
				t.Errorf("takes the head's %v, want %v", d.TakeHead, tc.take)
			}
			want, err := projection.MergeLogs([]byte(base), []byte(main), []byte(head))
			if err != nil {
				t.Fatal(err)
			}
			log := bytes.Join(d.Log, nil)
			if string(log) != string(want.Bytes()) || string(d.State) != string(projection.RenderBytes(want.Result.State)) || !strings.HasPrefix(string(log), main) {
				t.Errorf("log\n%s\nstate\n%s", log, d.State)
			}
			if d.LogPath != logP || d.StatePath != stateP || !strings.HasPrefix(d.Message, "Merge branch 'main' into feat/x\n") {
				t.Errorf("paths %s %s, message %q", d.LogPath, d.StatePath, d.Message)
			}
		})
	}
}

// Whatever the two sides change, a merge the bot writes takes the head's
// side only where the base left the path as it was, takes every such path,
// and is never written over a path both changed differently (the pact's
// log and STATE.yml aside, which it merges): held on random changes of a
// small set of paths.
func TestDecideUpdateNeverChoosesASide(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(33, 3))
	paths := []string{logP, stateP, ".pact/tasks/T1.md", "a", "a/b", "a/c", "d/e", "f"}
	entries := []string{"", file("1"), file("2"), checks.Entry(0o120000, "blob", strings.Repeat("b", 40))}
	base := initLine
	logs := &UpdateLogs{MergeBase: []byte(base), Base: []byte(base + assignOn(2, "T1", "feat/1")), Head: []byte(base + assignOn(3, "T2", "feat/x"))}
	written := 0
	for range 3000 {
		sides := [2]checks.Change{{}, {}}
		for i := range sides {
			for _, p := range paths {
				if rng.IntN(3) == 0 {
					sides[i][p] = change(file("0"), entries[rng.IntN(len(entries))])
				}
			}
		}
		d := DecideUpdate(UpdateFacts{PR: updatePR(), PactDir: ".pact", DefaultBranch: "main", Base: sides[0], Head: sides[1], Logs: logs})
		if d.Log == nil {
			continue
		}
		written++
		for p, h := range sides[1] {
			b, both := sides[0][p]
			switch {
			case p == logP || p == stateP:
				if slices.Contains(d.TakeHead, p) {
					t.Fatalf("took the head's %s instead of merging it", p)
				}
			case both && b.After != h.After:
				t.Fatalf("wrote a merge over %s, which both changed: %v", p, sides)
			case both:
				if slices.Contains(d.TakeHead, p) {
					t.Fatalf("took the head's side of %s, which the base changed too", p)
				}
			case !slices.Contains(d.TakeHead, p):
				t.Fatalf("left out the head's change of %s", p)
			}
		}
		for _, p := range d.TakeHead {
			if _, ok := sides[1][p]; !ok {
				t.Fatalf("took %s, which the head did not change", p)
			}
		}
		// What the merge takes from each side stands in one tree: no file
		// of one side where the other's needs a directory.
		var fromBase, fromHead []string
		for p, c := range sides[0] {
			if c.After != "" {
				fromBase = append(fromBase, p)
			}
		}
		for _, p := range d.TakeHead {
			if sides[1][p].After != "" {
				fromHead = append(fromHead, p)
			}
		}
		for _, p := range fromBase {
			for _, q := range fromHead {
				if strings.HasPrefix(q, p+"/") || strings.HasPrefix(p, q+"/") {
					t.Fatalf("the merge has the base's %s and the head's %s: %v", p, q, sides)
				}
			}
		}
	}
	if written < 50 {
		t.Fatalf("only %d of 3000 random updates were written: the property was barely tried", written)
	}
}
