package main

import (
	"fmt"
	"strings"

	"github.com/pact-action/pact-action/internal/cmdline"
)

// verbSpec is everything the command line says about one verb: its cobra
// command, the help reference, `pactify <verb> --help`, usage errors, the
// CLI reference in docs/cli and shell completion are all drawn from this
// table, so they cannot disagree.
type verbSpec struct {
	name    string
	args    string // the synopsis after `pactify <name>`
	summary string
	flags   []flagSpec
	// operands are the arguments the verb needs, in order, as the synopsis
	// names them; it takes no others.
	operands []string
	// positional are the words completion offers in place of arguments.
	positional []string
	// readsPact is false for verbs that never touch the pact directory,
	// so --pact-dir means nothing to them.
	readsPact bool
}

// flagSpec is one flag of a verb: how it takes its value, the value's name
// and what it means (both shown by --help and completion), and the values
// it accepts, when they are few.
type flagSpec struct {
	name    string
	kind    cmdline.Kind
	value   string // "" for a switch
	text    string
	choices []string
	// required: the verb cannot run without it.
	required bool
}

// pactDirFlag is the flag every pact verb takes (or PACT_DIR); it serves the
// action's pact-dir input.
const pactDirFlag = "pact-dir"

var verbSpecs = []verbSpec{
	{name: "init", args: `--project <name> --seat "<id>:<roles>:<entry>" [--seat ...] [--base-branch main]`,
		summary: "Scaffold the pact directory, bake each seat's entry file, emit the init event.",
		flags: []flagSpec{
			{name: "project", kind: cmdline.String, value: "NAME", text: "the project's name", required: true},
			{name: "seat", kind: cmdline.Multi, value: "ID:ROLES:ENTRY", text: "a seat: its id, its roles (comma-separated) and its entry file; one --seat per seat", required: true},
			{name: "base-branch", kind: cmdline.String, value: "BRANCH", text: "the branch features merge into (default main)"},
		}, readsPact: true},
	{name: "join", args: "<id> --roles <r1,r2>", operands: []string{"<id>"},
		summary: "A seat comes online; its assigned tasks move to in_progress.",
		flags:   []flagSpec{{name: "roles", kind: cmdline.String, value: "ROLES", text: "the roles the seat takes up, comma-separated", required: true}}, readsPact: true},
	{name: "assign", operands: []string{"<task_id>"}, args: "<task_id> --feature <feature_id> --branch <branch_name> --owner <seat_id> --reviewer <seat_id> [--spec <path>]",
		summary: "Emit assign and create tasks/<task_id>.md (Rule 1: owner != reviewer; ids are unique).",
		flags: []flagSpec{
			{name: "feature", kind: cmdline.String, value: "FEATURE", text: "the feature the task is part of", required: true},
			{name: "branch", kind: cmdline.String, value: "BRANCH", text: "the branch the task's work is done on", required: true},
			{name: "owner", kind: cmdline.String, value: "SEAT", text: "the seat that does the work", required: true},
			{name: "reviewer", kind: cmdline.String, value: "SEAT", text: "the seat that reviews it, never the owner (Rule 1)", required: true},
			{name: "spec", kind: cmdline.String, value: "PATH", text: "the task's spec (default <pact-dir>/tasks/<task_id>.md)"},
		}, readsPact: true},
	{name: "checkpoint", operands: []string{"<task_id>"}, args: `<task_id> --evidence "<text>"`,
		summary: "The owner hands the task in for review (in_progress -> awaiting_review).",
		flags:   []flagSpec{{name: "evidence", kind: cmdline.String, value: "TEXT", text: "what shows the work is ready for review", required: true}}, readsPact: true},
	{name: "accept", operands: []string{"<task_id>"}, args: "<task_id> [--commit <sha>]",
		summary: "The reviewer accepts it (awaiting_review -> accepted); records git HEAD when in a work tree.",
		flags:   []flagSpec{{name: "commit", kind: cmdline.String, value: "SHA", text: "the commit that was reviewed (default: git HEAD, in a work tree)"}}, readsPact: true},
	{name: "changes", operands: []string{"<task_id>"}, args: `<task_id> --reason "<text>"`,
		summary: "The reviewer requests changes (awaiting_review -> in_progress).",
		flags:   []flagSpec{{name: "reason", kind: cmdline.String, value: "TEXT", text: "what has to change", required: true}}, readsPact: true},
	{name: "merge", args: "<feature_id>", operands: []string{"<feature_id>"},
		summary: "Ship a feature (Rule 2: every task accepted).", readsPact: true},
	{name: "status", summary: "Print STATE.yml.", readsPact: true},
	{name: "log", args: "[--replay [--task-files]]",
		summary: "Print log.jsonl, or with --replay rebuild STATE.yml from it.",
		flags: []flagSpec{{name: "replay", kind: cmdline.Bool, text: "rebuild STATE.yml from the log instead of printing the log"},
			{name: "task-files", kind: cmdline.Bool, text: "with --replay, also write each task file's front matter from the log,\nkeeping its body (a missing task file is created)"}}, readsPact: true},
	{name: "validate", args: "[--format text|json|sarif] [--task-files]",
		summary: "Check the pact (spec §7.1 checks a-g and more).",
		flags: []flagSpec{{name: "format", kind: cmdline.String, value: "FORMAT", text: "text (the default: path:line: code: message), json or sarif",
			choices: []string{"text", "json", "sarif"}},
			{name: "task-files", kind: cmdline.Bool, text: "also read every task file and judge its front matter against the log\n(taskfile.mismatch); without it tasks/ is only listed"}}, readsPact: true},
	{name: "resolve",
		summary: "Finish a merge, rebase or cherry-pick stopped on conflicts in the pact: write the merged log and STATE.yml, and stage them.", readsPact: true},
	{name: "install", args: "[--local]",
		summary: "Set pactify up as git's merge driver of the pact's log and STATE.yml, in your git configuration.",
		flags:   []flagSpec{{name: "local", kind: cmdline.Bool, text: "in this repository's configuration only"}}},
	{name: "merge-driver", args: "<base> <ours> <theirs> <path> [--marker-size N] [--base-label L] [--ours-label L] [--theirs-label L]",
		operands: []string{"<base>", "<ours>", "<theirs>", "<path>"},
		summary:  "git's merge driver of the log and STATE.yml (git runs it; pactify install sets it up).",
		flags: []flagSpec{
			{name: "marker-size", kind: cmdline.String, value: "N", text: "the conflict marker size git passes (%L)"},
			{name: "base-label", kind: cmdline.String, value: "LABEL", text: "how git names the common ancestor (%S, git 2.44 and later)"},
			{name: "ours-label", kind: cmdline.String, value: "LABEL", text: "how git names our side (%X)"},
			{name: "theirs-label", kind: cmdline.String, value: "LABEL", text: "how git names the other side (%Y)"},
		}},
	{name: "completion", args: "bash|zsh|fish|powershell",
		summary:    "Print a shell completion script (see `pactify completion --help`).",
		operands:   []string{"bash|zsh|fish|powershell"},
		positional: cmdline.Shells},
	{name: "version", summary: "Print the version (as --version does)."},
	{name: "help", args: "[<verb>]", summary: "Print this reference, or one verb's usage."},
}

