package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// demo is the shipped example the README's first command judges.
const demo = "../../examples/demo"

// surface is pact-action's command line as users and scripts see it, run
// in process: every verb, every way of giving a flag, and what goes wrong
// how. It was written against the hand-made parser before the move to
// cobra, so the move keeps what it shows; rows that say "was" changed on
// purpose (issue 16).
var surface = []struct {
	name  string
	args  []string
	env   map[string]string
	code  int
	out   string // a substring of stdout ("" asserts nothing)
	err   string // a substring of stderr ("" asserts stderr is empty)
	quiet bool   // stdout must be empty
}{
	// No arguments is the GitHub Action in a workflow, the reference
	// anywhere else.
	{name: "no arguments outside a workflow", args: nil, out: "pact-action — enforce the Pact protocol v1 on pull requests"}, // was GITHUB_EVENT_NAME is not set
	{name: "the action without its event", args: nil, env: map[string]string{"GITHUB_ACTIONS": "true"}, code: 2, err: "GITHUB_EVENT_NAME is not set", quiet: true},
	{name: "the action with a bad input", args: nil, env: map[string]string{"GITHUB_ACTIONS": "true", "INPUT_MODE": "sometimes"}, code: 2, err: `the mode input must be auto, check or bot, not "sometimes"`, quiet: true},
	{name: "the action named by its event alone", args: nil, env: map[string]string{"GITHUB_EVENT_NAME": "push", "INPUT_MODE": "sometimes"}, code: 2, err: `the mode input must be auto`, quiet: true},

	// The reference and the version.
	{name: "help", args: []string{"help"}, out: "pact-action — enforce the Pact protocol v1 on pull requests"},
	{name: "--help", args: []string{"--help"}, out: "pact-action — enforce the Pact protocol v1 on pull requests"},
	{name: "-h", args: []string{"-h"}, out: "pact-action — enforce the Pact protocol v1 on pull requests"},
	{name: "help of a verb", args: []string{"help", "check"}, out: "usage: pact-action check --local DIR"}, // was the reference
	{name: "help of help", args: []string{"help", "--help"}, out: "usage: pact-action help [<verb>]"},
	{name: "help of completion", args: []string{"help", "completion"}, out: "usage: pact-action completion bash|zsh|fish|powershell"},
	{name: "help of an unknown verb", args: []string{"help", "docter"}, code: 2, err: `unknown verb "docter"; did you mean doctor?`, quiet: true},
	{name: "help of two verbs", args: []string{"help", "check", "doctor"}, code: 2, err: "usage: pact-action help [<verb>]", quiet: true},
	{name: "--version", args: []string{"--version"}, out: "pact-action "},
	{name: "--version with more", args: []string{"--version", "x"}, code: 2, err: "pact-action: ", quiet: true},
	{name: "an unknown verb", args: []string{"frobnicate"}, code: 2, err: `unknown verb "frobnicate"`, quiet: true}, // was unknown arguments ["frobnicate"]
	{name: "an unknown flag before any verb", args: []string{"--nope"}, code: 2, err: "unknown flag --nope", quiet: true},
	{name: "a misspelt verb", args: []string{"chek"}, code: 2, err: `unknown verb "chek"; did you mean check?`, quiet: true},
	{name: "a misspelt verb before its flags", args: []string{"chek", "--local", "."}, code: 2, err: `unknown verb "chek"; did you mean check?`, quiet: true}, // was unknown flag --local
	{name: "a verb's flag before the verb", args: []string{"--format", "json", "check", "--local", demo}, code: 2, err: "--format is a flag of check: write it after the verb", quiet: true},
	{name: "version", args: []string{"version"}, out: "pact-action "},
	{name: "version with more", args: []string{"version", "x"}, code: 2, err: `version takes no arguments; "x" is extra`, quiet: true},
	{name: "completion bash", args: []string{"completion", "bash"}, out: "complete -o default -F __start_pact-action pact-action"}, // was exit 2
	{name: "completion zsh", args: []string{"completion", "zsh"}, out: "#compdef pact-action"},
	{name: "completion fish", args: []string{"completion", "fish"}, out: "complete -c pact-action"},
	{name: "completion powershell", args: []string{"completion", "powershell"}, out: "Register-ArgumentCompleter"},
	{name: "completion --help", args: []string{"completion", "--help"}, out: "usage: pact-action completion bash|zsh|fish|powershell"},
	{name: "completion of an unknown shell", args: []string{"completion", "tcsh"}, code: 2, err: `"tcsh"`, quiet: true},
	{name: "completion without a shell", args: []string{"completion"}, code: 2, err: "usage: pact-action completion bash|zsh|fish|powershell", quiet: true},
	{name: "completion takes no --pact-dir", args: []string{"completion", "--pact-dir", "x", "bash"}, code: 2, err: "completion does not take the flag --pact-dir", quiet: true},

	// check --local.
	{name: "check", args: []string{"check", "--local", demo, "--branch", "feat/login"}, out: "pact: pact holds [success]"},
	{name: "check waiting", args: []string{"check", "--local", demo, "--branch", "feat/signup"}, code: 4, out: "[action_required]"},
	{name: "check says why it exits 4", args: []string{"check", "--local", demo, "--branch", "feat/signup"}, code: 4, out: "\nexit 4: waiting for reviews (1 task); not a violation, but not mergeable yet\n"},
	{name: "check says why it exits 1", args: []string{"check", "--local", demo, "--branch", "feat/login", "--base-log", "testdata/base-rewritten.jsonl"}, code: 1, out: "\nexit 1: violations block the merge (1 error)\n"},
	{name: "check markdown", args: []string{"check", "--local", demo, "--branch", "feat/signup", "--format", "markdown"}, code: 4, out: "waiting for T3 \\(feature SIGNUP\\)"},
	{name: "check --flag=value", args: []string{"check", "--local=" + demo, "--branch=feat/login"}, out: "[success]"},
	{name: "check -flag value", args: []string{"check", "-local", demo, "-branch", "feat/login"}, out: "[success]"},
	{name: "check json", args: []string{"check", "--local", demo, "--branch", "feat/signup", "--format", "json"}, code: 4, out: `"conclusion": "action_required"`},
	{name: "check sarif", args: []string{"check", "--local", demo, "--branch", "feat/signup", "--format", "sarif"}, code: 4, out: `"version": "2.1.0"`},
	{name: "check --fail-on never", args: []string{"check", "--local", demo, "--branch", "feat/signup", "--fail-on", "never"}, out: "[action_required]"},
	{name: "check --pact-dir", args: []string{"check", "--local", demo, "--branch", "feat/login", "--pact-dir", ".pact"}, out: "[success]"},
	{name: "check --base-log", args: []string{"check", "--local", demo, "--branch", "feat/login", "--base-log", "testdata/base-prefix.jsonl"}, out: "[success]"},
	{name: "check --base with --base-log", args: []string{"check", "--local", demo, "--branch", "feat/login", "--base", "HEAD", "--base-log", "testdata/base-prefix.jsonl"},
		code: 2, err: "--base and --base-log cannot be given together", quiet: true}, // was accepted, --base-log winning
	{name: "check --help", args: []string{"check", "--help"}, out: "usage: pact-action check --local DIR"}, // was the reference
	{name: "check --help tells the exit codes", args: []string{"check", "--help"}, out: "4 waiting for reviews"},
	{name: "check -h after flags", args: []string{"check", "--local", "x", "-h"}, out: "Local preview"},
	{name: "check without --local", args: []string{"check"}, code: 2, err: "check needs --local DIR", quiet: true}, // was unknown arguments ["check"]
	{name: "check with an empty --local", args: []string{"check", "--local="}, code: 2, err: "check needs --local DIR", quiet: true},
	{name: "check with an argument", args: []string{"check", "--local", demo, "x"}, code: 2, err: `unexpected argument "x"`, quiet: true},
	{name: "check with an unknown flag", args: []string{"check", "--local", demo, "--nope"}, code: 2, err: "check does not take the flag --nope", quiet: true},
	{name: "check with an unknown shorthand", args: []string{"check", "--local", demo, "-f", "json"}, code: 2, err: "check does not take the flag -f\n", quiet: true}, // was --f
	{name: "check with a flag twice", args: []string{"check", "--local", demo, "--local", demo}, code: 2, err: "--local is given twice", quiet: true},
	{name: "check with a flag without its value", args: []string{"check", "--local"}, code: 2, err: "--local needs a value", quiet: true},
	{name: "check with a bad format", args: []string{"check", "--local", demo, "--format", "xml"}, code: 2, err: "--format must be text, json, sarif or markdown", quiet: true},
	{name: "check with a bad fail-on", args: []string{"check", "--local", demo, "--fail-on", "sometimes"}, code: 2, err: "fail-on must be error, warning or never", quiet: true},
	{name: "check of a directory that does not exist", args: []string{"check", "--local", "testdata/nowhere"}, code: 2, err: "--local testdata/nowhere does not exist", quiet: true}, // was only "no pact to judge"
	{name: "check of a file", args: []string{"check", "--local", "run.go"}, code: 2, err: "--local run.go is not a directory", quiet: true},
	{name: "check of a directory with no pact", args: []string{"check", "--local", "testdata"}, code: 2, err: "no pact to judge", quiet: true},
	{name: "check with a base git cannot find", args: []string{"check", "--local", demo, "--base", "no-such-rev-anywhere"}, code: 2, err: `--base "no-such-rev-anywhere" is not a commit`, quiet: true},
	{name: "--pact-dir before check", args: []string{"--pact-dir", ".pact", "check", "--local", demo, "--branch", "feat/login"}, out: "[success]"}, // was unknown arguments
	{name: "--pact-dir that is not there", args: []string{"check", "--local", demo, "--pact-dir", "nowhere"}, code: 2, err: "no pact to judge", quiet: true},
	{name: "--pact-dir and no verb", args: []string{"--pact-dir", ".pact"}, code: 2, err: "no verb given", quiet: true},

	// doctor, as far as it goes without GitHub.
	{name: "doctor --help", args: []string{"doctor", "--help"}, out: "usage: pact-action doctor"},
	{name: "doctor -h", args: []string{"doctor", "-h"}, out: "usage: pact-action doctor"},
	{name: "doctor --pact-dir before --help", args: []string{"--pact-dir", "x", "doctor", "--help"}, out: "usage: pact-action doctor"},
	{name: "doctor with an argument", args: []string{"doctor", "x"}, code: 2, err: "doctor takes no arguments", quiet: true},
	{name: "doctor without a repository", args: []string{"doctor"}, code: 2, err: "doctor needs --repo owner/name", quiet: true},
	{name: "doctor with GITHUB_REPOSITORY and no token", args: []string{"doctor"}, env: map[string]string{"GITHUB_REPOSITORY": "o/r"}, code: 2, err: "GITHUB_TOKEN or GH_TOKEN", quiet: true},
	{name: "doctor with a bad format", args: []string{"doctor", "--repo", "o/r", "--format", "sarif"}, code: 2, err: "--format must be text or json", quiet: true},
	{name: "doctor with an unknown flag", args: []string{"doctor", "--nope"}, code: 2, err: "doctor does not take the flag --nope", quiet: true},
}

