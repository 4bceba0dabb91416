package main

import (
	"fmt"
	"sort"
	"strings"

	"github.com/pact-action/pact-action/internal/cmdline"
)

// verbSpec is everything the command line says about one verb: the help
// reference, `pactify <verb> --help`, usage errors and shell completion are
// all drawn from this table, so they cannot disagree.
type verbSpec struct {
	name    string
	args    string // the synopsis after `pactify <name>`
	summary string
	flags   cmdline.Flags
	// choices are the values a flag accepts, offered by completion.
	choices map[string][]string
	// positional are the words completion offers in place of arguments.
	positional []string
	// readsPact is false for verbs that never touch the pact directory,
	// so --pact-dir means nothing to them.
	readsPact bool
}

// pactDirFlag is the flag every pact verb takes (or PACT_DIR); it serves the
// action's pact-dir input.
const pactDirFlag = "pact-dir"

var verbSpecs = []verbSpec{
	{name: "init", args: `--project <name> --seat "<id>:<roles>:<entry>" [--seat ...] [--base-branch main]`,
		summary: "Scaffold the pact directory, bake each seat's entry file, emit the init event.",
		flags:   cmdline.Flags{"project": cmdline.String, "seat": cmdline.Multi, "base-branch": cmdline.String}, readsPact: true},
	{name: "join", args: "<id> --roles <r1,r2>",
		summary: "A seat comes online; its assigned tasks move to in_progress.",
		flags:   cmdline.Flags{"roles": cmdline.String}, readsPact: true},
	{name: "assign", args: "<task_id> --feature <feature_id> --branch <branch_name> --owner <seat_id> --reviewer <seat_id> [--spec <path>]",
		summary: "Emit assign and create tasks/<task_id>.md (Rule 1: owner != reviewer; ids are unique).",
		flags: cmdline.Flags{"feature": cmdline.String, "branch": cmdline.String, "owner": cmdline.String,
			"reviewer": cmdline.String, "spec": cmdline.String}, readsPact: true},
	{name: "checkpoint", args: `<task_id> --evidence "<text>"`,
		summary: "The owner hands the task in for review (in_progress -> awaiting_review).",
		flags:   cmdline.Flags{"evidence": cmdline.String}, readsPact: true},
	{name: "accept", args: "<task_id> [--commit <sha>]",
		summary: "The reviewer accepts it (awaiting_review -> accepted); records git HEAD when in a work tree.",
		flags:   cmdline.Flags{"commit": cmdline.String}, readsPact: true},
	{name: "changes", args: `<task_id> --reason "<text>"`,
		summary: "The reviewer requests changes (awaiting_review -> in_progress).",
		flags:   cmdline.Flags{"reason": cmdline.String}, readsPact: true},
	{name: "merge", args: "<feature_id>",
		summary: "Ship a feature (Rule 2: every task accepted).",
		flags:   cmdline.Flags{}, readsPact: true},
	{name: "status", summary: "Print STATE.yml.", flags: cmdline.Flags{}, readsPact: true},
	{name: "log", args: "[--replay]",
		summary: "Print log.jsonl, or with --replay rebuild STATE.yml from it.",
		flags:   cmdline.Flags{"replay": cmdline.Bool}, readsPact: true},
	{name: "validate", args: "[--format text|json|sarif]",
		summary: "Check the pact (spec §7.1 checks a-g and more).",
		flags:   cmdline.Flags{"format": cmdline.String},
		choices: map[string][]string{"format": {"text", "json", "sarif"}}, readsPact: true},
	{name: "completion", args: "bash|zsh|fish",
		summary:    "Print a shell completion script (see `pactify completion --help`).",
		flags:      cmdline.Flags{},
		positional: []string{"bash", "zsh", "fish"}},
	{name: "help", args: "[<verb>]", summary: "Print this reference, or one verb's usage.", flags: cmdline.Flags{}},
}

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
func (v verbSpec) allFlags() cmdline.Flags {
	all := cmdline.Flags{}
	for name, kind := range v.flags {
		all[name] = kind
	}
	if v.readsPact {
		all[pactDirFlag] = cmdline.String
	}
	return all
}

// flagNames lists the verb's flags (with --pact-dir and --help) sorted, for
// completion.
func (v verbSpec) flagNames() []string {
	var names []string
	for name := range v.allFlags() {
		names = append(names, name)
	}
	names = append(names, "help")
	sort.Strings(names)
	return names
}

func (v verbSpec) synopsis() string {
	return strings.TrimSpace("pactify " + v.name + " " + v.args)
}

// usageError is the usage line of a verb called with the wrong arguments.
func (v verbSpec) usageError() error { return usagef("usage: %s", v.synopsis()) }

// usageOf is the usage error of a verb called with the wrong arguments.
func usageOf(verb string) error {
	spec, _ := lookupVerb(verb)
	return spec.usageError()
}

// help is what `pactify <verb> --help` prints.
func (v verbSpec) help() string {
	var b strings.Builder
	fmt.Fprintf(&b, "usage: %s\n\n%s\n", v.synopsis(), v.summary)
	if v.name == "completion" {
		b.WriteString(completionHelp)
	}
	if v.readsPact {
		b.WriteString("\n--pact-dir DIR  the pact directory (default .pact, or $PACT_DIR), relative to the\n                working directory, which is the repository root for entry files.\n")
	}
	b.WriteString("-h, --help      print this usage.\n")
	return b.String()
}

// helpText is the whole reference: `pactify help`.
var helpText = renderHelp()

func renderHelp() string {
	var b strings.Builder
	b.WriteString(`pactify — the Pact protocol v1 command line

Every verb works on the pact directory of the working directory: .pact, or
--pact-dir DIR, or $PACT_DIR (the flag wins). Writing verbs need
PACT_AGENT_ID set to the acting seat; a refused verb writes nothing.

`)
	for _, v := range verbSpecs {
		line := "  " + v.name
		if v.args != "" {
			line = fmt.Sprintf("  %-6s %s", v.name, v.args)
		}
		fmt.Fprintf(&b, "%s\n         %s\n", line, v.summary)
	}
	b.WriteString(`
pactify <verb> --help prints one verb's usage; pactify --version prints the version.

Exit codes: 0 ok; 1 refused, or validate found an error; 2 usage or I/O error;
3 the log needs a newer protocol version (upgrade pactify).
`)
	return b.String()
}
