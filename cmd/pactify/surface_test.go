package main

import (
	"strings"
	"testing"
)

// surfaceCase is one command line of pactify's public surface and what it
// does: the exit code and a piece of what it prints.
type surfaceCase struct {
	name  string
	tmpl  string // the starting point (template); "" is "pact"
	agent string // PACT_AGENT_ID; "" is unset
	args  []string
	code  int
	out   string // a substring of stdout ("" asserts nothing)
	err   string // a substring of stderr ("" asserts stderr is empty)
	quiet bool   // stdout must be empty
}

// surface is the whole command line as users and scripts see it: every
// verb, every way of giving a flag, and what goes wrong how. It was written
// against the hand-made parser before the move to cobra, so the move keeps
// what it shows; rows that say "was" changed on purpose (issue 16).
var surface = []surfaceCase{
	// The reference, the version, and no verb.
	{name: "no verb", args: nil, out: "pactify — the Pact protocol v1 command line"}, // was exit 2, no verb given
	{name: "version", args: []string{"version"}, out: "pactify "},
	{name: "version with an argument", args: []string{"version", "x"}, code: 2, err: `version takes no arguments; "x" is extra`, quiet: true},
	{name: "version takes no --pact-dir", args: []string{"version", "--pact-dir", "x"}, code: 2, err: "version does not take the flag --pact-dir", quiet: true},
	{name: "help", args: []string{"help"}, out: "pactify — the Pact protocol v1 command line"},
	{name: "--help", args: []string{"--help"}, out: "pactify — the Pact protocol v1 command line"},
	{name: "-h", args: []string{"-h"}, out: "pactify — the Pact protocol v1 command line"},
	{name: "help of a verb", args: []string{"help", "validate"}, out: "usage: pactify validate [--format text|json|sarif]"},
	{name: "help of an unknown verb", args: []string{"help", "nope"}, code: 2, err: `unknown verb "nope"`, quiet: true},
	{name: "help of two verbs", args: []string{"help", "a", "b"}, code: 2, err: "usage: pactify help [<verb>]", quiet: true},
	{name: "help takes no --pact-dir", args: []string{"help", "--pact-dir", "x"}, code: 2, err: "help does not take the flag --pact-dir"},
	{name: "--version", args: []string{"--version"}, out: "pactify "},
	{name: "--version with a verb", args: []string{"--version", "validate"}, code: 2, err: "pactify: ", quiet: true},
	{name: "a verb with --version", args: []string{"validate", "--version"}, code: 2, err: "validate does not take the flag --version", quiet: true},
	{name: "unknown verb", args: []string{"frobnicate"}, code: 2, err: `unknown verb "frobnicate"`, quiet: true},
	{name: "a misspelt verb", args: []string{"valdate"}, code: 2, err: `unknown verb "valdate"; did you mean validate?`, quiet: true},                                      // was no suggestion
	{name: "a misspelt verb before its flags", args: []string{"valdate", "--format", "json"}, code: 2, err: `unknown verb "valdate"; did you mean validate?`, quiet: true}, // was unknown flag --format
	{name: "a misspelt verb after --pact-dir", args: []string{"--pact-dir", ".pact", "stauts"}, code: 2, err: `unknown verb "stauts"; did you mean status?`, quiet: true},
	{name: "a verb's flag before the verb", args: []string{"--format", "json", "validate"}, code: 2, err: "--format is a flag of validate: write it after the verb (pactify validate --format …); only --pact-dir, --help and --version may come before the verb", quiet: true}, // was accepted, undocumented
	{name: "a verb's switch before the verb", args: []string{"--replay", "log"}, code: 2, err: "--replay is a flag of log: write it after the verb", quiet: true},                                                                                                               // was unknown flag --replay
	{name: "help of a misspelt verb", args: []string{"help", "acept"}, code: 2, err: `unknown verb "acept"; did you mean accept?`, quiet: true},
	{name: "an unknown flag before any verb", args: []string{"--nope"}, code: 2, err: "--nope", quiet: true},

	// Flags: --flag value, --flag=value, -flag value, repeated, missing.
	{name: "validate", args: []string{"validate"}, out: "valid: 0 errors, 0 warnings"},
	{name: "--format value", args: []string{"validate", "--format", "json"}, out: `"valid": true`},
	{name: "--format=value", args: []string{"validate", "--format=json"}, out: `"valid": true`},
	{name: "-format value", args: []string{"validate", "-format", "json"}, out: `"valid": true`},
	{name: "-format=value", args: []string{"validate", "-format=json"}, out: `"valid": true`},
	{name: "flags before the verb's arguments", args: []string{"validate", "--pact-dir", ".pact", "--format", "sarif"}, out: `"version": "2.1.0"`},
	{name: "--pact-dir before the verb", args: []string{"--pact-dir", ".pact", "validate"}, out: "valid: 0 errors, 0 warnings"}, // was unknown verb "--pact-dir"
	{name: "--pact-dir=dir before the verb", args: []string{"--pact-dir=nowhere", "status"}, code: 2, err: "run `pactify init` first", quiet: true},
	{name: "--pact-dir and no verb", args: []string{"--pact-dir", ".pact"}, code: 2, err: "no verb given", quiet: true},
	{name: "-pact-dir", args: []string{"status", "-pact-dir", ".pact"}, out: "project: demo"},
	{name: "--pact-dir=", args: []string{"status", "--pact-dir="}, code: 2, err: "--pact-dir needs a directory", quiet: true},
	{name: "a flag given twice", args: []string{"validate", "--format", "json", "--format", "text"}, code: 2, err: "--format is given twice", quiet: true},
	{name: "a flag without its value", args: []string{"validate", "--format"}, code: 2, err: "--format needs a value", quiet: true},
	{name: "an empty value is the default", args: []string{"validate", "--format="}, out: "valid: 0 errors, 0 warnings"},
	{name: "an unknown format", args: []string{"validate", "--format", "xml"}, code: 2, err: "--format must be text, json or sarif", quiet: true},
	{name: "an unknown flag", args: []string{"validate", "--nope"}, code: 2, err: "validate does not take the flag --nope", quiet: true},
	{name: "an unknown shorthand", args: []string{"validate", "-f", "json"}, code: 2, err: "validate does not take the flag -f\n", quiet: true}, // was --f
	{name: "a misspelt flag", args: []string{"validate", "--fromat", "json"}, code: 2, err: "validate does not take the flag --fromat; did you mean --format?", quiet: true},
	{name: "a positional", args: []string{"validate", "x"}, code: 2, err: `validate takes no arguments; "x" is extra (usage: pactify validate`, quiet: true},
	{name: "-- ends the flags", args: []string{"validate", "--", "--format"}, code: 2, err: `validate takes no arguments; "--format" is extra`, quiet: true},
	{name: "-h before a bad flag", args: []string{"validate", "-h", "--nope"}, out: "usage: pactify validate"},
	{name: "-h after a bad flag", args: []string{"validate", "--nope", "-h"}, code: 2, err: "validate does not take the flag --nope", quiet: true},
	{name: "--help=value", args: []string{"validate", "--help=x"}, code: 2, err: "--help", quiet: true},
	{name: "a switch with a value", args: []string{"log", "--replay=yes"}, code: 2, err: "--replay takes no value", quiet: true},
	{name: "a switch with true", args: []string{"log", "--replay=true"}, code: 2, err: "--replay takes no value", quiet: true},
	{name: "a switch twice", args: []string{"log", "--replay", "--replay"}, code: 1, err: "PACT_AGENT_ID is not set", quiet: true},
	{name: "a value that looks like a flag", args: []string{"changes", "T1", "--reason", "-h"}, code: 1, err: "PACT_AGENT_ID is not set", quiet: true},
	{name: "a lone dash is an argument", args: []string{"accept", "-"}, code: 1, err: "PACT_AGENT_ID is not set", quiet: true},
	{name: "--commit without a value", args: []string{"accept", "T1", "--commit"}, code: 2, err: "--commit needs a value", quiet: true},
	{name: "merge with a flag", args: []string{"merge", "F3", "--yes"}, code: 2, err: "merge does not take the flag --yes", quiet: true},
	{name: "a repeatable flag keeps its order", tmpl: "empty", agent: "orch",
		args: []string{"init", "--project", "x", "--seat", "orch:orchestrator,reviewer:A.md", "--seat", "dev:worker:A.md"}, out: "seats: orch, dev"},

	// Every verb's usage error, and the verbs that read the pact.
	{name: "status", args: []string{"status"}, out: "project: demo"},
	{name: "log", args: []string{"log"}, out: `"event_type":"init"`},
	{name: "log --replay", agent: "orch", args: []string{"log", "--replay"}, out: "rebuilt from"},
	{name: "status with no pact", tmpl: "empty", args: []string{"status"}, code: 2, err: "run `pactify init` first", quiet: true},
	{name: "init without a roster", args: []string{"init", "--project", "x"}, code: 2, err: "init needs --seat ID:ROLES:ENTRY (usage: pactify init", quiet: true},
	{name: "init without anything", args: []string{"init"}, code: 2, err: "init needs --project NAME and --seat ID:ROLES:ENTRY", quiet: true},
	{name: "join without --roles", args: []string{"join", "alice"}, code: 2, err: "join needs --roles ROLES (usage: pactify join", quiet: true},
	{name: "assign without --owner", args: []string{"assign", "T9", "--feature", "F", "--branch", "b", "--reviewer", "bob"}, code: 2, err: "assign needs --owner SEAT (usage: pactify assign", quiet: true},
	{name: "assign without two", args: []string{"assign", "T9", "--feature", "F", "--branch", "b"}, code: 2, err: "assign needs --owner SEAT and --reviewer SEAT", quiet: true},
	{name: "checkpoint without --evidence", args: []string{"checkpoint", "T3"}, code: 2, err: "checkpoint needs --evidence TEXT (usage: pactify checkpoint", quiet: true},
	{name: "accept without a task", args: []string{"accept"}, code: 2, err: "accept needs <task_id> (usage: pactify accept <task_id> [--commit <sha>])", quiet: true}, // was the usage line alone
	{name: "accept with two tasks", args: []string{"accept", "T1", "T2"}, code: 2, err: `accept takes one argument, <task_id>; "T2" is extra`, quiet: true},
	{name: "changes without --reason", args: []string{"changes", "T1"}, code: 2, err: "changes needs --reason TEXT (usage: pactify changes", quiet: true},
	{name: "merge without a feature", args: []string{"merge"}, code: 2, err: "merge needs <feature_id> (usage: pactify merge", quiet: true},
	{name: "status with an argument", args: []string{"status", "x"}, code: 2, err: `status takes no arguments; "x" is extra (usage: pactify status`, quiet: true},
	{name: "log with arguments", args: []string{"log", "x", "y"}, code: 2, err: `log takes no arguments; "x" and "y" are extra (usage: pactify log`, quiet: true},

	// Shell completion.
	{name: "completion bash", args: []string{"completion", "bash"}, out: "pactify"},
	{name: "completion zsh", args: []string{"completion", "zsh"}, out: "#compdef pactify"},
	{name: "completion fish", args: []string{"completion", "fish"}, out: "complete -c pactify"},
	{name: "completion powershell", args: []string{"completion", "powershell"}, out: "Register-ArgumentCompleter"}, // was exit 2
	{name: "completion of an unknown shell", args: []string{"completion", "tcsh"}, code: 2, err: `"tcsh"`, quiet: true},
	{name: "completion without a shell", args: []string{"completion"}, code: 2, err: "completion needs bash|zsh|fish|powershell (usage: pactify completion bash|zsh|fish", quiet: true},
	{name: "completion of two shells", args: []string{"completion", "bash", "zsh"}, code: 2, err: "usage: pactify completion", quiet: true},
	{name: "completion takes no --pact-dir", args: []string{"completion", "--pact-dir", "x", "bash"}, code: 2, err: "completion does not take the flag --pact-dir", quiet: true},
}

// TestSurface runs every row of surface on the built binary.
func TestSurface(t *testing.T) {
	t.Parallel()
	for _, c := range surface {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			p := newProject(t)
			tmpl := c.tmpl
			if tmpl == "" {
				tmpl = "pact"
			}
			copyTree(t, template(t, tmpl), p.dir)
			agent := c.agent
			if agent == "" {
				agent = unset
			}
			r := p.run(agent, c.args...)
			if r.code != c.code {
				t.Fatalf("want exit %d\n%s", c.code, r)
			}
			if !strings.Contains(r.stdout, c.out) || c.quiet && r.stdout != "" {
				t.Errorf("stdout should contain %q (quiet: %v)\n%s", c.out, c.quiet, r)
			}
			if c.err == "" && r.stderr != "" || !strings.Contains(r.stderr, c.err) {
				t.Errorf("stderr should contain %q\n%s", c.err, r)
			}
		})
	}
}
