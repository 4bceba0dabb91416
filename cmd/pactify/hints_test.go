package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/pact-action/pact-action/action"
	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/projection"
	"github.com/pact-action/pact-action/report"
)

// Every hint is an action a person can take with a verb we ship
// (docs/codes.md). These stories put a repository in the state that makes
// a finding, take the commands out of the finding's hint as it is shown,
// run them as written (placeholders filled, the seat the hint names or
// any seat), through the real binaries and git, and judge again: the
// finding is gone.

// hintSeats is the roster of the pact every story starts from.
var hintSeats = []string{"lead:orchestrator,reviewer:CLAUDE.md", "dev:worker:AGENTS.md", "ops:worker:AGENTS.md", "pat:worker,reviewer:AGENTS.md", "rev:reviewer:AGENTS.md"}

// hintValues fill the placeholders of hints: <base> is the branch the
// stories' work merges into.
var hintValues = map[string]string{
	"base": "main", "name": "demo", "id": "lead", "roles": "orchestrator", "entry": "AGENTS.md",
	"evidence": "go test ./... passes", "reason": "cover the error path",
	"task_id": "T9", "feature_id": "F9", "worker_seat": "dev", "reviewer_seat": "rev",
}

// hintCommand is a span of a hint that is a command: a pactify or git
// command line, maybe after environment assignments.
var hintCommand = regexp.MustCompile("`((?:[A-Z_]+=[^ `]+ )*(?:pactify|git) [^`]*)`")

// hintCommands are the commands a hint names, in order; a hint that names
// none fails the test.
func hintCommands(t *testing.T, hint string) []string {
	t.Helper()
	var out []string
	for _, m := range hintCommand.FindAllStringSubmatch(hint, -1) {
		out = append(out, m[1])
	}
	if len(out) == 0 {
		t.Fatalf("the hint names no command to run: %q", hint)
	}
	return out
}

// runHint runs a hint's command in r as written, its placeholders filled:
// as the seat its PACT_AGENT_ID= names, else as seat (the hint says any
// seat will do). It must succeed.
func runHint(t *testing.T, r *gitRepo, command, seat string) {
	t.Helper()
	words := shellWords(t, fill(t, command, hintValues))
	env := append([]string{}, r.env...)
	agent := seat
	for len(words) > 0 && regexp.MustCompile(`^[A-Z_]+=`).MatchString(words[0]) {
		name, value, _ := strings.Cut(words[0], "=")
		if name == "PACT_AGENT_ID" {
			agent = value
		} else {
			env = append(env, words[0])
		}
		words = words[1:]
	}
	switch words[0] {
	case "git":
		if out, code := r.run("git", words[1:]...); code != 0 {
			t.Fatalf("the hint's %q failed: exit %d\n%s", command, code, out)
		}
	case "pactify":
		if res := runIn(t, r.dir, append(env, "PACT_AGENT_ID="+agent), words[1:]...); res.code != 0 {
			t.Fatalf("the hint's %q, as %s, failed:\n%s", command, agent, res)
		}
	}
}

// findingOf is the first finding of code that tc's judge reports in r:
// validate's, or the check's local preview of a pull request from
// tc.branch into main.
func findingOf(t *testing.T, r *gitRepo, tc hintCase) (checks.Finding, bool) {
	t.Helper()
	for _, f := range judge(t, r, tc) {
		if f.Code == tc.code && (tc.task == "" || f.TaskID == tc.task) {
			return f, true
		}
	}
	return checks.Finding{}, false
}

// judge is what tc's judge finds in r.
func judge(t *testing.T, r *gitRepo, tc hintCase) []checks.Finding {
	t.Helper()
	if tc.branch == "" {
		rep, _ := validateIn(t, r, tc.args...)
		return rep.Findings
	}
	var out bytes.Buffer
	err := action.Local(t.Context(), action.LocalOptions{Root: r.dir, PactDir: ".pact", Base: "main", Branch: tc.branch, FailOn: "error", Format: "json"}, &out, slog.New(slog.DiscardHandler))
	var verdict *action.VerdictError
	if err != nil && !errors.As(err, &verdict) {
		t.Fatalf("check --local: %v", err)
	}
	var rep report.CheckJSON
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("check --local --format json: %v\n%s", err, out.String())
	}
	return rep.Findings
}