// pactDirHelp is --pact-dir's line of every pact verb's --help.
var pactDirHelp = flagSpec{name: pactDirFlag, kind: cmdline.String, value: "DIR",
	text: "the pact directory (default .pact, or $PACT_DIR), relative to the\nworking directory, which is the repository root for entry files."}

func lookupVerb(name string) (verbSpec, bool) {
	for _, v := range verbSpecs {
		if v.name == name {
			return v, true
		}
	}
	return verbSpec{}, false
}

// allFlags is the verb's own flags plus --pact-dir for verbs that read the
// pact.
func (v verbSpec) allFlags() []flagSpec {
	if v.readsPact {
		return append(append([]flagSpec{}, v.flags...), pactDirHelp)
	}
	return v.flags
}

func (v verbSpec) synopsis() string {
	return strings.TrimSpace("pactify " + v.name + " " + v.args)
}

// usageError is the usage line of a verb called with the wrong arguments.
func (v verbSpec) usageError() error { return usagef("usage: %s", v.synopsis()) }

// checkArgs says what is wrong with a command line that gives the verb
// too few or too many arguments, or leaves out a flag it needs: the
// argument or flag by name, then the usage line.
func (v verbSpec) checkArgs(p cmdline.Args) error {
	var problem string
	switch n := len(p.Positional); {
	case n < len(v.operands):
		problem = fmt.Sprintf("%s needs %s", v.name, strings.Join(v.operands[n:], " "))
	case n > len(v.operands) && len(v.operands) == 0:
		problem = fmt.Sprintf("%s takes no arguments; %s", v.name, extra(p.Positional))
	case n > len(v.operands):
		problem = fmt.Sprintf("%s takes one argument, %s; %s", v.name, v.operands[0], extra(p.Positional[len(v.operands):]))
	default:
		var missing []string
		for _, f := range v.flags {
			if f.required && !p.Has(f.name) {
				missing = append(missing, "--"+f.name+" "+f.value)
			}
		}
		if len(missing) == 0 {
			return nil
		}
		problem = fmt.Sprintf("%s needs %s", v.name, joinAnd(missing))
	}
	return usagef("%s (usage: %s)", problem, v.synopsis())
}

