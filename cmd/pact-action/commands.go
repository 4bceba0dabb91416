package main

//go:generate go test -run TestCLIReference -update .

import (
	"context"
	"io"
	"log/slog"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pact-action/pact-action/action"
	"github.com/pact-action/pact-action/internal/cmdline"
	"github.com/pact-action/pact-action/internal/version"
)

// Verbs keep the order of the help text in completion and the CLI
// reference.
func init() { cobra.EnableCommandSorting = false }

// pactDirFlag is the flag check and doctor take, before or after the verb.
const pactDirFlag = "pact-dir"

// verb is one verb of pact-action's command line with everything --help,
// completion and the CLI reference say about it.
type verb struct {
	use, short string
	help       string // what `pact-action <verb> --help` prints
	flags      cmdline.Flags
	usage      map[string]string // a flag's meaning, shown by completion
	choices    map[string][]string
	positional []string // the words completion offers as arguments
	pactDir    bool     // takes --pact-dir
}

var verbs = []verb{
	{use: "check --local DIR", short: "Preview the check on a local checkout, without GitHub.", help: checkHelp,
		flags: localFlags, pactDir: true,
		usage: map[string]string{"local": "the repository to judge (its root)", "base": "the pull request's base: the log is judged against its merge base with HEAD",
			"base-log": "the merge base's log, from a file", "branch": "the pull request's branch (default: the checked-out branch)",
			"fail-on": "which findings fail: error, warning or never", "format": "text, json, sarif or markdown",
			"max-pact-bytes": "what the check may read of the pact, such as 512MiB (default 256MiB)"},
		choices: map[string][]string{"fail-on": {"error", "warning", "never"}, "format": action.LocalFormats}},
	{use: "doctor", short: "Say whether the repository's settings make the pact check a gate.", help: doctorHelp,
		flags: doctorFlags, pactDir: true,
		usage: map[string]string{"repo": "the repository, owner/name (default $GITHUB_REPOSITORY)", "format": "text or json",
			"check-name": "the check's name, as branch protection requires it"},
		choices: map[string][]string{"format": {"text", "json"}}},
	{use: "completion bash|zsh|fish|powershell", short: "Print a shell completion script.", help: completionHelp,
		positional: cmdline.Shells},
	{use: "version", short: "Print the version (as --version does).", help: versionHelp},
	{use: "help [<verb>]", short: "Print the reference, or one verb's usage.", help: helpHelp},
}

// commands is pact-action's command tree for a command line with
// arguments (without any, it is the GitHub Action, which needs no parser).
func commands(stdout, stderr io.Writer, getenv func(string) string, logger *slog.Logger) *cobra.Command {
	root := cmdline.Root("pact-action", "enforce the Pact protocol v1 on pull requests", version.Line("pact-action"),
		"no verb given; name one, such as check or doctor", stdout)
	cmdline.Global(root, pactDirFlag, "the pact directory (default .pact)")
	_ = root.MarkPersistentFlagDirname(pactDirFlag)
	var helpErr error
	root.SetHelpFunc(func(cmd *cobra.Command, _ []string) {
		text := helpText
		if v, ok := lookupVerb(cmd.Name()); ok && cmd != cmd.Root() {
			text = v.help
		}
		if _, err := io.WriteString(stdout, text); err != nil && helpErr == nil {
			helpErr = err
		}
	})
	run := func(ctx context.Context, name string, p cmdline.Args) error {
		switch name {
		case "check":
			if len(p.Positional) != 0 {
				return usagef("unexpected argument %q", p.Positional[0])
			}
			return action.Local(ctx, localOptions(p), stdout, logger)
		case "doctor":
			if len(p.Positional) > 0 {
				return usagef("doctor takes no arguments, got %q", p.Positional)
			}
			return action.Doctor(ctx, doctorOptions(p, getenv), stdout, stderr, logger)
		case "completion":
			if len(p.Positional) != 1 {
				return usagef("usage: pact-action completion bash|zsh|fish|powershell")
			}
			return cmdline.Completion(root, p.Positional[0], stdout)
		case "version":
			if len(p.Positional) > 0 {
				return usagef("version takes no arguments; %q is extra", p.Positional[0])
			}
			_, err := io.WriteString(stdout, version.Line("pact-action"))
			return err
		}
		return helpVerb(root, p)
	}
	for _, v := range verbs {
		cmd := v.command(func(cmd *cobra.Command, name string, p cmdline.Args) error {
			if err := run(cmd.Context(), name, p); err != nil {
				return err
			}
			return helpErr
		})
		root.AddCommand(cmd)
		if cmd.Name() == "help" {
			root.SetHelpCommand(cmd)
		}
	}
	return root
}