// validateIn is validate's JSON report of r's pact.
func validateIn(t *testing.T, r *gitRepo, args ...string) (validateJSON, result) {
	t.Helper()
	res := runIn(t, r.dir, r.env, append([]string{"validate", "--format", "json"}, args...)...)
	var rep validateJSON
	if err := json.Unmarshal([]byte(res.stdout), &rep); err != nil {
		t.Fatalf("validate --format json: %v\n%s", err, res)
	}
	return rep, res
}

// rawLine is a log line as something other than pactify might write it.
func rawLine(id, agent, role, typ, task, feature, payload string) string {
	return rawLineAt(time.Now().UTC().Add(time.Second).Format(time.RFC3339Nano), id, agent, role, typ, task, feature, payload)
}

func rawLineAt(ts, id, agent, role, typ, task, feature, payload string) string {
	return fmt.Sprintf(`{"event_id":%q,"ts":%q,"agent_id":%q,"role":%q,"event_type":%q,"task_id":%q,"feature":%q,"payload":%s}`+"\n",
		id, ts, agent, role, typ, task, feature, payload)
}

// appendLog appends text to r's log as an editor would, and commits it.
func appendLog(t *testing.T, r *gitRepo, text string) {
	t.Helper()
	appendFile(t, filepath.Join(r.dir, ".pact", "log.jsonl"), text)
	r.commit("edit the log")
}

// writeCode commits a change outside the pact, as a pull request would.
func writeCode(t *testing.T, r *gitRepo) {
	t.Helper()
	(&project{t: t, dir: r.dir}).write("src/login.go", "package login\n")
	r.commit("the work")
}

// textMergeOfMain leaves feat in a merge of main that git stopped on
// the pact: both branches recorded an event, and git merges the log as
// text (no merge driver configured, as in a clone without pactify
// install).
func textMergeOfMain(t *testing.T, r *gitRepo) {
	t.Helper()
	r.git("config", "--local", "--remove-section", "merge.pact")
	r.must("dev", "join", "dev", "--roles", "worker")
	r.commit("join on feat")
	r.git("checkout", "-q", "main")
	r.must("lead", "assign", "T2", "--feature", "G", "--branch", "main", "--owner", "dev", "--reviewer", "rev")
	r.commit("assign on main")
	r.git("checkout", "-q", "feat")
	if out, code := r.run("git", "merge", "main"); code == 0 {
		t.Fatalf("git merge main went through; want it stopped on the pact:\n%s", out)
	}
}

// hintCase is one story: setup leaves r (the pact of hintSeats with T1 of
// F assigned to dev, reviewed by rev, on main, and branch feat checked
// out; or, when fresh, an empty git repository) with a finding of code;
// after is what the person does once the hint's commands ran.
type hintCase struct {
	name  string
	code  projection.Code
	fresh bool
	setup func(t *testing.T, r *gitRepo)
	after func(t *testing.T, r *gitRepo)
	// args are validate's, to see the finding.
	args []string
	// branch, when set, judges with the check's local preview of a pull
	// request from it into main (pact-action check --local --base main).
	branch string
	// task follows the finding of this task; steps is how many times its
	// hint is followed before it is gone (1 when 0), each time with a new
	// message (the state advanced), between what happens between two.
	task    string
	steps   int
	between func(t *testing.T, r *gitRepo, step int)
	// edit: the hint asks for an edit of a file people write (after makes
	// it) and names no command.
	edit bool
	// names are what the hint of each step must name, where the situation
	// picks the hint.
	names []string
}