func TestSurface(t *testing.T) {
	t.Parallel()
	for _, c := range surface {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), c.args, strings.NewReader(""), &stdout, &stderr, func(k string) string { return c.env[k] })
			if code != c.code {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, c.code, stdout.String(), stderr.String())
			}
			if !strings.Contains(stdout.String(), c.out) || c.quiet && stdout.Len() != 0 {
				t.Errorf("stdout should contain %q (quiet: %v):\n%s", c.out, c.quiet, stdout.String())
			}
			if c.err == "" && stderr.Len() != 0 || !strings.Contains(stderr.String(), c.err) {
				t.Errorf("stderr should contain %q:\n%s", c.err, stderr.String())
			}
		})
	}
}

// TestCompletionWords asks pact-action for completions the way every
// shell's script does (cobra's __complete) and compares the words offered.
func TestCompletionWords(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string // the last one is being completed
		want string
	}{
		{[]string{"ch"}, "check"},
		{[]string{""}, "check doctor completion version help"},
		{[]string{"--v"}, "--version"},
		{[]string{"check", "--format", ""}, "text json sarif markdown"},
		{[]string{"check", "--fail-on", "w"}, "error warning never"}, // the shell keeps those that fit
		{[]string{"check", "--local", demo, "--base-l"}, "--base-log"},
		{[]string{"check", "--local", demo, "--base", "main", "--base-l"}, ""}, // --base and --base-log exclude each other
		{[]string{"doctor", "--format", ""}, "text json"},
		{[]string{"doctor", "--repo", ""}, ""},
		{[]string{"help", "d"}, "doctor"},
		{[]string{"completion", ""}, "bash zsh fish powershell"},
	} {
		var stdout, stderr bytes.Buffer
		args := append([]string{"__complete"}, c.args...)
		if code := run(context.Background(), args, strings.NewReader(""), &stdout, &stderr, func(string) string { return "" }); code != 0 {
			t.Fatalf("%q: exit %d\n%s%s", args, code, stdout.String(), stderr.String())
		}
		var got []string
		for _, line := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
			if word, _, _ := strings.Cut(line, "\t"); word != "" && !strings.HasPrefix(word, ":") {
				got = append(got, word)
			}
		}
		if strings.Join(got, " ") != c.want {
			t.Errorf("%q completes to %q, want %q", c.args, got, c.want)
		}
	}
}
