package main

//go:generate go test -run TestCLIReference -update .

import (
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pact-action/pact-action/internal/cmdline"
	"github.com/pact-action/pact-action/internal/version"
)

// Verbs keep the protocol's order (init, join, assign, …) in completion
// and the CLI reference, as in the help text.
func init() { cobra.EnableCommandSorting = false }

// commands is pactify's command tree: one cobra command per row of
// verbSpecs, each with that row's flags, help and completion, under a root
// that takes --version and turns anything else into a usage error.
// --pact-dir is global, so it may stand before the verb too.
func (c *cli) commands() *cobra.Command {
	root := cmdline.Root("pactify", "the Pact protocol v1 command line", version.Line("pactify"), "no verb given", c.stdout)
	cmdline.Global(root, pactDirFlag, strings.ReplaceAll(pactDirHelp.text, "\n", " "))
	_ = root.MarkPersistentFlagDirname(pactDirFlag)
	root.SetHelpFunc(c.help)
	for _, v := range verbSpecs {
		cmd := c.command(v)
		root.AddCommand(cmd)
		if v.name == "help" {
			root.SetHelpCommand(cmd)
		}
	}
	return root
}

// command is the cobra command of one verb.
func (c *cli) command(v verbSpec) *cobra.Command {
	cmd := &cobra.Command{
		Use:                   strings.TrimSpace(v.name + " " + v.args),
		Short:                 v.summary,
		DisableFlagsInUseLine: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := cmdline.Parsed(cmd, args)
			if err == nil && !v.readsPact {
				err = cmdline.Unused(cmd, pactDirFlag)
			}
			if err == nil && v.name != "help" {
				err = v.checkArgs(p)
			}
			switch {
			case err != nil:
				return err
			case v.name == "version":
				_, err = io.WriteString(c.stdout, version.Line("pactify"))
				return err
			}
			return c.runVerb(v.name, p)
		},
		ValidArgsFunction: cobra.NoFileCompletions,
	}
	switch {
	case v.name == "help":
		cmd.ValidArgsFunction = func(_ *cobra.Command, args []string, prefix string) ([]cobra.Completion, cobra.ShellCompDirective) {
			var words []cobra.Completion
			for _, v := range verbSpecs {
				if len(args) == 0 && strings.HasPrefix(v.name, prefix) {
					words = append(words, cobra.CompletionWithDesc(v.name, v.summary))
				}
			}
			return words, cobra.ShellCompDirectiveNoFileComp
		}
	case len(v.positional) > 0:
		cmd.ValidArgsFunction = nil
		cmd.ValidArgs = v.positional
	}
	flags, usage := cmdline.Flags{}, map[string]string{}
	for _, f := range v.flags {
		flags[f.name], usage[f.name] = f.kind, f.text
	}
	cmdline.Define(cmd, flags, usage)
	for _, f := range v.flags {
		if f.kind != cmdline.Bool {
			_ = cmd.RegisterFlagCompletionFunc(f.name, cobra.FixedCompletions(f.choices, cobra.ShellCompDirectiveNoFileComp))
		}
	}
	return cmd
}

// help is every command's --help: the reference for pactify itself, the
// verb's usage for a verb.
func (c *cli) help(cmd *cobra.Command, _ []string) {
	text := helpText
	if spec, ok := lookupVerb(cmd.Name()); ok && cmd != cmd.Root() {
		text = spec.help()
	}
	if _, err := io.WriteString(c.stdout, text); err != nil && c.helpErr == nil {
		c.helpErr = err
	}
}