func hintCases() []hintCase {
	line := func(id, agent, role, typ, task, feature, payload string) func(t *testing.T, r *gitRepo) {
		return func(t *testing.T, r *gitRepo) { appendLog(t, r, rawLine(id, agent, role, typ, task, feature, payload)) }
	}
	join := `{"roles":["worker"]}`
	ready := func(t *testing.T, r *gitRepo) { // T1 awaits rev's review
		r.must("dev", "join", "dev", "--roles", "worker")
		r.must("dev", "checkpoint", "T1", "--evidence", "done")
	}
	badInit := func(t *testing.T, r *gitRepo) {
		r.git("init", "-q", "-b", "main")
		if err := os.MkdirAll(filepath.Join(r.dir, ".pact"), 0o755); err != nil {
			t.Fatal(err)
		}
		p := &project{t: t, dir: r.dir}
		p.write(".pact/log.jsonl", rawLine("i1", "lead", "orchestrator", "init", "", "",
			`{"project":"demo","protocol_version":1,"base_branch":"main","seats":[{"id":"Lead","roles":["orchestrator"],"entry":"AGENTS.md"}]}`))
		r.commit("a pact written by hand")
	}
	return []hintCase{
		{name: "not json", code: projection.CodeMalformedJSON, setup: func(t *testing.T, r *gitRepo) { appendLog(t, r, "not json\n") }},
		// Under another pact directory the hint names its files.
		{name: "not json in docs/.pact", code: projection.CodeMalformedJSON, fresh: true, args: []string{"--pact-dir", "docs/.pact"}, names: []string{"docs/.pact/log.jsonl"},
			setup: func(t *testing.T, r *gitRepo) {
				r.git("init", "-q", "-b", "main")
				r.must("lead", "init", "--pact-dir", "docs/.pact", "--project", "demo", "--seat", "lead:orchestrator:AGENTS.md")
				r.commit("start the pact")
				r.git("checkout", "-q", "-b", "feat")
				appendFile(t, filepath.Join(r.dir, "docs", ".pact", "log.jsonl"), "not json\n")
				r.commit("edit the log")
			}},
		{name: "a member twice", code: projection.CodeDuplicateKey, setup: func(t *testing.T, r *gitRepo) {
			appendLog(t, r, strings.Replace(rawLine("k1", "dev", "worker", "join", "", "", join), `"event_id":"k1"`, `"event_id":"k1","event_id":"k2"`, 1))
		}},
		{name: "agent id not a slug", code: projection.CodeSchemaEnvelope, setup: line("e1", "Dev", "worker", "join", "", "", join)},
		{name: "join without roles", code: projection.CodeSchemaPayload, setup: line("e1", "dev", "worker", "join", "", "", `{}`)},
		{name: "no event id", code: projection.CodeEventIDMissing, setup: line("", "dev", "worker", "join", "", "", join)},
		{name: "a line twice", code: projection.CodeEventIDDuplicate, setup: func(t *testing.T, r *gitRepo) {
			appendLog(t, r, strings.SplitAfter(r.read(".pact/log.jsonl"), "\n")[1])
		}},
		{name: "role against the type", code: projection.CodeRoleMismatch, setup: line("e1", "dev", "reviewer", "join", "", "", join)},
		{name: "an event before the init", code: projection.CodeInitMissing, setup: func(t *testing.T, r *gitRepo) {
			appendLog(t, r, rawLineAt("2000-01-01T00:00:00Z", "e1", "dev", "worker", "join", "", "", join))
		}},
		{name: "an empty log", code: projection.CodeInitMissing, fresh: true, setup: func(t *testing.T, r *gitRepo) {
			(&project{t: t, dir: r.dir}).write(".pact/log.jsonl", "")
		}},
		{name: "no init that applies", code: projection.CodeInitMissing, fresh: true, setup: badInit},
		{name: "a second init", code: projection.CodeInitDuplicate, setup: func(t *testing.T, r *gitRepo) {
			first := strings.SplitAfter(r.read(".pact/log.jsonl"), "\n")[0]
			var ts string
			if m := regexp.MustCompile(`"ts":"[^"]*"`).FindString(first); m != "" {
				ts = m
			}
			appendLog(t, r, strings.Replace(strings.Replace(first, ts, `"ts":"`+time.Now().UTC().Add(time.Second).Format(time.RFC3339)+`"`, 1), `"event_id":"`, `"event_id":"x`, 1))
		}},
		{name: "a seat not declared", code: projection.CodeUnknownSeat, setup: line("e1", "zed", "worker", "join", "", "", join)},
		{name: "a seat id not a slug", code: projection.CodeInvalidSeatID, fresh: true, setup: badInit},
		// Issue 34: the lead joins, which its roles do not allow.
		{name: "a join by the lead", code: projection.CodeRoleNotHeld, setup: line("e1", "lead", "worker", "join", "", "", join),
			after: func(t *testing.T, r *gitRepo) { r.must("dev", "join", "dev", "--roles", "worker") }},
		{name: "a task never assigned", code: projection.CodeTaskUnknown, setup: line("e1", "dev", "worker", "checkpoint", "T9", "F", `{"evidence":"e"}`)},
		{name: "a task id twice", code: projection.CodeTaskDuplicateID, setup: line("e1", "lead", "orchestrator", "assign", "T1", "G",
			`{"owner":"dev","reviewer":"rev","branch":"feat","spec":".pact/tasks/T1.md"}`),
			after: func(t *testing.T, r *gitRepo) {
				r.must("lead", "assign", "T2", "--feature", "G", "--branch", "feat", "--owner", "dev", "--reviewer", "rev")
			}},
		{name: "a task id no file can have", code: projection.CodeTaskUnsafeID, setup: line("e1", "lead", "orchestrator", "assign", "../x", "G",
			`{"owner":"dev","reviewer":"rev","branch":"feat","spec":"x.md"}`)},
		{name: "a checkpoint by another worker", code: projection.CodeTaskNotOwner, setup: func(t *testing.T, r *gitRepo) {
			r.must("dev", "join", "dev", "--roles", "worker")
			appendLog(t, r, rawLine("e1", "ops", "worker", "checkpoint", "T1", "F", `{"evidence":"e"}`))
		}},
		{name: "owner and reviewer one seat", code: projection.CodeOwnerIsReviewer, setup: line("e1", "lead", "orchestrator", "assign", "T2", "F",
			`{"owner":"pat","reviewer":"pat","branch":"feat","spec":".pact/tasks/T2.md"}`)},
		{name: "an owner accepts", code: projection.CodeSelfAccept, setup: func(t *testing.T, r *gitRepo) {
			r.must("lead", "assign", "T2", "--feature", "F", "--branch", "feat", "--owner", "pat", "--reviewer", "rev")
			r.must("pat", "join", "pat", "--roles", "worker,reviewer")
			r.must("pat", "checkpoint", "T2", "--evidence", "done")
			appendLog(t, r, rawLine("e1", "pat", "reviewer", "accept", "T2", "F", `{}`))
		}},
		{name: "another reviewer accepts", code: projection.CodeNotReviewer, setup: func(t *testing.T, r *gitRepo) {
			ready(t, r)
			appendLog(t, r, rawLine("e1", "pat", "reviewer", "accept", "T1", "F", `{}`))
		}, after: func(t *testing.T, r *gitRepo) {
			ready(t, r)
			r.must("rev", "accept", "T1")
		}},
		{name: "an accept before the checkpoint", code: projection.CodeInvalidTransition, setup: line("e1", "rev", "reviewer", "accept", "T1", "F", `{}`)},
		{name: "a merge of no feature", code: projection.CodeFeatureUnknown, setup: line("e1", "lead", "orchestrator", "merge", "", "NOPE", `{}`)},
		{name: "a merge before the accepts", code: projection.CodeRule2Unaccepted, setup: line("e1", "lead", "orchestrator", "merge", "", "F", `{}`)},
		{name: "STATE.yml edited", code: checks.CodeDrift, setup: func(t *testing.T, r *gitRepo) {
			(&project{t: t, dir: r.dir}).write(".pact/STATE.yml", strings.Replace(r.read(".pact/STATE.yml"), "status: assigned", "status: accepted", 1))
		}},
		{name: "STATE.yml removed", code: checks.CodeDriftMissing, setup: func(t *testing.T, r *gitRepo) {
			r.git("rm", "-q", ".pact/STATE.yml")
		}},
		{name: "front matter edited", code: checks.CodeTaskfileMismatch, args: []string{"--task-files"}, setup: func(t *testing.T, r *gitRepo) {
			(&project{t: t, dir: r.dir}).write(".pact/tasks/T1.md", strings.Replace(r.read(".pact/tasks/T1.md"), "owner: dev", "owner: ops", 1)+"Notes by hand.\n")
		}, after: func(t *testing.T, r *gitRepo) {
			if got := r.read(".pact/tasks/T1.md"); !strings.Contains(got, "owner: dev\n") || !strings.HasSuffix(got, "Notes by hand.\n") {
				t.Fatalf("tasks/T1.md should have the log's front matter and keep its body:\n%s", got)
			}
		}},
		{name: "a task file removed", code: checks.CodeTaskfileMissing, setup: func(t *testing.T, r *gitRepo) {
			r.git("rm", "-q", ".pact/tasks/T1.md")
		}},
		// Issue 34: "assigned to dev, who has not joined yet" names dev's
		// join, then the checkpoint, the checkpoint again after the
		// reviewer's changes, and the review, until nothing waits.
		{name: "each wait of a task", code: checks.CodePRUnaccepted, branch: "feat", task: "T1", steps: 4,
			names: []string{"`PACT_AGENT_ID=dev pactify join dev --roles worker`", "`PACT_AGENT_ID=dev pactify checkpoint T1", "`PACT_AGENT_ID=dev pactify checkpoint T1", "`PACT_AGENT_ID=rev pactify accept T1`"},
			setup: func(t *testing.T, r *gitRepo) { writeCode(t, r) },
			between: func(t *testing.T, r *gitRepo, step int) {
				if step == 1 { // T1 awaits review: rev sends it back
					r.must("rev", "changes", "T1", "--reason", "cover the error path")
				}
			}},
		{name: "a branch no task names", code: checks.CodePRUnmappedBranch, branch: "other", names: []string{"--branch other "}, setup: func(t *testing.T, r *gitRepo) {
			r.git("checkout", "-q", "-b", "other")
			writeCode(t, r)
		}},
		{name: "a line of the base edited", code: checks.CodeLogRewritten, branch: "feat", names: []string{"`git checkout <base> --"}, setup: func(t *testing.T, r *gitRepo) {
			r.must("dev", "join", "dev", "--roles", "worker")
			p := &project{t: t, dir: r.dir}
			p.write(".pact/log.jsonl", strings.Replace(r.read(".pact/log.jsonl"), `"spec":".pact/tasks/T1.md"`, `"spec":"T1.md"`, 1))
			r.commit("edit the base's line")
		}, after: func(t *testing.T, r *gitRepo) { r.must("dev", "join", "dev", "--roles", "worker") }},
		{name: "a merge resolved by hand", code: checks.CodeLogRewritten, branch: "feat", names: []string{"`pactify resolve`"}, setup: func(t *testing.T, r *gitRepo) {
			textMergeOfMain(t, r)
			// The log and STATE.yml resolved by taking this branch's side:
			// main's new line is gone.
			r.git("checkout", "--ours", "--", ".pact/log.jsonl", ".pact/STATE.yml")
			r.git("add", ".pact")
		}, after: func(t *testing.T, r *gitRepo) {
			r.git("commit", "-q", "--no-edit")
			if log := r.read(".pact/log.jsonl"); !strings.Contains(log, `"event_type":"join"`) || !strings.Contains(log, `"task_id":"T2"`) {
				t.Fatalf("the merged log should hold both branches' events:\n%s", log)
			}
		}},
		{name: "a merge stopped on the pact", code: checks.CodeMergeConflict, setup: textMergeOfMain, names: []string{"`pactify resolve`"},
			after: func(t *testing.T, r *gitRepo) { r.git("commit", "-q", "--no-edit") }},
		{name: "markers committed", code: checks.CodeMergeConflict, names: []string{"`git checkout <base> --"}, setup: func(t *testing.T, r *gitRepo) {
			textMergeOfMain(t, r)
			r.git("add", "-A")
			r.git("commit", "-q", "--no-edit")
		}, after: func(t *testing.T, r *gitRepo) { r.must("dev", "join", "dev", "--roles", "worker") }},
		{name: "an unknown key", code: checks.CodeConfigInvalid, branch: "feat", edit: true, setup: func(t *testing.T, r *gitRepo) {
			(&project{t: t, dir: r.dir}).write(".github/pact.yml", "provenance:\n  mode: warn\nreview-request: off\n")
		}, after: func(t *testing.T, r *gitRepo) {
			(&project{t: t, dir: r.dir}).write(".github/pact.yml", "provenance:\n  mode: warn\nreview-requests: off\n")
		}},
		{name: "PROJECT.md without its block", code: checks.CodeProjectHeader, setup: func(t *testing.T, r *gitRepo) {
			(&project{t: t, dir: r.dir}).write(".pact/PROJECT.md", "# demo\n")
		}},
	}
}