// localFlags are the flags of `pact-action check --local` (and the global
// --pact-dir).
var localFlags = cmdline.Flags{"local": cmdline.String, "base": cmdline.String, "base-log": cmdline.String,
	"branch": cmdline.String, "fail-on": cmdline.String, "format": cmdline.String, "max-pact-bytes": cmdline.String}

// localOptions are check's flags over action.LocalDefaults.
func localOptions(p cmdline.Args) action.LocalOptions {
	o := action.LocalDefaults()
	for name, to := range map[string]*string{"local": &o.Root, pactDirFlag: &o.PactDir, "base": &o.Base, "base-log": &o.BaseLog,
		"branch": &o.Branch, "fail-on": &o.FailOn, "format": &o.Format, "max-pact-bytes": &o.MaxPactBytes} {
		if p.Has(name) {
			*to = p.Get(name)
		}
	}
	return o
}

// doctorFlags are the flags of `pact-action doctor` (and the global
// --pact-dir).
var doctorFlags = cmdline.Flags{"repo": cmdline.String, "format": cmdline.String, "check-name": cmdline.String}

// doctorOptions are doctor's flags over what the environment says
// (action.DoctorDefaults).
func doctorOptions(p cmdline.Args, getenv func(string) string) action.DoctorOptions {
	o := action.DoctorDefaults(getenv)
	for name, to := range map[string]*string{"repo": &o.Repo, "format": &o.Format, "check-name": &o.CheckName} {
		if p.Has(name) {
			*to = p.Get(name)
		}
	}
	o.PactDir = p.Get(pactDirFlag)
	return o
}

// command is the cobra command of one verb.
func (v verb) command(run func(cmd *cobra.Command, name string, p cmdline.Args) error) *cobra.Command {
	cmd := &cobra.Command{
		Use:                   v.use,
		Short:                 v.short,
		DisableFlagsInUseLine: true,
		ValidArgs:             v.positional,
		ValidArgsFunction:     cobra.NoFileCompletions,
	}
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		p, err := cmdline.Parsed(cmd, args)
		if err == nil && !v.pactDir {
			err = cmdline.Unused(cmd, pactDirFlag)
		}
		if err != nil {
			return err
		}
		return run(cmd, cmd.Name(), p)
	}
	switch {
	case len(v.positional) > 0:
		cmd.ValidArgsFunction = nil
	case cmd.Name() == "help":
		cmd.ValidArgsFunction = func(_ *cobra.Command, args []string, prefix string) ([]cobra.Completion, cobra.ShellCompDirective) {
			var words []cobra.Completion
			for _, v := range verbs {
				if name := strings.Fields(v.use)[0]; len(args) == 0 && strings.HasPrefix(name, prefix) {
					words = append(words, cobra.CompletionWithDesc(name, v.short))
				}
			}
			return words, cobra.ShellCompDirectiveNoFileComp
		}
	}
	cmdline.Define(cmd, v.flags, v.usage)
	for name, kind := range v.flags {
		switch {
		case name == "local":
			_ = cmd.MarkFlagDirname(name)
		case name == "base-log":
			_ = cmd.MarkFlagFilename(name)
		case kind != cmdline.Bool:
			_ = cmd.RegisterFlagCompletionFunc(name, cobra.FixedCompletions(v.choices[name], cobra.ShellCompDirectiveNoFileComp))
		}
	}
	if cmd.Name() == "check" {
		cmdline.Exclusive(cmd, "base", "base-log")
	}
	return cmd
}

func lookupVerb(name string) (verb, bool) {
	for _, v := range verbs {
		if strings.Fields(v.use)[0] == name {
			return v, true
		}
	}
	return verb{}, false
}

// helpVerb is `pact-action help [<verb>]`.
func helpVerb(root *cobra.Command, p cmdline.Args) error {
	switch len(p.Positional) {
	case 0:
		root.HelpFunc()(root, nil)
		return nil
	case 1:
		for _, cmd := range root.Commands() {
			if cmd.Name() == p.Positional[0] {
				cmd.HelpFunc()(cmd, nil)
				return nil
			}
		}
		return cmdline.UnknownVerb(root, p.Positional[0])
	}
	return usagef("usage: pact-action help [<verb>]")
}

