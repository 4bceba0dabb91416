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
	// No arguments is the GitHub Action, which needs the runner.
	{name: "the action outside a workflow", args: nil, code: 2, err: "GITHUB_EVENT_NAME is not set", quiet: true},
	{name: "the action with a bad input", args: nil, env: map[string]string{"INPUT_MODE": "sometimes"}, code: 2, err: `the mode input must be auto, check or bot, not "sometimes"`, quiet: true},

	// The reference and the version.
	{name: "help", args: []string{"help"}, out: "pact-action — enforce the Pact protocol v1 on pull requests"},
	{name: "--help", args: []string{"--help"}, out: "pact-action — enforce the Pact protocol v1 on pull requests"},
	{name: "-h", args: []string{"-h"}, out: "pact-action — enforce the Pact protocol v1 on pull requests"},
	{name: "help of a verb", args: []string{"help", "check"}, out: "pact-action — enforce the Pact protocol v1 on pull requests"},
	{name: "--version", args: []string{"--version"}, out: "pact-action "},
	{name: "--version with more", args: []string{"--version", "x"}, code: 2, err: "pact-action: ", quiet: true},
	{name: "an unknown verb", args: []string{"frobnicate"}, code: 2, err: `unknown arguments ["frobnicate"]`, quiet: true},
	{name: "a misspelt verb", args: []string{"chek"}, code: 2, err: `"chek"`, quiet: true},
	{name: "completion", args: []string{"completion", "bash"}, code: 2, err: "pact-action: ", quiet: true},

	// check --local.
	{name: "check", args: []string{"check", "--local", demo, "--branch", "feat/login"}, out: "pact: pact holds [success]"},
	{name: "check waiting", args: []string{"check", "--local", demo, "--branch", "feat/signup"}, code: 4, out: "[action_required]"},
	{name: "check --flag=value", args: []string{"check", "--local=" + demo, "--branch=feat/login"}, out: "[success]"},
	{name: "check -flag value", args: []string{"check", "-local", demo, "-branch", "feat/login"}, out: "[success]"},
	{name: "check json", args: []string{"check", "--local", demo, "--branch", "feat/signup", "--format", "json"}, code: 4, out: `"conclusion": "action_required"`},
	{name: "check sarif", args: []string{"check", "--local", demo, "--branch", "feat/signup", "--format", "sarif"}, code: 4, out: `"version": "2.1.0"`},
	{name: "check --fail-on never", args: []string{"check", "--local", demo, "--branch", "feat/signup", "--fail-on", "never"}, out: "[action_required]"},
	{name: "check --pact-dir", args: []string{"check", "--local", demo, "--branch", "feat/login", "--pact-dir", ".pact"}, out: "[success]"},
	{name: "check --base-log", args: []string{"check", "--local", demo, "--branch", "feat/login", "--base-log", "testdata/base-prefix.jsonl"}, out: "[success]"},
	{name: "check --base with --base-log", args: []string{"check", "--local", demo, "--branch", "feat/login", "--base", "HEAD", "--base-log", "testdata/base-prefix.jsonl"}, out: "[success]"},
	{name: "check --help", args: []string{"check", "--help"}, out: "pact-action — enforce the Pact protocol v1 on pull requests"},
	{name: "check -h after flags", args: []string{"check", "--local", "x", "-h"}, out: "Local preview"},
	{name: "check without --local", args: []string{"check"}, code: 2, err: `unknown arguments ["check"]`, quiet: true},
	{name: "check with an empty --local", args: []string{"check", "--local="}, code: 2, err: "check needs --local DIR", quiet: true},
	{name: "check with an argument", args: []string{"check", "--local", demo, "x"}, code: 2, err: `unexpected argument "x"`, quiet: true},
	{name: "check with an unknown flag", args: []string{"check", "--local", demo, "--nope"}, code: 2, err: "check does not take the flag --nope", quiet: true},
	{name: "check with an unknown shorthand", args: []string{"check", "--local", demo, "-f", "json"}, code: 2, err: "check does not take the flag --f", quiet: true},
	{name: "check with a flag twice", args: []string{"check", "--local", demo, "--local", demo}, code: 2, err: "--local is given twice", quiet: true},
	{name: "check with a flag without its value", args: []string{"check", "--local"}, code: 2, err: "--local needs a value", quiet: true},
	{name: "check with a bad format", args: []string{"check", "--local", demo, "--format", "xml"}, code: 2, err: "--format must be text, json or sarif", quiet: true},
	{name: "check with markdown", args: []string{"check", "--local", demo, "--format", "markdown"}, code: 2, err: "--format must be text, json or sarif", quiet: true},
	{name: "check with a bad fail-on", args: []string{"check", "--local", demo, "--fail-on", "sometimes"}, code: 2, err: "fail-on must be error, warning or never", quiet: true},
	{name: "check of a directory that does not exist", args: []string{"check", "--local", "testdata/nowhere"}, code: 2, err: "no pact to judge", quiet: true},
	{name: "check of a directory with no pact", args: []string{"check", "--local", "testdata"}, code: 2, err: "no pact to judge", quiet: true},
	{name: "check with a base git cannot find", args: []string{"check", "--local", demo, "--base", "no-such-rev-anywhere"}, code: 2, err: `--base "no-such-rev-anywhere" is not a commit`, quiet: true},
	{name: "--pact-dir before check", args: []string{"--pact-dir", ".pact", "check", "--local", demo, "--branch", "feat/login"}, code: 2, err: "unknown arguments", quiet: true},

	// doctor, as far as it goes without GitHub.
	{name: "doctor --help", args: []string{"doctor", "--help"}, out: "usage: pact-action doctor"},
	{name: "doctor -h", args: []string{"doctor", "-h"}, out: "usage: pact-action doctor"},
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