// TestHintsWork runs each story (hintCases).
func TestHintsWork(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	home := filepath.Join(root, "home")
	// The pact every story but the fresh ones starts from, made once.
	tmpl := newGitRepo(t, filepath.Join(root, "template"), home, true)
	tmpl.git("init", "-q", "-b", "main")
	args := []string{"init", "--project", "demo"}
	for _, s := range hintSeats {
		args = append(args, "--seat", s)
	}
	tmpl.must("lead", args...)
	tmpl.must("lead", "assign", "T1", "--feature", "F", "--branch", "feat", "--owner", "dev", "--reviewer", "rev")
	tmpl.commit("start the pact")
	tmpl.git("checkout", "-q", "-b", "feat")
	for i, tc := range hintCases() {
		t.Run(fmt.Sprintf("%s/%s", tc.code, tc.name), func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(root, fmt.Sprint(i))
			if !tc.fresh {
				copyTree(t, tmpl.dir, dir)
			}
			r := newGitRepo(t, dir, home, true)
			tc.setup(t, r)
			var hints, seen []string
			for step := range max(tc.steps, 1) {
				f, ok := findingOf(t, r, tc)
				if !ok {
					t.Fatalf("step %d: no %s finding to try the hint of; findings: %v", step+1, tc.code, judge(t, r, tc))
				}
				if len(seen) > 0 && seen[len(seen)-1] == f.Message {
					t.Fatalf("the hint %q was run, and the state did not advance: %s", hints[len(hints)-1], f.Message)
				}
				hints, seen = append(hints, f.Hint), append(seen, f.Message)
				if step < len(tc.names) && !strings.Contains(f.Hint, tc.names[step]) {
					t.Fatalf("step %d: the hint does not name %q: %q", step+1, tc.names[step], f.Hint)
				}
				if !tc.edit {
					for _, c := range hintCommands(t, f.Hint) {
						runHint(t, r, c, "lead")
					}
				}
				if tc.between != nil && step+1 < max(tc.steps, 1) {
					tc.between(t, r, step)
				}
			}
			if tc.after != nil {
				tc.after(t, r)
			}
			if g, ok := findingOf(t, r, tc); ok {
				t.Fatalf("the hints %q were run, yet %s remains: %s", hints, tc.code, g.Message)
			}
			t.Logf("%d hint(s) followed: %q", len(seen), seen)
			if rep, res := validateIn(t, r, tc.args...); !rep.Valid {
				t.Fatalf("the hints %q were run, and the pact is not valid:\n%s", hints, res)
			}
		})
	}
}