const helpText = `pact-action — enforce the Pact protocol v1 on pull requests

In a GitHub workflow (no arguments, GITHUB_ACTIONS=true): reads the runner
environment and the action's inputs (mode, token, check-name, pact-dir,
fail-on, report-path, max-pact-bytes, bot-login; see action.yml) and runs
check mode or bot mode. Anywhere else, no arguments print this reference.

Local preview, no token needed:
  pact-action check --local DIR [--base REV | --base-log FILE] [--branch NAME]
                    [--pact-dir .pact] [--fail-on error|warning|never]
                    [--format text|json|sarif|markdown] [--max-pact-bytes SIZE]
    Judges DIR's pact as the check would: everything pactify validate judges,
    plus append-only against REV's log (git show REV:<pact-dir>/log.jsonl) and
    Rule 2 for the features on branch NAME (default: DIR's current branch).

Is this repository really protected? (read-only token in GITHUB_TOKEN or GH_TOKEN)
  pact-action doctor [--repo owner/name] [--format text|json] [--check-name pact]
                     [--pact-dir DIR]
    Reads branch protection, rulesets, workflows and .github/pact.yml of the
    default branch and prints one line per probe (✓ ✗ ! ?) with the fix.

Shell completion:
  pact-action completion bash|zsh|fish|powershell

pact-action <verb> --help prints one verb's usage; pact-action version prints
the version. --pact-dir, --help and --version may stand before the verb; every
other flag goes after it.

Exit codes: 0 mergeable (doctor: no ✗); 1 violations (doctor: a ✗);
2 usage or operational error; 4 waiting for reviews (only when no check run
carries the block).
`

const checkHelp = `usage: pact-action check --local DIR [--base REV | --base-log FILE] [--branch NAME]
                         [--pact-dir .pact] [--fail-on error|warning|never]
                         [--format text|json|sarif|markdown] [--max-pact-bytes SIZE]

Local preview, no token needed: judges DIR's pact as the check would —
everything pactify validate judges, plus append-only against the merge
base's log and Rule 2 for the features on the branch.

--local DIR     the repository to judge, at its root
--base REV      the pull request's base, such as main: the log is judged against
                the merge base of REV and HEAD, as the check judges it (a merge
                base without a log is an empty base; while a git merge is
                stopped, that of REV and the merge it will commit)
--base-log FILE
                the merge base's log, from a file; not with --base
--branch NAME   the pull request's branch, whose features must be accepted
                (default: DIR's checked-out branch)
--pact-dir DIR  the pact directory inside DIR (default .pact)
--fail-on WHAT  which findings fail: error (the default), warning or never
--format FORMAT
                text (the default: path:line: code: message, then the tasks of
                the branch and the verdict), json (the action's report), sarif
                (code scanning) or markdown (the check run's summary)
--max-pact-bytes SIZE
                what the check may read of the pact, as the action's
                max-pact-bytes input: bytes or KiB, MiB, GiB (default 256MiB);
                past it the check stops, saying so (exit 2)
-h, --help      print this usage.

Exit codes: 0 mergeable; 1 violations (warnings too under --fail-on warning);
2 usage or operational error; 4 waiting for reviews (on GitHub a check run
carries the wait; here the exit code does). The text output ends with the
exit code and why, when it is not 0.
`

const doctorHelp = `usage: pact-action doctor [--repo owner/name] [--format text|json] [--check-name pact] [--pact-dir DIR]

Reads branch protection, rulesets, workflows and .github/pact.yml of the
default branch with a read-only token (GITHUB_TOKEN or GH_TOKEN) and prints
one line per probe (✓ ✗ ! ?) with the fix. Exit 0: no ✗; 1: a ✗; 2: usage
or API error.

--repo OWNER/NAME
                the repository (default $GITHUB_REPOSITORY)
--format FORMAT
                text (the default) or json
--check-name NAME
                the check's name, as branch protection requires it (default pact)
--pact-dir DIR  the pact directory (default .pact)
-h, --help      print this usage.
`

const completionHelp = `usage: pact-action completion bash|zsh|fish|powershell

Print a shell completion script.

  bash:        source <(pact-action completion bash)   (it needs the bash-completion package)
  zsh:         source <(pact-action completion zsh)
  fish:        pact-action completion fish | source
  powershell:  pact-action completion powershell | Out-String | Invoke-Expression
The scripts ask pact-action itself for the words, so they follow the
pact-action on your PATH.

-h, --help      print this usage.
`

const versionHelp = `usage: pact-action version

Print the version (as --version does).

-h, --help      print this usage.
`

const helpHelp = `usage: pact-action help [<verb>]

Print the reference, or one verb's usage.

-h, --help      print this usage.
`
