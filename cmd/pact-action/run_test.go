package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pact-action/pact-action/internal/testkit/e2e"
)

// The README's first command runs this on the shipped example; the exit
// codes are the documented contract.
func TestLocalCheckOnTheShippedExample(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantOut  []string
	}{
		{"accepted feature is mergeable", []string{"check", "--local", "../../examples/demo", "--branch", "feat/login"}, exitOK,
			[]string{"pact: pact holds [success]", "accepted (1 change round)  opencode  claude-opus  feat/login"}}, // was the Markdown table row "| LOGIN | accepted | T1 |"
		{"waiting feature without a check run exits 4", []string{"check", "--local", "../../examples/demo", "--branch", "feat/signup"}, exitWaiting,
			[]string{"[action_required]", "waiting for T3 (feature SIGNUP): awaiting review by codex"}},
		{"fail-on never", []string{"check", "--local", "../../examples/demo", "--branch", "feat/signup", "--fail-on", "never"}, exitOK, nil},
		{"json format", []string{"check", "--local", "../../examples/demo", "--branch=feat/signup", "--format", "json"}, exitWaiting,
			[]string{`"conclusion": "action_required"`, `"code": "pr.unaccepted_feature"`}},
		{"a base log that the head extends", []string{"check", "--local", "../../examples/demo", "--branch", "feat/login", "--base-log", "testdata/base-prefix.jsonl"}, exitOK,
			[]string{"[success]"}},
		{"a base log the head rewrote", []string{"check", "--local", "../../examples/demo", "--branch", "feat/login", "--base-log", "testdata/base-rewritten.jsonl", "--format", "json"}, exitViolation,
			[]string{`"code": "log.rewritten"`, `"line": 2`}},
		{"unknown flag", []string{"check", "--local", "x", "--nope", "1"}, exitUsage, nil},
		{"no pact there", []string{"check", "--local", t.TempDir()}, exitUsage, nil},
		{"bad fail-on", []string{"check", "--local", "../../examples/demo", "--fail-on", "sometimes"}, exitUsage, nil},
		{"no arguments outside a workflow print the reference", nil, exitOK, []string{"pact-action — enforce the Pact protocol v1"}},
		{"sarif format for code scanning", []string{"check", "--local", "../../examples/demo", "--branch", "feat/signup", "--format", "sarif"}, exitWaiting,
			[]string{`"version": "2.1.0"`, `"name": "pact-action"`, `"ruleId": "pr.unaccepted_feature"`, `"partialFingerprints"`}},
		{"bad format", []string{"check", "--local", "../../examples/demo", "--format", "xml"}, exitUsage, nil},
		{"check --help", []string{"check", "--help"}, exitOK, []string{"pact-action check --local DIR", "--format text|json|sarif"}},
		{"check -h after flags", []string{"check", "--local", "x", "-h"}, exitOK, []string{"Local preview"}},
		{"--version", []string{"--version"}, exitOK, []string{"pact-action "}},
		{"--version takes nothing else", []string{"--version", "x"}, exitUsage, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			getenv := func(string) string { return "" }
			code := run(context.Background(), tt.args, strings.NewReader(""), &stdout, &stderr, getenv)
			if code != tt.wantCode {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tt.wantCode, stdout.String(), stderr.String())
			}
			s := strings.ReplaceAll(stdout.String(), `\`, "")
			for _, w := range tt.wantOut {
				if !strings.Contains(s, w) {
					t.Errorf("output lacks %q:\n%s", w, stdout.String())
				}
			}
			if tt.wantCode == exitUsage && !strings.Contains(stderr.String(), "pact-action: ") {
				t.Errorf("a usage error must say what happened on stderr, got %q", stderr.String())
			}
		})
	}
}

// TestLocalPreviewIsPlainText: the preview's text is for a terminal, not
// GitHub: no Markdown escapes, tables, headings or HTML, the waiting task
// as it is written, and, when it exits non-zero, why on its last line.
func TestLocalPreviewIsPlainText(t *testing.T) {
	t.Parallel()
	for _, branch := range []string{"feat/signup", "feat/login"} {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), []string{"check", "--local", "../../examples/demo", "--branch", branch}, strings.NewReader(""), &stdout, &stderr, func(string) string { return "" })
		out := stdout.String()
		for _, md := range []string{`\`, "| ", "|---", "<sub>", "**", "## ", "&lt;", "&amp;", "\u200b"} {
			if strings.Contains(out, md) {
				t.Errorf("%s: the text holds Markdown %q:\n%s", branch, md, out)
			}
		}
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		last := lines[len(lines)-1]
		switch code {
		case exitWaiting:
			if !strings.Contains(out, ".pact/log.jsonl:4: pr.unaccepted_feature: waiting for T3 (feature SIGNUP): awaiting review by codex\n") ||
				!strings.HasPrefix(last, "exit 4: waiting for reviews") {
				t.Errorf("%s: the waiting task or the exit line is missing:\n%s", branch, out)
			}
		case exitOK:
			if strings.HasPrefix(last, "exit ") {
				t.Errorf("%s: an exit line for exit 0:\n%s", branch, out)
			}
		default:
			t.Errorf("%s: exit %d\n%s%s", branch, code, out, stderr.String())
		}
	}
}

// TestLocalCheckMaxPactBytes: check --local counts what it reads of the
// pact against --max-pact-bytes as the action does: the shipped example
// fits a budget of exactly its files, and one byte less stops the check
// with the action's message (exit 2); a bad size is a usage error.
func TestLocalCheckMaxPactBytes(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("../../examples/demo/.pact/tasks/*.md")
	if err != nil {
		t.Fatal(err)
	}
	total := int64(0)
	for _, f := range append(files, "../../examples/demo/.pact/log.jsonl", "../../examples/demo/.pact/STATE.yml", "../../examples/demo/.pact/PROJECT.md") {
		fi, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		total += fi.Size()
	}
	for _, tc := range []struct {
		budget string
		code   int
		stderr string
	}{
		{fmt.Sprint(total), exitOK, ""},
		{fmt.Sprint(total - 1), exitUsage, "the pact files this check must read come to more than its budget of"},
		{"1KiB", exitUsage, "the pact files this check must read come to more than its budget of 1 KiB (the max-pact-bytes input): .pact/log.jsonl is"},
		{"lots", exitUsage, `--max-pact-bytes "lots" is not a size such as 268435456, 512MiB or 1GiB`},
	} {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), []string{"check", "--local", "../../examples/demo", "--branch", "feat/login", "--max-pact-bytes", tc.budget},
			strings.NewReader(""), &stdout, &stderr, func(string) string { return "" })
		if code != tc.code || !strings.Contains(stderr.String(), tc.stderr) {
			t.Errorf("--max-pact-bytes %s: exit %d, want %d with %q\nstderr: %s", tc.budget, code, tc.code, tc.stderr, stderr.String())
		}
	}
}

// TestLocalCheckBaseIsTheMergeBase: --base names the pull request's base,
// and the log is judged against the merge base of it and HEAD, as the
// check does (docs/semantics.md §5): a branch that is only behind main
// passes, where the log at main's tip (which has a line the branch lacks)
// would call it rewritten; a branch that did rewrite a line fails.
func TestLocalCheckBaseIsTheMergeBase(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"}, args...)...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	write := func(l *e2e.Log) {
		t.Helper()
		for p, c := range l.Files() {
			if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, p), []byte(c), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	base := e2e.NewLog().Assign("T1", "LOGIN", "feat/login", "dev", "rev")
	git("init", "-q", "-b", "main")
	write(base)
	git("add", "-A")
	git("commit", "-q", "-m", "assign T1")
	git("checkout", "-q", "-b", "feat/login")
	branch := base.Copy().Join("dev")
	write(branch)
	git("commit", "-q", "-am", "join")
	git("checkout", "-q", "main")
	write(base.Copy().Assign("T2", "SIGNUP", "feat/signup", "dev", "rev"))
	git("add", "-A")
	git("commit", "-q", "-m", "assign T2")
	git("checkout", "-q", "feat/login")

	check := func(wantCode int, wantRewritten bool) {
		t.Helper()
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), []string{"check", "--local", dir, "--base", "main", "--format", "json"}, strings.NewReader(""), &stdout, &stderr, func(string) string { return "" })
		if code != wantCode || strings.Contains(stdout.String(), `"log.rewritten"`) != wantRewritten {
			t.Fatalf("exit %d (want %d), log.rewritten %v (want %v)\nstdout: %s\nstderr: %s", code, wantCode, !wantRewritten, wantRewritten, stdout.String(), stderr.String())
		}
	}
	check(exitWaiting, false)

	// The branch edits the line the merge base holds: a rewrite.
	edited := branch.Copy()
	edited.Lines[1] = strings.Replace(edited.Lines[1], `"rev"`, `"dev"`, 1)
	write(edited)
	git("commit", "-q", "-am", "rewrite")
	check(exitViolation, true)
}

// TestLocalCheckSaysItSkippedATornLine: the part of a line a killed
// pactify left at the log's end (its record beside it, pactdir's torn.go)
// is read as pactify's commands read it, without those bytes, and the
// preview says so on stderr: the check, reading a commit, would see them
// as a malformed line.
func TestLocalCheckSaysItSkippedATornLine(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("../../examples/demo")); err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(dir, ".pact", "log.jsonl")
	log, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	line := `{"event_id":"0123456789abcdef0123456789abcdef","ts":"2026-12-01T00:00:00Z"}` + "\n"
	record := fmt.Sprintf("pactify append 1\n%d %d\n%s", len(log), len(line), line)
	if err := os.WriteFile(filepath.Join(dir, ".pact", ".log.jsonl.tmp-append"), []byte(record), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(logPath, append(log, line[:20]...), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"check", "--local", dir, "--branch", "feat/login"}, strings.NewReader(""), &stdout, &stderr, func(string) string { return "" })
	if code != exitOK || !strings.Contains(stdout.String(), "[success]") {
		t.Fatalf("exit %d, want %d with the example's verdict\nstdout: %s\nstderr: %s", code, exitOK, stdout.String(), stderr.String())
	}
	if !strings.Contains(stderr.String(), "ends in 20 byte(s) of a line a killed pactify was writing") {
		t.Errorf("stderr does not say what was skipped:\n%s", stderr.String())
	}
}