// extra names the arguments too many, quoted so an empty or spaced one
// shows.
func extra(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = fmt.Sprintf("%q", w)
	}
	if len(q) == 1 {
		return q[0] + " is extra"
	}
	return joinAnd(q) + " are extra"
}

// joinAnd joins words as a sentence does: "a", "a and b", "a, b and c".
func joinAnd(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}

// usageOf is the usage error of a verb called with the wrong arguments.
func usageOf(verb string) error {
	spec, _ := lookupVerb(verb)
	return spec.usageError()
}

// help is what `pactify <verb> --help` prints: the synopsis, the summary
// and one entry per flag.
func (v verbSpec) help() string {
	var b strings.Builder
	fmt.Fprintf(&b, "usage: %s\n\n%s\n", v.synopsis(), v.summary)
	if v.name == "completion" {
		b.WriteString(completionHelp)
	}
	b.WriteString("\n")
	for _, f := range v.allFlags() {
		writeFlagHelp(&b, "--"+strings.TrimSpace(f.name+" "+f.value), f.text)
	}
	writeFlagHelp(&b, "-h, --help", "print this usage.")
	return b.String()
}

// writeFlagHelp writes a flag and its meaning in two columns, the meaning
// under the flag when the flag is too wide for its column.
func writeFlagHelp(b *strings.Builder, flag, text string) {
	const column = 16
	lines := strings.Split(text, "\n")
	if len(flag) >= column-1 {
		fmt.Fprintf(b, "%s\n", flag)
		flag = ""
	}
	for i, l := range lines {
		if i > 0 {
			flag = ""
		}
		fmt.Fprintf(b, "%-*s%s\n", column, flag, l)
	}
}

// helpText is the whole reference: `pactify help`.
var helpText = renderHelp()

func renderHelp() string {
	var b strings.Builder
	b.WriteString(`pactify — the Pact protocol v1 command line

Every verb works on the pact: the nearest directory holding .pact, from the
working directory up to the repository's root (as git finds its
repository), or --pact-dir DIR, or $PACT_DIR (the flag wins), relative to
the working directory. Writing verbs need PACT_AGENT_ID set to the acting
seat; a refused verb writes nothing.

`)
	for _, v := range verbSpecs {
		line := "  " + v.name
		if v.args != "" {
			line = fmt.Sprintf("  %-6s %s", v.name, v.args)
		}
		fmt.Fprintf(&b, "%s\n         %s\n", line, v.summary)
	}
	b.WriteString(`
pactify <verb> --help prints one verb's usage; pactify with no arguments prints
this reference. --pact-dir, --help and --version may stand before the verb;
every other flag goes after it.

Exit codes: 0 ok; 1 refused, or validate found an error; 2 usage or I/O error;
3 the log needs a newer protocol version (upgrade pactify); 130 a writer (or
resolve) was interrupted (Ctrl-C) before it wrote anything.
`)
	return b.String()
}