// hintsTriedElsewhere are the codes whose hints act on GitHub or on what
// no release offers yet, so their stories are not TestHintsWork's: the
// test that follows each.
var hintsTriedElsewhere = map[projection.Code]string{
	checks.CodeProvenanceUnverified: "action: TestHintUnverifiedAccept; checks: TestProvenanceDefaultConfigWarnsOnce",
	checks.CodeProvenanceStale:      "action: TestHintStaleAccept",
	checks.CodeProvenanceFutureTS:   "action: TestHintFutureTimestamp",
	// An upgrade to a release that supports protocol_version 2 cannot be
	// tried before one exists: the command is the README's install.
	projection.CodeVersionUnsupported: "internal/testkit/docs: TestUpgradeHintIsTheREADMEsInstall",
}

// TestEveryHintIsTried: each code of the table has a story that follows
// its hint, here or where hintsTriedElsewhere says, so a new code comes
// with one.
func TestEveryHintIsTried(t *testing.T) {
	t.Parallel()
	tried := map[projection.Code]bool{}
	for _, tc := range hintCases() {
		tried[tc.code] = true
	}
	for _, c := range checks.Table {
		if !tried[c.Code] && hintsTriedElsewhere[c.Code] == "" {
			t.Errorf("no story follows the hint of %s: add one to hintCases", c.Code)
		}
	}
}
